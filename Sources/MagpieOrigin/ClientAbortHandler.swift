import NIOCore

/// Closes a connection as soon as the client closes its side.
///
/// Hummingbird keeps a half-closed connection open, so a response still goes out in full to a client
/// that has already gone (a cancelled download). Real servers and proxies stop instead (nginx's
/// default `proxy_ignore_client_abort off`), and the tests count bytes sent to measure what
/// cancellation saves, so the test server stops too: later writes fail and are not counted.
final class ClientAbortHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
