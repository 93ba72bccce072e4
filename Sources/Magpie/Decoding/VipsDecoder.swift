import CMagpieVips
import Logging

/// Decodes JPEG, PNG, GIF, WebP and AVIF/HEIF with libvips.
///
/// Animated GIF and WebP decode to every frame when ``DecodingOptions/decodesAllFrames`` is
/// set (the pipeline sets it unless a request asks for the first frame); an animated WebP's
/// frames are libwebp's own animation decoder's (libvips' where the file has a colour profile
/// to apply); APNG and AVIF/HEIF
/// sequences decode as their first frame, which libvips 8.14 is limited to
/// (``DecodedImage/firstFrameReason`` says so).
///
/// EXIF orientation is applied. Output is RGBA with straight alpha, 8 bits a sample (16 for a
/// deeper still when ``DecodingOptions/keepsHighDepth`` asks). Thumbnails use
/// shrink-on-load, so a large JPEG thumbnailed to a small box never exists at full size in
/// memory: a JPEG is decoded at the smallest of libjpeg's 1/2, 1/4 and 1/8 scales that still
/// covers the box, then resampled. A progressive JPEG reduced 8 times or more is decoded from
/// its DC scans alone (about ten times faster); the rest of such a file is not read, so damage
/// there does not fail the thumbnail, while a full-size decode of it does.
/// Formats libvips could read that are not ``ImageFormat`` cases (PDF, ImageMagick's...) are refused.
public struct VipsDecoder: ImageDecoding {
    /// Creates a decoder; libvips is started on first use.
    public init() {}

    /// Decodes the first frame; see ``decode(_:options:)`` for every frame of an animation.
    public func decode(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) throws(MagpieError) -> DecodedImage {
        try decode(data, options: DecodingOptions(thumbnail: thumbnail, maximumPixels: maximumPixels), partial: false).image
    }

    public func decode(_ data: [UInt8], options: DecodingOptions) throws(MagpieError) -> DecodedImage {
        try decode(data, options: options, partial: false).image
    }

    public func decodePreview(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) -> DecodedImage? {
        try? decode(data, options: DecodingOptions(thumbnail: thumbnail, maximumPixels: maximumPixels), partial: true).image
    }

    /// An image decoded, and its encoding when one was asked for alongside and could be made
    /// while it rendered (`magpie_render_encoding`: an animation going to WebP or GIF).
    struct Decoded {
        var image: DecodedImage
        var encoded: [UInt8]?
    }

    /// ``decode(_:options:)``, with `encodingAlongside`'s encoding of the image made while it
    /// renders where the shim can (``ImageEncoder/encode(decoding:options:as:)``).
    func decode(_ data: [UInt8], options: DecodingOptions, encodingAlongside: (ImageEncoder, ImageFormat)) throws(MagpieError) -> Decoded {
        try decode(data, options: options, partial: false, encodingAlongside: encodingAlongside)
    }

    private func decode(
        _ data: [UInt8], options: DecodingOptions, partial: Bool, encodingAlongside: (ImageEncoder, ImageFormat)? = nil
    ) throws(MagpieError) -> Decoded {
        var options = options
        // A caller that has not read the header (the pipeline has) gets its layout resolved here.
        if case .layout = options.target, let header = DecodeMemory.header(of: data, vectorDPI: options.vectorDPI) {
            options.target = options.target.resolved(for: header, keepsHighDepth: options.keepsHighDepth)
        }
        let target = options.target
        // A cut changes the pixels after the decode: nothing is encoded alongside.
        var decoded = try decode(data, options, partial: partial, encodingAlongside: target.cutsAfterDecode ? nil : encodingAlongside)
        decoded.image = try target.finish(decoded.image)
        return decoded
    }

