/// What every stage of a pipeline uses: its configuration, caches, network and threads, and
/// the one recorder all counting goes through.
struct PipelineContext: Sendable {
    let configuration: ImagePipeline.Configuration
    let memoryCache: ImageCache?
    let dataCache: DataCache?
    let loader: DataLoader
    let scheduler: DownloadScheduler
    let decodingPool: DecodingPool
    let blocklist: FailedURLBlocklist
    let recorder: PipelineRecorder
    let workTracker: WorkTracker?

    /// The shared task for `key` from `pool`, counting a join.
    func task<Key, Value>(
        in pool: TaskPool<Key, Value>, for key: Key, work: @escaping SharedTask<Value>.Work
    ) -> SharedTask<Value> {
        let (task, joined) = pool.task(for: key, work: work)
        if joined { recorder.record(.joinedWork) }
        return task
    }
}

/// One request as the stages see it.
struct StageInput: Sendable {
    let request: ImageRequest
    let keys: RequestKeys
    /// The request's place in the download queue's FIFO/LIFO order.
    let arrival: UInt64
}
