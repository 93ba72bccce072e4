/// Where one piece of work's time went, stage by stage. The stages measure it as they run; a
/// request that joined shared work gets that work's timings.
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

    /// Runs `body`, adding the time it took to `stage`.
    package mutating func measure<Value>(
        _ stage: Stage, _ body: () async throws(MagpieError) -> Value
    ) async throws(MagpieError) -> Value {
        let start = ContinuousClock.now
        defer { add(ContinuousClock.now - start, to: stage) }
        return try await body()
    }
}
