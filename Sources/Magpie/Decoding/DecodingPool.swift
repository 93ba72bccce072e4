import NIOPosix

/// Threads reserved for decoding, so that CPU-heavy, blocking decoder calls never occupy
/// Swift's cooperative thread pool. At most one decode per thread runs at a time; more wait.
final class DecodingPool: Sendable {
    private let threads: NIOThreadPool

    init(threadCount: Int) {
        threads = NIOThreadPool(numberOfThreads: max(1, threadCount))
        threads.start()
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws(MagpieError) -> T) async throws(MagpieError) -> T {
        let result: Result<T, MagpieError>
        do {
            result = try await threads.runIfActive { () -> Result<T, MagpieError> in
                do throws(MagpieError) { return .success(try work()) } catch { return .failure(error) }
            }
        } catch {
            throw .cancelled
        }
        return try result.get()
    }

    func shutdown() async {
        try? await threads.shutdownGracefully()
    }
}
