import NIOConcurrencyHelpers

/// Where a stage's work spent its time not working: waiting for the stages it depends on, and
/// queued for a slot (a download slot, the decode memory budget). ``Stage`` takes both from the
/// work's time to get the stage's own, so no stage measures itself.
final class StageClock: Sendable {
    struct Spent: Sendable {
        var waiting = Duration.zero
        var queued = Duration.zero
        /// What a stage it waited for failed with, if one did.
        var upstreamFailure: MagpieError?
    }

    private let spent = NIOLockedValueBox(Spent())

    /// What this run of the work has spent so far.
    var current: Spent { spent.withLockedValue { $0 } }

    /// Forgets an earlier run's time: abandoned work that a late subscriber starts again.
    func reset() {
        spent.withLockedValue { $0 = Spent() }
    }

    /// The work waited `duration` for another stage's work.
    func waited(_ duration: Duration) {
        spent.withLockedValue { $0.waiting += duration }
    }

    /// A stage the work waited for failed with `error`.
    func upstreamFailed(_ error: MagpieError) {
        spent.withLockedValue { $0.upstreamFailure = error }
    }

    /// The work waited `duration` for a slot.
    func queued(_ duration: Duration) {
        spent.withLockedValue { $0.queued += duration }
    }

    /// Runs `work` for `shared` from a clean slate (an abandoned run started again forgets the
    /// earlier run's time) and says how long it worked: its time less the waits and queues it
    /// added here, which goes to its `phase` of the value's timings (and the time it queued to
    /// the queue's); `nil` when the value was found rather than made.
    func measure<Value: StageOutput>(
        _ work: SharedTask<Value>.Work, for shared: SharedTask<Value>, as phase: StageTimings.Stage?
    ) async throws(MagpieError) -> (value: Value, own: Duration?) {
        reset()
        let start = ContinuousClock.now
        var value = try await work(shared)
        let spent = current
        let own = ContinuousClock.now - start - spent.waiting - spent.queued
        guard !value.isFound else { return (value, nil) }
        if let phase { value.timings.add(own, to: phase) }
        if spent.queued > .zero { value.timings.add(spent.queued, to: .queue) }
        return (value, own)
    }

    /// Waits for a slot with `acquire`, counting the time as queued.
    func queue<T>(_ acquire: () async throws(MagpieError) -> T) async throws(MagpieError) -> T {
        let start = ContinuousClock.now
        defer { queued(ContinuousClock.now - start) }
        return try await acquire()
    }
}

/// What a stage makes: a value that carries the time each stage spent on it, for
/// `Server-Timing` and the proxy's histograms.
protocol StageOutput: Sendable {
    var timings: StageTimings { get set }
    /// Whether the work found the value in a cache instead of making it (then no stage time
    /// is added: the time to look was not the stage's work).
    var isFound: Bool { get }
    /// What the recorder counts for a run of `stage` that made this in `own` time.
    func fact(of stage: StageName, took own: Duration) -> PipelineRecorder.Fact?
}

/// Where one piece of work's time went, stage by stage. ``Stage`` adds each stage's own time
/// as it finishes (the stages before it carry theirs in); a request that joined shared work
/// gets that work's timings.
package struct StageTimings: Sendable {
    package enum Stage: String, Sendable, CaseIterable {
        case queue, download, decode, process, encode
    }

    package private(set) var durations: [Stage: Duration] = [:]

    package init() {}

    package mutating func add(_ duration: Duration, to stage: Stage) {
        durations[stage, default: .zero] += duration
    }

    package mutating func merge(_ other: StageTimings) {
        for (stage, duration) in other.durations { add(duration, to: stage) }
    }
}
