import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSOCKS
import Tracing

/// Downloads bytes over HTTP(S) with AsyncHTTPClient, following redirects itself so that it
/// can check each hop's scheme and keep credentials from other hosts.
struct DataLoader: Sendable {
    struct Limits: Sendable {
        var maximumResponseBytes: Int
        var maximumRedirects: Int
        var idleTimeout: Duration
        var totalTimeout: Duration
        var connectTimeout: Duration
        var allowedSchemes: Set<String>
    }

    enum Outcome: Sendable {
        /// The whole body; its first `resumedFrom` bytes were kept from an earlier try.
        case downloaded([UInt8], HTTPMetadata, resumedFrom: Int)
        /// 304 to a conditional request: the cached bytes are still good.
        case notModified(HTTPMetadata)
        /// Another status (an error, or a redirect from an endpoint); `excerpt` is the start of
        /// the body, where a store says why.
        case refused(status: Int, HTTPMetadata, excerpt: [UInt8])
    }

    /// Where a download goes, which decides what is checked on the way.
    enum Target: Sendable {
        /// A URL a request named: every hop is checked against the source rules, and
        /// connections against the address policy.
        case source(SourceRules)
        /// An endpoint the configuration names (an object store): trusted, reached directly
        /// even where the address policy would refuse it, redirects not followed.
        case endpoint
    }

    let clients: OutboundClients
    let limits: Limits
    /// What arrived of broken-off downloads, to ask for the rest; `nil` turns resuming off.
    let partials: PartialBodies?
    let logger: Logger

    /// Loads `outgoing` for `download`, failing with ``MagpieError/timedOut(_:)`` when the
    /// whole exchange, body included, takes longer than the total timeout. (AsyncHTTPClient's
    /// deadline covers the response head only, and a trickling body never trips the idle
    /// timeout.) Errors name `download.url`, the URL the request asked for.
    func load(
        _ outgoing: OutgoingRequest, to target: Target, revalidating cached: HTTPMetadata?, for download: Download
    ) async throws(MagpieError) -> Outcome {
        let (result, timedOut) = await Deadline.run(within: limits.totalTimeout) {
            try await self.exchange(outgoing, to: target, revalidating: cached, for: download)
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure where timedOut: throw .timedOut(download.url)
        case .failure(let error as MagpieError): throw error
        case .failure: throw .cancelled
        }
    }

    private func exchange(
        _ outgoing: OutgoingRequest, to target: Target, revalidating cached: HTTPMetadata?, for download: Download
    ) async throws(MagpieError) -> Outcome {
        // `load`'s own timer enforces the total timeout and says `timedOut`; AsyncHTTPClient's
        // deadline is only a backstop, a second later, so the two never race to name the failure.
        let deadline = NIODeadline.now() + TimeAmount(limits.totalTimeout) + .seconds(1)
        // A revalidation asks about the cached bytes; only a plain download resumes (and takes
        // the part it resumes, so no other try does).
        let part = cached == nil ? download.resumeKey.flatMap { partials?.take($0) } : nil
        var hops = DownloadHops(
            outgoing: outgoing, revalidating: cached, resuming: part, maximumRedirects: limits.maximumRedirects,
            followsRedirects: !target.isEndpoint)
        while true {
            let sent = try await send(hops, to: target, deadline: deadline, for: download)
            let next: DownloadHops.Next
            do {
                next = try hops.next(after: sent.head)
            } catch {
                await sent.exchange.drop()
                throw error
            }
            switch next {
            case .sendAgain:
                await sent.exchange.drop()
            case .read(let abandoned):
                if let abandoned, let key = download.resumeKey { partials?.keep(abandoned, for: key) }
                return try await read(sent, hops: hops, revalidating: cached, asked: outgoing, for: download)
            }
        }
    }

    /// A request on its way: its exchange, the response's head, and where it went.
    private struct Sent {
        let exchange: HTTPExchange
        let head: HTTPResponseHead
        let destination: NetworkFailure.Destination
    }

