public import Foundation
import Synchronization

/// Ties a child process's life to this process's: the child ends when this process ends, even
/// when it is killed (SIGKILL, a crash, CI's time limit), so an aborted test run leaves no
/// server behind.
///
/// A watcher (`/bin/sh`) reads a pipe whose only writer is this process; when the kernel closes
/// it (this process ended, however), the watcher signals the child, then kills it if it is still
/// there two seconds later. The child itself is started as usual and keeps no descendant of
/// ours: Foundation learns of a child's exit when every holder of a socket it gives the child
/// has closed it, so a watcher forked inside the child would hold its exit back. Linux's
/// `PR_SET_PDEATHSIG` fires when the *thread* that started the child exits, which for a Swift
/// task is any pool thread, so it cannot be used here.
public enum Tether {
    private static let kept = KeptAlive()

    /// Ends `process`, which has just been started, when this process ends: `signal` first.
    public static func bind(_ process: Process, signal: Int32 = SIGTERM) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Close-on-exec, so no other child inherits the writer and keeps the lifeline open; the
        // reader becomes the watcher's standard input, which the spawn's dup2 keeps open. (Glibc's
        // module has no pipe2; a child spawned between the two calls would only keep the
        // lifeline open until it ends.)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = ["-c", script, "magpie-tether", String(signal), String(process.processIdentifier)]
        watcher.standardInput = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        kept.keep(lifeline: ends[1], watcher: watcher)
    }

    /// The start time in `/proc/PID/stat` (field 22, counted after the command name's closing
    /// parenthesis) tells the child from an unrelated process that reused its id after it ended.
    private static let script = #"""
        signal=$1 pid=$2
        started() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
        start=$(started "$pid")
        [ -n "$start" ] || exit 0
        cat >/dev/null
        if [ "$(started "$pid")" = "$start" ]; then
            kill -"$signal" "$pid" 2>/dev/null
            sleep 2
            [ "$(started "$pid")" = "$start" ] && kill -KILL "$pid" 2>/dev/null
        fi
        """#
}

/// The lifelines' write ends and the watchers, kept for the life of the process.
private final class KeptAlive: Sendable {
    private let kept = Mutex<([Int32], [Process])>(([], []))

    func keep(lifeline: Int32, watcher: Process) {
        kept.withLock {
            $0.0.append(lifeline)
            $0.1.append(watcher)
        }
    }
}
