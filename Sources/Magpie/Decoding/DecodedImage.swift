/// A decoded bitmap: 8-bit RGBA, straight (not premultiplied) alpha, rows packed top to bottom,
/// already turned upright according to its EXIF orientation.
public struct DecodedImage: Sendable {
    /// Width in pixels, after orientation.
    public let width: Int
    /// Height in pixels, after orientation.
    public let height: Int
    /// Bytes from one row to the next (`width * 4`).
    public var bytesPerRow: Int { width * 4 }
    /// The pixels, `height * bytesPerRow` bytes: R, G, B, A for each pixel.
    public let pixels: [UInt8]
    /// The format the image was decoded from.
    public let sourceFormat: ImageFormat
    /// Width and height as the file declared them, before orientation and downsampling.
    public let sourceWidth: Int
    /// See ``sourceWidth``.
    public let sourceHeight: Int

    /// Creates an image from RGBA8 pixels. `pixels.count` must be `width * height * 4`.
    public init(
        width: Int, height: Int, pixels: [UInt8], sourceFormat: ImageFormat = .unknown,
        sourceWidth: Int? = nil, sourceHeight: Int? = nil
    ) {
        precondition(pixels.count == width * height * 4, "pixels must hold width * height * 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.sourceFormat = sourceFormat
        self.sourceWidth = sourceWidth ?? width
        self.sourceHeight = sourceHeight ?? height
    }

    /// Memory the pixels take, used as the image's cost in the memory cache.
    public var byteCount: Int { pixels.count }

    /// The RGBA value at `(x, y)`.
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let offset = y * bytesPerRow + x * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }
}

/// Image container formats Magpie recognises.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, gif, webp, heif, unknown
}

extension DecodedImage: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "DecodedImage(\(width)x\(height) RGBA8 from \(sourceFormat.rawValue) \(sourceWidth)x\(sourceHeight))"
    }

    public var debugDescription: String { description }
}
