import CMagpieVips

/// What decoding a source will hold in memory, read from its header before any decoding, so
/// that decodes can be admitted within a budget
/// (``ImagePipeline/Configuration/decodeMemoryBudget``).
///
/// Two things are large. The bitmap the decode produces: 4 bytes a pixel of the output size
/// (the thumbnail's when shrinking on load, the source's otherwise), for every frame of an
/// animation. And a progressive JPEG's coefficients: libjpeg keeps every DCT coefficient of the
/// whole image (two bytes each, 64 per 8×8 block of every component) from the start of
/// decoding, even when only the DC scans are read. A 575 kB 49-megapixel progressive JPEG with
/// full-size chroma takes 300 MB to decode however small the thumbnail; two at once took a
/// two-core proxy to 665 MB, and a pipeline decoding on sixteen cores would take 4.8 GB.
/// Everything else is streamed through libvips' small buffers, which the decoding threads
/// bound.
package enum DecodeMemory {
    /// Bytes decoding `bytes` with `options` will hold: the output bitmap and, for a
    /// progressive JPEG, its coefficients. 0 when the header cannot be read (the decode then
    /// fails at once).
    package static func estimate(_ bytes: [UInt8], options: DecodingOptions) -> Int {
        guard let header = header(of: bytes) else { return 0 }
        return estimate(bytes, options: options, header: header)
    }

    /// ``estimate(_:options:)`` with the header already read.
    static func estimate(_ bytes: [UInt8], options: DecodingOptions, header: magpie_header) -> Int {
        let (width, height) = (Double(header.width), Double(header.height))
        guard width > 0, height > 0 else { return 0 }
        // Over the pixel limit the decode is refused before it allocates anything.
        guard width * height <= Double(options.maximumPixels) else { return 0 }
        var scale = (across: 1.0, down: 1.0)
        if let box = options.target.resolved(for: header, keepsHighDepth: options.keepsHighDepth).box {
            // A side not given does not constrain; a fill's crop comes after the bitmap is made.
            let across = box.width > 0 ? Double(box.width) / width : .infinity
            let down = box.height > 0 ? Double(box.height) / height : .infinity
            let scales = box.fit.scales(across: across, down: down)
            scale = (min(1, scales.across), min(1, scales.down))
        }
        let animated = options.decodesAllFrames && header.pages > 1
            && ImageFormat(shimCode: header.format).isAnimatable
        let frames = animated ? Double(min(Int(header.pages), max(1, options.maximumAnimationFrames))) : 1
        // A deeper still whose depth is kept takes two bytes a sample.
        let sampleBytes: Double = options.keepsHighDepth && header.deep != 0 && !animated ? 2 : 1
        let bitmap = (width * scale.across).rounded(.up) * (height * scale.down).rounded(.up) * 4 * frames * sampleBytes
        return Int(min(bitmap, Double(Int.max / 2))) + progressiveCoefficients(bytes)
    }

    /// The header, a vector source's size drawn at `vectorDPI` (``DecodingOptions/vectorDPI``).
    static func header(of bytes: [UInt8], vectorDPI: Double? = nil) -> magpie_header? {
        guard !bytes.isEmpty, (try? VipsRuntime.start()) != nil else { return nil }
        var header = magpie_header()
        var message = [CChar](repeating: 0, count: 256)
        let dpi = DecodingOptions.shimDPI(vectorDPI)
        let status = bytes.withUnsafeBytes { magpie_read_header($0.baseAddress, $0.count, dpi, &header, &message, message.count) }
        return status == MAGPIE_STATUS_OK ? header : nil
    }

    /// Bytes of coefficients a progressive JPEG needs, or 0 for any other image.
    package static func progressiveCoefficients(_ bytes: [UInt8]) -> Int {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 0 }
        var offset = 2
        // Walk the marker segments up to the first frame header.
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return 0 }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return 0 }
            switch marker {
            case 0xC2, 0xC6, 0xCA, 0xCE:
                return progressiveCoefficients(frame: bytes[(offset + 4)..<(offset + 2 + length)])
            case 0xC0, 0xC1, 0xC3, 0xC5, 0xC7, 0xC9, 0xCB, 0xCD, 0xDA, 0xD9:
                return 0
            default:
                offset += 2 + length
            }
        }
        return 0
    }

    /// From a start-of-frame segment: precision, height, width, components, then per component
    /// an id, its sampling factors (high nibble horizontal) and a table number.
    private static func progressiveCoefficients(frame: ArraySlice<UInt8>) -> Int {
        let header = Array(frame)
        guard header.count >= 6 else { return 0 }
        let height = Int(header[1]) << 8 | Int(header[2])
        let width = Int(header[3]) << 8 | Int(header[4])
        let components = Int(header[5])
        guard components > 0, header.count >= 6 + 3 * components else { return 0 }
        var horizontal: [Int] = []
        var vertical: [Int] = []
        for component in 0..<components {
            let sampling = header[7 + 3 * component]
            horizontal.append(Int(sampling >> 4))
            vertical.append(Int(sampling & 0x0F))
        }
        let maximumHorizontal = max(1, horizontal.max() ?? 1)
        let maximumVertical = max(1, vertical.max() ?? 1)
        var blocks = 0
        for component in 0..<components {
            let componentWidth = (width * horizontal[component] + maximumHorizontal - 1) / maximumHorizontal
            let componentHeight = (height * vertical[component] + maximumVertical - 1) / maximumVertical
            blocks += ((componentWidth + 7) / 8) * ((componentHeight + 7) / 8)
        }
        return blocks * 64 * 2
    }
}
