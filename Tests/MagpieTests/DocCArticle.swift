import Foundation

/// A DocC article of the repository, for tests that run its code blocks as written.
struct DocCArticle {
    let text: String

    /// The article at `path` from the repository's root.
    init(_ path: String) {
        let root = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../..")
        text = (try? String(contentsOf: root.appending(path: path).standardizedFileURL, encoding: .utf8)) ?? ""
    }

    /// The first fenced block of `language`, empty when there is none.
    func block(_ language: String) -> String {
        guard let start = text.range(of: "```\(language)\n"), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) else { return "" }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// The `sh` block's `NAME=value` settings, a value of `...` replaced by `values`.
    func settings(_ values: [String: String] = [:]) -> [String: String] {
        var settings: [String: String] = [:]
        for line in block("sh").split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            settings[pair[0]] = pair[1] == "..." ? values[pair[0]] ?? "" : pair[1]
        }
        return settings
    }
}
