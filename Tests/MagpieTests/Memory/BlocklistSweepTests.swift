import Foundation
@testable import Magpie
import MagpieTesting
import Testing

@Suite("Failed-URL blocklist stays bounded")
struct BlocklistSweepTests {
    @Test func expiredEntriesAreSweptAsTheListGrows() {
        let clock = ManualClock()
        let blocklist = FailedURLBlocklist(duration: .seconds(300), now: clock.monotonic)
        let error = MagpieError.httpStatus(404, URL(string: "http://h/x")!)
        for index in 0..<10_000 {
            blocklist.record(error, for: "u\(index)")
            if index % 100 == 99 { clock.advance(by: .seconds(10)) }
        }
        // 300 s at 10 s per 100 failures: only the last 3,000 or so are still blocked.
        #expect(blocklist.count < 6_100, "held \(blocklist.count)")
        #expect(blocklist.contains("u9999"))
        #expect(!blocklist.contains("u10"))
    }

    @Test func stillBlockedEntriesSurviveASweep() {
        let clock = ManualClock()
        let blocklist = FailedURLBlocklist(duration: .seconds(300), now: clock.monotonic)
        let error = MagpieError.httpStatus(404, URL(string: "http://h/x")!)
        for index in 0..<5_000 { blocklist.record(error, for: "u\(index)") }
        #expect(blocklist.count == 5_000)
        #expect(blocklist.contains("u0"))
    }
}
