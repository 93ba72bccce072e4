#if canImport(Glibc)
import Glibc
#endif
import Magpie

/// This process's memory as Linux reports it in `/proc/self/status`: what the reliability and
/// sustained-load probes measure, and what an operator's monitoring sees.
public enum ProcessMemory {
    /// Resident set size (`VmRSS`), in bytes.
    public static var resident: Int { statusField("VmRSS") }

    /// Peak resident set size since start or the last ``resetPeak()`` (`VmHWM`), in bytes.
    public static var peak: Int { statusField("VmHWM") }

    /// Resets the peak to the current resident size (writing 5 to `/proc/self/clear_refs`).
    public static func resetPeak() {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }

    /// Resident set size of another process (a child under test), in bytes; 0 when it is gone.
    public static func resident(ofProcess pid: Int32) -> Int { statusField("VmRSS", of: "/proc/\(pid)/status") }

    /// Peak resident set size of another process (`VmHWM`), in bytes; 0 when it is gone.
    public static func peak(ofProcess pid: Int32) -> Int { statusField("VmHWM", of: "/proc/\(pid)/status") }

    /// A `kB` field of a /proc status file, in bytes; 0 where there is no such file.
    private static func statusField(_ name: String, of file: String = "/proc/self/status") -> Int {
        guard let status = SmallFile.contents(file) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }
}
