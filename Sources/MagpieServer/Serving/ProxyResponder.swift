public import Hummingbird
import HTTPTypes
import Magpie
import NIOCore
import Prometheus

/// The request context of ``ImageProxyResponder``: it keeps the connection's channel to
/// notice a client that goes away.
public struct ProxyRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Serves an ``ImageProxy`` with Hummingbird: `/health`, `/metrics` and every other `GET`
/// or `HEAD` path as a proxy URL.
public struct ImageProxyResponder: HTTPResponder {
    public typealias Context = ProxyRequestContext

    let proxy: ImageProxy

    public init(proxy: ImageProxy) {
        self.proxy = proxy
    }

    public func respond(to request: Request, context: ProxyRequestContext) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "only GET and HEAD\n", extra: [.allow: "GET, HEAD"])
        }
        switch request.uri.path {
        case "/health": return await health()
        case "/metrics":
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: proxy.metricsRegistry.emitToBuffer())))
        case "/favicon.ico", "/robots.txt": return Self.text(.notFound, "not found\n")
        default: break
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let proxyRequest = ProxyRequest(path: request.uri.description, headers: headers)
        let answer: ProxyResponse =
            switch proxy.firstLook(at: proxyRequest) {
            case .answered(let response): response
            case .pending(let pending): await answerUnlessClientGoes(pending, channel: context.channel)
            }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// Answers in a task that the connection's closing cancels.
    private func answerUnlessClientGoes(_ pending: ImageProxy.PendingRequest, channel: any Channel) async -> ProxyResponse {
        let proxy = self.proxy
        let work = Task { await proxy.answer(pending) }
        guard let watch = try? await channel.pipeline.handler(type: DisconnectWatch.self).get() else {
            return await work.value
        }
        return await watch.whileAnswering(onGone: { work.cancel() }) {
            await withTaskCancellationHandler { await work.value } onCancel: { work.cancel() }
        }
    }

    private func health() async -> Response {
        let probe = HealthCheck.probe
        do {
            let decoded = try proxy.pipeline.configuration.decoder.decode(probe, options: DecodingOptions())
            guard decoded.width == 2 else { return Self.text(.serviceUnavailable, "decoding gave the wrong size\n") }
            return Self.text(.ok, "ok, \(Libvips.summary)\n")
        } catch {
            return Self.text(.serviceUnavailable, "decoding failed: \(error)\n")
        }
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String, extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
