import Magpie
import NIOConcurrencyHelpers

/// The works of URLs read recently, by path and `Accept`, so that a URL asked again is not read
/// again. Reading (the signature, the options, the source rules, the plan, the negotiation and
/// the keys) is most of what a result in memory costs to answer, and a hot URL is asked
/// thousands of times. Only readings that hold for good are kept: a URL that expires, or lays
/// a watermark (whose mark may be fetched), is read each time; so is a path too long to be
/// worth keeping. Bounded by count; what is kept is a few hundred bytes per URL.
final class ReadURLs: Sendable {
    private let store = NIOLockedValueBox(LRUStore<String, ImageProxy.Work>())
    private let capacity: Int

    init(capacity: Int = 2_048) {
        self.capacity = capacity
    }

    /// What a request is known by here: everything reading looks at. `nil` for a path too long.
    static func key(_ request: ProxyRequest) -> String? {
        guard request.path.utf8.count <= 2_048 else { return nil }
        return request.path + "\n" + (request.headers["accept"] ?? "")
    }

    func work(for key: String) -> ImageProxy.Work? {
        store.withLockedValue { $0.value(for: key) }
    }

    func keep(_ work: ImageProxy.Work, for key: String) {
        store.withLockedValue { store in
            store.insert(work, cost: 1, expiry: nil, for: key)
            store.trim(toCost: .max, count: capacity)
        }
    }

    var count: Int { store.withLockedValue { $0.count } }
}
