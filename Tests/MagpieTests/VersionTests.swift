import Foundation
import Magpie
import Testing

/// Magpie's version is kept in one place (``MagpieVersion``); what says it elsewhere agrees.
@Suite("Magpie's version")
struct VersionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ file: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
    }

    @Test func isASemanticVersion() {
        let parts = MagpieVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(MagpieVersion.current)")
    }

    /// Sections are `## Unreleased` (first, if any) and `## X.Y.Z - YYYY-MM-DD`, newest first; the
    /// newest version is the current one.
    @Test func theChangelogsNewestSectionIsTheCurrentVersion() throws {
        let headings = try Self.read("CHANGELOG.md").split(separator: "\n").filter { $0.hasPrefix("## ") }.map { $0.dropFirst(3) }
        let versions = headings.filter { $0 != "Unreleased" }
        #expect(headings.firstIndex(of: "Unreleased") ?? 0 == 0, "Unreleased comes first")
        let numbers = versions.map { heading -> [Int] in
            let version = heading.split(separator: " ").first ?? ""
            #expect(heading.wholeMatch(of: /\d+\.\d+\.\d+ - \d{4}-\d{2}-\d{2}/) != nil, "'\(heading)' is VERSION - DATE")
            return version.split(separator: ".").compactMap { Int($0) }
        }
        #expect(versions.first?.split(separator: " ").first.map(String.init) == MagpieVersion.current)
        #expect(numbers == numbers.sorted { $0.lexicographicallyPrecedes($1) }.reversed(), "newest first")
    }

    @Test(arguments: ["README.md", "Sources/Magpie/Magpie.docc/GettingStarted.md"])
    func theDependencyLineNamesTheCurrentVersion(document: String) throws {
        let lines = try Self.read(document).split(separator: "\n").filter { $0.hasPrefix(".package(url: ") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasSuffix("from: \"\(MagpieVersion.current)\"),") == true, "\(lines)")
    }
}
