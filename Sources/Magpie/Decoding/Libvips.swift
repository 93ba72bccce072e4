import CMagpieVips

/// The libvips that Magpie decodes, processes and encodes with: the one loaded at run time,
/// which can be newer than the headers Magpie was built against.
///
/// Speed depends on it: from 8.15 libvips resamples and convolves with SIMD (Highway); before
/// 8.15 its SIMD came from liborc, which Magpie switches off because it crashed under sustained
/// load. `magpie --version` and the proxy's `/health` print ``summary``.
public enum Libvips {
    /// The version, as `8.18.7`.
    public static var version: String {
        let number = Int(magpie_vips_version())
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }

    /// Whether libvips runs its SIMD paths. Starts libvips if it has not started yet; `false`
    /// if it cannot start.
    public static var isVectorised: Bool {
        guard (try? VipsRuntime.start()) != nil else { return false }
        return magpie_vips_vectorised() != 0
    }

    /// One line for people: `libvips 8.18.7, SIMD on`.
    public static var summary: String {
        let vectors = isVectorised ? "SIMD on" : magpie_vips_uses_liborc() != 0 ? "SIMD off (liborc, before 8.15)" : "SIMD off"
        return "libvips \(version), \(vectors)"
    }

    /// Threads libvips gives each operation (decoding, resizing, encoding one image), for the
    /// whole process: one per core unless `VIPS_CONCURRENCY` says otherwise. A server running
    /// a request per decoding thread does better with 1 and a decoding thread per request, as
    /// `magpie proxy` runs (and imgproxy): each operation then runs on its own thread and no
    /// core waits while another operation's workers meet. Set it before the first decode;
    /// values are held to 1...1024. Starts libvips; reads 0 and changes nothing if it cannot.
    public static var threadsPerOperation: Int {
        get {
            guard (try? VipsRuntime.start()) != nil else { return 0 }
            return Int(magpie_vips_threads_per_operation())
        }
        set {
            guard (try? VipsRuntime.start()) != nil else { return }
            magpie_vips_set_threads_per_operation(Int32(clamping: newValue))
        }
    }

    /// The pixel memory libvips accounts for itself (what imgproxy reports as
    /// `vips_memory_bytes`, `vips_max_memory_bytes` and `vips_allocs`).
    public struct Memory: Sendable, Equatable {
        /// Bytes of pixel buffers held now.
        public var bytes: Int
        /// The most bytes held at once since the process started.
        public var highestBytes: Int
        /// Buffers held now.
        public var allocations: Int
    }

    /// What libvips holds now. Starts libvips if it has not started yet (its accounting is
    /// set up then); zeros if it cannot start.
    public static var memory: Memory {
        guard (try? VipsRuntime.start()) != nil else { return Memory(bytes: 0, highestBytes: 0, allocations: 0) }
        var (current, highest, allocations) = (0, 0, Int32(0))
        magpie_vips_tracked_memory(&current, &highest, &allocations)
        return Memory(bytes: current, highestBytes: highest, allocations: Int(allocations))
    }
}
