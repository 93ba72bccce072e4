import Foundation

/// BlurHash (blurha.sh): a few dozen characters a page shows as a blurred placeholder while the
/// image loads. The image's colours as `componentsX` x `componentsY` cosine components, written
/// in base 83 as the format specifies.
public enum Blurhash {
    /// The hash of the first frame of `image`; 1...9 components each way. Work grows with the
    /// pixels, so pass a thumbnail (32 px a side is plenty).
    public static func encode(_ image: DecodedImage, componentsX: Int = 4, componentsY: Int = 3) throws(MagpieError) -> String {
        guard (1...9).contains(componentsX), (1...9).contains(componentsY) else {
            throw .processingFailed(processor: "blurhash", reason: "a blurhash has 1 to 9 components each way")
        }
        let image = image.narrowedToEightBits()
        let (width, height) = (image.width, image.height)
        let linear = (0..<256).map { toLinear(Double($0)) }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<componentsY {
            for i in 0..<componentsX {
                let normalisation = i == 0 && j == 0 ? 1.0 : 2.0
                var sum = (0.0, 0.0, 0.0)
                for y in 0..<height {
                    let down = cos(Double.pi * Double(j) * Double(y) / Double(height))
                    for x in 0..<width {
                        let basis = normalisation * cos(Double.pi * Double(i) * Double(x) / Double(width)) * down
                        let offset = (y * width + x) * 4
                        sum.0 += basis * linear[Int(image.pixels[offset])]
                        sum.1 += basis * linear[Int(image.pixels[offset + 1])]
                        sum.2 += basis * linear[Int(image.pixels[offset + 2])]
                    }
                }
                let scale = 1 / Double(width * height)
                factors.append((sum.0 * scale, sum.1 * scale, sum.2 * scale))
            }
        }
        var hash = base83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        var maximum = 1.0
        if ac.isEmpty {
            hash += base83(0, length: 1)
        } else {
            let largest = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = max(0, min(82, Int((largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += base83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += base83((toSRGB(dc.0) << 16) + (toSRGB(dc.1) << 8) + toSRGB(dc.2), length: 4)
        for factor in ac {
            func quantise(_ value: Double) -> Int {
                max(0, min(18, Int((signedPower(value / maximum, 0.5) * 9 + 9.5).rounded(.down))))
            }
            hash += base83(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), length: 2)
        }
        return hash
    }

    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    private static func base83(_ value: Int, length: Int) -> String {
        var text = ""
        var divisor = 1
        for _ in 1..<max(length, 1) { divisor *= 83 }
        for _ in 0..<length {
            text.append(digits[(value / divisor) % 83])
            divisor = max(divisor / 83, 1)
        }
        return text
    }

    private static func toLinear(_ level: Double) -> Double {
        let value = level / 255
        return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    private static func toSRGB(_ value: Double) -> Int {
        let clamped = min(max(value, 0), 1)
        let encoded = clamped <= 0.0031308 ? clamped * 12.92 : 1.055 * pow(clamped, 1 / 2.4) - 0.055
        return Int(encoded * 255 + 0.5)
    }

    private static func signedPower(_ value: Double, _ exponent: Double) -> Double {
        value < 0 ? -pow(-value, exponent) : pow(value, exponent)
    }
}