    /// libvips' decode of `decoding` to its target, before the target's ``DecodeTarget/finish(_:)``.
    private func decode(
        _ data: [UInt8], _ decoding: DecodingOptions, partial: Bool, encodingAlongside: (ImageEncoder, ImageFormat)?
    ) throws(MagpieError) -> Decoded {
        let maximumPixels = decoding.maximumPixels
        try VipsRuntime.start()
        guard !data.isEmpty else { throw .unsupportedFormat("the data is empty") }
        var message = [CChar](repeating: 0, count: 512)
        let outcome = data.withUnsafeBytes { bytes -> Result<Decoded, MagpieError> in
            // libvips reads `bytes` lazily while rendering, so both steps happen in here.
            var image = magpie_image()
            defer { magpie_free_image(&image) }
            var options = Self.shimOptions(decoding, partial: partial)
            let status = magpie_decode(bytes.baseAddress, bytes.count, &options, &image, &message, message.count)
            switch status {
            case MAGPIE_STATUS_OK:
                break
            case MAGPIE_STATUS_NOT_AN_IMAGE:
                return .failure(.unsupportedFormat(ImageFormat.notDecodable))
            case MAGPIE_STATUS_UNSUPPORTED:
                return .failure(.unsupportedFormat(ImageFormat.notDecodable + " (\(Self.text(message)))"))
            case MAGPIE_STATUS_TOO_MANY_PIXELS:
                return .failure(.imageTooLarge(width: Int(image.source.width), height: Int(image.source.height), limit: maximumPixels))
            case MAGPIE_STATUS_ANIMATION_TOO_LARGE:
                return .failure(.animationTooLarge(Self.text(message)))
            default:
                return .failure(.decodingFailed(Self.text(message)))
            }
            let copyright = Self.copyright(image.source)
            var encoded: [UInt8]?
            let rendered = encodingAlongside.map { encoder, format in
                Self.render(&image, encodingAs: format, with: encoder, copyright: copyright, encoded: &encoded, message: &message)
            } ?? Self.render(&image, message: &message)
            guard let pixels = rendered else { return .failure(.decodingFailed(Self.text(message))) }
            let format = ImageFormat(shimCode: image.source.format)
            return .success(Decoded(image: DecodedImage(
                width: Int(image.width), height: Int(image.height), pixels: pixels, sourceFormat: format,
                sourceWidth: Int(image.source.width), sourceHeight: Int(image.source.height), animation: Self.animation(of: image),
                firstFrameReason: Self.firstFrameReason(image, format: format, decoding: decoding),
                fullSize: Self.fullSize(of: image, decoding: decoding),
                copyright: copyright,
                sourceOrientation: format == .heif ? 1 : Int(image.source.orientation),
                sampleDepth: image.sample_bytes == 2 ? .sixteen : .eight), encoded: encoded))
        }
        return try outcome.get()
    }

    /// What the shim's decode is told of `decoding`: its target's box (not a crop's, cut after)
    /// or the size it may shrink on load toward (a layout is resolved before).
    private static func shimOptions(_ decoding: DecodingOptions, partial: Bool) -> magpie_decode_options {
        var options = magpie_decode_options()
        options.max_pixels = UInt64(max(0, decoding.maximumPixels))
        if let box = decoding.target.box, box.fit != .crop {
            options.target_width = Int32(clamping: box.width)
            options.target_height = Int32(clamping: box.height)
            options.fit = box.fit.shimValue
        }
        if case .reduced(let size) = decoding.target {
            options.resize_width = Int32(clamping: size.width)
            options.resize_height = Int32(clamping: size.height)
            options.resize_fit = MAGPIE_FIT_EXACT
        }
        options.partial = partial ? 1 : 0
        options.all_frames = decoding.decodesAllFrames ? 1 : 0
        options.max_frames = Int32(clamping: max(0, decoding.maximumAnimationFrames))
        options.max_animation_pixels = UInt64(max(0, decoding.maximumAnimationPixels))
        options.first_frame_when_too_large = decoding.firstFrameWhenTooLarge ? 1 : 0
        options.vector_dpi = DecodingOptions.shimDPI(decoding.vectorDPI)
        options.keep_high_depth = decoding.keepsHighDepth ? 1 : 0
        return options
    }

