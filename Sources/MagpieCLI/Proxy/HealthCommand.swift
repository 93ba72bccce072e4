import ArgumentParser
import AsyncHTTPClient
import Configuration
import Foundation
import NIOCore
import NIOHTTP1

/// `magpie health`: asks the proxy listening on this machine for `/health`, as `imgproxy health`
/// does, so a container image needs no shell or curl for its health check.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask the proxy listening here for /health: exit 0 when it answers 200, 1 otherwise.",
        discussion: """
            The address is the proxy's own: --host and --port, else MAGPIE_BIND or IMGPROXY_BIND from the \
            environment, else 127.0.0.1:8080. A proxy bound to every interface is asked on loopback. For a \
            container's health check (the image's HEALTHCHECK runs it), as imgproxy's image runs `imgproxy health`.
            """)

    @Option(help: "Address the proxy listens on (default: the bind settings, else 127.0.0.1).")
    var host: String?

    @Option(help: "Port the proxy listens on (default: the bind settings, else 8080).")
    var port: Int?

    @Option(help: ArgumentHelp("Seconds to wait for the answer.", valueName: "seconds"))
    var timeout: Double = 5

    func validate() throws {
        if let port { guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535.") } }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be more than 0 and at most 600 seconds.") }
    }

    func run() async throws {
        let settings = ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: ProcessInfo.processInfo.environment)])
        let bind: ProxyBind
        do {
            bind = try ProxyBind(settings).overridden(host: host, port: port)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
        let url = "http://\(Self.reachable(bind.host)):\(bind.port)/health"
        let status: UInt
        do {
            let request = HTTPClientRequest(url: url)
            let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(Int64(timeout * 1e9)))
            status = response.status.code
        } catch {
            FileHandle.standardError.write(Data("unhealthy: \(url) did not answer: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        guard status == 200 else {
            FileHandle.standardError.write(Data("unhealthy: \(url) answered \(status)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        print("healthy: \(url) answered 200")
    }

    /// Where a proxy bound to `host` is reached from this machine: loopback for the wildcard
    /// addresses, brackets around IPv6.
    static func reachable(_ host: String) -> String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        default: host.contains(":") ? "[\(host)]" : host
        }
    }
}
