import Foundation
@testable import MagpieCLI
import Testing

/// The proxy's JSON and logfmt log lines read back as what was logged, whatever a value holds
/// (a path with quotes, a reason with a newline, control characters).
@Suite("Log lines")
struct LineLogHandlerTests {
    static let awkward = ["plain", "", "two words", "a \"quoted\" = sign", "line\nbreak\ttab\r", "\u{01}\u{1f}", "é 图 \\ /"]

    @Test func jsonLinesParseBackToTheirFields() throws {
        let pairs = Self.awkward.enumerated().map { ("field\($0.offset)", $0.element) }
        let line = LineLogHandler.json(pairs)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(parsed == Dictionary(uniqueKeysWithValues: pairs))
        #expect(!line.contains("\n"))
    }

    @Test func logfmtQuotesWhatWouldSplitAField() {
        let line = LineLogHandler.logfmt(Self.awkward.enumerated().map { ("field\($0.offset)", $0.element) })
        #expect(line.hasPrefix("field0=plain field1=\"\" field2=\"two words\" field3=\"a \\\"quoted\\\" = sign\""), "\(line)")
        #expect(!line.contains("\n"))
    }
}