    /// Sends the request `hops` describes, after checking its URL, and waits for the head.
    private func send(_ hops: DownloadHops, to target: Target, deadline: NIODeadline, for download: Download) async throws(MagpieError) -> Sent {
        let url = hops.url
        try check(url)
        // Every hop, before anything is sent to its host.
        if case .source(let sources) = target { try sources.check(url, hop: hops.redirects.count, of: hops.originalURL) }
        var requestHeaders = HTTPHeaders()
        for (name, value) in hops.headers { requestHeaders.replaceOrAdd(name: name, value: value) }
        // The origin sees the request's trace (W3C `traceparent`, or whatever the
        // bootstrapped instrument propagates); with none bootstrapped, nothing is added.
        if !target.isEndpoint {
            InstrumentationSystem.instrument.inject(ServiceContext.current ?? .topLevel, into: &requestHeaders, using: TraceHeaderInjector())
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url.absoluteString, headers: requestHeaders)
        } catch {
            throw .invalidURL(url.absoluteString, reason: "\(error)")
        }
        let route = clients.client(for: url, trusted: target.isEndpoint)
        let destination = NetworkFailure.Destination(
            host: url.host ?? "", port: url.port ?? Self.defaultPort(url), proxy: route.proxy, connectTimeout: limits.connectTimeout)
        let part = hops.resuming
        let exchange = HTTPExchange(
            request, on: route.client, deadline: deadline, logger: logger,
            limits: .init(keptBytes: limits.maximumResponseBytes, previews: download.previews),
            planning: { head in Self.plan(for: head, resuming: part, following: !target.isEndpoint) }, onEvent: download.onEvent)
        do {
            return Sent(exchange: exchange, head: try await exchange.responseHead(), destination: destination)
        } catch {
            // Without a trust store no HTTPS load can work, whatever BoringSSL said.
            if url.scheme?.lowercased() == "https", let problem = clients.tls.trustStoreProblem {
                throw .network(NetworkFailure(.trustStoreUnavailable, "cannot check the certificate of \(destination.hostAndPort): \(problem)"))
            }
            var mapped = map(error, url: hops.originalURL, destination: destination)
            if case .network(let failure) = mapped, failure.reason == .certificateNotTrusted, route.proxy == nil {
                mapped = .network(await CertificateDiagnosis.diagnose(failure, at: destination, now: download.now()))
            }
            throw mapped
        }
    }

    /// The answer `sent` carries: not modified, refused, or its whole body (the rest of the
    /// part `hops` resumes, if any).
    private func read(
        _ sent: Sent, hops: DownloadHops, revalidating cached: HTTPMetadata?, asked outgoing: OutgoingRequest, for download: Download
    ) async throws(MagpieError) -> Outcome {
        let (head, exchange) = (sent.head, sent.exchange)
        let status = Int(head.status.code)
        let responseHeaders = head.headers.map { (name: $0.name, value: $0.value) }
        let received = download.now()
        let metadata = HTTPMetadata(
            etag: head.headers.first(name: "ETag"),
            lastModified: head.headers.first(name: "Last-Modified"),
            contentType: head.headers.first(name: "Content-Type"),
            freshUntil: HTTPFreshness.freshUntil(headers: responseHeaders, receivedAt: received),
            cacheControl: HTTPFreshness.cacheControl(headers: responseHeaders, receivedAt: received),
            date: head.headers.first(name: "Date").flatMap(HTTPDate.parse), redirects: hops.redirects)
        if status == 304, cached != nil || Self.carriesConditions(outgoing.headers) {
            await exchange.drop()
            if cached != nil { return .notModified(metadata) }
            throw .notModified(hops.originalURL, metadata)
        }
        guard (200..<300).contains(status) else {
            _ = try? await exchange.body()
            if status == 429 || status == 503, let header = head.headers.first(name: "Retry-After"), let wait = RetryAfter.wait(header, now: download.now()) {
                download.onRetryAfter(wait)
            }
            return .refused(status: status, metadata, excerpt: exchange.received)
        }
        let resuming = hops.resuming
        let expected = Self.expectedLength(of: head, resuming: resuming)
        do {
            let body = try await exchange.body()
            if let expected, body.count != expected {
                throw MagpieError.network(NetworkFailure(.connectionLost, "the body ended after \(body.count) of \(expected) bytes"))
            }
            return .downloaded(body, metadata, resumedFrom: resuming?.bytes.count ?? 0)
        } catch {
            let mapped = error as? MagpieError ?? map(error, url: hops.originalURL, destination: sent.destination)
            keepPartial(exchange.received, of: head.headers, resuming: resuming, expected: expected, key: download.resumeKey, after: mapped)
            throw mapped
        }
    }

    /// What to do with the body of a response, from its head alone: it is decided on the event
    /// loop as the head arrives, before the body's first bytes are read.
    private static func plan(for head: HTTPResponseHead, resuming part: PartialBody?, following: Bool) -> ResponseCollector.BodyPlan {
        let status = Int(head.status.code)
        if following, DownloadHops.isRedirect(head) { return .dropHop }
        switch part.map({ DownloadHops.answer(to: $0, head: head) }) {
        case .unusable?: return .dropHop
        case _ where !(200..<300).contains(status): return .dropAnswer
        case .rest?: return .keep(prefix: part?.bytes ?? [], expected: part?.total)
        case .whole?, .failed?, nil: return .keep(prefix: [], expected: expectedLength(of: head, resuming: nil))
        }
    }

    /// The whole body's length: the part's total when resuming, else the declared length.
    private static func expectedLength(of head: HTTPResponseHead, resuming: PartialBody?) -> Int? {
        resuming?.total ?? head.headers.first(name: "Content-Length").flatMap { Int($0) }
    }

    /// Whether the caller's own headers ask conditionally, so that a 304 answers them.
    private static func carriesConditions(_ headers: [String: String]) -> Bool {
        headers.keys.contains { ["if-none-match", "if-modified-since"].contains($0.lowercased()) }
    }

    private func check(_ url: URL) throws(MagpieError) {
        guard let scheme = url.scheme?.lowercased(), limits.allowedSchemes.contains(scheme) else {
            throw .invalidURL(url.absoluteString, reason: "the scheme \(url.scheme ?? "(none)") is not allowed")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidURL(url.absoluteString, reason: "it has no host")
        }
    }

    /// Keeps what arrived of a body that broke off, when the response lets the rest be asked for.
    private func keepPartial(
        _ bytes: [UInt8], of headers: HTTPHeaders, resuming: PartialBody?, expected: Int?, key: String?, after error: MagpieError
    ) {
        guard let partials, let key, let expected, error != .responseTooLarge(limit: limits.maximumResponseBytes) else { return }
        let validator =
            resuming?.validator
            ?? PartialBody.validator(etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"))
        let acceptsRanges = resuming != nil || headers[canonicalForm: "Accept-Ranges"].contains { $0.lowercased() == "bytes" }
        guard let validator, acceptsRanges else { return }
        partials.keep(PartialBody(bytes: bytes, validator: validator, total: expected), for: key)
    }

    private func map(_ error: any Error, url: URL, destination: NetworkFailure.Destination) -> MagpieError {
        if error is CancellationError { return .cancelled }
        if destination.proxy == nil, let gate = clients.gate, let refused = error as? SOCKSError.ConnectionFailed {
            // The gate refused or could not connect; its SOCKS reply carries only a code.
            let failure = gate.failure(host: destination.host, port: destination.port)
            return .network(failure ?? NetworkFailure(.other, "cannot connect to \(destination.hostAndPort) (address gate reply \(refused.reply.value))"))
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .readTimeout, .deadlineExceeded, .writeTimeout:
                return .timedOut(url)
            case .invalidURL, .emptyHost, .emptyScheme:
                return .invalidURL(url.absoluteString, reason: "\(error)")
            default:
                break
            }
        }
        if Task.isCancelled { return .cancelled }
        if let failure = NetworkFailure(classifying: error, to: destination) { return .network(failure) }
        return .network(NetworkFailure(.other, "exchange with \(destination.hostAndPort) failed: \(error)"))
    }

    static func defaultPort(_ url: URL) -> Int {
        url.scheme?.lowercased() == "https" ? 443 : 80
    }
}

extension DataLoader.Target {
    var isEndpoint: Bool {
        if case .endpoint = self { true } else { false }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Writes propagated trace context into an outgoing request's header fields.
private struct TraceHeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}
