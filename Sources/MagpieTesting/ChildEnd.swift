public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether a child process has ended, asked of the kernel as well as of Foundation.
///
/// Foundation learns of a child's end by reaping it when SIGCHLD arrives; a reap it misses
/// leaves `isRunning` true for ever (a rehearsal's suite once waited 17 minutes on such a
/// zombie, and a CI run its whole 90 minutes, most likely the same way). `waitid` with `WNOWAIT`
/// sees the end without reaping, so Foundation can still reap the child afterwards.
public enum ChildEnd {
    /// The child's status once it has ended, as Foundation reports it (the exit code, or the
    /// number of the signal that ended it); `nil` while it runs.
    public static func status(of process: Process) -> Int32? {
        if !process.isRunning { return process.terminationStatus }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
            info._sifields._sigchld.si_pid == process.processIdentifier
        else {
            // Still running, or reaped by Foundation a moment ago (its next look says so).
            return nil
        }
        return info._sifields._sigchld.si_status
    }

    /// Waits, without holding a thread, until the child ends or `limit` passes; `nil` if it
    /// still runs then.
    public static func wait(for process: Process, limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let status = status(of: process) { return status }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// ``wait(for:limit:)`` for the places that cannot suspend (a `deinit`, a synchronous stop).
    public static func waitBlocking(for process: Process, limit: Duration) -> Int32? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let status = status(of: process) { return status }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(10_000)
        }
    }
}
