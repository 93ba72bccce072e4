import Foundation
import Magpie
import MagpieTesting

#if canImport(Glibc)
import Glibc
#endif

/// Decodes files one by one with the pipeline's decoder and reports, for each, the wall time and
/// how far the process's resident memory rose above where it started.
enum DecodeMeter {
    static func run(files: [String], maximumPixels: Int, thumbnail: ImageRequest.Thumbnail?) {
        let decoder = VipsDecoder()
        let encoder = JSONEncoder()
        for file in files {
            let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
            resetPeakMemory()
            let before = residentMemory()
            let start = ContinuousClock.now
            var failure: String?
            do {
                _ = try decoder.decode(bytes, thumbnail: thumbnail, maximumPixels: maximumPixels)
            } catch {
                failure = error.description
            }
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            let report = DecodeReport(
                file: file, ok: failure == nil, error: failure,
                milliseconds: Double(seconds) * 1000 + Double(attoseconds) / 1e15,
                peakMemoryIncrease: max(0, peakMemory() - before))
            let line = (try? encoder.encode(report)) ?? Data("{}".utf8)
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        }
    }

    /// Writing 5 to clear_refs resets VmHWM (the peak resident set) to the current size.
    private static func resetPeakMemory() {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }

    private static func residentMemory() -> Int { statusField("VmRSS") }
    private static func peakMemory() -> Int { statusField("VmHWM") }

    /// A `kB` field of /proc/self/status, in bytes.
    private static func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }
}
