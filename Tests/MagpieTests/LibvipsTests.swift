import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("The libvips Magpie runs on")
struct LibvipsTests {
    /// The version pkg-config gives for `vips`: the library the build linked, read without Magpie.
    static func installedVersion() throws -> String {
        let printed = try ChildProcess.run("pkg-config", ["--modversion", "vips"])
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func versionIsTheInstalledLibrarys() throws {
        let installed = try Self.installedVersion()
        #expect(Libvips.version == installed)
    }

    /// liborc (libvips before 8.15) is switched off after it crashed a soak; Highway (8.15 on)
    /// has no such history and stays on.
    @Test func simdIsOnFromVersion815() throws {
        let parts = Libvips.version.split(separator: ".").compactMap { Int($0) }
        try #require(parts.count == 3)
        let highway = parts[0] > 8 || (parts[0] == 8 && parts[1] >= 15)
        #expect(Libvips.isVectorised == highway)
        let installed = try Self.installedVersion()
        #expect(Libvips.summary.hasPrefix("libvips \(installed), SIMD \(highway ? "on" : "off")"), "\(Libvips.summary)")
    }

    /// What `magpie proxy` sets (one thread an operation) holds, and 0 does not fall back to
    /// libvips' default. The process's value is put back, since it is the whole process's; the
    /// upper bound (1024) is not tried here, where tests decode beside this one.
    @Test func threadsPerOperationAreSetForTheProcessWithinBounds() {
        let before = Libvips.threadsPerOperation
        defer { Libvips.threadsPerOperation = before }
        #expect(before >= 1)
        Libvips.threadsPerOperation = 1
        #expect(Libvips.threadsPerOperation == 1)
        Libvips.threadsPerOperation = 3
        #expect(Libvips.threadsPerOperation == 3)
        Libvips.threadsPerOperation = 0
        #expect(Libvips.threadsPerOperation == 1, "0 would be libvips' own default, not one thread")
    }
}
