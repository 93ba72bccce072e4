import Tracing

/// A span around one read or write of a store, under the stage that asked for it (a task
/// started for a write inherits the asking stage's context): what kind of entry, whether it was
/// found, how a shared store's request went. The shared store counts its outcomes through the
/// same span (``record(_:)``), so its counts and its traces cannot disagree. With no tracer,
/// no span is made.
struct StoreSpan: Sendable {
    enum Entry: String {
        case original, variant
    }

    private let span: (any Span)?
    private let recorder: PipelineRecorder?

    private init(span: (any Span)?, recorder: PipelineRecorder?) {
        self.span = span
        self.recorder = recorder
    }

    /// Counts outcomes with no span: requests no stage asked for (removals).
    static func counting(_ recorder: PipelineRecorder) -> StoreSpan {
        StoreSpan(span: nil, recorder: recorder)
    }

    /// Runs `body` in a span named `name` about `entry`.
    static func run<T: Sendable>(
        _ name: String, entry: Entry, recorder: PipelineRecorder? = nil, _ body: (StoreSpan) async -> T
    ) async -> T {
        if InstrumentationSystem.isOff { return await body(StoreSpan(span: nil, recorder: recorder)) }
        let span = InstrumentationSystem.tracer.startSpan(name)
        defer { span.end() }
        span.attributes["magpie.store.entry"] = entry.rawValue
        let traced = StoreSpan(span: span, recorder: recorder)
        return await InstrumentationContext.$current.withValue(span.context) { await body(traced) }
    }

    /// A read's result: whether it found an entry, and its size.
    func found(_ data: CachedData?) {
        guard let span, span.isRecording else { return }
        span.attributes["magpie.store.found"] = data != nil
        if let data { span.attributes["magpie.bytes"] = data.data.count }
    }

    /// How a shared store's request went: counted, and said on the span.
    func record(_ outcome: SharedStoreOutcome) {
        recorder?.record(.sharedStore(outcome))
        guard let span else { return }
        span.attributes["magpie.store.outcome"] = outcome.rawValue
        if outcome == .failed { span.setStatus(SpanStatus(code: .error)) }
    }
}

extension PipelineContext {
    /// The stored original for `key`, read in a span.
    func storedOriginal(for key: String) async -> CachedData? {
        guard let originals else { return nil }
        return await StoreSpan.run("magpie.store.read", entry: .original) { span in
            let entry = await originals.entry(for: key)
            span.found(entry)
            return entry
        }
    }

    /// The stored variant `variant` of `key`, read in a span.
    func storedVariant(for key: String, variant: String) async -> CachedData? {
        guard let variants else { return nil }
        return await StoreSpan.run("magpie.store.read", entry: .variant) { span in
            let entry = await variants.variantEntry(for: key, variant: variant)
            span.found(entry)
            return entry
        }
    }
}
