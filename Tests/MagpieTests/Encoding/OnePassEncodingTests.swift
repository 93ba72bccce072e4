import Foundation
import InMemoryTracing
@testable import Magpie
import MagpieTesting
import Testing
import Tracing

/// A pipeline that keeps no decoded images has the decode stage make a thumbnail's or a single
/// processor's bytes (`DecodeImage+Encoding`): layouts that only scale and crop in one libvips
/// pipeline, the rest on the decoded bitmap with no stage between. Its bytes must be the ones the
/// stages make one after another, for every image of the corpus: where the one pass cannot hold
/// (animations, transparency, grey pixels in a colour file, formats written outside libvips,
/// filters) the bitmap is made, and either way it must not differ by a byte.
@Suite("One-pass encoding")
struct OnePassEncodingTests {
    static func layout(
        _ width: Int, _ height: Int, _ resizing: Layout.Resizing, _ gravity: Placement = .centre, rotation: Int = 0, filters: [any ImageProcessing] = []
    ) -> any ImageProcessing {
        var layout = Layout()
        (layout.width, layout.height, layout.resizing, layout.gravity, layout.rotation) = (width, height, resizing, gravity, rotation)
        return ImageProcessors.Layout(layout, filters: filters)
    }

    /// What a server asks: imgproxy's fill and fit, a crop toward a corner, thumbor's fit-in.
    static let requests: [(name: String, thumbnail: ImageRequest.Thumbnail?, processors: [any ImageProcessing])] = [
        ("fill 256x256", nil, [layout(256, 256, .fill)]),
        ("fill 200x80 south-east", nil, [layout(200, 80, .fill, .anchored(.southEast))]),
        ("fit 120x120", nil, [layout(120, 120, .fit)]),
        ("thumbnail 160x160", ImageRequest.Thumbnail(width: 160, height: 160, fit: .fit), []),
        // Made on the decoded bitmap in the decode stage's job: a filter, a turn, a cut thumbnail.
        ("fill 300x200 blurred", nil, [layout(300, 200, .fill, filters: [.blur(sigma: 2)])]),
        ("fit 150x150 turned and sharpened", nil, [layout(150, 150, .fit, rotation: 90, filters: [.sharpen(sigma: 1)])]),
        ("thumbnail 96x96 cut", ImageRequest.Thumbnail(width: 96, height: 96, fit: .crop), []),
    ]
    static let encodings: [EncodingRequest] = [
        EncodingRequest(format: .fixed(.jpeg), quality: 80), EncodingRequest(format: .fixed(.webp), quality: 70),
        EncodingRequest(format: .source, quality: 75, keepsCopyright: true), EncodingRequest(format: .fixed(.png)),
    ]

    static let files = Corpus.entries(expected: "valid").filter { ["jpeg", "png", "webp", "gif", "avif", "heif"].contains($0.format) }

