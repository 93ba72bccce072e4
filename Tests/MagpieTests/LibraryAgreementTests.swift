import Foundation
import Magpie
import MagpieTesting
import Testing

/// Every file that decodes with the distribution's libvips decodes the same with the libvips
/// Magpie installs (issue 23): the corpus, and HEIC photos made by the distribution's own `vips`
/// (HEVC-coded, which the newer library cannot decode itself: Magpie hands those to the
/// system's libheif). Both sides are Magpie's decoder, each in a probe process built against one
/// library: `MagpieProbe` beside this test, and the one built against the system's libvips,
/// which `MAGPIE_SYSTEM_LIBVIPS_PROBE` names (scripts/test builds it into `.build-system`).
@Suite("The installed libvips decodes what the system's does", .enabled(if: SystemLibvipsProbe.path != nil))
struct LibraryAgreementTests {
    static let maximumPixels = 100_000_000

    /// HEIC photos written by the distribution's `vips` (libheif with x265): a real photo, and a
    /// 10-bit one with alpha.
    static func makeHEICFiles(in folder: URL) throws -> [String] {
        let photo = Corpus.directory.appendingPathComponent("exif-orientation/Landscape_0.jpg").path
        let transparent = Corpus.directory.appendingPathComponent("pngsuite/basn6a08.png").path
        let made = [
            (photo, "photo.heic", ["-Q", "70"]),
            (transparent, "alpha-10bit.heic", ["--bitdepth", "10"]),
        ]
        return try made.map { source, name, options in
            let output = folder.appendingPathComponent(name).path
            _ = try ChildProcess.run("/usr/bin/vips", ["heifsave", source, output, "--compression", "hevc"] + options)
            return output
        }
    }

    static func decode(with probe: String, _ files: [String], into folder: URL) throws -> [PixelDumpReport] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let printed = try ChildProcess.run(probe, ["pixels", "\(maximumPixels)", folder.path] + files)
        return try printed.split(separator: UInt8(ascii: "\n")).map {
            try JSONDecoder().decode(PixelDumpReport.self, from: Data($0))
        }
    }

    @Test func everyFileTheSystemLibraryDecodesDecodesAlikeOnTheInstalledOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-agreement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let heic = try Self.makeHEICFiles(in: folder)
        let files = Corpus.entries.map(\.url.path) + heic
        #expect(files.count > 200)

        let installedProbe = try MagpieTool.locate("MagpieProbe").executable.path
        let installed = try Self.decode(with: installedProbe, files, into: folder.appendingPathComponent("installed"))
        let system = try Self.decode(with: try #require(SystemLibvipsProbe.path), files, into: folder.appendingPathComponent("system"))
        try #require(installed.count == files.count && system.count == files.count)
        // Two libraries are compared wherever the installed one is not the system's own.
        #expect(installed[0].libvips == Libvips.version)
        let installedVersion = try LibvipsTests.installedVersion()
        if installedVersion != system[0].libvips {
            #expect(installed[0].libvips != system[0].libvips)
        }

        var compared = 0
        for (old, new) in zip(system, installed) {
            guard let oldPixels = old.pixels, let oldWidth = old.width, let oldHeight = old.height else { continue }
            guard let newPixels = new.pixels else {
                Issue.record("\(new.file) decodes on libvips \(old.libvips) but not on \(new.libvips): \(new.error ?? "")")
                continue
            }
            #expect(new.width == oldWidth && new.height == oldHeight, "\(new.file): \(new.width ?? 0)x\(new.height ?? 0) on \(new.libvips), \(oldWidth)x\(oldHeight) on \(old.libvips)")
            guard new.width == oldWidth, new.height == oldHeight else { continue }
            let difference = ImageDifference(
                rgba: Array(try Data(contentsOf: URL(fileURLWithPath: oldPixels))),
                Array(try Data(contentsOf: URL(fileURLWithPath: newPixels))))
            // Rounding in colour conversion and chroma upsampling moves a level or two here and
            // there; a wrong orientation, channel order, bit depth or frame moves far more.
            #expect(difference.meanColour <= 1.5 && difference.meanAlpha <= 0.5, "\(new.file): \(difference)")
            compared += 1
        }
        #expect(compared > 150, "only \(compared) files decoded on both")
        let heicCompared = zip(system, installed).filter { heic.contains($0.0.file) && $0.0.pixels != nil && $0.1.pixels != nil }
        #expect(heicCompared.count == heic.count, "every HEIC photo decodes on both libraries")

        // Both builds send HEVC to the system's libheif, so for those files the distribution's
        // `vips` is the independent reference: its own HEIF loader, converted to 8-bit sRGB.
        for report in installed where heic.contains(report.file) || report.file.hasSuffix(".heif") {
            let reference = folder.appendingPathComponent(UUID().uuidString + ".png").path
            _ = try ChildProcess.run("/usr/bin/vips", ["colourspace", report.file, reference, "srgb"])
            let expected = try VipsDecoder().decode(
                Array(try Data(contentsOf: URL(fileURLWithPath: reference))), thumbnail: nil, maximumPixels: Self.maximumPixels)
            let pixels = try #require(report.pixels, "\(report.file): \(report.error ?? "")")
            try #require(report.width == expected.width && report.height == expected.height, "\(report.file)")
            let difference = ImageDifference(rgba: expected.pixels, Array(try Data(contentsOf: URL(fileURLWithPath: pixels))))
            #expect(difference.meanColour <= 1.5 && difference.meanAlpha <= 0.5, "\(report.file) against the vips command: \(difference)")
        }
    }
}

/// `MagpieProbe` built against the system's libvips, when there is one.
enum SystemLibvipsProbe {
    static let path = ProcessInfo.processInfo.environment["MAGPIE_SYSTEM_LIBVIPS_PROBE"].flatMap { $0.isEmpty ? nil : $0 }
}
