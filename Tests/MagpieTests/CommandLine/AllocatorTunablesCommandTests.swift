import Foundation
import Magpie
import MagpieTesting
import Testing

/// `magpie fetch` and `magpie prefetch` start themselves again with glibc's allocator tunables
/// (`CMagpieLaunch`), keeping an operator's own.
@Suite("magpie's allocator tunables")
struct AllocatorTunablesCommandTests {
    /// The environment of `magpie` run with `arguments` (and `environment`), read once it is
    /// waiting for a source that answers only after a minute: by then it has started for good.
    /// Its variables are separated by colons here, not NULs: glibc cuts `GLIBC_TUNABLES` into
    /// its settings where the process's environment lies, so they read as variables of their own.
    static func environment(of arguments: [String], _ environment: [String: String] = [:], in fixture: CLIFixture) async throws -> String {
        let asked = fixture.server.statistics(for: "/slow.png").requests
        let (process, _) = try fixture.tool.start(arguments, environment: environment)
        defer { if process.isRunning { process.terminate() } }
        try await waitUntil(timeout: .seconds(30)) { fixture.server.statistics(for: "/slow.png").requests > asked }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/environ"))
        return ":" + String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\0", with: ":") + ":"
    }

    @Test func aFetchRunsWithThemAndAnOperatorsOwnAreKept() async throws {
        try await withCLIFixture { fixture in
            var route = ServedRoute.image(try TestImages.texture(width: 64, height: 64, format: .png))
            route.latency = .seconds(60)
            fixture.server.serve("/slow.png", route)
            let fetch = ["fetch", fixture.url("/slow.png"), "--output", fixture.path("out"), "--no-cache"]
            #expect(try await Self.environment(of: fetch, in: fixture).contains(":GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=8388608:"))
            let own = "glibc.malloc.mmap_threshold=65536"
            let kept = try await Self.environment(of: fetch, ["GLIBC_TUNABLES": own], in: fixture)
            #expect(kept.contains(":GLIBC_TUNABLES=\(own):") && !kept.contains("hugetlb"), "\(kept)")
        }
    }
}
