import CMagpieVips

/// What an image file says about itself, read from its header without decoding pixels.
public struct ImageInfo: Sendable, Hashable {
    public let format: ImageFormat
    /// The size once upright (its EXIF orientation applied), as Magpie shows it.
    public let width: Int
    public let height: Int
    /// EXIF orientation, 1 (upright) to 8.
    public let orientation: Int
    /// Frames of an animation; 1 for a still.
    public let frameCount: Int
    /// A JPEG with a gain map, as Ultra HDR photos are (ISO 21496-1 or Ultra HDR's `hdrgm` XMP,
    /// the map itself a second image in MPF): Magpie decodes the SDR image, which every JPEG
    /// reader shows, and drops the gain map. Told from what the header's markers announce; the
    /// map's own image is not read.
    public let hasGainMap: Bool

    /// Reads the header of `bytes`; throws when no decoder Magpie allows recognises them.
    public init(reading bytes: [UInt8]) throws(MagpieError) {
        guard let header = DecodeMemory.header(of: bytes) else {
            throw .unsupportedFormat(ImageFormat.notDecodable + " Magpie can read")
        }
        format = ImageFormat(shimCode: header.format)
        let upright = Layout.uprightSize(of: header)
        (width, height) = (upright.width, upright.height)
        orientation = Int(header.orientation)
        frameCount = format.isAnimatable ? max(1, Int(header.pages)) : 1
        hasGainMap = format == .jpeg && bytes.withUnsafeBytes { magpie_jpeg_has_gain_map($0.baseAddress, $0.count) } != 0
    }
}
