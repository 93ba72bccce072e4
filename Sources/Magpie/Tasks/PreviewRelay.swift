import NIOConcurrencyHelpers

/// Turns what the stage before sends (partial bodies, or previews) into previews of this stage,
/// one at a time on the decoding threads: an offer that arrives while one is being made is
/// dropped rather than queued, and nothing is sent once the final value is being made.
final class PreviewRelay<Input: Sendable>: Sendable {
    private struct State {
        var busy = false
        var stopped = false
    }

    private let state = NIOLockedValueBox(State())
    private let send: @Sendable (ImageContainer) -> Void
    private let pool: DecodingPool
    private let transform: @Sendable (Input) -> ImageContainer?

    init(pool: DecodingPool, transform: @escaping @Sendable (Input) -> ImageContainer?, send: @escaping @Sendable (ImageContainer) -> Void) {
        self.pool = pool
        self.transform = transform
        self.send = send
    }

    func offer(_ input: Input) {
        let accepted = state.withLockedValue { state in
            guard !state.busy, !state.stopped else { return false }
            state.busy = true
            return true
        }
        guard accepted else { return }
        Task { [self] in
            let preview = try? await pool.run { [transform] () throws(MagpieError) in transform(input) }
            let sends = state.withLockedValue { state in
                state.busy = false
                return !state.stopped
            }
            if sends, let preview = preview ?? nil { send(preview) }
        }
    }

    func stop() {
        state.withLockedValue { $0.stopped = true }
    }
}
