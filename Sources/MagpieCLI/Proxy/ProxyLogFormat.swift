import ArgumentParser
import Configuration
import Foundation
import Logging

/// How `magpie proxy` writes its log on standard error, by imgproxy's `IMGPROXY_LOG_FORMAT`
/// values (or `MAGPIE_LOG_FORMAT`): `pretty` for people (the default), `structured` (logfmt),
/// `json`, and `gcp` (JSON with Google Cloud Logging's `severity` and `message`). Every format
/// carries the record's metadata, and with tracing on the trace and span ids.
enum ProxyLogFormat: String, CaseIterable {
    case pretty, structured, json, gcp

    /// The format the settings name; `pretty` when none does.
    init(_ settings: ConfigReader) throws {
        let named = [("MAGPIE_LOG_FORMAT", "magpie.log.format"), ("IMGPROXY_LOG_FORMAT", "imgproxy.log.format")]
            .compactMap { name, key in settings.string(forKey: ConfigKey(key)).flatMap { $0.isEmpty ? nil : (name, $0) } }
        guard let (name, value) = named.first else {
            self = .pretty
            return
        }
        guard let format = ProxyLogFormat(rawValue: value.lowercased()) else {
            throw ValidationError("\(name) is one of \(Self.allCases.map(\.rawValue).joined(separator: ", ")); '\(value)' is not.")
        }
        self = format
    }

    /// Sends every logger of the process to standard error in this format. Once per process.
    func bootstrap(metadataProvider: Logger.MetadataProvider?) {
        let format = self
        LoggingSystem.bootstrap({ label, provider in
            switch format {
            case .pretty: StreamLogHandler.standardError(label: label, metadataProvider: provider)
            case .structured, .json, .gcp: LineLogHandler(label: label, format: format, metadataProvider: provider)
            }
        }, metadataProvider: metadataProvider)
    }
}

/// One record a line, as logfmt or JSON, written to standard error by one `write` each, so
/// that lines from threads never interleave.
struct LineLogHandler: LogHandler {
    let label: String
    let format: ProxyLogFormat
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .info

    init(label: String, format: ProxyLogFormat, metadataProvider: Logger.MetadataProvider?) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, provided in provided } }
        if let own = event.metadata { fields.merge(own) { _, own in own } }
        let time = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        var pairs: [(String, String)]
        switch format {
        case .gcp: pairs = [("time", time), ("severity", Self.severity(event.level)), ("logger", label), ("message", "\(event.message)")]
        default: pairs = [("time", time), ("level", event.level.rawValue), ("logger", label), ("msg", "\(event.message)")]
        }
        pairs += fields.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        var line = format == .structured ? Self.logfmt(pairs) : Self.json(pairs)
        line.append("\n")
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Google Cloud Logging's names for the levels.
    private static func severity(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }

    /// `key=value`, a value quoted when it holds a space, a quote, `=` or nothing.
    static func logfmt(_ pairs: [(String, String)]) -> String {
        pairs.map { key, value in
            let plain = !value.isEmpty && !value.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.value < 0x20 }
            return key + "=" + (plain ? value : quoted(value))
        }.joined(separator: " ")
    }

    static func json(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { quoted($0.0) + ":" + quoted($0.1) }.joined(separator: ",") + "}"
    }

    /// A JSON string, which logfmt's quoted values follow too.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
