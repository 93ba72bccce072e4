import Magpie

/// Whether this machine's libvips writes AVIF; checked once by encoding a tiny image.
enum AVIFSupport {
    static let isAvailable: Bool = {
        let pixel = DecodedImage(width: 16, height: 16, pixels: [UInt8](repeating: 200, count: 16 * 16 * 4))
        return (try? ImageEncoder(quality: 50).encode(pixel, as: .avif)).map { !$0.isEmpty } ?? false
    }()
}
