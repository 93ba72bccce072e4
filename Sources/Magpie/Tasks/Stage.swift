import Tracing

/// The pipeline's stages, by the names their spans, timings and counts use.
enum StageName: String, Sendable {
    case fetch, decode, process, load, encode

    /// The name of the stage's span.
    var spanName: String { "magpie." + rawValue }
}

/// What every stage of the pipeline runs through: a pool in which identical work (the same
/// key) runs once, and the one place where a request starts that work or joins it. The work
/// runs in the stage's span, under the span of whoever started it (the stages it waits for
/// nest below it); a request that joins running work gets a span of its own linked to the
/// work's, so coalescing shows in a trace. Spans go to the tracer bound to the task
/// (`withTracer`) or bootstrapped for the process; with none, they cost a no-op.
final class Stage<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let name: StageName
    private let pool: TaskPool<Key, Value>
    private let recorder: PipelineRecorder

    init(_ name: StageName, context: PipelineContext) {
        self.name = name
        pool = TaskPool(tracker: context.workTracker)
        recorder = context.recorder
    }

    /// Work still running.
    var inFlightCount: Int { pool.count }

    /// Whether work for `key` is running.
    func isRunning(_ key: Key) -> Bool { pool.contains(key) }

    /// The work for `key`: the running one, joined, or a new one doing `work`.
    func task(for key: Key, work: @escaping SharedTask<Value>.Work) -> (task: SharedTask<Value>, joined: Bool) {
        let name = name
        let (task, joined) = pool.task(for: key) { shared throws(MagpieError) in
            try await Self.traced(name, shared: shared, work: work)
        }
        if joined {
            recorder.record(.joinedWork)
            traceJoin(task)
        }
        return (task, joined)
    }

    private static func traced(_ name: StageName, shared: SharedTask<Value>, work: SharedTask<Value>.Work) async throws(MagpieError) -> Value {
        let span = InstrumentationSystem.tracer.startSpan(name.spanName)
        defer { span.end() }
        shared.traceContext = span.context
        let result: Result<Value, MagpieError> = await InstrumentationContext.$current.withValue(span.context) {
            do throws(MagpieError) {
                return .success(try await work(shared))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result, error != .cancelled {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: error.description))
        }
        return try result.get()
    }

    /// A request joined running work: a span in the request's trace, linked to the work's.
    private func traceJoin(_ task: SharedTask<Value>) {
        let span = InstrumentationSystem.tracer.startSpan(name.spanName)
        span.attributes["magpie.joined"] = true
        if let work = task.traceContext { span.addLink(SpanLink(context: work, attributes: [:])) }
        span.end()
    }
}
