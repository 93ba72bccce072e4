import Configuration
import Foundation
import Magpie
@testable import MagpieServer
import MagpieTesting
import Testing

/// The peers' own test expectations (imgproxy 4.0.12's and thumbor 7.8's test suites, transcribed
/// as data in Tests/PeerExpectations), sent to the proxy as the peer's clients send them, over a
/// loopback origin serving sources made to each row's description. Every row holds, or is in
/// gaps.tsv with why; a row listed there that now holds is reported too, so the list only shrinks.
@Suite("The peers' own test expectations")
struct PeerExpectationTests {
    static let sourcesScript = PeerExpectations.folder.deletingLastPathComponent().appendingPathComponent("Reference/peer_sources.py")
    static let defaultSource = "png:200x100"
    /// The folder below the sources that imgproxy's `local://` sources are read from.
    static let localRoot = "local-root"

    @Test(arguments: ["imgproxy", "thumbor"])
    func everyRowHoldsOrIsAKnownGap(_ peer: String) async throws {
        let rows = try PeerRow.load(peer)
        let gaps = try PeerExpectations.gaps(peer)
        #expect(rows.count >= (peer == "imgproxy" ? 400 : 300))
        let sources = try Self.makeSources(for: rows)
        defer { try? FileManager.default.removeItem(at: sources.folder) }
        var failed: [(PeerRow, [String])] = []
        var held = 0
        let groups = Dictionary(grouping: rows) { Self.settingsKey(of: $0, peer: peer) }
        for (_, group) in groups.sorted(by: { $0.key < $1.key }) {
            // Settings the proxy refuses fail their rows, as the peer's server would start.
            // Started first: the peers' literal hosts in settings are written as this origin.
            let origin = try await ImageServer.start()
            let base = origin.url("/").absoluteString.replacingOccurrences(of: "/$", with: "", options: .regularExpression)
            // Rows naming hosts of their own reach the origin through a proxy that takes every
            // host there.
            let relay = try await group.contains { Self.namedHost($0) != nil } ? Self.oneOriginProxy(to: origin.port) : nil
            defer { relay?.daemon.stop() }
            var probe = ProxyConfiguration(cacheDirectory: sources.folder)
            do {
                try Self.configure(&probe, for: group[0], peer: peer, sources: sources, origin: base, relayPort: relay?.port)
            } catch {
                failed += group.map { ($0, ["the settings are refused: \(error)"]) }
                await origin.shutdown()
                continue
            }
            try await withProxyFixture(origin: origin, configure: {
                try Self.configure(&$0, for: group[0], peer: peer, sources: sources, origin: base, relayPort: relay?.port)
            }) { fixture in
                for file in sources.files.values { fixture.origin.serve("/" + file.lastPathComponent, .image(Array(try Data(contentsOf: file)))) }
                Self.serveSpecialSources(fixture.origin)
                if let file = sources.files[Self.defaultSource] {
                    // The paths of the peer's literal hosts' images (example.com/image.jpg...).
                    for path in ["/image.jpg", "/path/to/image.jpg", "/lorem/ipsum.jpg", "/lorem/dolor/ipsum.jpg"] {
                        fixture.origin.serve(path, .image(Array(try Data(contentsOf: file))))
                    }
                }
                for (name, file) in Self.marks(sources) { fixture.origin.serve("/" + name, .image(Array(try Data(contentsOf: file)))) }
                for (index, row) in group.enumerated() {
                    if Self.isMade(row.source), sources.files[row.source] == nil {
                        failed.append((row, ["the source \(row.source) cannot be made with this machine's tools"]))
                        continue
                    }
                    // A row whose origin sends headers of its own has the source on a path of its own.
                    var sourcePath = Self.originPath(row.source, sources: sources)
                    if let route = try Self.originRoute(for: row, sources: sources) {
                        sourcePath = "/row-\(index)" + sourcePath
                        fixture.origin.serve(sourcePath, route)
                    }
                    let path = try Self.path(for: row, peer: peer, origin: fixture.origin, sourcePath: sourcePath)
                    let reply = try await fixture.get(path, headers: Self.requestHeaders(row))
                    var check = PeerRowCheck(row: row, reply: reply, sourceSize: sources.sizes[row.source])
                    check.upstream = fixture.origin.statistics(for: sourcePath).lastRequestHeaders
                    let failures = check.failures()
                    if failures.isEmpty { held += 1 } else { failed.append((row, failures)) }
                }
            }
        }
        let unexpected = failed.filter { gaps[$0.0.key] == nil }
        let mended = Set(gaps.keys).subtracting(failed.map(\.0.key)).intersection(rows.map(\.key))
        print("\(peer): \(held) of \(rows.count) rows hold; \(failed.count) are known gaps or new failures")
        for (row, failures) in unexpected {
            Issue.record("\(row): \(failures.joined(separator: "; "))")
        }
        for key in mended.sorted() {
            Issue.record("now holds, take it out of gaps.tsv: \(peer) \(key.replacingOccurrences(of: "\t", with: " "))")
        }
        if ProcessInfo.processInfo.environment["MAGPIE_PEER_GAPS_OUT"] != nil {
            let lines = failed.map { "\(peer)\t\($0.0.peerTest)\t\($0.0.path)\t\($0.1.joined(separator: "; ").replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " "))" }
            let out = URL(fileURLWithPath: ProcessInfo.processInfo.environment["MAGPIE_PEER_GAPS_OUT"]! + "-\(peer).tsv")
            try lines.joined(separator: "\n").appending("\n").write(to: out, atomically: true, encoding: .utf8)
        }
    }

