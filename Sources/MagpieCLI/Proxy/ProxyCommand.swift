import ArgumentParser
import Configuration
import Foundation
import Logging
import Magpie
import MagpieServer
import SystemPackage

struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Serve resized images from source URLs: an image proxy for production.",
        discussion: """
            URLs are imgproxy's: /SIGNATURE/OPTIONS/SOURCE. OPTIONS are segments like rs:fill:256:256, g:sm, q:80, \
            f:auto, dpr:2, bl:3, pd:10, r:16, ff:1 or pr:NAME, with imgproxy's names and meanings; SOURCE is \
            plain/<percent-encoded URL>[@EXT] or the URL in URL-safe base64[.EXT]. SIGNATURE is the URL-safe base64 \
            HMAC-SHA256 of the salt followed by /OPTIONS/SOURCE. Keys and salts are hex; give several pairs to \
            rotate them. Settings come from these flags, then the environment, then --config (an env file): \
            MAGPIE_PROXY_KEY and MAGPIE_PROXY_SALT (comma-separated lists), and imgproxy's IMGPROXY_KEY, \
            IMGPROXY_SALT, IMGPROXY_SIGNATURE_SIZE, IMGPROXY_MAX_SRC_RESOLUTION, IMGPROXY_MAX_SRC_FILE_SIZE, \
            IMGPROXY_TTL, IMGPROXY_QUALITY, IMGPROXY_FORMAT_QUALITY, IMGPROXY_PRESETS and IMGPROXY_ALLOWED_SOURCES. \
            Thumbor's URLs (/HMAC/fit-in/300x200/smart/filters:quality(80)/SOURCE) are served on the same port, \
            signed with SECURITY_KEY or --thumbor-key. /health and /metrics are served beside. SIGTERM drains requests in flight and stops.
            """)

    @Option(help: ArgumentHelp("An env file (NAME=value lines) of settings; the environment wins over it.", valueName: "file"))
    var config: String?

    @Option(help: "Address to listen on (IMGPROXY_BIND or MAGPIE_BIND give both, HOST:PORT; default 127.0.0.1).")
    var host: String?

    @Option(help: "Port (0 lets the system choose; default 8080).")
    var port: Int?

    @Option(name: .customLong("signing-key"), help: ArgumentHelp("HMAC key in hex; repeat to rotate.", valueName: "hex"))
    var signingKeys: [String] = []

    @Option(name: .customLong("signing-salt"), help: ArgumentHelp("Salt in hex, one per --signing-key.", valueName: "hex"))
    var signingSalts: [String] = []

    @Option(name: .customLong("thumbor-key"), help: ArgumentHelp("Thumbor's SECURITY_KEY, for thumbor URLs; repeat to rotate.", valueName: "key"))
    var thumborKeys: [String] = []

    @Option(help: ArgumentHelp("Bytes of the HMAC a signature carries, 1 to 32, for clients that truncate (imgproxy's IMGPROXY_SIGNATURE_SIZE; default 32).", valueName: "bytes"))
    var signatureSize: Int?

    @Flag(help: "Accept unsigned URLs (signature segment 'unsafe'). For development only.")
    var allowUnsigned = false

    @Option(name: .customLong("allow-host"), help: ArgumentHelp("Source host allowed (example.com, *.example.com); repeat. Default: any.", valueName: "pattern"))
    var allowedHosts: [String] = []

    @Option(
        name: .customLong("allow-addresses"),
        help: ArgumentHelp(
            "Address ranges sources may resolve to besides public ones: loopback, private, link-local, cgnat (comma-separated).",
            valueName: "list"))
    var allowedAddresses: String?

    @Option(name: .customLong("preset"), help: ArgumentHelp("A named option set, NAME=s:256:256/fit:fill; repeat.", valueName: "name=options"))
    var presets: [String] = []

    @Option(help: ArgumentHelp("Folder for originals and results on disk.", valueName: "dir"))
    var cacheDir: String?

    @Flag(help: "Keep nothing on disk.")
    var noDiskCache = false

    @Option(help: ArgumentHelp("Cache-Control max-age of images, in seconds (IMGPROXY_TTL; default 86400).", valueName: "seconds"))
    var maxAge: Int?

    @Option(help: ArgumentHelp("JPEG, WebP and AVIF quality when a URL gives none (IMGPROXY_QUALITY; default 80).", valueName: "1-100"))
    var quality: Int?

    @Option(help: ArgumentHelp("Requests starting new work at once, download to encode (default: two per core); requests for a result being made join it without a slot.", valueName: "n"))
    var slots: Int?

    @Option(help: ArgumentHelp("Images waiting for a slot before requests get 503 (IMGPROXY_REQUESTS_QUEUE_SIZE; default 64).", valueName: "n"))
    var queue: Int?

    @Option(help: ArgumentHelp("Memory decodes in progress may hold together (progressive JPEGs hold every coefficient); a larger source is decoded alone. Default 256, or a quarter of the process's memory limit (a service's MemoryMax) when less.", valueName: "MB"))
    var decodeMemoryMB: Int?

    @Option(help: ArgumentHelp("Seconds before a request gets 504 (IMGPROXY_TIMEOUT; default 30).", valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp("Largest source in megabytes (IMGPROXY_MAX_SRC_FILE_SIZE in bytes; default 32).", valueName: "MB"))
    var maxSourceMB: Int?

    @Option(help: ArgumentHelp("Largest source in megapixels (IMGPROXY_MAX_SRC_RESOLUTION; default 50).", valueName: "MP"))
    var maxSourceMP: Int?

    @Option(
        help: ArgumentHelp(
            "Lowest level logged on standard error: info logs a line per request; warning and error log failures only (IMGPROXY_LOG_LEVEL; default info). IMGPROXY_LOG_FORMAT chooses pretty, structured (logfmt), json or gcp.",
            valueName: "level"))
    var logLevel: String?

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if let port { guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") } }
        guard (maxAge ?? 0) >= 0, (queue ?? 0) >= 0, (timeout ?? 1) > 0, (maxSourceMB ?? 1) > 0, (maxSourceMP ?? 1) > 0, (decodeMemoryMB ?? 1) > 0 else {
            throw ValidationError(
                "--max-age and --queue cannot be negative; --timeout, --max-source-mb, --max-source-mp and --decode-memory-mb must be positive.")
        }
        if let slots, slots < 1 { throw ValidationError("--slots must be at least 1.") }
        if let timeout, timeout > ProxyConfiguration.longestRequestTimeout {
            throw ValidationError("--timeout is at most \(Int(ProxyConfiguration.longestRequestTimeout)) seconds.")
        }
        if let signatureSize, !(1...32).contains(signatureSize) { throw ValidationError("--signature-size must be between 1 and 32.") }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100.") }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: ProxyConfiguration
        let telemetry: ProxyTelemetry?
        let bind: ProxyBind
        do {
            let settings = try await readSettings(environment: environment)
            bind = try ProxyBind(settings).overridden(host: host, port: port)
            telemetry = try ProxyTelemetry.settings(settings, environment: environment)
            // Before any logger is made: a logger keeps the handler of its making.
            try ProxyLogFormat(settings).bootstrap(metadataProvider: telemetry?.logMetadataProvider)
            configuration = try makeConfiguration(settings, environment: environment)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
        // Process-wide, and this process is the proxy's: see makeConfiguration.
        Libvips.threadsPerOperation = 1
        // Before the pipeline exists: its stages find the tracer bootstrapped.
        let exporter = try telemetry.map { try $0.start(environment: environment) }
        let proxy: ImageProxy
        do {
            proxy = try ImageProxy(configuration: configuration)
        } catch {
            throw ValidationError("\(error).")
        }
        let console = Console(isInteractive: false)
        let (host, port) = (bind.host, bind.port)
        let server = ProxyServer(proxy: proxy, host: host, port: port)
        // Said at start: an operator checks that the service's MemoryMax and the container's
        // CPU limit were seen.
        let decodeMegabytes = configuration.decodeMemoryBudget / 1_000_000
        let decodes = configuration.pipeline.decodingThreads
        let slots = configuration.processingSlots
        let processors = Processors.available
        do {
            try await server.run(alongside: exporter.map { [$0] } ?? []) { port in
                let shown = host.contains(":") ? "[\(host)]" : host
                console.output(
                    "Proxy listening on http://\(shown):\(port)/ (health: /health, metrics: /metrics; \(slots) processing slots and \(decodes) decoding threads for \(processors) processor\(processors == 1 ? "" : "s"), decoding within \(decodeMegabytes) MB). SIGTERM or Ctrl-C stops it."
                )
            }
        } catch {
            FileHandle.standardError.write(Data("error: cannot serve on \(host):\(port): \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        console.output("Stopped.")
    }

    /// The settings of the environment, then of the --config file.
    private func readSettings(environment: [String: String]) async throws -> ConfigReader {
        var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: environment)]
        if let config {
            do {
                providers.append(try await EnvironmentVariablesProvider(environmentFilePath: FilePath(config)))
            } catch {
                throw ValidationError("--config: cannot read '\(config)': \(error)")
            }
        }
        return ConfigReader(providers: providers)
    }

    /// The settings, then the flags given over them.
    private func makeConfiguration(_ settings: ConfigReader, environment: [String: String]) throws -> ProxyConfiguration {
        let directory: URL? =
            noDiskCache ? nil : URL(fileURLWithPath: cacheDir ?? DataCache.defaultDirectory.deletingLastPathComponent().appendingPathComponent("magpie-proxy").path)
        var configuration = ProxyConfiguration(cacheDirectory: directory)
        try configuration.read(settings)
        if !signingKeys.isEmpty || !signingSalts.isEmpty { configuration.signingKeys = try signingPairs() }
        if let signatureSize { configuration.signatureSize = signatureSize }
        if !thumborKeys.isEmpty { configuration.thumborSecurityKeys = thumborKeys }
        if allowUnsigned { configuration.allowsUnsignedURLs = true }
        if !allowedHosts.isEmpty { configuration.sources = SourcePolicy(allowedHosts: allowedHosts) }
        if let maxAge { configuration.cacheMaxAge = .seconds(maxAge) }
        if let quality { configuration.defaultQuality = quality }
        if let queue { configuration.queueLimit = queue }
        // Unless given, within the memory the process may use (a service's MemoryMax, a
        // container's limit): a quarter of it, at most the default.
        configuration.decodeMemoryBudget = decodeMemoryMB.map { $0 * 1_000_000 } ?? DecodeMemory.budget(withinMemoryLimit: DecodeMemory.processMemoryLimit)
        if let slots { configuration.processingSlots = slots }
        // A decoding thread for every slot, each libvips operation on the thread that runs it
        // (`Libvips.threadsPerOperation = 1`, set in `run`), as imgproxy runs its workers. With
        // one decoding thread per core and libvips' own worker threads, a quarter of the two
        // cores sat idle while every slot was busy (each call waiting on its workers and on the
        // JPEG's sequential read); two threads per core without this cost 90 MB more peak RSS.
        // Both together (vs-go-proxies, one run each, issue 38): the cold rows 1.04x -> 1.24x
        // imgproxy and 1.71x -> 1.87x imagor, the repeat row 0.90x -> 0.97x. At most four
        // threads a core: more would only hold more decodes in memory at once (a larger --slots
        // or IMGPROXY_WORKERS still admits that many requests).
        configuration.pipeline.decodingThreads = min(configuration.processingSlots, 4 * Processors.available)
        if let timeout { configuration.requestTimeout = .nanoseconds(Int64(timeout * 1e9)) }
        if let maxSourceMB { configuration.pipeline.maximumResponseBytes = maxSourceMB * 1_000_000 }
        if let maxSourceMP { configuration.pipeline.maximumPixels = maxSourceMP * 1_000_000 }
        // Given, the flag says which ranges; not given, imgproxy's IMGPROXY_ALLOW_*_SOURCE_ADDRESSES
        // settings (read above) stand. It used to replace them with public addresses only.
        if allowedAddresses != nil { configuration.pipeline.addressPolicy = try AddressPolicy(allowing: addressRanges()) }
        for preset in presets {
            guard let equals = preset.firstIndex(of: "="), equals != preset.startIndex else {
                throw ValidationError("--preset '\(preset)' is not NAME=OPTIONS.")
            }
            configuration.presets[String(preset[..<equals])] = String(preset[preset.index(after: equals)...])
        }
        try connection.apply(to: &configuration.pipeline, environment: environment)
        var logger = Logger(label: "magpie.proxy")
        logger.logLevel = try logLevel.flatMap(Logger.Level.init(rawValue:)) ?? Self.logLevel(settings) ?? .info
        configuration.logger = logger
        return configuration
    }

    /// `MAGPIE_LOG_LEVEL`, or imgproxy's `IMGPROXY_LOG_LEVEL` with its `warn`.
    private static func logLevel(_ settings: ConfigReader) throws -> Logger.Level? {
        for (name, key) in [("MAGPIE_LOG_LEVEL", "magpie.log.level"), ("IMGPROXY_LOG_LEVEL", "imgproxy.log.level")] {
            guard let text = settings.string(forKey: ConfigKey(key))?.lowercased(), !text.isEmpty else { continue }
            guard let level = text == "warn" ? .warning : Logger.Level(rawValue: text) else {
                throw ValidationError("\(name) is one of debug, info, warn, error; '\(text)' is not.")
            }
            return level
        }
        return nil
    }

    private func signingPairs() throws -> [SigningKey] {
        let (keys, salts) = (signingKeys, signingSalts)
        guard keys.count == salts.count else {
            throw ValidationError("give one salt per signing key (\(keys.count) keys, \(salts.count) salts).")
        }
        return try zip(keys, salts).map { key, salt in
            do {
                return try SigningKey(keyHex: key, saltHex: salt)
            } catch {
                throw ValidationError("\(error).")
            }
        }
    }

    private func addressRanges() throws -> AddressPolicy.Ranges {
        var ranges: AddressPolicy.Ranges = []
        for name in (allowedAddresses ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch name {
            case "loopback": ranges.insert(.loopback)
            case "private": ranges.insert(.privateNetworks)
            case "link-local": ranges.insert(.linkLocal)
            case "cgnat": ranges.insert(.sharedAddressSpace)
            default: throw ValidationError("--allow-addresses: '\(name)' is not loopback, private, link-local or cgnat.")
            }
        }
        return ranges
    }
}
