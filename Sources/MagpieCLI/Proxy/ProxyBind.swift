import ArgumentParser
import Configuration

/// Where `magpie proxy` listens: `--host` and `--port`, else `MAGPIE_BIND` or imgproxy's
/// `IMGPROXY_BIND`, so a service's environment file can say it. A bind is `HOST:PORT`,
/// `[IPv6]:PORT`, or `:PORT` for every interface (as imgproxy reads its default `:8080`).
/// Without either, 127.0.0.1:8080: a proxy is put on a network on purpose.
struct ProxyBind: Equatable {
    var host = "127.0.0.1"
    var port = 8080

    init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }

    init(_ settings: ConfigReader) throws {
        let named = [("MAGPIE_BIND", "magpie.bind"), ("IMGPROXY_BIND", "imgproxy.bind")]
            .compactMap { name, key in settings.string(forKey: ConfigKey(key)).flatMap { $0.isEmpty ? nil : (name, $0) } }
        guard let (name, text) = named.first else { return }
        guard let bind = Self(parsing: text) else {
            throw ValidationError("\(name) is HOST:PORT, [IPv6]:PORT or :PORT, with a port from 0 to 65535; '\(text)' is not.")
        }
        self = bind
    }

    init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // An IPv6 address needs its brackets: where would its port begin?
        }
        if host.isEmpty { host = "0.0.0.0" }
        guard !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        self.init(host: host, port: port)
    }

    /// The flags given on the command line win over the settings.
    func overridden(host: String?, port: Int?) -> ProxyBind {
        ProxyBind(host: host ?? self.host, port: port ?? self.port)
    }
}