    struct Sources {
        let folder: URL
        /// Each spec's file.
        let files: [String: URL]
        let sizes: [String: (width: Int, height: Int)]
    }

    static func makeSources(for rows: [PeerRow]) throws -> Sources {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-peer-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let specs = Set(rows.map(\.source).filter(isMade) + [defaultSource, "png:30x30:alpha"] + watermarkFixtures.values).sorted()
        let made = try JSONSerialization.jsonObject(with: try PythonScript.run(sourcesScript, [folder.path] + specs)) as? [String: Any] ?? [:]
        var files: [String: URL] = [:], sizes: [String: (width: Int, height: Int)] = [:]
        for spec in specs {
            guard let name = made[spec] as? String else { continue }
            files[spec] = folder.appendingPathComponent(name)
            let size = spec.split(separator: ":")[1].split(separator: "x").compactMap { Int($0) }
            if size.count == 2 { sizes[spec] = (size[0], size[1]) }
        }
        sizes["-"] = sizes[defaultSource]
        // imgproxy's `local:///image.jpg` (IMGPROXY_LOCAL_FILESYSTEM_ROOT): the default source.
        if let file = files[defaultSource] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(localRoot), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(localRoot + "/image.jpg"))
        }
        return Sources(folder: folder, files: files, sizes: sizes)
    }

    /// Sources made as images; the rest are served as they say (`missing`, `corrupt:…`, `text`).
    static func isMade(_ spec: String) -> Bool {
        spec != "-" && spec != "missing" && spec != "text" && !spec.hasPrefix("corrupt:") && spec.contains(":")
    }

    static func serveSpecialSources(_ origin: ImageServer) {
        origin.serve("/missing.png", .status(404))
        origin.serve("/text.html", .image(Array("<html><body>not an image</body></html>".utf8), contentType: "text/html"))
        let signatures: [String: [UInt8]] = [
            "jpeg": [0xFF, 0xD8, 0xFF, 0xE0], "png": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "gif": Array("GIF89a".utf8),
            "webp": Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8),
        ]
        for (format, signature) in signatures {
            origin.serve("/corrupt.\(format)", .image(signature + Array(repeating: 0x5A, count: 200)))
        }
    }

    /// The origin's path for a row's source.
    static func originPath(_ spec: String, sources: Sources) -> String {
        switch spec {
        case "missing": return "/missing.png"
        case "text": return "/text.html"
        case let corrupt where corrupt.hasPrefix("corrupt:"): return "/corrupt." + corrupt.dropFirst("corrupt:".count)
        default:
            let file = sources.files[spec] ?? sources.files[defaultSource]
            return "/" + (file?.lastPathComponent ?? "unmade")
        }
    }

    /// thumbor's watermark fixtures by the names its tests give them: a small gradient each.
    static func marks(_ sources: Sources) -> [(String, URL)] {
        guard let mark = sources.files["png:30x30:alpha"] ?? sources.files[defaultSource] else { return [] }
        return ["watermark", "watermark.png", "watermark.jpg", "nine_patch.png", "frame.png", "watermark_small.png", "watermarkBig.png"].map { ("mark-" + $0, mark) }
    }

    /// Rows that need a signing key are run apart from those that need none.
    static func settingsKey(of row: PeerRow, peer: String) -> String {
        row.config.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";") + (row.path.contains("{sig}") ? "#signed" : "")
    }

    static let thumborKey = "MY_SECURE_KEY"

    /// imgproxy's watermark files, named by its tests relative to its repository, as made sources.
    static let watermarkFixtures = [
        "testdata/geometry.png": defaultSource,
        "testdata/test-images/png/8-bpp.png": "png:64x64",
        "testdata/test-images/png/8-bpp-grayscale.png": "png:64x64:grey",
        "testdata/test-images/png/16-bpp.png": "png:64x64:16bit",
        "testdata/test-images/png/16-bpp-grayscale.png": "png:64x64:grey:16bit",
    ]

    static let oneOriginProxyScript = PeerExpectations.folder.deletingLastPathComponent().appendingPathComponent("Reference/one_origin_proxy.py")

    /// Tests/Reference/one_origin_proxy.py, tunnelling every `CONNECT` to the origin's port.
    static func oneOriginProxy(to originPort: Int) async throws -> (port: Int, daemon: DaemonProcess) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-one-origin-proxy-\(UUID().uuidString).log")
        return try await LoopbackPort.retryingIfTaken { port in
            try await DaemonProcess(executable: "python3", arguments: [oneOriginProxyScript.path, "\(port)", "\(originPort)"], port: port, outputFile: log)
        }
    }

    static func configure(
        _ configuration: inout ProxyConfiguration, for row: PeerRow, peer: String, sources: Sources, origin: String, relayPort: Int?
    ) throws {
        configuration.signingKeys = []
        configuration.allowsUnsignedURLs = true
        if peer == "imgproxy", row.path.contains("{sig}") {
            configuration.signingKeys = [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)]
        }
        // imgproxy with a key refuses what is not signed by it.
        if peer == "imgproxy", row.config["IMGPROXY_KEY"] != nil { configuration.allowsUnsignedURLs = false }
        if peer == "thumbor" {
            configuration.thumborSecurityKeys = [thumborKey]
            if row.config["ALLOW_UNSAFE_URL"]?.lowercased() == "false" { configuration.allowsUnsignedURLs = false }
        }
        var settings = row.config
        // Hosts the peer's parser tests name (never fetched there) are the loopback origin here.
        for (name, value) in settings { settings[name] = Self.hostsOnOrigin(value, origin: origin) }
        if peer == "imgproxy", settings["IMGPROXY_LOCAL_FILESYSTEM_ROOT"] == nil {
            settings["IMGPROXY_LOCAL_FILESYSTEM_ROOT"] = sources.folder.appendingPathComponent(localRoot).path
        }
        // Other hosts a row names keep their names (the settings' patterns must match them); the
        // fetch goes to the origin, as imgproxy's test rewrites every fetch.
        if let relayPort { configuration.pipeline.proxy = ProxySettings(http: .init(host: "127.0.0.1", port: relayPort)) }
        // The rows write imgproxy's ';' between replacements as ' + ' (';' joins their settings);
        // a replacement names the host bare.
        if let replacements = settings["IMGPROXY_URL_REPLACEMENTS"] {
            settings["IMGPROXY_URL_REPLACEMENTS"] = replacements.replacingOccurrences(of: " + ", with: ";")
                .replacingOccurrences(of: "images.dev", with: origin.replacingOccurrences(of: "http://", with: ""))
        }
        if let mark = settings["IMGPROXY_WATERMARK_PATH"], let spec = watermarkFixtures[mark], let file = sources.files[spec] {
            settings["IMGPROXY_WATERMARK_PATH"] = file.path
        }
        // Settings Magpie does not read are left out, as the proxy's environment reading leaves them.
        try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: settings)))
    }

    /// The headers the peer's test sent: each `request=NAME:VALUE` check, and the `Accept` a
    /// row's notes name (`request Accept: image/webp,*/*;q=0.8; ...`, `request header Accept:
    /// image/jxl -> ...`; the value runs to the first space).
    static func requestHeaders(_ row: PeerRow) -> [String: String] {
        var headers = fields(row, "request").mapValues(Self.relativeDate)
        if let start = row.notes.range(of: "Accept: ") {
            let value = row.notes[start.upperBound...].prefix { !$0.isWhitespace }
            headers["Accept"] = String(value.reversed().drop { ";,)".contains($0) }.reversed())
        }
        return headers
    }

    /// `now+N` as the HTTP date N seconds from now; any other value as it is.
    static func relativeDate(_ value: String) -> String {
        guard value.hasPrefix("now+"), let seconds = Double(value.dropFirst("now+".count)) else { return value }
        return HTTPDate.format(Date().addingTimeInterval(seconds))
    }

    /// The `NAME:VALUE` header fields of a row's checks with this key.
    static func fields(_ row: PeerRow, _ key: String) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in row.checks where name == key {
            guard let colon = value.firstIndex(of: ":") else { continue }
            fields[String(value[..<colon])] = String(value[value.index(after: colon)...])
        }
        return fields
    }

    /// The route of a row whose origin sends header fields of its own (`origin=NAME:VALUE`;
    /// `Expires:now+N` is N seconds from now), or whose checks read what the origin received. `ETag` and `Last-Modified` are the route's
    /// validators, so the origin answers a matching conditional request 304 as the peers' test
    /// servers do. `nil` for the shared routes.
    static func originRoute(for row: PeerRow, sources: Sources) throws -> ServedRoute? {
        var fields = fields(row, "origin")
        guard !fields.isEmpty || row.checks.contains(where: { $0.key == "upstream" }) else { return nil }
        guard let file = sources.files[row.source] ?? sources.files[defaultSource] else { return nil }
        var route = ServedRoute.image(Array(try Data(contentsOf: file)))
        route.etag = fields.removeValue(forKey: "ETag")
        route.lastModified = fields.removeValue(forKey: "Last-Modified")
        if let expires = fields["Expires"] { fields["Expires"] = relativeDate(expires) }
        route.headers = fields
        return route
    }

    /// The host of a row's literal `plain/http://HOST/...` source when it is none of
    /// ``literalHosts`` (imgproxy's source-validation tests name hosts their patterns match).
    static func namedHost(_ row: PeerRow) -> String? {
        guard let start = row.path.range(of: "plain/http://") else { return nil }
        let host = String(row.path[start.upperBound...].prefix { $0 != "/" })
        return literalHosts.contains("http://" + host) ? nil : host
    }

    /// The hosts imgproxy's parser tests name, which they never fetch.
    static let literalHosts = ["https://example.com", "http://example.com", "https:/example.com", "http:/example.com", "http://images.dev", "https://images.dev"]

    /// `text` with each of ``literalHosts`` written as `origin` (`http://127.0.0.1:PORT`), keeping
    /// a single slash after the scheme where the row has one (what imgproxy restores).
    static func hostsOnOrigin(_ text: String, origin: String) -> String {
        var text = text
        for host in literalHosts {
            let single = !host.contains("//")
            text = text.replacingOccurrences(of: host, with: single ? origin.replacingOccurrences(of: "://", with: ":/") : origin)
        }
        return text
    }

    static func path(for row: PeerRow, peer: String, origin: ImageServer, sourcePath: String) throws -> String {
        let sourceURL = origin.url(sourcePath).absoluteString
        var path = row.path
        if peer == "imgproxy" {
            path = hostsOnOrigin(path, origin: origin.url("/").absoluteString.replacingOccurrences(of: "/$", with: "", options: .regularExpression))
            path = path.replacingOccurrences(of: "{src64}", with: Base64URL.encode(Array(sourceURL.utf8)))
            path = path.replacingOccurrences(of: "{src}", with: "plain/" + ImageProxy.percentEncoded(sourceURL))
            if path.hasPrefix("/") { return try signed(path, row: row, peer: peer) }
            if path.hasPrefix("info/") { return "/info/unsafe/" + path.dropFirst("info/".count) }
            return "/unsafe/" + path
        }
        path = path.replacingOccurrences(of: "{src}", with: sourceURL.replacingOccurrences(of: "http://", with: ""))
        // A watermark or frame named without a host is one of thumbor's fixtures: here, the origin's.
        let host = sourceURL.replacingOccurrences(of: "http://", with: "").prefix { $0 != "/" }
        for filter in ["watermark(", "frame("] {
            path = path.replacingOccurrences(of: filter + "'", with: filter)
            var searched = path.startIndex
            while let range = path.range(of: filter, range: searched..<path.endIndex) {
                let name = path[range.upperBound...].prefix { $0 != "," && $0 != ")" && $0 != "'" }
                if !name.contains("/"), !name.isEmpty {
                    path.replaceSubrange(range.upperBound..<path.index(range.upperBound, offsetBy: name.count), with: "\(host)/mark-\(name)")
                }
                searched = range.upperBound
            }
        }
        if path.hasPrefix("/") { return try signed(path, row: row, peer: peer) }
        if row.config["ALLOW_UNSAFE_URL"]?.lowercased() == "false" {
            return "/" + ThumborSigner(keys: [row.config["SECURITY_KEY"] ?? thumborKey]).signature(for: path) + "/" + path
        }
        return "/unsafe/" + path
    }

    /// A whole path with `{sig}` where the valid signature of what follows it goes, made with the
    /// row's keys (the first pair) as its client signs: over imgproxy's path as the client wrote
    /// it, before a CDN's normalisation (which the server restores).
    static func signed(_ path: String, row: PeerRow, peer: String) throws -> String {
        guard let marker = path.range(of: "{sig}") else { return path }
        let after = path[marker.upperBound...]
        let rest = String(after.drop { $0 != "/" })
        let signature: String
        if peer == "imgproxy" {
            let keys = row.config["IMGPROXY_KEY"]?.split(separator: ",").first.map(String.init) ?? ProxyFixture.key
            let salts = row.config["IMGPROXY_SALT"]?.split(separator: ",").first.map(String.init) ?? ProxyFixture.salt
            let size = row.config["IMGPROXY_SIGNATURE_SIZE"].flatMap { Int($0) } ?? 32
            // imgproxy drops the query, and restores a normalised path, before checking.
            let pathOnly = rest.prefix { $0 != "?" }
            let restored = String(ProxyPath.restoringNormalisation("/signature" + pathOnly).dropFirst("/signature".count))
            signature = URLSigner(keys: [try SigningKey(keyHex: keys, saltHex: salts)], signatureSize: size).signature(for: restored)
        } else {
            signature = ThumborSigner(keys: [row.config["SECURITY_KEY"] ?? thumborKey]).signature(for: String(rest.dropFirst()))
        }
        return path.replacingCharacters(in: marker, with: signature)
    }
}
