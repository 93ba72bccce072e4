import Crypto

/// Signs and checks thumbor URLs as thumbor and `libthumbor` do: HMAC-SHA1 with the security key
/// over the path after the signature (without its leading slash), in URL-safe base64 with its
/// padding (28 characters). Several keys are accepted at once, so they can be rotated.
public struct ThumborSigner: Sendable {
    /// Security keys as text; the first signs, every one verifies.
    public let keys: [String]

    public init(keys: [String]) {
        self.keys = keys
    }

    /// The signature of `signedPart` (`300x200/smart/example.com/a.jpg`) with the first key.
    public func signature(for signedPart: String) -> String {
        guard let key = keys.first else { return "" }
        return Base64URL.encode(Self.code(for: signedPart, with: key), padded: true)
    }

    /// Whether `signature` is valid for `signedPart` under any key, compared in constant time.
    public func isValid(_ signature: String, for signedPart: String) -> Bool {
        guard let given = Base64URL.decode(signature), given.count == Insecure.SHA1.byteCount else { return false }
        var valid = false
        for key in keys {
            var difference: UInt8 = 0
            for (a, b) in zip(given, Self.code(for: signedPart, with: key)) { difference |= a ^ b }
            if difference == 0 { valid = true }
        }
        return valid
    }

    private static func code(for signedPart: String, with key: String) -> [UInt8] {
        Array(HMAC<Insecure.SHA1>.authenticationCode(for: Array(signedPart.utf8), using: SymmetricKey(data: Array(key.utf8))))
    }
}
