import Hummingbird
import HTTPTypes
import Magpie
import NIOCore
import Prometheus

/// The proxy's endpoints answered for Hummingbird, wherever they are mounted: each grammar's health checks,
/// `metrics` and every other path as a proxy URL. ``ImageProxyResponder`` and
/// ``ImageProxyMiddleware`` both answer through it, so a mounted proxy behaves as a standalone one.
struct ProxyEndpoints: Sendable {
    let proxy: ImageProxy

    /// Answers `request`, whose path below the mount point is `path` (with its query).
    /// `channel` is the client's connection, watched so a client that goes stops its work.
    func respond(to request: Request, path: Substring, channel: (any Channel)?) async -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "only GET and HEAD\n", extra: [.allow: "GET, HEAD"])
        }
        // Byte by byte: walking the path as Characters was a tenth of a memory hit's own work.
        let endpoint = path[..<(path.utf8.firstIndex(of: UInt8(ascii: "?")) ?? path.endIndex)]
        if let healthy = proxy.grammars.healthCheck(at: endpoint) { return health(ok: healthy) }
        switch endpoint {
        case "/": return Self.landing
        case "/metrics":
            proxy.refreshMetrics()
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: proxy.metricsRegistry.emitToBuffer())))
        case "/favicon.ico", "/robots.txt": return Self.text(.notFound, "not found\n")
        default: break
        }
        var headers: [String: String] = [:]
        headers.reserveCapacity(request.headers.count)
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        var proxyRequest = ProxyRequest(path: String(path), lowercasedHeaders: headers)
        if request.method == .head { proxyRequest.method = .head }
        let answer: ProxyResponse =
            switch proxy.firstLook(at: proxyRequest) {
            case .answered(let response): response
            case .pending(let pending): await answerUnlessClientGoes(pending, channel: channel)
            }
        var fields = HTTPFields()
        fields.reserveCapacity(answer.headers.count)
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// Answers in a task that the connection's closing cancels.
    private func answerUnlessClientGoes(_ pending: ImageProxy.PendingRequest, channel: (any Channel)?) async -> ProxyResponse {
        let proxy = self.proxy
        let work = Task { await proxy.answer(pending) }
        guard let channel, let watch = await DisconnectWatch.watching(channel) else {
            return await work.value
        }
        return await watch.whileAnswering(onGone: { work.cancel() }) {
            await withTaskCancellationHandler { await work.value } onCancel: { work.cancel() }
        }
    }

    /// `ok` when a tiny image decodes, else a 503 saying what failed.
    private func health(ok: String) -> Response {
        let probe = HealthCheck.probe
        do {
            let decoded = try proxy.pipeline.configuration.decoder.decode(probe, options: DecodingOptions())
            guard decoded.width == 2 else { return Self.text(.serviceUnavailable, "decoding gave the wrong size\n") }
            return Self.text(.ok, ok, cache: "no-cache")
        } catch {
            return Self.text(.serviceUnavailable, "decoding failed: \(error)\n", cache: "no-cache")
        }
    }

    /// The root, as imgproxy answers it: a page saying what answers here.
    private static var landing: Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html"
        let page = "<!doctype html><title>Magpie</title><p>Magpie's image proxy answers imgproxy's and thumbor's URLs here.</p>\n"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// Health checks say `no-cache`, as imgproxy's and thumbor's do; other answers `no-store`.
    private static func text(_ status: HTTPResponse.Status, _ body: String, extra: HTTPFields = [:], cache: String = "no-store") -> Response {
        var headers = extra
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = cache
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
