import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import UnixSignals

/// Hummingbird's own minimal handler: one route answering every `GET` with the same bytes and
/// their content type, on the same HTTP/1.1 server Magpie's proxy runs. What a result served
/// from memory cannot beat, since the proxy's hot path is this plus its own work; raced against
/// `magpie proxy` by `Benchmarks/Proxy/hot-floor.py`. `headerFile`, when given, holds more
/// `Name: value` lines sent with every answer (the proxy's own, to tell what its headers cost
/// the framework from what its code costs).
func serveHotFloor(body path: String, contentType: String, headerFile: String?) async throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let body = ByteBuffer(bytes: bytes)
    var headers: HTTPFields = [.contentType: contentType]
    if let headerFile {
        for line in try String(contentsOfFile: headerFile, encoding: .utf8).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            headers.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }
    let router = Router()
    router.get("**") { [headers] _, _ in
        Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
    let application = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
        onServerRunning: { channel in
            // Unbuffered: the script reads the port from a pipe.
            FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)/\n".utf8))
        })
    try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
}
