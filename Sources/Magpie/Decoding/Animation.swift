/// The timing of an animated image: how long each frame shows and how many times it plays.
///
/// Frame delays are kept as the file states them, so an animation written back out
/// (``ImageEncoder``) carries the same numbers. ``frameDurations`` applies the browsers' rule:
/// a delay of 10 ms or less plays as 100 ms (Chrome, Firefox and Safari all do this, for GIF
/// and WebP alike, because many files say 0 and mean "the default speed").
public struct Animation: Sendable, Hashable {
    /// Each frame's delay in milliseconds, as the file states it.
    public let frameDelays: [Int]
    /// How many times the animation plays; 0 is forever. A GIF without a loop extension plays
    /// once; a GIF whose extension says "repeat n times" plays n + 1 times, as in browsers.
    public let loopCount: Int

    /// Creates the timing of an animation. `frameDelays` has one entry per frame, in
    /// milliseconds.
    public init(frameDelays: [Int], loopCount: Int) {
        self.frameDelays = frameDelays
        self.loopCount = max(0, loopCount)
    }

    /// Number of frames.
    public var frameCount: Int { frameDelays.count }

    /// How long each frame shows when played: a stated delay of 10 ms or less plays as 100 ms.
    public var frameDurations: [Duration] { frameDelays.map(Self.playedDuration) }

    /// One pass through every frame, as played.
    public var cycleDuration: Duration { frameDelays.reduce(Duration.zero) { $0 + Self.playedDuration($1) } }

    /// The frame on screen `time` after the animation started. After its last loop an
    /// animation rests on its last frame.
    public func frameIndex(at time: Duration) -> Int {
        guard frameCount > 1, time > .zero else { return 0 }
        let cycle = cycleDuration
        if loopCount > 0, time >= cycle * loopCount { return frameCount - 1 }
        var remaining = time - cycle * Int(time / cycle)
        for (index, delay) in frameDelays.enumerated() {
            let duration = Self.playedDuration(delay)
            if remaining < duration { return index }
            remaining -= duration
        }
        return frameCount - 1
    }

    /// The browsers' rule for a stated delay.
    static func playedDuration(_ milliseconds: Int) -> Duration {
        milliseconds <= 10 ? .milliseconds(100) : .milliseconds(milliseconds)
    }
}
