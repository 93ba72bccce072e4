extension DecodeMemory {
    /// The memory this process may use: its cgroup's hard limit (a systemd service's
    /// `MemoryMax`, a container's limit), `nil` when it has none.
    package static var processMemoryLimit: Int? { CgroupMemory.locate()?.limit }

    /// A decode budget for a process that may use `limit` bytes: a quarter of them, leaving
    /// the rest to the caches, the requests' bytes and the runtime; never more than the
    /// default (``ImagePipeline/Configuration/decodeMemoryBudget``), which is also the budget
    /// without a limit.
    package static func budget(withinMemoryLimit limit: Int?) -> Int {
        let standard = ImagePipeline.Configuration().decodeMemoryBudget
        guard let limit else { return standard }
        return max(1, min(standard, limit / 4))
    }
}
