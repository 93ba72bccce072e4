/// What shared work tells its subscribers while it runs: the public events of a load, and,
/// for requests that asked for progressive previews, the body received so far.
enum WorkEvent: Sendable {
    case task(ImageTask.Event)
    /// The bytes received so far, sent a few times during a download (see `DataLoader`).
    case partialBody([UInt8])
}
