import Foundation
import HTTPTypes
import Hummingbird
import Magpie
import NIOCore

/// A request context that keeps the connection's channel, so a route can reset it.
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Answers each request from the route table, applying the route's latency, bandwidth,
/// conditional-request and range settings, and its interference.
struct RouteResponder: HTTPResponder {
    let routes: RouteTable

    func respond(to request: Request, context: ServerContext) async throws -> Response {
        let path = request.uri.path
        var headerCopy: [String: String] = [:]
        for field in request.headers { headerCopy[field.name.canonicalName] = field.value }
        routes.arrived(path)
        routes.record(path) { statistics in
            statistics.requests += 1
            statistics.lastRequestHeaders = headerCopy
        }
        guard let route = routes.route(for: path) else {
            return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "not found\n")))
        }
        await route.interference?.beforeHead()
        if route.latency > .zero { try await Task.sleep(for: route.latency) }

        var headers = HTTPFields()
        if let contentType = route.contentType { headers[.contentType] = contentType }
        if let etag = route.etag { headers[.eTag] = etag }
        if let lastModified = route.lastModified { headers[.lastModified] = lastModified }
        for (name, value) in route.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        if isNotModified(request, route) {
            routes.record(path) { $0.notModified += 1 }
            return Response(status: .notModified, headers: headers)
        }
        var served = route
        if route.acceptsRanges {
            headers[.acceptRanges] = "bytes"
            if route.status == 200, let start = rangeStart(request, route) {
                headers[.contentRange] = "bytes \(start)-\(route.body.count - 1)/\(route.body.count)"
                served.status = 206
                served.body = Array(route.body[start...])
                routes.record(path) { $0.partialResponses += 1 }
            }
        }
        let declared: Int? = served.interference?.declaredLength ?? (served.omitsContentLength ? nil : served.body.count)
        let body = ResponseBody(contentLength: declared) { [served] writer in
            try await send(served, path: path, channel: context.channel, to: &writer)
        }
        return Response(status: .init(code: served.status), headers: headers, body: body)
    }

    /// Where a `Range: bytes=N-` request starts, when it is honoured: `If-Range`, if sent,
    /// must name the route's current version.
    private func rangeStart(_ request: Request, _ route: ServedRoute) -> Int? {
        guard let range = request.headers[.range], range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst("bytes=".count).dropLast()), start >= 0, start < route.body.count
        else { return nil }
        if let version = request.headers[.ifRange], version != route.etag, version != route.lastModified { return nil }
        return start
    }

    private func isNotModified(_ request: Request, _ route: ServedRoute) -> Bool {
        if let etag = route.etag, let sent = request.headers[.ifNoneMatch] {
            return sent.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag }
        }
        if let lastModified = route.lastModified.flatMap(HTTPDate.parse), let sent = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse) {
            return lastModified <= sent
        }
        return false
    }

    private func send(_ route: ServedRoute, path: String, channel: any Channel, to writer: inout any ResponseBodyWriter) async throws {
        let body = route.body
        let limit = min(route.interference?.bodyLimit ?? body.count, body.count)
        // Throttled bodies go out in slices every 50 ms; others in 64 kB slices.
        let sliceSize = route.bytesPerSecond.map { max(1, $0 / 20) } ?? 64 * 1024
        var offset = 0
        do {
            while offset < limit {
                let end = min(limit, offset + sliceSize)
                try await writer.write(ByteBuffer(bytes: body[offset..<end]))
                routes.record(path) { [sent = end - offset] in $0.bytesSent += sent }
                offset = end
                if route.bytesPerSecond != nil, offset < limit { try await Task.sleep(for: .milliseconds(50)) }
            }
        } catch {
            routes.record(path) { $0.connectionsClosedEarly += 1 }
            throw error
        }
        if let interference = route.interference, await interference.afterBody(on: channel) {
            routes.record(path) { $0.faultsInjected += 1 }
            throw CancellationError()
        }
        try await writer.finish(nil)
    }
}
