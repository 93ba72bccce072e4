import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSOCKS
import Foundation
import Glibc

/// Where a pipeline with an ``AddressPolicy`` opens its connections: a SOCKS5 server on
/// 127.0.0.1 inside the process. AsyncHTTPClient hands it the host name; the gate resolves the
/// name, refuses addresses the policy refuses, connects to an allowed one and relays bytes.
/// AsyncHTTPClient has no hook at connect time, and checking a name before handing it to the
/// client would let a name rebound between the two lookups through; here the address checked
/// is the address connected to. TLS runs end to end through the relay.
///
/// Any local process could connect to the gate too, but it only reaches what the policy
/// allows, which such a process could reach directly.
final class AddressGate: Sendable {
    let port: Int
    private let listener: any Channel
    private let failures: FailureLog

    /// Binds the gate. Binding to loopback is immediate, so this blocks only for a moment.
    init(policy: AddressPolicy, connectTimeout: Duration, group: any EventLoopGroup) throws {
        let failures = FailureLog()
        let settings = GateSettings(policy: policy, connectTimeout: TimeAmount(connectTimeout), failures: failures)
        listener = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SOCKSServerHandshakeHandler())
                    try channel.pipeline.syncOperations.addHandler(GateHandler(settings: settings))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .wait()
        port = listener.localAddress?.port ?? 0
        self.failures = failures
    }

    /// Why the last connection to `host:port` through the gate failed: the policy's refusal or
    /// the resolver's or socket's error, which the SOCKS reply cannot carry.
    func failure(host: String, port: Int) -> NetworkFailure? {
        failures.failure(for: FailureLog.key(host, port))
    }

    func shutdown() async {
        try? await listener.close()
    }
}

struct GateSettings: Sendable {
    let policy: AddressPolicy
    let connectTimeout: TimeAmount
    let failures: FailureLog
}

/// The latest failure per destination, bounded so that a crawl of many hosts cannot grow it.
final class FailureLog: Sendable {
    private let entries = NIOLockedValueBox([String: NetworkFailure]())

    /// IP addresses are keyed in one spelling, as URLs and SOCKS may write them differently.
    static func key(_ host: String, _ port: Int) -> String {
        "\(IPAddressBytes(host)?.description ?? host.lowercased()):\(port)"
    }

    func record(_ failure: NetworkFailure, for key: String) {
        entries.withLockedValue { entries in
            if entries.count >= 1024 { entries.removeAll(keepingCapacity: true) }
            entries[key] = failure
        }
    }

    func failure(for key: String) -> NetworkFailure? {
        entries.withLockedValue { $0[key] }
    }
}

