import NIOConcurrencyHelpers

/// How the pipeline keeps what arrived of a download that broke off, so that the next load of
/// the same URL asks only for the rest (`Range` with `If-Range`), as Nuke does.
///
/// A partial body is kept when the response allowed it: `Accept-Ranges: bytes`, a known length,
/// and a strong validator (an `ETag` that is not weak, or else `Last-Modified`) that the retry
/// sends back so that a changed file is sent whole instead of spliced. Downloads that fail for
/// a network reason, time out or are cancelled with nobody else waiting keep theirs; the next
/// load (retries follow the usual transient-failure rules) resumes it. The parts are held in
/// memory, bounded in count and bytes, the oldest dropped first, and expire.
public struct ResumableDownloads: Sendable, Hashable {
    /// Partial bodies kept at once.
    public var maximumCount = 16
    /// Bytes of partial bodies kept at once; a part larger than this is not kept.
    public var maximumBytes = 64 * 1024 * 1024
    /// A part smaller than this is not worth a second request's overhead.
    public var minimumBytes = 32 * 1024
    /// A part older than this is dropped: the file may have changed, and the memory is better used.
    public var lifetime: Duration = .seconds(600)

    /// The defaults: 16 parts, 64 MB, at least 32 kB each, for 10 minutes.
    public init() {}
}

/// What arrived of one download, and what the retry needs to ask for the rest.
struct PartialBody: Sendable, Equatable {
    /// The strong validator sent back as `If-Range`.
    enum Validator: Sendable, Hashable {
        case etag(String)
        case lastModified(String)

        var headerValue: String {
            switch self {
            case .etag(let value), .lastModified(let value): value
            }
        }
    }

    let bytes: [UInt8]
    let validator: Validator
    /// The whole body's length.
    let total: Int

    /// The validator a response allows resuming with, or `nil`: weak ETags never match
    /// `If-Range`, so they do not count.
    static func validator(etag: String?, lastModified: String?) -> Validator? {
        if let etag, !etag.hasPrefix("W/") { return .etag(etag) }
        return lastModified.map { .lastModified($0) }
    }
}

/// The partial bodies a pipeline keeps, by data key, within ``ResumableDownloads``' bounds.
final class PartialBodies: Sendable {
    private struct Entry {
        let body: PartialBody
        let storedAt: ContinuousClock.Instant
    }

    private struct State {
        /// Oldest first.
        var entries: [(key: String, entry: Entry)] = []
        var bytes = 0
    }

    private let limits: ResumableDownloads
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = NIOLockedValueBox(State())

    init(limits: ResumableDownloads, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.limits = limits
        self.now = now
    }

    /// Keeps `body` for `key` if it is worth keeping, replacing an older part of the same key.
    func keep(_ body: PartialBody, for key: String) {
        guard body.bytes.count >= max(1, limits.minimumBytes), body.bytes.count < body.total,
            body.bytes.count <= limits.maximumBytes, limits.maximumCount > 0
        else { return }
        let instant = now()
        let entry = Entry(body: body, storedAt: instant)
        state.withLockedValue { state in
            Self.remove(key, from: &state)
            let fresh = state.entries.filter { instant - $0.entry.storedAt < limits.lifetime }
            state.entries = fresh
            state.bytes = fresh.reduce(0) { $0 + $1.entry.body.bytes.count }
            state.entries.append((key, entry))
            state.bytes += body.bytes.count
            while state.entries.count > limits.maximumCount || state.bytes > limits.maximumBytes {
                state.bytes -= state.entries.removeFirst().entry.body.bytes.count
            }
        }
    }

    /// Takes the part kept for `key`, if any and still fresh: whoever takes it resumes, and keeps
    /// a new part if that download breaks off too.
    func take(_ key: String) -> PartialBody? {
        guard let entry = state.withLockedValue({ state in Self.remove(key, from: &state) }) else { return nil }
        return now() - entry.storedAt < limits.lifetime ? entry.body : nil
    }

    /// Partial bodies held, and their bytes.
    var usage: (count: Int, bytes: Int) {
        state.withLockedValue { ($0.entries.count, $0.bytes) }
    }

    @discardableResult
    private static func remove(_ key: String, from state: inout State) -> Entry? {
        guard let index = state.entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = state.entries.remove(at: index).entry
        state.bytes -= entry.body.bytes.count
        return entry
    }
}

extension PartialBody {
    /// What a response to a request for the rest of `self` (`Range` + `If-Range`) means.
    enum Answer {
        /// 206 with the rest: append it.
        case rest
        /// 200: the file changed (or the server ignores ranges); this body is the whole file.
        case whole
        /// A range that does not continue this part, or 416: ask again without a range.
        case unusable
        /// Another status (404, 503...): not about the range; the part may serve a later try.
        case failed
    }

    func answer(status: Int, contentRange: String?, etag: String?) -> Answer {
        switch status {
        case 206:
            // `bytes START-END/TOTAL`, starting where this part ends and running to the end.
            guard let contentRange, contentRange.hasPrefix("bytes ") else { return .unusable }
            let parts = contentRange.dropFirst("bytes ".count).split(separator: "/")
            let span = parts.first?.split(separator: "-")
            guard parts.count == 2, let span, span.count == 2, let start = Int(span[0]), let end = Int(span[1]),
                let length = Int(parts[1]), start == bytes.count, end == total - 1, length == total
            else { return .unusable }
            if case .etag(let mine) = validator, let etag, etag != mine { return .unusable }
            return .rest
        case 416: return .unusable
        case 200..<300: return .whole
        default: return .failed
        }
    }
}
