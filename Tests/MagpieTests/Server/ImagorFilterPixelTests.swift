import AsyncHTTPClient
import Foundation
import Magpie
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

@testable import MagpieServer

/// imagor's own filters that Magpie reads in the thumbor syntax, compared with imagor 1.9.5's
/// answer for the same image: the binary `../shared/anchors` holds, run on loopback with its file
/// loader, on the same libvips.
@Suite("imagor filters against imagor", .enabled(if: ImagorBinary.archive != nil))
struct ImagorFilterPixelTests {
    /// Every band varies across the image; the lower half is translucent, so alpha must be kept.
    static let image: DecodedImage = {
        let (width, height) = (64, 48)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(x * 4)
                pixels[offset + 1] = UInt8(y * 5)
                pixels[offset + 2] = UInt8((x * y + 40) % 256)
                pixels[offset + 3] = y < height / 2 ? 255 : UInt8(120 + x)
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }()

    /// imagor answering `/unsafe/filters:…:format(png)/in.png` for ``image``, decoded to RGBA.
    static func imagor(_ filters: String) async throws -> DecodedImage {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-imagor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try ChildProcess.run("tar", ["-xJf", try #require(ImagorBinary.archive).path, "-C", folder.path, "bin/imagor"])
        try Data(ImageEncoder().encode(image, as: .png)).write(to: folder.appendingPathComponent("in.png"))
        let (port, imagor) = try await LoopbackPort.retryingIfTaken { port in
            try await DaemonProcess(
                executable: folder.appendingPathComponent("bin/imagor").path, arguments: [], port: port,
                outputFile: folder.appendingPathComponent("imagor.log"),
                environment: ["IMAGOR_UNSAFE": "1", "BIND": "127.0.0.1:\(port)", "FILE_LOADER_BASE_DIR": folder.path])
        }
        defer { imagor.stop() }
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/unsafe/filters:\(filters):format(png)/in.png"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 24)
        try #require(response.status == .ok, "imagor answered \(response.status): \(String(buffer: body))")
        return try VipsDecoder().decode(Array(buffer: body), options: DecodingOptions())
    }

    static func processors(_ filters: String) throws -> [any ImageProcessing] {
        let reading = try ThumborReading(try ThumborPath("/unsafe/filters:\(filters)/example.com/a.png"), limits: ProcessingLimits())
        #expect(reading.skipped.isEmpty, "\(reading.skipped)")
        return reading.options.filters.processors
    }

    static func magpie(_ filters: String) throws -> DecodedImage {
        try processors(filters).reduce(image) { try $1.process($0) }
    }

    /// `hue(DEGREES)`: the hue turned in LCh, lightness, chroma and alpha kept.
    @Test(arguments: ["hue(90)", "hue(-45)", "hue(180)", "hue(400)"])
    func hueTurnsAsImagorsDoes(_ filter: String) async throws {
        let expected = try await Self.imagor(filter)
        let made = try Self.magpie(filter)
        try #require(made.width == expected.width && made.height == expected.height)
        let worst = zip(made.pixels, expected.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(filter): a level differs from imagor's by \(worst)")
        #expect(made.pixels != Self.image.pixels, "the filter changed nothing")
        #expect(stride(from: 3, to: made.pixels.count, by: 4).allSatisfy { made.pixels[$0] == Self.image.pixels[$0] }, "alpha changed")
    }

    /// Magpie's imgproxy-style `hue:DEGREES` (and `magpie fetch --process hue:…`) is the same
    /// turn; a turn and that turn plus whole circles are one processor, one cache key.
    @Test func theImgproxyStyleOptionIsTheSameTurn() throws {
        let turn = try #require(try ProcessingOption.named("hue")?.processor(.init(["90"])))
        #expect([turn.identifier] == (try Self.processors("hue(90)")).map(\.identifier))
        #expect(turn.identifier == ImageProcessors.Modulate(hue: 450).identifier)
        #expect(ImageProcessors.Modulate(chroma: 2, hue: -360).identifier == ImageProcessors.Modulate(chroma: 2).identifier)
        #expect(try ProcessingOption.named("hue")?.processor(.init(["360"])) == nil)
    }
}

/// The peers' binaries beside the corpus (`../shared/anchors/bin.tar.xz`), when they are there.
enum ImagorBinary {
    static let archive: URL? = {
        let archive = Corpus.directory.deletingLastPathComponent().appendingPathComponent("anchors/bin.tar.xz")
        return FileManager.default.fileExists(atPath: archive.path) ? archive : nil
    }()
}
