extension ImagePipeline {
    /// Runs `work` on the pipeline's decoding threads once `memory` bytes of its decode memory
    /// budget are free: CPU-heavy or memory-hungry work a caller makes besides loading images
    /// (drawing a text mark, hashing a large body) waits its turn with the decodes, never on
    /// Swift's cooperative threads, and never beside them beyond the budget.
    package func runOnDecodingThreads<T: Sendable>(
        memory: Int = 0, _ work: @escaping @Sendable () throws(MagpieError) -> T
    ) async throws(MagpieError) -> T {
        do {
            _ = try await context.decodeBudget.enter(cost: max(0, memory))
        } catch {
            throw .cancelled
        }
        defer { context.decodeBudget.leave(cost: max(0, memory)) }
        return try await context.decodingPool.run(work)
    }
}
