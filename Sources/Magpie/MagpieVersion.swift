/// Magpie's version, the one place it is kept.
///
/// It follows Semantic Versioning: before 1.0 a minor version may change the public API, a
/// patch version does not. `magpie --version` prints it, and the newest section of
/// `CHANGELOG.md` names it (a test checks both), so a bug report can say what it ran.
public enum MagpieVersion {
    /// The version, as `0.1.0`.
    public static let current = "0.1.0"
}
