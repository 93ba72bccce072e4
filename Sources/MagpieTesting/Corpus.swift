public import Foundation

/// The shared test corpus (`../shared/corpus` beside the checkout, or `$MAGPIE_CORPUS`) and its
/// manifest.
public enum Corpus {
    /// One row of `MANIFEST.tsv`.
    public struct Entry: Sendable, CustomStringConvertible {
        /// Path relative to the corpus directory.
        public let path: String
        /// Format from the magic bytes (`png`, `jpeg`, `avif`, `unknown(.jpg)`...).
        public let format: String
        /// `valid`, `invalid` or `partial`.
        public let expected: String
        /// Stored width, before orientation; `nil` when unknown.
        public let width: Int?
        /// Stored height, before orientation.
        public let height: Int?
        /// Frames, as Pillow (or avifdec) counts them; `nil` when unknown.
        public let frames: Int?
        /// Free-text notes from the manifest.
        public let notes: String

        public var description: String { path }

        /// The file's location.
        public var url: URL { Corpus.directory.appendingPathComponent(path) }

        /// The file's bytes.
        public func bytes() throws -> [UInt8] { Array(try Data(contentsOf: url)) }
    }

    /// The corpus directory.
    public static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["MAGPIE_CORPUS"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        // Sources/MagpieTesting/Corpus.swift -> the checkout -> its parent -> shared/corpus
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/corpus", isDirectory: true)
    }

    /// Every manifest row; empty when the corpus is missing.
    public static let entries: [Entry] = {
        let manifest = directory.appendingPathComponent("MANIFEST.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 7 else { return nil }
            return Entry(
                path: columns[0], format: columns[1], expected: columns[2],
                width: Int(columns[3]), height: Int(columns[4]), frames: Int(columns[5]), notes: columns[6])
        }
    }()

    /// Rows whose `expected` column is `expected`.
    public static func entries(expected: String) -> [Entry] {
        entries.filter { $0.expected == expected }
    }
}
