import Crypto

/// Signs and checks proxy URLs: the signature is HMAC-SHA256 with the key over the salt
/// followed by the path after the signature, in URL-safe base64 without padding, optionally
/// cut to its first ``signatureSize`` bytes (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
/// Several keys are accepted at once so they can be rotated: sign with the first, accept any.
public struct URLSigner: Sendable {
    /// Signing keys; the first signs, every one verifies.
    public let keys: [SigningKey]
    /// Bytes of the HMAC a signature carries, 1...32.
    public let signatureSize: Int

    /// A signer; `signatureSize` is clamped to 1...32.
    public init(keys: [SigningKey], signatureSize: Int = 32) {
        self.keys = keys
        self.signatureSize = max(1, min(SHA256.byteCount, signatureSize))
    }

    /// The signature for `signedPart` (`/options/source`), with the first key.
    public func signature(for signedPart: String) -> String {
        guard let key = keys.first else { return "" }
        return Base64URL.encode(Self.code(for: signedPart, with: key).prefix(signatureSize))
    }

    /// A full path for `signedPart`: `/signature/options/source`.
    public func sign(_ signedPart: String) -> String {
        "/" + signature(for: signedPart) + signedPart
    }

    /// Whether `signature` is valid for `signedPart` under any key. Compared in constant time.
    public func isValid(_ signature: String, for signedPart: String) -> Bool {
        guard let given = Base64URL.decode(signature), given.count == signatureSize else { return false }
        var valid = false
        for key in keys {
            // Every key is tried, and every byte compared, so the time taken does not say which
            // key matched or how much of the signature did.
            let expected = Self.code(for: signedPart, with: key).prefix(signatureSize)
            var difference: UInt8 = 0
            for (a, b) in zip(given, expected) { difference |= a ^ b }
            if difference == 0 { valid = true }
        }
        return valid
    }

    private static func code(for signedPart: String, with key: SigningKey) -> [UInt8] {
        var message = key.salt
        message.append(contentsOf: Array(signedPart.utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key.key)))
    }
}
