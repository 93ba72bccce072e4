import Magpie

/// `/health`: decodes and encodes a tiny image on the proxy's threads, so a server whose
/// libvips or threads are broken says so instead of "up".
enum HealthCheck {
    /// A 2×2 PNG.
    static let probe: [UInt8] = {
        let image = DecodedImage(width: 2, height: 2, pixels: [UInt8](repeating: 128, count: 16))
        return (try? ImageEncoder().encode(image, as: .png)) ?? []
    }()
}
