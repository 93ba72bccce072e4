import Crypto

/// Signs and checks proxy URLs: the signature is HMAC-SHA256 with the key over the salt
/// followed by the path after the signature, in URL-safe base64 without padding.
/// Several keys are accepted at once so they can be rotated: sign with the first, accept any.
public struct URLSigner: Sendable {
    /// Signing keys; the first signs, every one verifies.
    public let keys: [SigningKey]

    public init(keys: [SigningKey]) {
        self.keys = keys
    }

    /// The signature for `signedPart` (`/options/source`), with the first key.
    public func signature(for signedPart: String) -> String {
        guard let key = keys.first else { return "" }
        return Base64URL.encode(Self.code(for: signedPart, with: key))
    }

    /// A full path for `signedPart`: `/signature/options/source`.
    public func sign(_ signedPart: String) -> String {
        "/" + signature(for: signedPart) + signedPart
    }

    /// Whether `signature` is valid for `signedPart` under any key. Compared in constant time.
    public func isValid(_ signature: String, for signedPart: String) -> Bool {
        guard let given = Base64URL.decode(signature), given.count == SHA256.byteCount else { return false }
        var valid = false
        for key in keys {
            var message = key.salt
            message.append(contentsOf: Array(signedPart.utf8))
            // Every key is tried, so the time taken does not say which one matched.
            if HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message, using: SymmetricKey(data: key.key)) {
                valid = true
            }
        }
        return valid
    }

    private static func code(for signedPart: String, with key: SigningKey) -> [UInt8] {
        var message = key.salt
        message.append(contentsOf: Array(signedPart.utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key.key)))
    }
}
