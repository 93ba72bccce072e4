import CMagpieVips
import Magpie

/// Writes a line of text across the middle of RGBA8 pixels, white with a dark shadow, so
/// generated images look like content and say what they are.
enum TextStamp {
    /// Stamps `text` onto `pixels` (`width` by `height`, RGBA8). Returns without drawing if the
    /// system cannot render text (no fonts): a label is decoration, never a reason to fail.
    static func stamp(_ text: String, on pixels: inout [UInt8], width: Int, height: Int) {
        guard (try? VipsRuntime.start()) != nil, let mask = render(text, height: max(10, min(height / 5, width * 3 / (2 * max(4, text.count))))) else {
            return
        }
        let left = max(0, (width - mask.width) / 2)
        let top = max(0, (height - mask.height) / 2)
        let shadowOffset = max(1, mask.height / 16)
        blend(mask, into: &pixels, width: width, height: height, left: left + shadowOffset, top: top + shadowOffset, value: 20)
        blend(mask, into: &pixels, width: width, height: height, left: left, top: top, value: 255)
    }

    private struct Mask {
        let coverage: [UInt8]
        let width: Int
        let height: Int
    }

    private static func render(_ text: String, height: Int) -> Mask? {
        var bytes: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var maskHeight: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = magpie_render_text(text, Int32(height), &bytes, &width, &maskHeight, &message, message.count)
        defer { magpie_free_text(bytes) }
        guard status == MAGPIE_STATUS_OK, let bytes else { return nil }
        let count = Int(width) * Int(maskHeight)
        return Mask(coverage: Array(UnsafeBufferPointer(start: bytes, count: count)), width: Int(width), height: Int(maskHeight))
    }

    private static func blend(_ mask: Mask, into pixels: inout [UInt8], width: Int, height: Int, left: Int, top: Int, value: Int) {
        for y in 0..<mask.height where top + y < height {
            for x in 0..<mask.width where left + x < width {
                let alpha = Int(mask.coverage[y * mask.width + x])
                guard alpha > 0 else { continue }
                let offset = ((top + y) * width + left + x) * 4
                for channel in 0..<3 {
                    let base = Int(pixels[offset + channel])
                    pixels[offset + channel] = UInt8((base * (255 - alpha) + value * alpha) / 255)
                }
            }
        }
    }
}