    @Test func makesTheBytesTheStagesMake() async throws {
        try #require(!Self.files.isEmpty, "the corpus is missing")
        // Told of the first pipeline's work only.
        let tracer = InMemoryTracer()
        try await withTestFixture(configure: { $0.memoryCache = nil }) { onePass in
            try await withTestFixture { staged in
                var compared = 0
                for (index, file) in Self.files.enumerated() {
                    let bytes = try file.bytes()
                    onePass.server.serve("/\(index)", .image(bytes))
                    staged.server.serve("/\(index)", .image(bytes))
                    // The server's row (a JPEG filled to 256 px) for every JPEG; otherwise one request
                    // and one encoding a file, turning through all of them over the corpus.
                    var cases = [(Self.requests[index % Self.requests.count], Self.encodings[index / Self.requests.count % Self.encodings.count])]
                    if file.format == "jpeg" && index % Self.requests.count != 0 { cases.append((Self.requests[0], Self.encodings[0])) }
                    for ((name, thumbnail, processors), encoding) in cases {
                        func made(by fixture: TestFixture) async -> Result<EncodedImage, MagpieError> {
                            let request = ImageRequest(url: fixture.server.url("/\(index)"), thumbnail: thumbnail, processors: processors)
                            do throws(MagpieError) {
                                return .success(try await fixture.pipeline.encodedImage(for: request, encoding: encoding))
                            } catch {
                                return .failure(error)
                            }
                        }
                        let one = await withTracer(tracer) { await made(by: onePass) }
                        let two = await made(by: staged)
                        switch (one, two) {
                        case (.success(let one), .success(let two)):
                            #expect(one.format == two.format && one.data == two.data, "\(file) \(name) \(encoding.name)")
                            compared += 1
                        case (.failure(let one), .failure(let two)):
                            // The same failure, told of each server's URL. A decoder's own words come
                            // from libvips' one error buffer for the whole process (libvips#5010): a
                            // decode failing in another suite at the same moment can take them or add
                            // its own, so for a decode only the failure is compared, not its words.
                            let told = [(one, onePass), (two, staged)].map { error, fixture in
                                if case .decodingFailed = error { return "decoding failed" }
                                return "\(error)".replacingOccurrences(of: fixture.server.url("/").absoluteString, with: "/")
                            }
                            #expect(told[0] == told[1], "\(file) \(name) \(encoding.name)")
                        default:
                            Issue.record("\(file) \(name) \(encoding.name): one pass \(one), stages \(two)")
                        }
                    }
                }
                let counted = (onePass.pipeline.statistics, staged.pipeline.statistics)
                // A third of these answers are opaque stills the one pass can write (the corpus is
                // mostly PNG's test suite: transparency, grey, palettes).
                #expect(counted.0.onePassEncodes > compared / 4, "\(counted.0.onePassEncodes) of \(compared)")
                #expect(counted.1.onePassEncodes == 0)
                #expect(counted.0.decodes == counted.1.decodes)
                // Every answer was made by the decode stage: no process stage ran.
                #expect(tracer.finishedSpans.filter { $0.operationName == "magpie.process" }.isEmpty)
            }
        }
    }

