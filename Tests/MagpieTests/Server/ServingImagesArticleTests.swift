import AsyncHTTPClient
import Foundation
import Hummingbird
import Magpie
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Logging
import Testing

// The Serving images article's snippets, compiled and run.
func makeProxyConfiguration(keyHex: String, saltHex: String, cacheDirectory: URL, allowedHosts: [String]) throws -> ProxyConfiguration {
    var configuration = ProxyConfiguration(cacheDirectory: cacheDirectory)
    configuration.signingKeys = [try SigningKey(keyHex: keyHex, saltHex: saltHex)]
    configuration.sources = SourcePolicy(allowedHosts: allowedHosts)
    configuration.presets["avatar"] = "rs:fill:128:128/g:sm/f:auto"
    configuration.cacheMaxAge = .seconds(7 * 86_400)
    return configuration
}

func avatarURL(of source: URL, proxyBase: String, signer: URLSigner) -> String {
    let part = "/pr:avatar/plain/" + source.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    return proxyBase + signer.sign(part)
}

struct AppRequestContext: ClientChannelContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var user: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

func makeRouter(proxy: ImageProxy) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.get("/") { _, _ in "Pages and images from one server.\n" }
    router.add(middleware: ImageProxyMiddleware(proxy: proxy, urlBasePath: "/images"))
    return router
}

@Suite("Serving images article")
struct ServingImagesArticleTests {
    @Test func theRouterServesAPageAndSignedAvatarsAndRefusesOtherHosts() async throws {
        let origin = try await ImageServer.start()
        origin.serve("/ada.png", .image(try TestImages.texture(width: 300, height: 200, format: .png)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-article-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try makeProxyConfiguration(
            keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt, cacheDirectory: directory, allowedHosts: ["127.0.0.1"])
        // The origin of this test is on loopback, which a proxy refuses by default.
        configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
        let proxy = try ImageProxy(configuration: configuration)
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let application = ProxyServer(proxy: proxy, port: 0).application(responder: makeRouter(proxy: proxy).buildResponder()) { portSink.yield($0) }
        var quiet = Logger(label: "article")
        quiet.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: quiet))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let base = "http://127.0.0.1:\(await iterator.next() ?? 0)"
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        func get(_ url: String, accept: String? = nil) async throws -> (Int, String?, [UInt8]) {
            var request = HTTPClientRequest(url: url)
            if let accept { request.headers.add(name: "Accept", value: accept) }
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 8 << 20)
            return (Int(response.status.code), response.headers.first(name: "Content-Type"), Array(body.readableBytesView))
        }
        do {
            let page = try await get(base + "/")
            #expect(page.0 == 200 && String(decoding: page.2, as: UTF8.self) == "Pages and images from one server.\n")

            let signer = URLSigner(keys: configuration.signingKeys)
            let images = base + "/images"
            let avatar = try await get(avatarURL(of: origin.url("/ada.png"), proxyBase: images, signer: signer), accept: "image/webp,*/*")
            #expect(avatar.0 == 200 && avatar.1 == "image/webp")
            let image = try VipsDecoder().decode(avatar.2, options: DecodingOptions())
            #expect((image.width, image.height) == (128, 128))

            let elsewhere = URL(string: "http://localhost:\(origin.port)/ada.png")!
            #expect(try await get(avatarURL(of: elsewhere, proxyBase: images, signer: signer)).0 == 404)
            #expect(try await get(images + "/health").0 == 200)
            #expect(try await get(avatarURL(of: origin.url("/ada.png"), proxyBase: base, signer: signer)).0 == 404, "only under /images")
        } catch {
            Issue.record(error)
        }
        try? await client.shutdown()
        await group.triggerGracefulShutdown()
        _ = await running.result
        await proxy.shutdown()
        await origin.shutdown()
    }
}