/// Answers one SOCKS5 client: no authentication, CONNECT only.
private final class GateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ClientMessage
    typealias OutboundOut = ServerMessage

    private let settings: GateSettings

    init(settings: GateSettings) {
        self.settings = settings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .greeting(let greeting):
            let method: AuthenticationMethod = greeting.methods.contains(.noneRequired) ? .noneRequired : .noneAcceptable
            context.writeAndFlush(wrapOutboundOut(.selectedAuthenticationMethod(.init(method: method))), promise: nil)
        case .request(let request) where request.command == .connect:
            open(request.addressType, context: context)
        case .request, .authenticationData:
            reply(.commandUnsupported, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        leaveAndClose(context: context)
    }

    /// Closing removes the handshake handler, which hands on whatever it buffered: this handler
    /// must be gone by then, since it reads only SOCKS messages.
    private func leaveAndClose(context: ChannelHandlerContext) {
        let channel = context.channel
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        channel.close(promise: nil)
    }

    private func open(_ target: SOCKSAddress, context: ChannelHandlerContext) {
        let (host, port): (String, Int)
        switch target {
        case .domain(let name, let p): (host, port) = (name, p)
        case .address(let address): (host, port) = (address.ipAddress ?? "", address.port ?? 0)
        }
        let settings = self.settings
        let resolve: @Sendable () throws(NetworkFailure) -> [SocketAddress] = { () throws(NetworkFailure) -> [SocketAddress] in
            let addresses = try HostResolver.addresses(of: host, port: port)
            let allowed = addresses.filter { IPAddressBytes($0).map { settings.policy.refusal(for: $0) == nil } ?? false }
            guard !allowed.isEmpty else {
                let refused = addresses.first.flatMap { IPAddressBytes($0) }
                let why = refused.flatMap { settings.policy.refusal(for: $0) } ?? "no address is allowed"
                let place = NetworkFailure.Destination.hostAndPort(host, port)
                throw NetworkFailure(.addressNotAllowed, "refused to connect to \(place): \(host) resolves to \(why)")
            }
            return allowed
        }
        // An address needs no lookup: deciding here keeps it from queueing behind blocking
        // work on the shared thread pool (a busy pool held loopback connects past their timeout).
        let resolved: EventLoopFuture<[SocketAddress]> =
            IPAddressBytes(host) != nil
            ? context.eventLoop.makeCompletedFuture(withResultOf: resolve)
            : NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () throws(NetworkFailure) in try resolve() }
        resolved
        .assumeIsolated()
        .whenComplete { result in
            switch result {
            case .success(let addresses):
                self.connect(to: addresses[...], host: host, port: port, context: context)
            case .failure(let error):
                let failure = error as? NetworkFailure ?? NetworkFailure(.other, "cannot resolve \(host): \(error)")
                self.settings.failures.record(failure, for: FailureLog.key(host, port))
                self.reply(failure.reason == .addressNotAllowed ? .notAllowed : .hostUnreachable, context: context)
            }
        }
    }

    /// Tries each allowed address in turn, as a client connecting by name would (`host` and
    /// `port` as asked, named in a failure).
    private func connect(to addresses: ArraySlice<SocketAddress>, host: String, port: Int, context: ChannelHandlerContext) {
        guard let address = addresses.first else { return }
        let inbound = context.channel
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(settings.connectTimeout)
            // Nothing is read from the origin until the client has its SOCKS reply.
            .channelOption(.autoRead, value: false)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    try outbound.pipeline.syncOperations.addHandler(ByteRelay(partner: inbound))
                }
            }
            .connect(to: address)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let outbound):
                    self.startRelaying(to: outbound, context: context)
                case .failure where addresses.count > 1:
                    self.connect(to: addresses.dropFirst(), host: host, port: port, context: context)
                case .failure(let error):
                    let place = NetworkFailure.Destination.hostAndPort(host, port)
                    let destination = NetworkFailure.Destination(
                        host: address.ipAddress ?? place, port: address.port ?? 0, proxy: nil,
                        connectTimeout: Duration(self.settings.connectTimeout))
                    let failure = NetworkFailure(classifying: error, to: destination)
                        ?? NetworkFailure(.other, "cannot connect to \(place): \(error)")
                    self.settings.failures.record(failure, for: FailureLog.key(host, port))
                    self.reply(failure.reason == .connectTimedOut ? .ttlExpired : .refused, context: context)
                }
            }
    }

    private func startRelaying(to outbound: any Channel, context: ChannelHandlerContext) {
        let bound = outbound.localAddress.map { SOCKSAddress.address($0) } ?? Self.unspecified
        context.writeAndFlush(wrapOutboundOut(.response(.init(reply: .succeeded, boundAddress: bound))), promise: nil)
        do {
            // This handler leaves first: removing the handshake handler passes on any bytes it
            // holds, and they are for the relay, not for this handler.
            let pipeline = context.pipeline.syncOperations
            try pipeline.addHandler(ByteRelay(partner: outbound))
            let handshake = try pipeline.handler(type: SOCKSServerHandshakeHandler.self)
            pipeline.removeHandler(context: context, promise: nil)
            pipeline.removeHandler(handshake, promise: nil)
            outbound.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in outbound.close(promise: nil) }
        } catch {
            outbound.close(promise: nil)
            leaveAndClose(context: context)
        }
    }

    /// `0.0.0.0:0`, the bound address of a reply that has none.
    private static var unspecified: SOCKSAddress {
        (try? SocketAddress(ipAddress: "0.0.0.0", port: 0)).map { .address($0) } ?? .domain("0.0.0.0", port: 0)
    }

    private func reply(_ code: SOCKSServerReply, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.response(.init(reply: code, boundAddress: Self.unspecified)))).assumeIsolated()
            .whenComplete { _ in self.leaveAndClose(context: context) }
    }
}

extension Duration {
    init(_ amount: TimeAmount) {
        self = .nanoseconds(amount.nanoseconds)
    }
}

/// Copies what one channel reads to another, pausing reads while the other cannot keep up,
/// and closes the other when this one closes: the two halves of a relayed connection.
final class ByteRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel

    init(partner: any Channel) {
        self.partner = partner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.write(unwrapInboundIn(data), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner.flush()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Our channel's send buffer is full: stop reading from the partner until it drains.
        partner.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Every address a host name resolves to, with `getaddrinfo`. Blocking: run it on a thread pool.
enum HostResolver {
    static func addresses(of host: String, port: Int) throws(NetworkFailure) -> [SocketAddress] {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bare, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = String(cString: gai_strerror(status))
            throw NetworkFailure(.hostNotFound, "host not found: \(bare) (\(reason))")
        }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch current.pointee.ai_family {
                case AF_INET:
                    let v4 = UnsafeRawPointer(address).load(as: sockaddr_in.self)
                    found.append(SocketAddress(v4, host: bare))
                case AF_INET6:
                    let v6 = UnsafeRawPointer(address).load(as: sockaddr_in6.self)
                    found.append(SocketAddress(v6, host: bare))
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        guard !found.isEmpty else { throw NetworkFailure(.hostNotFound, "host not found: \(bare) (no IP addresses)") }
        return found
    }
}

extension IPAddressBytes {
    init?(_ address: SocketAddress) {
        guard let text = address.ipAddress else { return nil }
        self.init(text)
    }
}
