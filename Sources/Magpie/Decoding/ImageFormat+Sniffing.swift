extension ImageFormat {
    /// The format the leading bytes announce, or ``unknown``. Only the signature is checked;
    /// it tells an image from an HTML error page before anything is cached.
    public init(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(16))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<(offset + signature.count)]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4) {
            let brand = String(decoding: head.count >= 12 ? head[8..<12] : [], as: UTF8.self)
            let heifBrands: Set = ["avif", "avis", "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
            self = heifBrands.contains(brand) ? .heif : .unknown
        } else {
            self = .unknown
        }
    }
}
