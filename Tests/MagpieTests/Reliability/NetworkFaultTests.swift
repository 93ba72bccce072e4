import Foundation
import Magpie
import MagpieTesting
import Testing

/// Every way the loopback server can misbehave, each with the error it must produce, nothing
/// left in the disk cache and no load left running.
@Suite("Network faults")
struct NetworkFaultTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        /// Short timeouts for the scenarios about timeouts; the default ones otherwise, so a
        /// busy CI machine cannot turn a quick failure into a timeout.
        var shortTimeouts = false
        let route: @Sendable ([UInt8]) -> ServedRoute
        let expected: @Sendable (MagpieError) -> Bool

        var testDescription: String { name }
    }

    static let png: [UInt8] = (try? TestImages.texture(width: 200, height: 200, format: .png)) ?? []

    static let scenarios: [Scenario] = [
        Scenario(name: "slow headers", shortTimeouts: true, route: { ServedRoute(body: $0, contentType: "image/png", latency: .seconds(20)) }) {
            if case .timedOut = $0 { true } else { false }
        },
        Scenario(name: "slow body", shortTimeouts: true, route: { ServedRoute(body: $0, contentType: "image/png", bytesPerSecond: $0.count / 20) }) {
            if case .timedOut = $0 { true } else { false }
        },
        Scenario(name: "reset mid-body", route: { ServedRoute(body: $0, contentType: "image/png", fault: .reset(afterBytes: $0.count / 2)) }) {
            if case .network(let failure) = $0 { failure.reason == .connectionLost } else { false }
        },
        Scenario(name: "body shorter than Content-Length", route: { ServedRoute(body: $0, contentType: "image/png", fault: .truncate(afterBytes: $0.count / 3)) }) {
            if case .network(let failure) = $0 { failure.reason == .connectionLost } else { false }
        },
        Scenario(name: "HTML error page with status 200", route: { _ in
            ServedRoute(body: Array("<!doctype html><title>Oops</title><p>Try later".utf8), contentType: "text/html")
        }) {
            if case .unsupportedFormat = $0 { true } else { false }
        },
        Scenario(name: "redirect loop", route: { _ in .redirect(to: "/fault") }) {
            if case .tooManyRedirects = $0 { true } else { false }
        },
        Scenario(name: "429 with Retry-After", route: { _ in .status(429, headers: ["Retry-After": "120"]) }) {
            if case .httpStatus(429, _) = $0 { true } else { false }
        },
        Scenario(name: "503 with Retry-After", route: { _ in .status(503, headers: ["Retry-After": "30"]) }) {
            if case .httpStatus(503, _) = $0 { true } else { false }
        },
    ]

    @Test(arguments: scenarios)
    func faultsFailCleanly(_ scenario: Scenario) async throws {
        try await withTestFixture(configure: { configuration in
            guard scenario.shortTimeouts else { return }
            configuration.idleTimeout = .seconds(1)
            configuration.totalTimeout = .seconds(3)
        }) { fixture in
            fixture.server.serve("/fault", scenario.route(Self.png))
            let url = fixture.server.url("/fault")
            await #expect {
                try await fixture.pipeline.image(for: url)
            } throws: { error in
                guard let error = error as? MagpieError else { return false }
                return scenario.expected(error)
            }
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 0 }
            let cache = try #require(fixture.pipeline.dataCache)
            await cache.flush()
            #expect(await cache.count == 0, "nothing from a failed load reaches the disk cache")
            #expect(await cache.entry(for: url.absoluteString) == nil)
        }
    }

    @Test(arguments: ["120", "HTTP-date"])
    func retryAfterIsHonouredBeforeAskingAgain(form: String) async throws {
        try await withTestFixture { fixture in
            // Dated by the pipeline's wall clock, which stands still until the test moves it.
            let value = form == "120" ? "120" : Self.httpDate(fixture.clock.wall().addingTimeInterval(120))
            fixture.server.serve("/busy.png", .status(429, headers: ["Retry-After": value]))
            let url = fixture.server.url("/busy.png")
            await #expect(throws: MagpieError.httpStatus(429, url)) { try await fixture.pipeline.image(for: url) }

            // Asked to wait: the next load is refused without a request.
            await #expect(throws: MagpieError.blocked(url)) { try await fixture.pipeline.image(for: url) }
            #expect(fixture.server.statistics(for: "/busy.png").requests == 1)

            // Once the wait is over (the pipeline's clock, not the test's), it asks again.
            fixture.server.serve("/busy.png", .image(Self.png))
            fixture.clock.advance(by: .seconds(121))
            let image = try await fixture.pipeline.image(for: url)
            #expect(image.width == 200)
            #expect(fixture.server.statistics(for: "/busy.png").requests == 2)
        }
    }

    @Test func retryAfterCannotSilenceAURLForLong() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/busy.png", .status(503, headers: ["Retry-After": "99999999"]))
            let url = fixture.server.url("/busy.png")
            _ = try? await fixture.pipeline.image(for: url)
            fixture.server.serve("/busy.png", .image(Self.png))
            fixture.clock.advance(by: .seconds(3601))
            let image = try await fixture.pipeline.image(for: url)
            #expect(image.width == 200, "waits are capped at an hour")
        }
    }

    @Test func aBusyServerWithoutRetryAfterIsAskedAgainAtOnce() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/busy.png", .status(503))
            let url = fixture.server.url("/busy.png")
            _ = try? await fixture.pipeline.image(for: url)
            fixture.server.serve("/busy.png", .image(Self.png))
            let image = try await fixture.pipeline.image(for: url)
            #expect(image.width == 200)
        }
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