    /// `data` decoded as `options` say (a thumbnail box, no layout left to resolve), cut to
    /// `crop`, and written by `encoder` as `format`, in one libvips pipeline: the bytes
    /// ``decode(_:options:)``, the crop and ``ImageEncoder/encode(_:as:)`` make, without the
    /// bitmaps between. `nil` when this image cannot be written so (an animation, transparency,
    /// 16 bits a sample, a format written outside libvips, a smart crop) or anything failed:
    /// the caller then decodes and encodes as usual, which reports the failure.
    func encodeInOnePass(
        _ data: [UInt8], options decoding: DecodingOptions, crop: ImageProcessors.Crop.Area?, encoder: ImageEncoder, as format: ImageFormat
    ) -> (bytes: [UInt8], size: DecodedImage.Size)? {
        guard let box = decoding.target.box, box.fit != .crop, !decoding.keepsHighDepth, !data.isEmpty, (try? VipsRuntime.start()) != nil
        else { return nil }
        let cut = crop.map { ImageProcessors.Crop($0).shimArea }
        var message = [CChar](repeating: 0, count: 512)
        return data.withUnsafeBytes { bytes -> (bytes: [UInt8], size: DecodedImage.Size)? in
            var image = magpie_image()
            defer { magpie_free_image(&image) }
            var options = Self.shimOptions(decoding, partial: false)
            guard magpie_decode(bytes.baseAddress, bytes.count, &options, &image, &message, message.count) == MAGPIE_STATUS_OK else { return nil }
            var encoding = encoder.shimOptions(for: format)
            let copyright = encoder.keepsCopyright ? Self.copyright(image.source).map { Array($0.utf8CString) } ?? [] : []
            var output: UnsafeMutablePointer<UInt8>?
            var (length, width, height) = (0, Int32(0), Int32(0))
            defer { magpie_free_buffer(output) }
            let status = copyright.withUnsafeBufferPointer { copyright in
                encoding.copyright = copyright.isEmpty ? nil : copyright.baseAddress
                guard var cut else { return magpie_encode_prepared(&image, nil, &encoding, &output, &length, &width, &height) }
                return magpie_encode_prepared(&image, &cut, &encoding, &output, &length, &width, &height)
            }
            guard status == MAGPIE_STATUS_OK, let output else { return nil }
            return (Array(UnsafeBufferPointer(start: output, count: length)), DecodedImage.Size(width: Int(width), height: Int(height)))
        }
    }

    /// The text of the EXIF Copyright libvips read, which it writes as
    /// "TEXT (VALUE, ASCII, N components, N bytes)", where libexif gives a copyright's VALUE as
    /// "TEXT (Photographer) - [None] (Editor)"; `nil` when there is none or it was cut.
    static func copyright(_ header: magpie_header) -> String? {
        var field = header.copyright
        return copyright(vipsField: withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }

    package static func copyright(vipsField full: String) -> String? {
        let suffix = full.reversed().split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
        // ", ASCII, N components, N bytes)" from the end.
        guard suffix.count == 4, String(suffix[0].reversed()).hasSuffix(" bytes)"), String(suffix[2].reversed()) == " ASCII" else { return nil }
        let body = String(String(suffix[3]).reversed())
        for open in body.indices where body[open...].hasPrefix(" (") {
            let text = String(body[..<open]), value = body[open...].dropFirst(2)
            if value == text || value.hasPrefix(text + " (Photographer)") {
                let trimmed = text.trimmingSpaces
                return trimmed.isEmpty || trimmed == "[None]" ? nil : trimmed
            }
        }
        return nil
    }

    /// The whole upright image's size when fewer pixels were decoded: a layout's size resolved
    /// (``DecodeTarget/scaled(to:whole:)``) says it; a reduced scale, the shim.
    private static func fullSize(of image: magpie_image, decoding: DecodingOptions) -> DecodedImage.Size? {
        if case .scaled(_, let whole) = decoding.target { return whole }
        return image.full_width > 0 ? DecodedImage.Size(width: Int(image.full_width), height: Int(image.full_height)) : nil
    }

    private static func animation(of image: magpie_image) -> Animation? {
        guard image.frames > 1, let delays = image.delays else { return nil }
        return Animation(frameDelays: (0..<Int(image.frames)).map { Int(delays[$0]) }, loopCount: Int(image.loop))
    }

    private static func firstFrameReason(_ image: magpie_image, format: ImageFormat, decoding: DecodingOptions) -> DecodedImage.FirstFrameReason? {
        if image.source.unplayable_animation != 0 { return .formatNotAnimated }
        guard format.isAnimatable, image.source.pages > 1, image.frames <= 1 else { return nil }
        return decoding.decodesAllFrames ? .overLimit : .requested
    }

    /// Runs the prepared libvips pipeline into a new bitmap; `nil` (and `message` set) when it fails.
    static func render(_ image: inout magpie_image, message: inout [CChar]) -> [UInt8]? {
        var rendered = MAGPIE_STATUS_FAILED
        let byteCount = Int(image.width) * Int(image.height) * 4 * max(1, Int(image.frames)) * max(1, Int(image.sample_bytes))
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            rendered = magpie_render(&image, buffer.baseAddress, buffer.count, &message, message.count)
            // A failed render leaves the buffer undefined: keep none of it.
            count = rendered == MAGPIE_STATUS_OK ? buffer.count : 0
        }
        return rendered == MAGPIE_STATUS_OK ? pixels : nil
    }

