import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Magpie
import MagpieServer
import MagpieOrigin

/// `magpie demo --proxy`: the gallery served by a loopback origin, resized by an image proxy,
/// and a page of `srcset` images that a browser loads through it, until interrupted.
struct ProxyDemo {
    let items: [DemoGallery.Item]
    let files: [URL]
    let workspace: URL
    let port: Int
    let latency: Int
    let logger: Logger
    let console: Console

    func run() async throws {
        let origin = try await ImageServer.start()
        for (index, file) in files.enumerated() {
            var route = ServedRoute.image(Array(try Data(contentsOf: file)))
            route.latency = .milliseconds(latency / 2 + index * 37 % (latency + 1))
            origin.serve("/gallery/" + file.lastPathComponent, route)
        }
        origin.serve(ProxyOptionsPage.ninePatchPath, .image(try ProxyOptionsPage.ninePatch()))

        let cache = workspace.appendingPathComponent("proxy-cache")
        try? FileManager.default.removeItem(at: cache)
        var configuration = ProxyConfiguration(cacheDirectory: cache)
        // A fresh key each run: the page's URLs are signed as a real site's would be.
        configuration.signingKeys = [try SigningKey(keyHex: Self.randomHex(), saltHex: Self.randomHex())]
        configuration.thumborSecurityKeys = [Self.randomHex()]
        // The origin is this machine; a production proxy keeps loopback refused.
        configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
        // So the options page can show a URL lowering its own limits (`mrd`).
        configuration.allowsSecurityOptions = true
        configuration.logger = logger
        let proxy = try ImageProxy(configuration: configuration)

        let page = ProxyDemoPage(
            items: zip(items, files).map { item, file in (item, origin.url("/gallery/" + file.lastPathComponent)) },
            proxy: proxy
        ).html
        // A still photo-sized JPEG, so crops and canvases have something to show.
        let photo = zip(items, files).first { $0.0.frames == 1 && $0.0.format == .jpeg && $0.0.width >= 1024 }?.1 ?? files[0]
        let optionsPage = ProxyOptionsPage(
            source: origin.url("/gallery/" + photo.lastPathComponent), proxy: proxy,
            thumbor: ThumborSigner(keys: configuration.thumborSecurityKeys)
        ).html
        let router = Router(context: ProxyRequestContext.self)
        router.get("/options") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: optionsPage)))
        }
        router.get("/") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        // Added after the pages, so it answers only the paths they leave.
        router.add(middleware: ImageProxyMiddleware(proxy: proxy, urlBasePath: "/"))

        let console = console
        let count = files.count
        do {
            try await ProxyServer(proxy: proxy, host: "127.0.0.1", port: port).run(responder: router.buildResponder()) { port in
                console.output("""
                    Open http://127.0.0.1:\(port)/ : \(count) gallery images, resized by the proxy (signed URLs, srcset 1x/2x, \
                    f:auto) from an origin at http://127.0.0.1:\(origin.port)/gallery/.
                    Metrics: http://127.0.0.1:\(port)/metrics. Ctrl-C stops.
                    """)
            }
        } catch {
            await origin.shutdown()
            FileHandle.standardError.write(Data("error: cannot serve on 127.0.0.1:\(port): \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        await origin.shutdown()
        console.output("Stopped.")
    }

    private static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
