import NIOConcurrencyHelpers

/// Keeps a ``ProgressBar`` on the console's status line while a command works: redrawn when an
/// item finishes and a few times a second for the byte rate. Does nothing off a terminal.
final class LiveProgress: Sendable {
    private let console: Console
    private let bar: NIOLockedValueBox<ProgressBar>
    private let bytes: @Sendable () -> Int
    private let ticker: NIOLockedValueBox<Task<Void, Never>?>

    /// Starts showing progress over `total` items; `bytes` reports the bytes transferred so far.
    init(console: Console, total: Int, bytes: @escaping @Sendable () -> Int) {
        self.console = console
        self.bar = NIOLockedValueBox(ProgressBar(total: total))
        self.bytes = bytes
        self.ticker = NIOLockedValueBox(nil)
        guard console.isInteractive else { return }
        redraw()
        ticker.withLockedValue { ticker in
            ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    self?.redraw()
                }
            }
        }
    }

    /// Counts one more item as done.
    func itemFinished() {
        bar.withLockedValue { $0.done += 1 }
        redraw()
    }

    /// Removes the status line for good.
    func finish() {
        ticker.withLockedValue { ticker in
            ticker?.cancel()
            ticker = nil
        }
        bar.withLockedValue { bar in
            bar.total = -1
            console.setStatus(nil)
        }
    }

    private func redraw() {
        guard console.isInteractive else { return }
        // Drawn under the bar's lock, so a late redraw cannot bring back a finished display.
        bar.withLockedValue { bar in
            guard bar.total >= 0 else { return }
            bar.bytes = bytes()
            console.setStatus(bar.line())
        }
    }
}
