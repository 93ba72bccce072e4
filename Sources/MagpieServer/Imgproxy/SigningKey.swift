/// One key and salt pair for URL signatures, both given in hex as imgproxy takes them.
public struct SigningKey: Sendable, Hashable {
    let key: [UInt8]
    let salt: [UInt8]

    /// Parses hex key and salt; fails with a message naming the one that is not hex.
    public init(keyHex: String, saltHex: String) throws(SigningKeyError) {
        guard let key = Self.bytes(hex: keyHex), !key.isEmpty else { throw SigningKeyError(message: "the signing key is not hex") }
        guard let salt = Self.bytes(hex: saltHex) else { throw SigningKeyError(message: "the signing salt is not hex") }
        self.key = key
        self.salt = salt
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A key or salt that could not be read.
public struct SigningKeyError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
