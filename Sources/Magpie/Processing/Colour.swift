/// An sRGB colour with straight alpha, 8 bits a channel: backgrounds of extended canvases,
/// of flattened transparency and of padding.
public struct Colour: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// 255 is opaque.
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = Colour(red: 255, green: 255, blue: 255)
    public static let black = Colour(red: 0, green: 0, blue: 0)
    public static let transparent = Colour(red: 0, green: 0, blue: 0, alpha: 0)

    /// Reads an opaque colour as URLs write it, `RRGGBB` or its short form `RGB` in hex (`f00` is
    /// `ff0000`), with no `#`: imgproxy's and thumbor's colours.
    public init?(opaqueHex text: some StringProtocol) {
        guard text.allSatisfy(\.isHexDigit) else { return nil }  // `UInt32(_:radix:)` takes a sign
        switch text.count {
        case 6: self.init(hex: String(text))
        case 3: self.init(hex: text.map { "\($0)\($0)" }.joined())
        default: return nil
        }
    }

    /// Reads `RRGGBB` or `RRGGBBAA` hex, with or without a leading `#`.
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6 || digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        let rgba = digits.count == 6 ? value << 8 | 0xFF : value
        self.init(red: UInt8(rgba >> 24 & 0xFF), green: UInt8(rgba >> 16 & 0xFF), blue: UInt8(rgba >> 8 & 0xFF), alpha: UInt8(rgba & 0xFF))
    }

    /// `rrggbbaa` in hex, as identifiers and cache keys write it.
    public var description: String {
        // Byte by byte: the proxy names its encoding, background included, for every request.
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(8)
        for channel in [red, green, blue, alpha] {
            text.append(digits[Int(channel >> 4)])
            text.append(digits[Int(channel & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The four channels, as the shim takes them.
    var channels: [Double] { [Double(red), Double(green), Double(blue), Double(alpha)] }
}
