/// What a URL asked for that its grammar skipped (thumbor serves the image without a filter it
/// cannot apply), said to the client in a header and to the operator in the log line.
enum SkippedOptions {
    static let header = "Magpie-Skipped"

    /// The header's value: each skipped part with why, printable ASCII only (they come from the URL).
    static func value(_ skipped: [String]) -> String {
        let joined = skipped.joined(separator: "; ")
        return String(String.UnicodeScalarView(joined.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(512)))
    }
}
