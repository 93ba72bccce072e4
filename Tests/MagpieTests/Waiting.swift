import Testing

/// Polls a condition that concurrent work (a load, a server, a child process) will make true,
/// in the caller's isolation, so main-actor tests can read main-actor state. Records an issue
/// if it is still false after `timeout`, which is generous because CI runs suites in parallel
/// on two cores; a condition that holds returns at once.
func waitUntil(
    isolation: isolated (any Actor)? = #isolation,
    timeout: Duration = .seconds(20),
    _ condition: () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if condition() { return }
    Issue.record("condition never became true", sourceLocation: sourceLocation)
}
