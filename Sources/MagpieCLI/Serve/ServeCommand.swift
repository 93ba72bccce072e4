import ArgumentParser
import Foundation
import MagpieOrigin

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a folder of images on 127.0.0.1 with optional latency and bandwidth limits.",
        discussion: "The loopback server Magpie's own tests use, for trying the pipeline against slow networks. Stop it with Ctrl-C.")

    @Argument(help: ArgumentHelp("Folder to serve; files keep their paths relative to it.", valueName: "dir"))
    var directory: String

    @Option(help: "Port on 127.0.0.1 (0 lets the system choose).")
    var port = 8080

    @Option(help: ArgumentHelp("Delay before each response, in milliseconds.", valueName: "ms"))
    var latency = 0

    @Option(help: ArgumentHelp("Body speed per response, in kilobytes per second (0: unlimited).", valueName: "kbps"))
    var bandwidth = 0

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard latency >= 0 else { throw ValidationError("--latency cannot be negative.") }
        guard bandwidth >= 0 else { throw ValidationError("--bandwidth cannot be negative.") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("'\(directory)' is not a folder.")
        }
    }

    func run() async throws {
        let server: ImageServer
        do {
            server = try await ImageServer.start(port: port)
        } catch {
            FileHandle.standardError.write(Data("error: cannot listen on 127.0.0.1:\(port): \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        let paths = try server.serveDirectory(URL(fileURLWithPath: directory, isDirectory: true)) { route in
            route.latency = .milliseconds(latency)
            if bandwidth > 0 { route.bytesPerSecond = bandwidth * 1000 }
        }
        // Unbuffered, so a script reading the first line learns the port at once.
        let console = Console(isInteractive: false)
        console.output("Serving \(paths.count) files from \(directory) at http://127.0.0.1:\(server.port)/")
        for path in paths.prefix(5) { console.output("  \(server.url(path).absoluteString)") }
        if paths.count > 5 { console.output("  …") }
        console.output("Press Ctrl-C to stop.")
        await Signals.wait(for: [SIGINT, SIGTERM])
        await server.shutdown()
        console.output("Stopped.")
    }
}
