import Magpie
import Testing

/// Reading proxy settings the way curl reads its environment.
@Suite("Proxy settings")
struct ProxySettingsTests {
    @Test(arguments: [
        ("example.com", "example.com", true),
        ("example.com", "img.example.com", true),
        (".example.com", "example.com", true),
        (".example.com", "a.b.example.com", true),
        ("example.com", "notexample.com", false),
        ("example.com", "example.com.evil.net", false),
        ("EXAMPLE.com", "Img.Example.COM", true),
        ("*", "anything.net", true),
        ("10.0.0.0/8", "10.20.30.40", true),
        ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.1.7", "192.168.1.7", true),
        ("192.168.1.7", "192.168.1.8", false),
        ("fd00::/8", "[fd12::1]", true),
        ("::1", "::1", true),
        ("fd00::/8", "10.0.0.1", false),
        ("localhost:8080", "localhost", true),
        ("a.com, b.com c.com", "c.com", true),
        ("", "example.com", false),
    ])
    func noProxyMatchesLikeCurl(list: String, host: String, matches: Bool) {
        #expect(ProxyBypass(list).matches(host: host) == matches)
    }

    @Test func proxyURLsAreReadLikeCurl() throws {
        let full = try ProxySettings.Server(url: "http://user%40corp:p%3Ass@proxy.internal:3128")
        #expect(full.host == "proxy.internal")
        #expect(full.port == 3128)
        #expect(full.credentials == .init(username: "user@corp", password: "p:ss"))
        #expect(full.description == "proxy.internal:3128")
        let bare = try ProxySettings.Server(url: "proxy.internal")
        #expect(bare.port == 1080)
        #expect(bare.credentials == nil)
        #expect(throws: ProxySettingsError.self) { try ProxySettings.Server(url: "socks5://proxy:1080") }
        #expect(throws: ProxySettingsError.self) { try ProxySettings.Server(url: "http://") }
    }

    @Test func environmentIsReadLikeCurl() throws {
        #expect(try ProxySettings(environment: [:]) == nil)
        #expect(try ProxySettings(environment: ["NO_PROXY": "x"]) == nil)
        let both = try #require(try ProxySettings(environment: ["https_proxy": "a:1", "HTTPS_PROXY": "b:2", "HTTP_PROXY": "c:3"]))
        #expect(both.https?.host == "a")
        #expect(both.http?.host == "c")
        let all = try #require(try ProxySettings(environment: ["ALL_PROXY": "d:4", "no_proxy": "internal"]))
        #expect(all.http?.host == "d" && all.https?.host == "d")
        #expect(all.bypass.matches(host: "cdn.internal"))
        #expect(throws: ProxySettingsError.self) { try ProxySettings(environment: ["HTTPS_PROXY": "ftp://x"]) }
    }
}
