import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Waiting for a termination signal, so a server command can shut down cleanly.
enum Signals {
    /// Returns when the process receives one of `signals`; their default action (ending the
    /// process at once) is turned off.
    static func wait(for signals: [Int32]) async {
        let resumed = NIOLockedValueBox(false)
        let sources = NIOLockedValueBox<[any DispatchSourceSignal]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    // Both signals may arrive; the continuation is resumed once.
                    let first = resumed.withLockedValue { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume() }
                }
                source.resume()
                sources.withLockedValue { $0.append(source) }
            }
        }
        sources.withLockedValue { sources in sources.forEach { $0.cancel() } }
    }
}
