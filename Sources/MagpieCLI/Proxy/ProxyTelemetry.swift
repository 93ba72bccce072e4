import ArgumentParser
import Configuration
import Foundation
import Logging
import Magpie
import ServiceLifecycle
#if OpenTelemetry
import OTel
#endif

/// OpenTelemetry for `magpie proxy`: traces of every request and its stages, exported over
/// OTLP/HTTP by swift-otel. Off unless asked for, as imgproxy's is; when off nothing is
/// bootstrapped and every span is swift-distributed-tracing's no-op.
///
/// Switched on by `MAGPIE_OPEN_TELEMETRY_ENABLE` or imgproxy's `IMGPROXY_OPEN_TELEMETRY_ENABLE`;
/// then configured by the standard `OTEL_*` variables of the process environment (endpoint,
/// service name, sampler, resource attributes, propagators), which every OpenTelemetry SDK
/// reads, and by imgproxy's older names where they mean the same
/// (`IMGPROXY_OPEN_TELEMETRY_ENDPOINT`, `_PROTOCOL`, `_SERVICE_NAME`).
struct ProxyTelemetry {
    /// The collector's `host:port` or URL, from imgproxy's older setting.
    var endpoint: String?
    /// `http/protobuf` (the only one exported here), `http` or `https` (imgproxy's), or `grpc`.
    var exportProtocol: String?
    var serviceName: String?

    /// The settings, or `nil` when telemetry is off.
    static func settings(_ settings: ConfigReader, environment: [String: String]) throws -> ProxyTelemetry? {
        let switches = ["MAGPIE_OPEN_TELEMETRY_ENABLE": "magpie.open.telemetry.enable", "IMGPROXY_OPEN_TELEMETRY_ENABLE": "imgproxy.open.telemetry.enable"]
        var enabled = false
        for (name, key) in switches.sorted(by: { $0.key < $1.key }) {
            guard let text = settings.string(forKey: ConfigKey(key)), !text.isEmpty else { continue }
            switch text.lowercased() {
            case "1", "t", "true": enabled = true
            case "0", "f", "false": break
            default: throw ValidationError("\(name) is true or false; '\(text)' is not.")
            }
        }
        // The specification's switch for every SDK wins over the product's.
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" || !enabled { return nil }
        let telemetry = ProxyTelemetry(
            endpoint: settings.string(forKey: "imgproxy.open.telemetry.endpoint"),
            exportProtocol: environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? environment["OTEL_EXPORTER_OTLP_PROTOCOL"]
                ?? settings.string(forKey: "imgproxy.open.telemetry.protocol"),
            serviceName: settings.string(forKey: "imgproxy.open.telemetry.service.name"))
        if let name = telemetry.exportProtocol, !["http/protobuf", "http", "https"].contains(name.lowercased()) {
            throw ValidationError(
                "OpenTelemetry is exported over OTLP/HTTP only (http/protobuf, the collector's port 4318), not '\(name)': "
                    + "set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf.")
        }
        return telemetry
    }

    /// What puts the current trace and span ids in every log record.
    var logMetadataProvider: Logger.MetadataProvider? {
        #if OpenTelemetry
        OTel.makeLoggingMetadataProvider()
        #else
        nil
        #endif
    }

    /// Bootstraps the process's tracer; the returned service exports what is recorded and must
    /// run beside the server (it sends what is left when the server has stopped).
    func start(environment: [String: String]) throws -> any Service {
        #if OpenTelemetry
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName ?? "magpie"
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        if let endpoint {
            configuration.traces.otlpExporter.endpoint = endpoint.contains("://") ? endpoint : "http://\(endpoint)"
        }
        // The replica a span came from, unless the operator names it (OTEL_RESOURCE_ATTRIBUTES).
        configuration.resourceAttributes["service.version"] = MagpieVersion.current
        configuration.resourceAttributes["host.name"] = ProcessInfo.processInfo.hostName
        configuration.resourceAttributes["service.instance.id"] = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
        do {
            return try OTel.bootstrap(configuration: configuration, environment: environment)
        } catch {
            // swift-otel names what it refused (an OTEL_* value it cannot read); the operator
            // needs to know it was the exporter's settings that stopped the start.
            throw ValidationError("OpenTelemetry cannot start: \(error)")
        }
        #else
        throw ValidationError("this build of magpie has no OpenTelemetry exporter (it was built without the OpenTelemetry trait).")
        #endif
    }
}
