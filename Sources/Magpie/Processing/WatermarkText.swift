import CMagpieVips

extension ImageProcessors.Watermark.Mark {
    /// The longest text a mark is made from, in UTF-8 bytes: enough for a credit line, not a
    /// page that would take seconds to lay out.
    public static let maximumTextBytes = 1024

    /// What ``text(_:fontPixels:)`` names its mark, known before the text is drawn.
    public static func textIdentifier(_ markup: String, fontPixels: Int = 24) -> String {
        "text:\(fontPixels):" + DiskEntryFormat.sha256Hex(markup)
    }

    /// Checks `markup` as ``text(_:fontPixels:)`` would draw it, without drawing: the text's
    /// length, its tags and attributes, and the sizes and area they ask for (``TextMarkup``).
    public static func checkText(_ markup: String, fontPixels: Int = 24) throws(MagpieError) -> TextMarkup {
        guard !markup.isEmpty, markup.utf8.count <= maximumTextBytes, !markup.utf8.contains(0) else {
            throw .processingFailed(processor: "magpie.watermark", reason: "a text mark is 1 to \(maximumTextBytes) bytes of text")
        }
        guard (1...TextMarkup.maximumFontPixels).contains(fontPixels) else {
            throw .processingFailed(processor: "magpie.watermark", reason: "a text mark's font is 1 to \(TextMarkup.maximumFontPixels) pixels high")
        }
        do {
            return try TextMarkup(markup, fontPixels: fontPixels)
        } catch {
            throw .processingFailed(processor: "magpie.watermark", reason: "the text's markup: \(error.description)")
        }
    }

    /// A mark of `markup` (Pango markup, so `<span foreground="white">` or `<b>` work), drawn
    /// black unless the markup colours it, in the system's sans-serif font `fontPixels` high.
    /// Markup asking for more than ``TextMarkup`` allows is refused before anything is drawn.
    public static func text(_ markup: String, fontPixels: Int = 24) throws(MagpieError) -> Self {
        let identifier = textIdentifier(markup, fontPixels: fontPixels)
        _ = try checkText(markup, fontPixels: fontPixels)
        do {
            try VipsRuntime.start()
        } catch {
            throw .processingFailed(processor: "magpie.watermark", reason: error.description)
        }
        var bytes: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = magpie_render_text_rgba(markup, Int32(fontPixels), &bytes, &width, &height, &message, message.count)
        defer { magpie_free_text(bytes) }
        guard status == MAGPIE_STATUS_OK, let bytes, width > 0, height > 0 else {
            throw .processingFailed(processor: "magpie.watermark", reason: "the text mark: \(VipsDecoder.text(message))")
        }
        let pixels = Array(UnsafeBufferPointer(start: bytes, count: Int(width) * Int(height) * 4))
        return Self(identifier: identifier, image: DecodedImage(width: Int(width), height: Int(height), pixels: pixels))
    }
}
