import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import Logging
import NIOHTTP1

/// Receives one response on the event loop as it arrives: the head, then the body appended to
/// the bytes kept from an earlier try.
///
/// AsyncHTTPClient's async body is read with back-pressure, one chunk at a time, and what the
/// connection has read but the reader has not yet asked for is dropped when the server closes
/// the connection; a download cut off would lose most of what arrived, and the retry could not
/// resume from it. The body is kept whole anyway, so nothing is gained by back-pressure here:
/// every chunk is taken when it arrives, and a failure leaves ``received`` holding all of them.
final class ResponseCollector: HTTPClientResponseDelegate {
    typealias Response = [UInt8]

    /// What a response is and what to do with its body, decided from the head before the
    /// first byte of the body arrives.
    enum BodyPlan: Sendable {
        /// The answer, announced; its body kept after `prefix` (bytes kept from an earlier
        /// try), to `expected` bytes in all.
        case keep(prefix: [UInt8], expected: Int?)
        /// The answer (a 304, an error status), announced; its body dropped.
        case dropAnswer
        /// Not the answer (a redirect, a range that does not continue the part); its body
        /// dropped. The body of a dropped response is read up to a bound so that the
        /// connection can serve another request.
        case dropHop
    }

    struct Limits: Sendable {
        /// Body bytes kept at most, prefix included: more fails with ``MagpieError/responseTooLarge(limit:)``.
        var keptBytes: Int
        /// Bytes of a dropped body read at most before the connection is closed instead.
        var droppedBytes = 1 << 20
        /// Bytes kept of the body of an answer that is dropped, where a store says why it refused.
        var excerptBytes = 4096
        /// Whether to offer a copy of the body at a quarter, half and three quarters.
        var previews: Bool
    }

    /// Stops reading a dropped body that runs on; not a failure of the exchange.
    struct DroppedBodyTooLong: Error {}

    private struct State {
        var plan: BodyPlan?
        var arrivedHead: HTTPResponseHead?
        var body: [UInt8] = []
        var dropped = 0
    }

    private let limits: Limits
    private let planning: @Sendable (HTTPResponseHead) -> BodyPlan
    private let onEvent: @Sendable (WorkEvent) -> Void
    private let head: EventLoopPromise<HTTPResponseHead>
    private let state = NIOLockedValueBox(State())

    /// `planning` is called once, on the event loop, with the head; `head` is completed with it
    /// (or failed with the exchange's error).
    init(
        limits: Limits, head: EventLoopPromise<HTTPResponseHead>, planning: @escaping @Sendable (HTTPResponseHead) -> BodyPlan,
        onEvent: @escaping @Sendable (WorkEvent) -> Void
    ) {
        self.limits = limits
        self.head = head
        self.planning = planning
        self.onEvent = onEvent
    }

    /// The prefix and every body byte received so far, whether or not the exchange finished
    /// (of a dropped answer, its first bytes).
    var received: [UInt8] {
        state.withLockedValue { $0.body }
    }

