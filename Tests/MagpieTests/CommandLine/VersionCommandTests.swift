import Foundation
import Magpie
import Testing

@Suite("magpie --version")
struct VersionCommandTests {
    @Test func namesItsVersionAndTheLibvipsInUse() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run(["--version"])
        #expect(result.status == 0)
        let installed = try LibvipsTests.installedVersion()
        #expect(
            result.standardOutput.hasPrefix("magpie \(MagpieVersion.current), libvips \(installed), SIMD "), "\(result.standardOutput)")
    }

    @Test func withoutASubcommandPrintsUsage() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run([])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: magpie"), "\(result.standardOutput)")
    }
}
