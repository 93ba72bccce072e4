import Foundation
import MagpieTesting
import Testing

/// Chromium from the system (apt's `chromium`), headless: loads a page the way a person's
/// browser does (its own `Accept` headers, `srcset` choice, image decoders) and returns the
/// page's DOM once it has loaded.
struct HeadlessChromium {
    let executable: URL

    static func locate() throws -> HeadlessChromium {
        let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        let path = try #require(found, "Chromium is not installed: scripts/install-dependencies installs it")
        return HeadlessChromium(executable: URL(fileURLWithPath: path))
    }

    /// The DOM of `url` after its load event, scripts run. Killed after `limit`.
    func dumpDOM(of url: URL, limit: Duration = .seconds(120)) async throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-chromium-\(UUID().uuidString)")
        let output = profile.appendingPathComponent("dom.html")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)

        let process = Process()
        process.executableURL = executable
        // Root in a container has no user namespaces for the sandbox; the page is our own.
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile.path)", "--virtual-time-budget=30000", "--dump-dom", url.absoluteString,
        ]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        let status = try await MagpieTool.runToEnd(process, limit: limit)
        #expect(status == 0, "chromium exited with \(status)")
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }
}
