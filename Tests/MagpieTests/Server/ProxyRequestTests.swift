import MagpieServer
import NIOConcurrencyHelpers
import Testing

@Suite("Proxy requests")
struct ProxyRequestTests {
    /// Ids made at once from many tasks are sixteen hex digits and never repeat; a client's
    /// own `X-Request-Id` is kept, and header names are lowered whatever their case.
    @Test func requestIDsAreDistinctAndAClientsOwnIsKept() async {
        let seen = NIOLockedValueBox(Set<String>())
        await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in ProxyRequest(path: "/x").id } }
            }
            for await ids in group { seen.withLockedValue { $0.formUnion(ids) } }
        }
        let ids = seen.withLockedValue { $0 }
        #expect(ids.count == 16_000)
        #expect(ids.allSatisfy { $0.utf8.count == 16 && $0.allSatisfy(\.isHexDigit) })
        let kept = ProxyRequest(path: "/x", headers: ["X-Request-Id": "abc", "ACCEPT": "image/webp"])
        #expect(kept.id == "abc" && kept.headers["accept"] == "image/webp")
        #expect(ProxyRequest(path: "/x", lowercasedHeaders: ["x-request-id": "def"]).id == "def")
    }
}
