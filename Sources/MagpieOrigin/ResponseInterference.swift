public import NIOCore

/// What a test does to one response beyond serving it: hold its head back, send only part of
/// its body, lie about its length, break the connection. The server calls it at those points;
/// MagpieTesting's faults and gates implement it, so the shipped server carries no fault code.
public protocol ResponseInterference: Sendable {
    /// Runs before the response head is sent (a gate waits here).
    func beforeHead() async
    /// The `Content-Length` to declare instead of the body's; `nil` declares the truth.
    var declaredLength: Int? { get }
    /// How many body bytes to send at most; `nil` sends them all.
    var bodyLimit: Int? { get }
    /// Runs after the body's bytes went out. Returns `true` when it broke the connection on
    /// purpose (the response ends there and counts as a fault injected).
    func afterBody(on channel: any Channel) async -> Bool
}
