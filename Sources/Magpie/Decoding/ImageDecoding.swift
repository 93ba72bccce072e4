/// Turns encoded bytes into a ``DecodedImage``. ``VipsDecoder`` is the default; tests and
/// apps may provide their own.
///
/// Implementations are called on Magpie's decoding threads, never on Swift's cooperative pool,
/// and may block while they work.
public protocol ImageDecoding: Sendable {
    /// Decodes `data`, downsampling at load time to `thumbnail` when given. Must refuse, before
    /// decoding pixels, an image that declares more than `maximumPixels` pixels.
    func decode(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) throws(MagpieError) -> DecodedImage

    /// Decodes what it can of the first part of an image, for progressive previews.
    func decodePreview(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) -> DecodedImage?
}

extension ImageDecoding {
    /// Decodes what it can of the first part of an image, for progressive previews; `nil`
    /// when nothing useful can be shown yet. Decoders without preview support return `nil`.
    public func decodePreview(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) -> DecodedImage? {
        nil
    }
}
