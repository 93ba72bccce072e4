import Foundation

/// An egress HTTP proxy: plain `http:` URLs are sent to it as absolute-form requests, `https:`
/// URLs go through a `CONNECT` tunnel, so the proxy sees the host but not the request.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.proxy = try ProxySettings(environment: ProcessInfo.processInfo.environment)
/// ```
///
/// Proxy credentials are sent to the proxy only (`Proxy-Authorization` on the `CONNECT` or the
/// proxied request), never to an origin.
public struct ProxySettings: Sendable, Hashable {
    /// One proxy server.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        /// The proxy's host name or address.
        public var host: String
        /// The proxy's port.
        public var port: Int
        /// Basic credentials for the proxy, if it asks for them.
        public var credentials: Credentials?

        /// A user name and password sent to the proxy only.
        public struct Credentials: Sendable, Hashable {
            /// The user name, as the proxy expects it.
            public var username: String
            /// The password, sent only in the proxy's `Proxy-Authorization`.
            public var password: String

            /// Credentials for Basic authentication with the proxy.
            public init(username: String, password: String) {
                self.username = username
                self.password = password
            }
        }

        /// A proxy at `host:port`.
        public init(host: String, port: Int, credentials: Credentials? = nil) {
            self.host = host
            self.port = port
            self.credentials = credentials
        }

        /// Reads a proxy the way curl reads `HTTPS_PROXY`: `[http://][user:password@]host[:port]`,
        /// port 1080 when none is given, credentials percent-decoded.
        public init(url: String) throws(ProxySettingsError) {
            let text = url.trimmingCharacters(in: .whitespaces)
            let withScheme = text.contains("://") ? text : "http://" + text
            guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty else {
                throw ProxySettingsError("the proxy \(url) is not host[:port] or a URL")
            }
            guard components.scheme?.lowercased() == "http" else {
                throw ProxySettingsError("the proxy \(url) uses \(components.scheme ?? ""), but only http proxies are supported")
            }
            self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            self.port = components.port ?? 1080
            if let user = components.percentEncodedUser {
                credentials = Credentials(
                    username: user.removingPercentEncoding ?? user,
                    password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 } ?? "")
            }
        }

        /// `host:port`, without credentials, for messages and logs.
        public var description: String { NetworkFailure.Destination.hostAndPort(host, port) }
    }

    /// The proxy for `http:` URLs; `nil` connects directly.
    public var http: Server?
    /// The proxy for `https:` URLs, reached with `CONNECT`; `nil` connects directly.
    public var https: Server?
    /// Hosts reached directly, as in curl's `NO_PROXY`.
    public var bypass: ProxyBypass

    /// Settings with the given proxies and exceptions.
    public init(http: Server? = nil, https: Server? = nil, bypass: ProxyBypass = ProxyBypass("")) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// Reads the proxy variables curl reads: `http_proxy` for `http:` URLs, `HTTPS_PROXY` for
    /// `https:` ones, `ALL_PROXY` for either when its own is unset, and `NO_PROXY`. The
    /// lower-case spelling wins over the upper-case one; unlike curl, `HTTP_PROXY` in capitals is
    /// read too (curl ignores it to protect CGI scripts, which Magpie never runs as). Returns
    /// `nil` when no proxy is set.
    public init?(environment: [String: String]) throws(ProxySettingsError) {
        func value(_ name: String) -> String? {
            for spelling in [name.lowercased(), name.uppercased()] {
                if let value = environment[spelling]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
            }
            return nil
        }
        let all = try value("all_proxy").map { v throws(ProxySettingsError) in try Server(url: v) }
        let http = try value("http_proxy").map { v throws(ProxySettingsError) in try Server(url: v) } ?? all
        let https = try value("https_proxy").map { v throws(ProxySettingsError) in try Server(url: v) } ?? all
        guard http != nil || https != nil else { return nil }
        self.init(http: http, https: https, bypass: ProxyBypass(value("no_proxy") ?? ""))
    }

    /// The proxy to use for `url`, or `nil` to connect directly.
    func server(for url: URL) -> Server? {
        let server: Server? =
            switch url.scheme?.lowercased() {
            case "http": http
            case "https": https
            default: nil
            }
        guard let server, let host = url.host, !bypass.matches(host: host) else { return nil }
        return server
    }
}

/// A proxy setting that cannot be used.
public struct ProxySettingsError: Error, Sendable, CustomStringConvertible {
    /// One line saying what is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
