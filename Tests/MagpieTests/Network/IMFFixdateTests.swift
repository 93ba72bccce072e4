import Foundation
@testable import Magpie
import Testing

/// IMF-fixdate is read and written without ICU; Foundation's DateFormatter is the reference it
/// must agree with wherever it answers, and it must answer for the dates servers send.
@Suite("IMF-fixdate against DateFormatter")
struct IMFFixdateTests {
    static func reference() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }

    /// Moments from 1600 to 9999, leap days and the ends of months and years among them.
    static let moments: [Date] = {
        var generator = SystemRandomNumberGenerator()
        var moments = (0..<3000).map { _ in Date(timeIntervalSince1970: Double(Int64.random(in: -11_676_096_000..<253_402_300_800, using: &generator))) }
        let edges = [
            "2000-02-29T23:59:59Z", "1900-03-01T00:00:00Z", "2024-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
            "1600-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        ]
        moments += edges.map { try! Date($0, strategy: .iso8601) }
        moments += [Date(timeIntervalSince1970: 784_111_777.75), Date(timeIntervalSince1970: -0.5)]
        return moments
    }()

    @Test func writesWhatTheFormatterWrites() {
        let reference = Self.reference()
        let disagreeing = Self.moments.filter { IMFFixdate.format($0) != reference.string(from: $0) }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(3).map { (IMFFixdate.format($0), reference.string(from: $0)) })")
    }

    @Test func readsWhatTheFormatterReads() {
        let reference = Self.reference()
        let texts = Self.moments.map { reference.string(from: $0) }
        let disagreeing = texts.filter { IMFFixdate.parse($0) != reference.date(from: $0) }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(3))")
    }

    /// Near misses: a wrong weekday, a day the month lacks, a leap second, lower case, another
    /// zone, short fields, a year the formatter counts in Julian days. Left to the formatters.
    @Test(arguments: [
        "Mon, 06 Nov 1994 08:49:37 GMT", "Thu, 31 Apr 2025 10:00:00 GMT", "Sat, 29 Feb 2025 10:00:00 GMT", "Tue, 01 Jan 2019 23:59:60 GMT",
        "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun,06 Nov 1994 08:49:37 GMT ",
        "Wed, 05 Sep 1123 04:26:12 GMT",
    ])
    func nearMissesAreLeftToTheFormatters(text: String) {
        #expect(IMFFixdate.parse(text) == nil)
    }
}
