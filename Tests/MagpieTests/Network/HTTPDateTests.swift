import Foundation
import Magpie
import Testing

@Suite("HTTP dates")
struct HTTPDateTests {
    /// RFC 9110's own example, in the preferred form and the two obsolete ones a recipient must read.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", " Sun, 06 Nov 1994 08:49:37 GMT "])
    func everyFormNamesTheSameMoment(text: String) {
        #expect(HTTPDate.parse(text) == Self.example)
    }

    @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994", "1994-11-06T08:49:37Z"])
    func whatIsNoDateIsNil(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func writtenAsIMFFixdate() {
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    /// The formatters are shared: downloads on many threads read their Date headers at once.
    @Test func readAtOnceFromManyTasks() async {
        let moments = (0..<200).map { Date(timeIntervalSince1970: 784_111_777 + Double($0) * 86_461) }
        let read = await withTaskGroup(of: Bool.self) { group in
            for moment in moments {
                group.addTask { HTTPDate.parse(HTTPDate.format(moment)) == moment }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(read == moments.count)
    }
}
