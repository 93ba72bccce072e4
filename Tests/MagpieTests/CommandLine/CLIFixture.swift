import Foundation
import Magpie
import MagpieTesting

/// A loopback server with a few images, a scratch folder and the `magpie` binary, for the
/// end-to-end tests of the command-line tool.
struct CLIFixture {
    let server: ImageServer
    let tool: MagpieTool
    let directory: URL

    /// Served images: path → bytes. Sizes and formats differ so outputs can be told apart.
    static let images: [(path: String, width: Int, height: Int, format: ImageFormat)] = [
        ("/photos/cat.jpg", 400, 300, .jpeg),
        ("/photos/tower.png", 300, 400, .png),
        ("/art/cat.webp", 200, 200, .webp),
    ]

    var cacheDirectory: String { directory.appendingPathComponent("cache").path }

    func url(_ path: String) -> String { server.url(path).absoluteString }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `magpie` with `arguments`.
    func magpie(_ arguments: String..., input: String = "") async throws -> MagpieTool.Result {
        try await tool.run(arguments, input: input)
    }
}

func withCLIFixture(_ body: (CLIFixture) async throws -> Void) async throws {
    let tool = try MagpieTool.locate()
    defer { tool.cleanUp() }
    let server = try await ImageServer.start()
    let directory = tool.home.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (index, image) in CLIFixture.images.enumerated() {
        let bytes = try TestImages.texture(width: image.width, height: image.height, format: image.format, seed: UInt32(index + 1))
        server.serve(image.path, .image(bytes))
    }
    server.serve("/missing.png", .status(404))
    server.serve("/page.jpg", .image(Array("<html><body>Sorry</body></html>".utf8), contentType: "text/html"))
    var corrupt = try TestImages.texture(width: 64, height: 64, format: .png)
    corrupt.removeLast(corrupt.count / 2)
    server.serve("/broken.png", .image(corrupt))
    do {
        try await body(CLIFixture(server: server, tool: tool, directory: directory))
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}
