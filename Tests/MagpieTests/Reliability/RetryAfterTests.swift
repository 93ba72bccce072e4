import Foundation
@testable import Magpie
import Testing

@Suite("Retry-After parsing")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func delaySecondsAndDatesAreUnderstood() {
        #expect(RetryAfter.wait("120", now: Self.now) == .seconds(120))
        #expect(RetryAfter.wait(" 7 ", now: Self.now) == .seconds(7))
        let date = NetworkFaultTests.httpDate(Self.now.addingTimeInterval(90))
        #expect(RetryAfter.wait(date, now: Self.now) == .seconds(90), "\(date)")
    }

    @Test func nonsenseAndThePastAskForNoWait() {
        for value in ["", "soon", "-5", "0", NetworkFaultTests.httpDate(Self.now.addingTimeInterval(-10))] {
            #expect(RetryAfter.wait(value, now: Self.now) == nil, "\(value)")
        }
    }

    @Test func longWaitsAreCapped() {
        #expect(RetryAfter.wait("99999999", now: Self.now) == RetryAfter.maximum)
    }
}