    /// A request the decode stage could make joins the stages' work for the same image when it
    /// is running (here a request with a byte limit, which the stages make): one download, one
    /// decode, nothing made in one pass.
    @Test func joinsTheStagesWorkForTheSameImage() async throws {
        try await withTestFixture(configure: { $0.memoryCache = nil }) { fixture in
            let gate = Gate()
            fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg), gate: gate))
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), processors: [Self.layout(64, 64, .fill)])
            async let staged = fixture.pipeline.encodedImage(for: request, encoding: EncodingRequest(format: .fixed(.jpeg), quality: 80, maximumBytes: 100_000))
            try await waitUntil { fixture.pipeline.statistics.downloads == 1 }
            async let joining = fixture.pipeline.encodedImage(for: request, encoding: EncodingRequest(format: .fixed(.webp), quality: 70))
            try await waitUntil { fixture.pipeline.statistics.coalesced == 1 }
            gate.open()
            let (one, two) = try await (staged, joining)
            #expect(one.format == .jpeg && two.format == .webp)
            let counted = fixture.pipeline.statistics
            #expect((counted.downloads, counted.decodes, counted.onePassEncodes, counted.processorRuns) == (1, 1, 0, 1))
        }
    }

    /// An animation going to WebP or GIF with nothing left after its decode is encoded while it
    /// decodes (the shim's `magpie_render_encoding`, frame by frame); the bytes must still be
    /// the stages'. Where the decode ends with one frame (a first frame kept alone) or the
    /// format chosen for the decoded image differs, the encode is made again from it.
    @Test func animationsEncodedWhileTheyDecodeAreTheStagesBytes() async throws {
        // libvips reads GIF and WebP animations (an APNG is its first frame); the 380-frame
        // clip is left to RenderEncodingCorpusTests, which holds the shim's path to it alone.
        let animations = Corpus.entries(expected: "valid").filter { ["gif", "webp"].contains($0.format) && (2...60).contains($0.frames ?? 1) }
        try #require(animations.count >= 8, "the corpus is missing")
        let encodings = [
            EncodingRequest(format: .fixed(.webp), quality: 70), EncodingRequest(format: .source, quality: 75),
            EncodingRequest(format: .negotiated(accepting: [.webp, .avif])), EncodingRequest(format: .fixed(.gif)),
        ]
        try await withTestFixture(configure: { $0.memoryCache = nil }) { onePass in
            try await withTestFixture { staged in
                var expected = 0
                for (index, file) in animations.enumerated() {
                    let bytes = try file.bytes()
                    onePass.server.serve("/\(index)", .image(bytes))
                    staged.server.serve("/\(index)", .image(bytes))
                    // A thumbnail decodes straight to its size; the layout only where it scales
                    // down (otherwise it has nothing to go straight to, and the stages run).
                    let scalesDown = max(file.width ?? 0, file.height ?? 0) > 120
                    for (name, thumbnail, processors) in [Self.requests[2], Self.requests[3]] {
                        for encoding in encodings {
                            let before = onePass.pipeline.statistics.encodesWhileDecoding
                            let one = try await onePass.pipeline.encodedImage(
                                for: ImageRequest(url: onePass.server.url("/\(index)"), thumbnail: thumbnail, processors: processors), encoding: encoding)
                            let two = try await staged.pipeline.encodedImage(
                                for: ImageRequest(url: staged.server.url("/\(index)"), thumbnail: thumbnail, processors: processors), encoding: encoding)
                            #expect(one.format == two.format && one.data == two.data, "\(file) \(name) \(encoding.name)")
                            let took = onePass.pipeline.statistics.encodesWhileDecoding > before
                            let goesStraightToSize = thumbnail != nil || scalesDown
                            #expect(took == goesStraightToSize, "\(file) \(name) \(encoding.name): encoded while decoding \(took)")
                            if goesStraightToSize { expected += 1 }
                        }
                    }
                }
                let counted = (onePass.pipeline.statistics, staged.pipeline.statistics)
                #expect(counted.0.encodesWhileDecoding == expected && expected >= animations.count * encodings.count)
                #expect(counted.1.encodesWhileDecoding == 0)
                #expect(counted.0.decodes == counted.1.decodes)
            }
        }
    }

    /// A JPEG in colour whose pixels are all grey is written in one grey band by the stages'
    /// encoder, which sees the pixels; the one pass assumes colour from the file, sees the grey
    /// go by, and writes the bytes again the stages' way.
    @Test func greyPixelsInAColourFileAreWrittenAsTheStagesWriteThem() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-grey-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        // Pillow writes RGB as YCbCr with both chroma planes at exactly the middle: grey pixels.
        let script = "import sys; from PIL import Image; Image.linear_gradient('L').resize((320, 200)).convert('RGB').save(sys.argv[1], quality=90)"
        _ = try ChildProcess.run("python3", ["-c", script, file.path])
        let colour = Array(try Data(contentsOf: file))
        try #require(DecodeMemory.header(of: colour).map { _ in true } == true)
        try await withTestFixture(configure: { $0.memoryCache = nil }) { onePass in
            try await withTestFixture { staged in
                onePass.server.serve("/grey.jpg", .image(colour))
                staged.server.serve("/grey.jpg", .image(colour))
                let encoding = EncodingRequest(format: .fixed(.jpeg), quality: 80)
                let one = try await onePass.pipeline.encodedImage(
                    for: ImageRequest(url: onePass.server.url("/grey.jpg"), processors: [Self.layout(64, 64, .fill)]), encoding: encoding)
                let two = try await staged.pipeline.encodedImage(
                    for: ImageRequest(url: staged.server.url("/grey.jpg"), processors: [Self.layout(64, 64, .fill)]), encoding: encoding)
                #expect(one.data == two.data)
                // Written in one band, as the stages write grey.
                try Data(one.data).write(to: file)
                let mode = try ChildProcess.run("python3", ["-c", "import sys; from PIL import Image; print(Image.open(sys.argv[1]).mode)", file.path])
                #expect(String(decoding: mode, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "L")
                #expect(onePass.pipeline.statistics.onePassEncodes == 0)
                #expect(onePass.pipeline.statistics.decodes == 1)
            }
        }
    }
}
