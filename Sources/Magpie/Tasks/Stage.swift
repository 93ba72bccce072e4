import Tracing
import NIOConcurrencyHelpers
import Instrumentation

/// The pipeline's stages, by the names their spans, timings and counts use.
enum StageName: String, Sendable {
    case fetch, decode, process, load, encode

    /// The name of the stage's span.
    var spanName: String { "magpie." + rawValue }

    /// Where the stage's own time goes in ``StageTimings``; the load stage only looks in caches
    /// and hands on what the stages before it made.
    var phase: StageTimings.Stage? {
        switch self {
        case .fetch: .download
        case .decode: .decode
        case .process: .process
        case .encode: .encode
        case .load: nil
        }
    }

    /// What the recorder counts for one run of the stage that took `own`.
    func fact(took own: Duration) -> PipelineRecorder.Fact? {
        switch self {
        case .decode: .decoded(own)
        case .process: .processed(own)
        case .fetch, .load, .encode: nil
        }
    }
}

extension StageOutput {
    /// What the stage counts of every run (``StageName/fact(took:)``).
    func fact(of stage: StageName, took own: Duration) -> PipelineRecorder.Fact? { stage.fact(took: own) }
}

/// What every stage of the pipeline runs through: a pool in which identical work (the same
/// key) runs once, and the one place where a request starts that work or joins it, where the
/// work's own time is measured (its time less what it waited for: ``StageClock``) and added to
/// the value's ``StageTimings``, where it is counted, and where its span is made. The work
/// runs in the stage's span, under the span of whoever started it (the stages it waits for
/// nest below it); a request that joins running work gets a span of its own linked to the
/// work's, so coalescing shows in a trace. Spans go to the tracer bound to the task
/// (`withTracer`) or bootstrapped for the process; with none, they cost a no-op.
final class Stage<Key: Hashable & Sendable, Value: StageOutput>: Sendable {
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

    /// The work for `key` if it is running, joined; `nil` when it is not, and nothing is
    /// started.
    func running(_ key: Key) -> SharedTask<Value>? {
        guard let task = pool.running(key) else { return nil }
        recorder.record(.joinedWork)
        traceJoin(task)
        return task
    }

    /// What a stage's span says: `start` what the work is about (the source, the processor),
    /// `result` what came of it (bytes, dimensions, format, which cache answered). Computed
    /// only when a tracer records the span.
    struct Description: Sendable {
        var start: (@Sendable () -> SpanAttributes)?
        var result: (@Sendable (Value) -> SpanAttributes)?
    }

    /// The work for `key`: the running one, joined, or a new one doing `work`.
    func task(
        for key: Key, describing description: Description = Description(), work: @escaping SharedTask<Value>.Work
    ) -> (task: SharedTask<Value>, joined: Bool) {
        let name = name
        let recorder = recorder
        let (task, joined) = pool.task(for: key) { shared throws(MagpieError) in
            try await Self.traced(name, description: description, shared: shared) { shared throws(MagpieError) in
                try await Self.timed(name, recorder: recorder, shared: shared, work: work)
            }
        }
        if joined {
            recorder.record(.joinedWork)
            traceJoin(task)
        }
        return (task, joined)
    }

    private static func traced(
        _ name: StageName, description: Description, shared: SharedTask<Value>, work: SharedTask<Value>.Work
    ) async throws(MagpieError) -> Value {
        if InstrumentationSystem.isOff { return try await work(shared) }
        let span = InstrumentationSystem.tracer.startSpan(name.spanName)
        defer { span.end() }
        if span.isRecording, let start = description.start { span.attributes.merge(start()) }
        shared.traceContext = span.context
        let result: Result<Value, MagpieError> = await InstrumentationContext.$current.withValue(span.context) {
            do throws(MagpieError) {
                return .success(try await work(shared))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value):
            if span.isRecording, let describe = description.result { span.attributes.merge(describe(value)) }
        case .failure(let error):
            guard error != .cancelled else { break }
            // Failed because a stage it waited for did: the error is recorded there, once.
            if shared.clock.current.upstreamFailure != error { span.recordError(error) }
            span.setStatus(SpanStatus(code: .error, message: error.description))
        }
        return try result.get()
    }

    /// Runs the work and adds its own time (less its waits) to what it made, and its queue
    /// time; counts the run.
    private static func timed(
        _ name: StageName, recorder: PipelineRecorder, shared: SharedTask<Value>, work: SharedTask<Value>.Work
    ) async throws(MagpieError) -> Value {
        let (value, own) = try await shared.clock.measure(work, for: shared, as: name.phase)
        if let own, let fact = value.fact(of: name, took: own) { recorder.record(fact) }
        return value
    }

    /// A request joined running work: a span in the request's trace, linked to the work's,
    /// lasting until the work ends, so it shows how long the request waited for it.
    private func traceJoin(_ task: SharedTask<Value>) {
        if InstrumentationSystem.isOff { return }
        let span = InstrumentationSystem.tracer.startSpan(name.spanName)
        span.attributes["magpie.joined"] = true
        let linked = task.traceContext
        if let linked { span.addLink(SpanLink(context: linked, attributes: [:])) }
        task.whenEnded { result in
            // Joined while the work was starting: its span exists now.
            if linked == nil, let work = task.traceContext { span.addLink(SpanLink(context: work, attributes: [:])) }
            if case .failure(let error) = result, error != .cancelled {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error, message: error.description))
            }
            span.end()
        }
    }
}

/// Shared tasks by the key of what they produce, so identical work is done once: a request
/// that arrives while the work for its key is running joins it instead of starting another.
final class TaskPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let tasks = NIOLockedValueBox([Key: SharedTask<Value>]())
    private let tracker: WorkTracker?

    init(tracker: WorkTracker?) {
        self.tracker = tracker
    }

    /// The running task for `key`, or a new one doing `work`. `joined` tells which. The task is
    /// forgotten as its work ends, from the work itself, or when everyone leaves it.
    func task(for key: Key, work: @escaping SharedTask<Value>.Work) -> (task: SharedTask<Value>, joined: Bool) {
        tasks.withLockedValue { tasks in
            if let existing = tasks[key] { return (existing, true) }
            let task = SharedTask<Value>(
                work: { [weak self] shared throws(MagpieError) in
                    defer { self?.forget(shared, for: key) }
                    return try await work(shared)
                },
                onAbandon: { [weak self] abandoned in self?.forget(abandoned, for: key) })
            tasks[key] = task
            tracker?.track(task)
            return (task, false)
        }
    }

    /// Forgets `task` if it is still the one for `key` (a run abandoned and then ended must not
    /// forget the new task started for its key meanwhile).
    private func forget(_ task: SharedTask<Value>, for key: Key) {
        tasks.withLockedValue { tasks in
            if tasks[key] === task { tasks[key] = nil }
        }
    }

    /// The running task for `key`, if there is one; nothing is started.
    func running(_ key: Key) -> SharedTask<Value>? {
        tasks.withLockedValue { $0[key] }
    }

    /// Whether work for `key` is running.
    func contains(_ key: Key) -> Bool {
        tasks.withLockedValue { $0[key] != nil }
    }

    /// Tasks still running.
    var count: Int { tasks.withLockedValue { $0.count } }
}

extension InstrumentationSystem {
    /// Whether no instrument is bootstrapped or bound to the task: then spans are not even
    /// made. Finding the tracer (`InstrumentationSystem.tracer`) casts the instrument to a
    /// protocol, a few hundred nanoseconds that every stage and every memory hit would pay.
    package static var isOff: Bool { instrument is NoOpInstrument }
}
