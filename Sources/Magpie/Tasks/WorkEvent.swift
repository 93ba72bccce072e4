/// What shared work tells its subscribers while it runs: the public events of a load, the
/// body received so far (for requests that asked for progressive previews), and previews:
/// non-final values that each later stage transforms like the final one.
enum WorkEvent: Sendable {
    case task(ImageTask.Event)
    /// The bytes received so far, sent a few times during a download (see `DataLoader`).
    case partialBody([UInt8])
    /// A lower-quality image made from part of the body, after the stages so far.
    case preview(ImageContainer)
}
