import NIOConcurrencyHelpers

/// Decodes partial bodies into preview events for one shared decode, one at a time: an offer
/// that arrives while a preview is being decoded is dropped rather than queued, and nothing
/// is sent once the final image is being decoded.
final class PreviewSender: Sendable {
    private struct State {
        var busy = false
        var stopped = false
    }

    private let state = NIOLockedValueBox(State())
    private let shared: SharedTask<LoadedImage>
    private let pool: DecodingPool
    private let decode: @Sendable ([UInt8]) -> DecodedImage?

    init(shared: SharedTask<LoadedImage>, pool: DecodingPool, decode: @escaping @Sendable ([UInt8]) -> DecodedImage?) {
        self.shared = shared
        self.pool = pool
        self.decode = decode
    }

    func offer(_ bytes: [UInt8]) {
        let accepted = state.withLockedValue { state in
            guard !state.busy, !state.stopped else { return false }
            state.busy = true
            return true
        }
        guard accepted else { return }
        Task { [self] in
            let image = try? await pool.run { [decode] () throws(MagpieError) in decode(bytes) }
            let send = state.withLockedValue { state in
                state.busy = false
                return !state.stopped
            }
            if send, let image = image ?? nil { shared.send(.task(.preview(image))) }
        }
    }

    func stop() {
        state.withLockedValue { $0.stopped = true }
    }
}
