/// What the disk cache keeps for a request (Nuke's `.storeOriginalData`, `.storeEncodedImages`
/// and `.storeAll`).
///
/// A *variant* is what a request with a ``ImageRequest/thumbnail`` or
/// ``ImageRequest/processors`` produces, encoded: JPEG when it is opaque, PNG when it has
/// transparency, so nothing a processor made is lost (rounded corners stay transparent).
/// Loading a variant from disk decodes a small file instead of the original and skips the
/// processors. A request without thumbnail or processors has no variant; its original bytes are
/// kept whatever the policy.
public enum DiskCachePolicy: Sendable, Hashable {
    /// Keep the original bytes (the default): every variant can be made from them again.
    case originals
    /// Keep encoded variants only.
    case variants
    /// Keep both.
    case originalsAndVariants

    var keepsOriginals: Bool { self != .variants }
    var keepsVariants: Bool { self != .originals }
}
