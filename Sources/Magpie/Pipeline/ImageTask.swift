import NIOConcurrencyHelpers

/// A handle on one image load: cancel it, change its priority, follow its progress, await it.
///
/// ```swift
/// let task = pipeline.imageTask(with: ImageRequest(url: url))
/// Task {
///     for await event in task.events {
///         if case .progress(let received, let expected) = event { print(received, expected ?? -1) }
///     }
/// }
/// let response = try await task.response
/// ```
///
/// Cancelling one task never disturbs other tasks for the same URL: the shared download stops
/// only when every task that waits for it has been cancelled.
public final class ImageTask: Sendable, WorkDependent {
    /// Something that happened during a load, in order.
    public enum Event: Sendable {
        /// The download started (after waiting for a slot in the queue).
        case started
        /// The server's response head arrived.
        case response(status: Int, headers: [(name: String, value: String)])
        /// Body bytes received so far, and the expected total when the server said.
        case progress(received: Int, expected: Int?)
        /// A lower-quality image decoded from part of the body, for requests with
        /// ``ImageRequest/Options/progressivePreviews``. Progressive JPEGs give a whole blurry
        /// picture; baseline ones the top part.
        case preview(DecodedImage)
        /// The load ended.
        case finished(Result<ImageResponse, MagpieError>)
    }

    private struct State {
        var priority: ImageRequest.Priority
        var subscription: (@Sendable (ImageRequest.Priority) -> Void)?
        var driver: Task<ImageResponse, any Error>?
        var isCancelled = false
    }

    /// The request this task loads.
    public let request: ImageRequest
    /// Identifies this load in ``PipelineEvent``s; also its place in the download queue's order.
    public var id: UInt64 { arrival }
    private let state: NIOLockedValueBox<State>
    private let eventContinuation: AsyncStream<Event>.Continuation

    /// Events of this load, ending after ``Event/finished(_:)``. Meant for one consumer.
    public let events: AsyncStream<Event>

    /// The request's place in the download queue's FIFO/LIFO order.
    let arrival: UInt64

    private let report: @Sendable (ImageTask, Event) -> Void

    init(request: ImageRequest, arrival: UInt64, report: @escaping @Sendable (ImageTask, Event) -> Void = { _, _ in }) {
        self.request = request
        self.arrival = arrival
        self.report = report
        self.state = NIOLockedValueBox(State(priority: request.priority))
        (events, eventContinuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// The priority of this task's download; changing it re-orders a queued download.
    public var priority: ImageRequest.Priority {
        get { state.withLockedValue { $0.priority } }
        set {
            state.withLockedValue { $0.priority = newValue }
            publishPriority()
        }
    }

    /// Stops waiting for the image. The task finishes with ``MagpieError/cancelled`` unless it
    /// had already finished.
    public func cancel() {
        let driver = state.withLockedValue { state in
            state.isCancelled = true
            return state.driver
        }
        driver?.cancel()
    }

    /// The loaded image and where it came from.
    public var response: ImageResponse {
        get async throws(MagpieError) {
            guard let driver = state.withLockedValue({ $0.driver }) else { throw .cancelled }
            do {
                return try await withTaskCancellationHandler {
                    try await driver.value
                } onCancel: {
                    driver.cancel()
                }
            } catch let error as MagpieError {
                throw error
            } catch {
                throw .cancelled
            }
        }
    }

    /// The loaded image.
    public var image: DecodedImage {
        get async throws(MagpieError) { try await response.image }
    }

    // MARK: - Used by the pipeline

    func start(_ operation: @escaping @Sendable (ImageTask) async throws(MagpieError) -> ImageResponse) {
        let driver = Task<ImageResponse, any Error> { [self] in
            let result: Result<ImageResponse, MagpieError>
            do throws(MagpieError) {
                result = .success(try await operation(self))
            } catch {
                result = .failure(error)
            }
            // The subscription holds the shared work, which holds its result and what it
            // depended on: a finished task that someone keeps must not keep those.
            state.withLockedValue { $0.subscription = nil }
            send(.finished(result))
            eventContinuation.finish()
            return try result.get()
        }
        let cancelled = state.withLockedValue { state in
            state.driver = driver
            return state.isCancelled
        }
        if cancelled { driver.cancel() }
    }

    /// Lets priority changes reach the shared work this task is subscribed to.
    func followPriority(_ subscription: @escaping @Sendable (ImageRequest.Priority) -> Void) {
        state.withLockedValue { $0.subscription = subscription }
        publishPriority()
    }

    /// A task's wait is its caller's to measure, and its failure the caller's to report.
    func waited(_ duration: Duration) {}
    func dependencyFailed(_ error: MagpieError) {}

    private func publishPriority() {
        deliverPriority { state.withLockedValue { state in state.subscription.map { (state.priority, $0) } } }
    }

    func send(_ event: Event) {
        eventContinuation.yield(event)
        report(self, event)
    }
}
