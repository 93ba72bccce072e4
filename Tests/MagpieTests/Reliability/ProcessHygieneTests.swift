import Foundation
import Magpie
import MagpieTesting
import Testing

/// What Magpie and its tests leave behind in the processes around them.
@Suite("Process hygiene")
struct ProcessHygieneTests {
    /// libvips records its prefix in `VIPSHOME` while starting; every child of a program using
    /// Magpie would inherit it. The environment this process was started with (the kernel's
    /// copy in `/proc/self/environ`) is what it must still have.
    @Test func startingLibvipsLeavesTheEnvironmentAsItWas() throws {
        try VipsRuntime.start()
        let launched = try Data(contentsOf: URL(fileURLWithPath: "/proc/self/environ"))
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            .first { $0.hasPrefix("VIPSHOME=") }.map { String($0.dropFirst("VIPSHOME=".count)) }
        #expect(ProcessInfo.processInfo.environment["VIPSHOME"] == launched)
    }

    /// A test process killed outright (SIGKILL, as CI's time limit does) takes the servers it
    /// started with it.
    @Test func serversEndWithAKilledTestProcess() async throws {
        let probe = try MagpieTool.locate("MagpieProbe")
        defer { probe.cleanUp() }
        let (process, output) = try probe.start(["nginx"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let port = try await MagpieTool.listeningPort(in: output)
        #expect(LoopbackPort.isListening(port))
        kill(process.processIdentifier, SIGKILL)
        #expect(await MagpieTool.waitForExit(process) != 0)
        try await waitUntil(timeout: .seconds(20)) { !LoopbackPort.isListening(port) }
    }
}
