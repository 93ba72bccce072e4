import Foundation
import PackagePlugin

/// `swift package install-libvips`: gives the machine the libvips Magpie runs fastest on, from a
/// package that depends on Magpie, with no checkout of Magpie's own. It runs the scripts Magpie's
/// own install step runs, from the Magpie checkout SwiftPM resolved: the Debian packages Magpie
/// builds against (`scripts/libvips/build-packages`), then, where the distribution's libvips is
/// older than 8.15, the pinned libvips 8.18 from PyPI's pyvips-binary wheel with its pkg-config
/// file and loader entry (`scripts/libvips/install`). Run it before the first `swift build`: the
/// library a package links is the one pkg-config names when it is built.
@main
struct InstallLibvips: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        guard let magpie = Self.magpie(in: context.package) else {
            throw PluginFailure("Magpie is not among this package's dependencies")
        }
        let scripts = magpie.directoryURL.appending(path: "scripts/libvips")
        for script in ["build-packages", "install"] {
            _ = try Self.run("/bin/bash", [scripts.appending(path: script).path])
        }
        let version = try Self.run("/usr/bin/env", ["pkg-config", "--modversion", "vips"], capturing: true)
        print("pkg-config now gives libvips \(version.trimmingCharacters(in: .whitespacesAndNewlines)): build your package again to link it.")
    }

    /// Magpie's package: this one, or the first found among its dependencies, nearest first.
    static func magpie(in root: Package) -> Package? {
        var queue = [root]
        var seen: Set<String> = []
        while !queue.isEmpty {
            let package = queue.removeFirst()
            guard seen.insert(package.id).inserted else { continue }
            if package.products.contains(where: { $0.name == "Magpie" && $0 is LibraryProduct }) { return package }
            queue += package.dependencies.map(\.package)
        }
        return nil
    }

    /// Runs `executable`, failing unless it exits with 0; its output, when `capturing`.
    static func run(_ executable: String, _ arguments: [String], capturing: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        if capturing { process.standardOutput = output }
        try process.run()
        let text = capturing ? String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw PluginFailure("\(([executable] + arguments).joined(separator: " ")) failed (exit status \(process.terminationStatus))")
        }
        return text
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