    /// The head, once ``didReceiveHead(task:_:)`` has run.
    ///
    /// The waiter reads the head from here, under the lock, rather than taking the value the
    /// promise carried: the promise reaches the task through a continuation resumed by the
    /// Swift runtime, whose ordering Thread Sanitizer cannot see (it reported the head's storage,
    /// written by the event loop as it parsed, as raced by the task's first read: CI, stop 45).
    /// The lock orders the two where the sanitizer can see it; the value is the same.
    var arrivedHead: HTTPResponseHead? {
        state.withLockedValue { $0.arrivedHead }
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ responseHead: HTTPResponseHead) -> EventLoopFuture<Void> {
        let plan = planning(responseHead)
        var progress: (Int, Int?)?
        state.withLockedValue { state in
            state.plan = plan
            state.arrivedHead = responseHead
            if case .keep(let prefix, let expected) = plan {
                state.body = prefix
                if let expected, expected <= limits.keptBytes { state.body.reserveCapacity(expected) }
                progress = (prefix.count, expected)
            }
        }
        head.succeed(responseHead)
        switch plan {
        case .keep, .dropAnswer:
            onEvent(.task(.response(status: Int(responseHead.status.code), headers: responseHead.headers.map { (name: $0.name, value: $0.value) })))
        case .dropHop:
            break
        }
        if let (received, expected) = progress {
            if let expected, expected > limits.keptBytes {
                return task.eventLoop.makeFailedFuture(MagpieError.responseTooLarge(limit: limits.keptBytes))
            }
            onEvent(.task(.progress(received: received, expected: expected)))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        enum Step {
            case progress(received: Int, expected: Int?, preview: [UInt8]?)
            case tooLarge
            case droppedEnough
            case nothing
        }
        let step: Step = state.withLockedValue { state in
            switch state.plan {
            case .keep(_, let expected)?:
                guard state.body.count + buffer.readableBytes <= limits.keptBytes else { return .tooLarge }
                let before = state.body.count
                state.body.append(contentsOf: buffer.readableBytesView)
                let preview =
                    limits.previews && expected.map { Self.crossesPreviewPoint(from: before, to: state.body.count, of: $0) } == true
                    ? state.body : nil
                return .progress(received: state.body.count, expected: expected, preview: preview)
            case .dropAnswer?, .dropHop?, nil:
                if case .dropAnswer? = state.plan {
                    let room = max(0, limits.excerptBytes - state.body.count)
                    state.body.append(contentsOf: buffer.readableBytesView.prefix(room))
                }
                state.dropped += buffer.readableBytes
                return state.dropped > limits.droppedBytes ? .droppedEnough : .nothing
            }
        }
        switch step {
        case .progress(let received, let expected, let preview):
            onEvent(.task(.progress(received: received, expected: expected)))
            if let preview { onEvent(.partialBody(preview)) }
        case .tooLarge:
            return task.eventLoop.makeFailedFuture(MagpieError.responseTooLarge(limit: limits.keptBytes))
        case .droppedEnough:
            return task.eventLoop.makeFailedFuture(DroppedBodyTooLong())
        case .nothing:
            break
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Response>, _ error: any Error) {
        head.fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> [UInt8] {
        state.withLockedValue { $0.body }
    }

    /// Previews are offered at a quarter, half and three quarters of the body: often enough
    /// to show progress, rarely enough that copying the partial body stays cheap.
    static func crossesPreviewPoint(from before: Int, to after: Int, of total: Int) -> Bool {
        guard total > 0, after < total else { return false }
        return (1...3).contains { quarter in
            let point = total * quarter / 4
            return before < point && after >= point
        }
    }
}

/// One request in flight through AsyncHTTPClient's delegate interface, awaited from a task:
/// cancelling the task cancels the request.
struct HTTPExchange: Sendable {
    private let task: HTTPClient.Task<[UInt8]>
    private let head: EventLoopFuture<HTTPResponseHead>
    private let collector: ResponseCollector

    init(
        _ request: HTTPClient.Request, on client: HTTPClient, deadline: NIODeadline, logger: Logger, limits: ResponseCollector.Limits,
        planning: @escaping @Sendable (HTTPResponseHead) -> ResponseCollector.BodyPlan, onEvent: @escaping @Sendable (WorkEvent) -> Void
    ) {
        let head = client.eventLoopGroup.next().makePromise(of: HTTPResponseHead.self)
        collector = ResponseCollector(limits: limits, head: head, planning: planning, onEvent: onEvent)
        task = client.execute(request: request, delegate: collector, deadline: deadline, logger: logger)
        // Completing a completed promise does nothing: this reaches the waiter only when the
        // exchange ended before a head arrived.
        task.futureResult.whenFailure { head.fail($0) }
        self.head = head.futureResult
    }

    /// The response head, once it arrives.
    func responseHead() async throws -> HTTPResponseHead {
        let delivered = try await withTaskCancellationHandler {
            try await head.get()
        } onCancel: { [task] in
            task.cancel()
        }
        return collector.arrivedHead ?? delivered
    }

    /// The prefix and the whole body, once the response ends.
    func body() async throws -> [UInt8] {
        try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: { [task] in
            task.cancel()
        }
    }

    /// What arrived, the prefix included, whether or not the response ended.
    var received: [UInt8] { collector.received }

    /// Waits for a body that is being dropped: a short one leaves the connection reusable, a
    /// long one has closed it.
    func drop() async {
        _ = try? await body()
    }
}
