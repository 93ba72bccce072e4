import Foundation
import Magpie
import MagpieTesting
import Testing

/// Connections that cannot be made fail with their own reason, in one readable line, and
/// refused or unresolvable ones fail without waiting for any timeout.
@Suite("Connection failures")
struct ConnectionFailureTests {
    /// A connect timeout longer than the total timeout: a refused or unresolvable connection
    /// that was retried until its connect timeout would end as ``MagpieError/timedOut(_:)``
    /// after a minute, so getting the failure's own reason proves it was not retried. (Not a
    /// stopwatch: in the parallel suite a test can wait many seconds for a thread.)
    static func patient(_ configuration: inout ImagePipeline.Configuration) {
        configuration.connectTimeout = .seconds(300)
        configuration.idleTimeout = .seconds(300)
        configuration.totalTimeout = .seconds(60)
    }

    @Test func refusedConnectionSaysSo() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        try await NetworkTesting.withPipeline(Self.patient) { pipeline in
            let failure = try #require(await NetworkTesting.failure(loading: URL(string: "http://127.0.0.1:\(port)/x.jpg")!, with: pipeline))
            #expect(failure.reason == .connectionRefused)
            #expect(failure.message == "connection refused by 127.0.0.1:\(port)")
            NetworkTesting.expectReadable(failure)
        }
    }

    @Test func unresolvableHostSaysSo() async throws {
        try await NetworkTesting.withPipeline(Self.patient) { pipeline in
            let url = URL(string: "http://magpie-test-host.invalid/x.jpg")!
            let failure = try #require(await NetworkTesting.failure(loading: url, with: pipeline))
            #expect(failure.reason == .hostNotFound)
            #expect(failure.message == "host not found: magpie-test-host.invalid")
            NetworkTesting.expectReadable(failure)
        }
    }

    @Test func unansweredConnectTimesOutAfterTheConnectTimeout() async throws {
        let silent = try UnansweredPort()
        try await NetworkTesting.withPipeline({ configuration in
            configuration.connectTimeout = .milliseconds(500)
            configuration.idleTimeout = .seconds(30)
            configuration.totalTimeout = .seconds(60)
        }) { pipeline in
            let url = URL(string: "http://127.0.0.1:\(silent.port)/x.jpg")!
            let failure = try #require(await NetworkTesting.failure(loading: url, with: pipeline))
            #expect(failure.reason == .connectTimedOut)
            #expect(failure.message == "connecting to 127.0.0.1:\(silent.port) timed out after 0.5 s")
            NetworkTesting.expectReadable(failure)
        }
    }

    /// The issue's page: six images from a dead host and six from a live one, six download
    /// slots. The dead ones free their slots at once (`MagpieBenchmarks --only network` times
    /// it), so every load ends with its own result long before any timeout.
    @Test func deadHostDoesNotHoldDownloadSlots() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let dead = refusing.port
        try await withTestFixture(configure: { configuration in
            Self.patient(&configuration)
            configuration.maximumConcurrentDownloads = 6
        }) { fixture in
            for index in 0..<6 { fixture.server.serve("/live\(index).png", .image(NetworkTesting.png)) }
            let urls = (0..<6).map { URL(string: "http://127.0.0.1:\(dead)/dead\($0).png")! }
                + (0..<6).map { fixture.server.url("/live\($0).png") }
            let results = await withTaskGroup(of: (URL, Result<DecodedImage, MagpieError>).self) { group in
                for url in urls {
                    group.addTask {
                        do throws(MagpieError) {
                            return (url, .success(try await fixture.pipeline.image(for: url)))
                        } catch {
                            return (url, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [URL: Result<DecodedImage, MagpieError>]()) { $0[$1.0] = $1.1 }
            }
            #expect(results.count == 12)
            for url in urls.prefix(6) {
                guard case .failure(.network(let failure)) = results[url] else {
                    Issue.record("\(url): \(String(describing: results[url]))")
                    continue
                }
                #expect(failure.reason == .connectionRefused)
            }
            for url in urls.suffix(6) {
                #expect((try? results[url]?.get())?.width == 64)
            }
        }
    }

    /// Connection failures describe the host or the network, not the URL, and now fail in
    /// milliseconds: they are not remembered by the failed-URL blocklist.
    @Test func connectionFailuresAreNotBlocklisted() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        try await withTestFixture(configure: Self.patient) { fixture in
            let url = URL(string: "http://127.0.0.1:\(port)/x.png")!
            for _ in 0..<2 {
                await #expect {
                    try await fixture.pipeline.image(for: url)
                } throws: { error in
                    guard case MagpieError.network(let failure) = error else { return false }
                    return failure.reason == .connectionRefused
                }
            }
        }
    }

    @Test func blocklistRuleFollowsTheReason() {
        let transient: Set<NetworkFailure.Reason> = [
            .hostNotFound, .addressNotAllowed, .connectionRefused, .hostUnreachable, .connectTimedOut, .proxyFailed, .connectionLost,
            // Fixed by a file appearing (an installed bundle, a mounted secret): not remembered.
            .trustStoreUnavailable, .other,
        ]
        for reason in NetworkFailure.Reason.allCases {
            #expect(MagpieError.network(NetworkFailure(reason, "x")).isTransient == transient.contains(reason), "\(reason)")
        }
    }
}
