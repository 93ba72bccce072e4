import CMagpieVips

/// The image formats Magpie knows, and everything it knows about each: how to recognise their
/// bytes (``init(sniffing:)``), their media type and file extensions, and whether Magpie
/// decodes, writes and animates them. The encoder, the command line and the proxy's format
/// negotiation all ask this type, so adding a format means adding it here and to the C shim.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, webp
    /// AV1-coded HEIF.
    case avif
    case gif
    /// HEVC-coded HEIF (HEIC, as phones write it).
    case heif
    /// TIFF, its first page; written lossless (Deflate).
    case tiff
    /// Windows bitmap: 24 bits a pixel when opaque, 32 with alpha.
    case bmp
    /// Windows icon: its largest entry is read; written as one PNG entry of at most 256 x 256.
    case ico
    /// JPEG XL, its first frame; read and written with the system's libjxl.
    case jxl
    /// Scalable Vector Graphics, rendered by libvips' librsvg at its intrinsic size (or scaled
    /// as a vector to a thumbnail's box); never written. librsvg runs no scripts and, given bytes
    /// rather than a file, follows no reference outside the document; the declared size is held
    /// to the pixel limit before anything is drawn. `magpie proxy` passes it through sanitised
    /// unless a raster format is asked for.
    case svg
    /// Bytes in no format Magpie recognises.
    case unknown

    /// What is true of one format.
    private struct Traits {
        var name: String
        var mediaType: String
        /// The usual extension first.
        var fileExtensions: [String]
        var decodes = true
        var encodes = true
        var animates = false
        var keepsAlpha = true
        var shimCode: magpie_format
    }

    private var traits: Traits {
        switch self {
        case .jpeg: Traits(name: "JPEG", mediaType: "image/jpeg", fileExtensions: ["jpg", "jpeg"], keepsAlpha: false, shimCode: MAGPIE_FORMAT_JPEG)
        case .png: Traits(name: "PNG", mediaType: "image/png", fileExtensions: ["png"], shimCode: MAGPIE_FORMAT_PNG)
        case .webp: Traits(name: "WebP", mediaType: "image/webp", fileExtensions: ["webp"], animates: true, shimCode: MAGPIE_FORMAT_WEBP)
        case .avif: Traits(name: "AVIF", mediaType: "image/avif", fileExtensions: ["avif"], shimCode: MAGPIE_FORMAT_AVIF)
        case .gif: Traits(name: "GIF", mediaType: "image/gif", fileExtensions: ["gif"], animates: true, shimCode: MAGPIE_FORMAT_GIF)
        case .heif: Traits(name: "HEIF", mediaType: "image/heif", fileExtensions: ["heic", "heif"], shimCode: MAGPIE_FORMAT_HEIF)
        case .tiff: Traits(name: "TIFF", mediaType: "image/tiff", fileExtensions: ["tiff", "tif"], shimCode: MAGPIE_FORMAT_TIFF)
        case .bmp: Traits(name: "BMP", mediaType: "image/bmp", fileExtensions: ["bmp"], shimCode: MAGPIE_FORMAT_BMP)
        case .ico: Traits(name: "ICO", mediaType: "image/x-icon", fileExtensions: ["ico"], shimCode: MAGPIE_FORMAT_ICO)
        case .jxl: Traits(name: "JPEG XL", mediaType: "image/jxl", fileExtensions: ["jxl"], shimCode: MAGPIE_FORMAT_JXL)
        case .svg:
            Traits(name: "SVG", mediaType: "image/svg+xml", fileExtensions: ["svg"], encodes: false, shimCode: MAGPIE_FORMAT_SVG)
        case .unknown:
            Traits(
                name: "unknown", mediaType: "application/octet-stream", fileExtensions: ["bin"], decodes: false, encodes: false, keepsAlpha: false,
                shimCode: MAGPIE_FORMAT_UNKNOWN)
        }
    }

    /// The media type of its bytes, for `Content-Type`.
    public var mediaType: String { traits.mediaType }
    /// The file name extensions it goes by, the usual one first.
    public var fileExtensions: [String] { traits.fileExtensions }
    /// The usual file name extension.
    public var fileExtension: String { traits.fileExtensions[0] }
    /// Whether ``VipsDecoder`` reads it.
    public var isDecodable: Bool { traits.decodes }
    /// Whether ``ImageEncoder`` writes it. AVIF also needs an AV1 encoder in libvips' libheif,
    /// HEIF an HEVC one in the system's: see ``isEncoderAvailable``.
    public var isEncodable: Bool { traits.encodes }
    /// Whether Magpie decodes and writes its animations frame by frame; other formats are
    /// read as their first frame and written as stills.
    public var isAnimatable: Bool { traits.animates }
    /// Whether it holds transparency; JPEG's pixels are flattened onto black.
    public var keepsAlpha: Bool { traits.keepsAlpha }
    /// The formats ``ImageEncoder`` writes.
    public static var encodable: [ImageFormat] { allCases.filter(\.isEncodable) }

    /// Whether this machine writes it now: AVIF needs libvips' libheif built with an AV1
    /// encoder, HEIF the system's libheif with an HEVC one; each checked once by encoding a tiny
    /// image.
    public var isEncoderAvailable: Bool {
        guard isEncodable else { return false }
        switch self {
        case .avif: return Self.writesAVIF
        case .heif: return Self.writesHEIF
        default: return true
        }
    }

    private static let writesAVIF = writesTinyImage(as: .avif)
    private static let writesHEIF = writesTinyImage(as: .heif)

    private static func writesTinyImage(as format: ImageFormat) -> Bool {
        let pixel = DecodedImage(width: 16, height: 16, pixels: [UInt8](repeating: 200, count: 16 * 16 * 4))
        return (try? ImageEncoder(quality: 50).encode(pixel, as: format)).map { !$0.isEmpty } ?? false
    }

    /// The format a name or file extension stands for (`jpg`, `JPEG`, `heic`...); `nil` for
    /// anything else.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let format = Self.allCases.first(where: { $0 != .unknown && ($0.rawValue == lowered || $0.fileExtensions.contains(lowered)) })
        else { return nil }
        self = format
    }

    /// What people call it: `JPEG`, `WebP`, `AVIF`...
    public var displayName: String { traits.name }

    /// Says that bytes are in none of the formats Magpie decodes, naming them, for errors:
    /// `the data is not a JPEG, PNG, WebP, AVIF, GIF, HEIF or TIFF image`.
    static var notDecodable: String {
        let names = allCases.filter(\.isDecodable).map(\.displayName)
        return "the data is not a " + names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "") + " image"
    }

    /// The C shim's code for it.
    var shimCode: magpie_format { traits.shimCode }

    /// The format the C shim names.
    init(shimCode: magpie_format) {
        self = Self.allCases.first { $0.shimCode == shimCode } ?? .unknown
    }
}

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
