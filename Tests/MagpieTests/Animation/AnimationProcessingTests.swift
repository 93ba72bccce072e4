import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Animation processing and output")
struct AnimationProcessingTests {
    static func corpus(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Corpus.directory.appendingPathComponent(path)))
    }

    static func decodeAll(_ bytes: [UInt8]) throws -> DecodedImage {
        try VipsDecoder().decode(bytes, options: DecodingOptions(decodesAllFrames: true))
    }

    @Test("a processor works on every frame alone: the same pixels as processing each frame as a still")
    func everyFrameIsProcessedOnItsOwn() throws {
        let animation = try Self.decodeAll(try Self.corpus("image-gif/samples/moon_impact.gif"))
        let processors: [any ImageProcessing] = [
            .resize(width: 50, height: 50), .blur(sigma: 2), .grayscale, .crop(width: 40, height: 30, gravity: .bottom),
        ]
        for processor in processors {
            let processed = try processor.process(animation)
            #expect(processed.frameCount == 14, "\(processor.identifier)")
            #expect(processed.animation == animation.animation, "timing kept by \(processor.identifier)")
            for index in [0, 6, 13] {
                let alone = try processor.process(animation.frame(index))
                #expect(processed.frame(index).pixels == alone.pixels, "\(processor.identifier) frame \(index)")
            }
        }
    }

    /// A grey animation with a saturated square that moves right frame by frame.
    static func movingSquare(frames: Int) -> DecodedImage {
        let width = 160, height = 64
        var pixels: [UInt8] = []
        for frame in 0..<frames {
            let left = 8 + frame * 24
            for y in 0..<height {
                for x in 0..<width {
                    let inSquare = (left..<left + 24).contains(x) && (20..<44).contains(y)
                    pixels += inSquare ? [230, 20, 40, 255] : [128, 128, 128, 255]
                }
            }
        }
        return DecodedImage(
            width: width, height: height, pixels: pixels, animation: Animation(frameDelays: Array(repeating: 100, count: frames), loopCount: 0))
    }

    @Test("a smart crop takes its box from the first frame and applies it to all")
    func smartCropUsesTheFirstFramesBox() throws {
        let source = Self.movingSquare(frames: 5)
        let cropped = try ImageProcessors.Crop(.gravity(.attention, width: 48, height: 48)).process(source)
        #expect(cropped.frameCount == 5)
        // Where the first frame's crop lies in the first source frame.
        let first = cropped.frame(0)
        let box = try #require(Self.locate(first, in: source.frame(0)), "the crop is a part of the frame")
        #expect(box.x < 40, "attention found the square on the left of the first frame")
        for index in 1..<5 {
            let expected = try ImageProcessors.Crop(.rectangle(x: box.x, y: box.y, width: 48, height: 48)).process(source.frame(index))
            #expect(cropped.frame(index).pixels == expected.pixels, "frame \(index) is cut where frame 0 was")
        }
        // Cropping frame 4 alone would follow the square: proof the box did not move with it.
        let alone = try ImageProcessors.Crop(.gravity(.attention, width: 48, height: 48)).process(source.frame(4))
        #expect(alone.pixels != cropped.frame(4).pixels)
    }

    static func locate(_ part: DecodedImage, in whole: DecodedImage) -> (x: Int, y: Int)? {
        for y in 0...(whole.height - part.height) {
            for x in 0...(whole.width - part.width) {
                let matches = (0..<part.height).allSatisfy { row in
                    let start = ((y + row) * whole.width + x) * 4
                    return whole.pixels[start..<start + part.width * 4].elementsEqual(part.pixels[row * part.bytesPerRow..<(row + 1) * part.bytesPerRow])
                }
                if matches { return (x, y) }
            }
        }
        return nil
    }

    @Test func roundedCornersAndCirclesApplyToEveryFrame() throws {
        let animation = TestImages.animation(width: 60, height: 40, frames: 4)
        for processor in [ImageProcessors.RoundedCorners(radius: 10) as any ImageProcessing, ImageProcessors.Circle()] {
            let processed = try processor.process(animation)
            #expect(processed.frameCount == 4)
            for index in 0..<4 {
                let frame = processed.frame(index)
                #expect(frame.pixel(x: 0, y: 0).alpha == 0, "\(processor.identifier) frame \(index)")
                #expect(frame.pixel(x: frame.width / 2, y: frame.height / 2).alpha == 255)
            }
        }
    }

    @Test("GIF resized to 128 px and written as animated WebP reads back in Pillow with the same frames, durations and loop")
    func gifToAnimatedWebPRoundTrip() throws {
        let file = Corpus.directory.appendingPathComponent("image-gif/samples/gifplayer-muybridge.gif")
        let source = try #require(try PillowAnimation.read([file]).first)
        let animation = try Self.decodeAll(Array(try Data(contentsOf: file)))
        let resized = try ImageProcessors.Resize(width: 128, height: 128).process(animation)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let webp = folder.appendingPathComponent("out.webp"), gif = folder.appendingPathComponent("out.gif")
        try Data(try ImageEncoder(quality: 80).encode(resized, as: .webp)).write(to: webp)
        try Data(try ImageEncoder().encode(resized, as: .gif)).write(to: gif)
        for written in try PillowAnimation.read([webp, gif]) {
            #expect(written.frames == source.frames, "\(written.format)")
            #expect(written.durations == source.durations, "\(written.format)")
            #expect(written.plays == source.plays, "\(written.format)")
            #expect(written.size == [128, 81], "\(written.format)")
        }
    }

    @Test func aFiniteLoopCountSurvivesWebPAndGIF() throws {
        let animation = TestImages.animation(width: 32, height: 24, frames: 3, delay: 120, loopCount: 3)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [URL] = []
        for format in [ImageFormat.webp, .gif] {
            let file = folder.appendingPathComponent("loop.\(format.fileExtension)")
            let bytes = try ImageEncoder().encode(animation, as: format)
            try Data(bytes).write(to: file)
            files.append(file)
            let decoded = try Self.decodeAll(bytes)
            #expect(decoded.animation == animation.animation, "\(format) read back by Magpie")
        }
        for written in try PillowAnimation.read(files) {
            #expect(written.plays == 3, "\(written.format) read back by Pillow")
            #expect(written.durations == [120, 120, 120])
        }
    }

    @Test("a closure processor sees one still frame at a time and the animation keeps its timing")
    func closuresSeeFrames() throws {
        let animation = TestImages.animation(width: 20, height: 10, frames: 3, delay: 70)
        let invert = ImageProcessors.Anonymous(identifier: "test.invert/1") { frame throws(MagpieError) in
            #expect(frame.frameCount == 1 && frame.pixels.count == 20 * 10 * 4)
            return DecodedImage(width: frame.width, height: frame.height, pixels: frame.pixels.enumerated().map { $0 % 4 == 3 ? $1 : 255 - $1 })
        }
        let inverted = try invert.process(animation)
        #expect(inverted.animation == animation.animation)
        #expect(inverted.frame(2).pixel(x: 3, y: 4).red == 255 - animation.frame(2).pixel(x: 3, y: 4).red)
        let uneven = ImageProcessors.Anonymous(identifier: "test.uneven/1") { frame throws(MagpieError) in
            frame.pixels[0] == animation.pixels[0] ? frame : try ImageProcessors.Resize(width: 5, height: 5).process(frame)
        }
        #expect(throws: MagpieError.self) { try uneven.process(animation) }
    }

    @Test func stillFormatsGetTheFirstFrame() throws {
        let animation = TestImages.animation(width: 32, height: 24, frames: 3)
        let png = try VipsDecoder().decode(try ImageEncoder().encode(animation, as: .png), options: DecodingOptions(decodesAllFrames: true))
        #expect(png.frameCount == 1)
        #expect(png.pixels == animation.frame(0).pixels)
    }
}
