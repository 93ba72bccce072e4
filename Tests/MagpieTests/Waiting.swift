import Testing

/// Polls a condition that concurrent work (a load, a server) will make true, in the caller's
/// isolation, so main-actor tests can read main-actor state. Records an issue if it never does.
func waitUntil(
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for _ in 0..<500 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition never became true", sourceLocation: sourceLocation)
}
