@testable import MagpieCLI
import Testing

@Suite("Where the proxy listens")
struct ProxyBindTests {
    @Test(arguments: [
        ("127.0.0.1:8080", ProxyBind(host: "127.0.0.1", port: 8080)),
        (":8080", ProxyBind(host: "0.0.0.0", port: 8080)),
        ("[::1]:9000", ProxyBind(host: "::1", port: 9000)),
        ("[::]:0", ProxyBind(host: "::", port: 0)),
        ("images.internal:80", ProxyBind(host: "images.internal", port: 80)),
    ])
    func bindsAreRead(text: String, bind: ProxyBind) {
        #expect(ProxyBind(parsing: text) == bind)
    }

    @Test(arguments: ["8080", "::1:8080", "[::1]", "[]:80", "host:", "host:port", "host:-1", "host:65536", "a b:80", "/run/x.sock:1"])
    func unusableBindsAreRefused(text: String) {
        #expect(ProxyBind(parsing: text) == nil)
    }

    @Test func theFlagsWinOverTheSettings() {
        let bound = ProxyBind(host: "0.0.0.0", port: 9000)
        #expect(bound.overridden(host: nil, port: nil) == bound)
        #expect(bound.overridden(host: "127.0.0.1", port: nil) == ProxyBind(host: "127.0.0.1", port: 9000))
        #expect(bound.overridden(host: nil, port: 0) == ProxyBind(host: "0.0.0.0", port: 0))
    }
}
