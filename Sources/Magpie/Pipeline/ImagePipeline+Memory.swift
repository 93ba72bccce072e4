import CMagpieSystem
import Logging

extension ImagePipeline {
    /// Empties the memory cache and hands the freed memory back to the system.
    ///
    /// The pipeline calls this itself when its ``Configuration/memoryPressure`` source reports
    /// that memory is short; call it for any other signal (an orchestrator's hook, an admin
    /// endpoint). Loads in flight are not disturbed. Logs one warning and counts the trim in
    /// ``PipelineStatistics/memoryTrims`` and `magpie_memory_trims_total`.
    ///
    /// - Returns: the bytes of decoded images removed.
    @discardableResult
    public func trimMemory(reason: String = "trim requested") -> Int {
        let (count, freed) = memoryCache.map { cache in
            let before = (count: cache.count, cost: cache.totalCost)
            cache.removeAll()
            return (before.count, before.cost)
        } ?? (0, 0)
        context.encodedCache?.removeAll()
        // glibc keeps freed small and mid-sized blocks in its arenas; without this the
        // process's resident size would not fall even though the cache is empty.
        magpie_release_free_memory()
        recorder.record(.memoryTrimmed(freedBytes: freed))
        configuration.logger.warning(
            "\(reason): emptied the memory cache, freeing \(MemoryAmount(freed)) in \(count) images")
        return freed
    }

    func startWatchingMemoryPressure() -> MemoryPressureWatch? {
        guard memoryCache != nil || context.encodedCache != nil, let source = configuration.memoryPressure else { return nil }
        return source.watch { [weak self] pressure in
            self?.trimMemory(reason: "memory pressure (\(pressure))")
        }
    }
}
