extension ImageFormat {
    /// The format the leading bytes announce, or ``unknown``. Only the signature is checked;
    /// it tells an image from an HTML error page before anything is cached. A HEIF file is
    /// AVIF or HEIC by the brands of its `ftyp` box, as the decoder tells them apart.
    public init(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(64))
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
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if starts(Array("BM".utf8)) && head.count >= 26 {
            self = .bmp
        } else if starts([0, 0, 1, 0]) && head.count >= 22 && head[4] | head[5] != 0 && head[9] == 0 {
            // An icon directory: reserved 0, type 1, entries, the first entry's reserved byte 0.
            self = .ico
        } else if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            // A JPEG XL codestream, or the container's signature box.
            self = .jxl
        } else if starts(Array("ftyp".utf8), at: 4) {
            self = Self.heifFamily(brands: Self.brands(inFileTypeBox: head))
        } else if Self.startsWithSVGElement(bytes.prefix(4096)) {
            self = .svg
        } else {
            self = .unknown
        }
    }

    /// Whether the first element is `<svg`, after a byte-order mark, white space, an XML
    /// declaration, comments and a document type.
    private static func startsWithSVGElement(_ head: some Collection<UInt8>) -> Bool {
        var rest = Array(head)[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        while true {
            rest = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            let skipped: ArraySlice<UInt8>?
            if rest.starts(with: Array("<?".utf8)) {
                skipped = after(Array("?>".utf8), in: rest)
            } else if rest.starts(with: Array("<!--".utf8)) {
                skipped = after(Array("-->".utf8), in: rest)
            } else if rest.starts(with: Array("<!DOCTYPE".utf8)) || rest.starts(with: Array("<!doctype".utf8)) {
                // A document type with an internal subset (`[<!ENTITY ...>]`) ends at `]>`.
                let bracket = rest.firstIndex(of: UInt8(ascii: "[")), close = rest.firstIndex(of: UInt8(ascii: ">"))
                let hasSubset = bracket != nil && (close == nil || bracket! < close!)
                skipped = after(Array((hasSubset ? "]>" : ">").utf8), in: rest)
            } else {
                break
            }
            guard let skipped else { return false }
            rest = skipped
        }
        guard rest.starts(with: Array("<svg".utf8)), let next = rest.dropFirst(4).first else { return false }
        return [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(next)
    }

    private static func after(_ marker: [UInt8], in bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var index = bytes.startIndex
        while index + marker.count <= bytes.endIndex {
            if bytes[index..<(index + marker.count)].elementsEqual(marker) { return bytes[(index + marker.count)...] }
            index += 1
        }
        return nil
    }

    /// The major brand, then the compatible brands that fit in `head`.
    private static func brands(inFileTypeBox head: [UInt8]) -> [String] {
        guard head.count >= 12 else { return [] }
        let boxSize = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let end = min(head.count, max(12, boxSize))
        let brandOffsets = [8] + Array(stride(from: 16, to: end - 3, by: 4))
        return brandOffsets.map { String(decoding: head[$0..<($0 + 4)], as: UTF8.self) }
    }

    private static func heifFamily(brands: [String]) -> ImageFormat {
        let brands = Set(brands)
        if !brands.isDisjoint(with: ["avif", "avis"]) { return .avif }
        if !brands.isDisjoint(with: ["heic", "heix", "heim", "heis", "hevc", "hevx"]) { return .heif }
        // Generic HEIF brands alone: the decoder treats the file as AVIF too.
        if !brands.isDisjoint(with: ["mif1", "msf1"]) { return .avif }
        return .unknown
    }
}
