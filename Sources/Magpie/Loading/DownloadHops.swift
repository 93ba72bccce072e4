import Foundation
import NIOHTTP1

/// The requests one download sends, as a value: the URL and header fields of the next, and what
/// each response's head means for the download (follow a redirect, ask again without a range,
/// or read this response as the answer). It does no input or output, so its rules are tested
/// without a network; ``DataLoader`` sends what it says (AsyncHTTPClient's `RedirectState` has
/// this shape).
struct DownloadHops: Sendable {
    /// What comes after a response's head.
    enum Next: Sendable, Equatable {
        /// Drop this response and send the next request, which ``url`` and ``headers`` now
        /// describe.
        case sendAgain
        /// Read this response as the answer; `abandoned` is a part this download no longer
        /// continues but a later try may (the origin answered the range with a 404 or 503).
        case read(abandoned: PartialBody?)
    }

    /// The URL the request asked for, which errors name.
    let originalURL: URL
    let maximumRedirects: Int
    /// Whether redirects are followed; an endpoint's are its answer.
    let followsRedirects: Bool
    /// Where the next request goes.
    private(set) var url: URL
    /// The next request's header fields.
    private(set) var headers: [String: String]
    /// Every URL redirected to, in order.
    private(set) var redirects: [URL] = []
    /// The part this download asks the rest of, while it does.
    private(set) var resuming: PartialBody?

    /// Header fields never forwarded to a host other than the one they were meant for.
    private static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// The first request of `outgoing`: conditional on `cached`'s validators when it
    /// revalidates, or asking for the rest of `resuming`.
    init(outgoing: OutgoingRequest, revalidating cached: HTTPMetadata?, resuming: PartialBody?, maximumRedirects: Int, followsRedirects: Bool) {
        originalURL = outgoing.url
        url = outgoing.url
        headers = outgoing.headers
        self.maximumRedirects = maximumRedirects
        self.followsRedirects = followsRedirects
        if let cached {
            if let etag = cached.etag { headers["If-None-Match"] = etag }
            if let lastModified = cached.lastModified { headers["If-Modified-Since"] = lastModified }
        }
        // A revalidation asks about the cached bytes; only a plain download resumes.
        self.resuming = cached == nil ? resuming : nil
        if let resuming = self.resuming {
            headers["Range"] = "bytes=\(resuming.bytes.count)-"
            headers["If-Range"] = resuming.validator.headerValue
        }
    }

    /// What `head`, the answer to the request last described, means.
    mutating func next(after head: HTTPResponseHead) throws(MagpieError) -> Next {
        if followsRedirects, Self.isRedirect(head), let location = head.headers.first(name: "Location") {
            try redirect(to: location)
            return .sendAgain
        }
        guard let part = resuming else { return .read(abandoned: nil) }
        switch Self.answer(to: part, head: head) {
        case .rest: return .read(abandoned: nil)
        case .whole:
            resuming = nil
            return .read(abandoned: nil)
        case .failed:
            resuming = nil
            return .read(abandoned: part)
        case .unusable:
            resuming = nil
            headers["Range"] = nil
            headers["If-Range"] = nil
            return .sendAgain
        }
    }

    private mutating func redirect(to location: String) throws(MagpieError) {
        guard redirects.count < maximumRedirects else { throw .tooManyRedirects(originalURL) }
        guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
            // The origin's fault, not the request's: a bad gateway, like malformed HTTP.
            throw .network(NetworkFailure(.other, "\(url.host ?? "the origin") redirected to '\(location)', which is not a URL"))
        }
        redirects.append(next)
        if !Self.sameOrigin(url, next) {
            headers = headers.filter { !Self.credentialHeaders.contains($0.key.lowercased()) }
        }
        url = next
    }

    static func isRedirect(_ head: HTTPResponseHead) -> Bool {
        [301, 302, 303, 307, 308].contains(head.status.code) && head.headers.contains(name: "Location")
    }

    static func answer(to part: PartialBody, head: HTTPResponseHead) -> PartialBody.Answer {
        part.answer(status: Int(head.status.code), contentRange: head.headers.first(name: "Content-Range"), etag: head.headers.first(name: "ETag"))
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? DataLoader.defaultPort(a)) == (b.port ?? DataLoader.defaultPort(b))
    }
}
