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