    /// ``render(_:message:)``, with the image encoded as `format` while it renders where the
    /// shim can (an animation going to WebP or GIF): `encoded` is then set.
    static func render(
        _ image: inout magpie_image, encodingAs format: ImageFormat, with encoder: ImageEncoder, copyright: String?,
        encoded: inout [UInt8]?, message: inout [CChar]
    ) -> [UInt8]? {
        var rendered = MAGPIE_STATUS_FAILED
        var options = encoder.shimOptions(for: format)
        let copyrightText = encoder.keepsCopyright ? copyright.map { Array($0.utf8CString) } ?? [] : []
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        defer { magpie_free_buffer(output) }
        let byteCount = Int(image.width) * Int(image.height) * 4 * max(1, Int(image.frames)) * max(1, Int(image.sample_bytes))
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            rendered = copyrightText.withUnsafeBufferPointer { copyrightText in
                options.copyright = copyrightText.isEmpty ? nil : copyrightText.baseAddress
                return magpie_render_encoding(&image, buffer.baseAddress, buffer.count, &options, &output, &length, &message, message.count)
            }
            count = rendered == MAGPIE_STATUS_OK ? buffer.count : 0
        }
        guard rendered == MAGPIE_STATUS_OK else { return nil }
        if let output { encoded = Array(UnsafeBufferPointer(start: output, count: length)) }
        return pixels
    }

    static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Starts libvips once per process and sends its warnings to swift-log. `package` so
/// MagpieTesting's image makers share the one start-up.
package enum VipsRuntime {
    static let logger = Logger(label: "magpie.vips")

    private static let startResult: Result<Void, MagpieError> = {
        var message = [CChar](repeating: 0, count: 256)
        let status = magpie_initialize({ level, text in
            let message = text.map { String(cString: $0) } ?? ""
            switch level {
            case Int32(MAGPIE_LOG_ERROR.rawValue): VipsRuntime.logger.error("\(message)")
            case Int32(MAGPIE_LOG_WARNING.rawValue): VipsRuntime.logger.warning("\(message)")
            case Int32(MAGPIE_LOG_INFO.rawValue): VipsRuntime.logger.info("\(message)")
            default: VipsRuntime.logger.debug("\(message)")
            }
        }, &message, message.count)
        guard status == MAGPIE_STATUS_OK else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.decodingFailed("libvips did not start: \(text)"))
        }
        return .success(())
    }()

    package static func start() throws(MagpieError) {
        try startResult.get()
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
