import NIOConcurrencyHelpers
import NIOCore

/// Tells the request being answered on a connection that its client went away (closed the
/// connection or its sending side), so its work can stop. Hummingbird answers one request at a
/// time per HTTP/1 connection, so one slot is enough.
final class DisconnectWatch: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private struct State {
        var gone = false
        var onGone: (@Sendable () -> Void)?
    }

    private let state = NIOLockedValueBox(State())

    /// The watch on `channel`: the one the server installed, or one added now, first in the
    /// pipeline so it sees the connection's events before any other handler can keep them
    /// (an application's own server does not install one). `nil` if it cannot be added.
    static func watching(_ channel: any Channel) async -> DisconnectWatch? {
        if let watch = try? await channel.pipeline.handler(type: DisconnectWatch.self).get() { return watch }
        let watch = DisconnectWatch()
        guard (try? await channel.pipeline.addHandler(watch, position: .first).get()) != nil else { return nil }
        // A client gone before the watch was in place closed the channel unseen.
        if !channel.isActive { watch.clientWent() }
        return watch
    }

    /// Calls `action` when the client goes (at once if it already has) until `body` returns.
    func whileAnswering<T>(onGone action: @escaping @Sendable () -> Void, _ body: () async -> T) async -> T {
        let gone = state.withLockedValue { state in
            state.onGone = action
            return state.gone
        }
        if gone { action() }
        defer { state.withLockedValue { $0.onGone = nil } }
        return await body()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            clientWent()
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clientWent()
        context.fireChannelInactive()
    }

    private func clientWent() {
        let action = state.withLockedValue { state in
            state.gone = true
            return state.onGone
        }
        action?()
    }
}
