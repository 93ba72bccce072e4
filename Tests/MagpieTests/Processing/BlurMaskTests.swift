import Magpie
import Testing

/// The shim keeps Gaussian masks per sigma (a few of them): blurs at more sigmas than it keeps,
/// run at once and in a shuffled order, must each get their own sigma's mask.
@Suite("Blur masks")
struct BlurMaskTests {
    /// Pixels of the middle row more than two levels from both flat ends: the blur's reach.
    /// (libvips' integer masks can shift a flat area by a level or two at some sigmas.)
    static func ramp(_ image: DecodedImage) -> Int {
        let row = (0..<image.width).map { Int(image.pixel(x: $0, y: 20).red) }
        return row.filter { $0 > row[0] + 2 && $0 < row[row.count - 1] - 2 }.count
    }

    @Test func concurrentBlursAtManySigmasEachUseTheirOwnMask() async throws {
        let edge = try SharpenTests.softEdge()
        let sigmas = (1...24).map { Double($0) * 0.5 }
        let jobs = (sigmas + sigmas).shuffled()
        let results = try await withThrowingTaskGroup(of: (Double, [UInt8]).self) { group in
            for sigma in jobs {
                group.addTask { (sigma, try ImageProcessors.GaussianBlur(sigma: sigma).process(edge).pixels) }
            }
            var results: [Double: [[UInt8]]] = [:]
            for try await (sigma, pixels) in group { results[sigma, default: []].append(pixels) }
            return results
        }
        var reaches: [Int] = []
        for sigma in sigmas {
            let made = try #require(results[sigma])
            #expect(made.count == 2 && made[0] == made[1], "sigma \(sigma): the two blurs differ")
            reaches.append(Self.ramp(DecodedImage(width: edge.width, height: edge.height, pixels: made[0])))
        }
        // A wider Gaussian reaches further; a mask of another sigma would break the order.
        #expect(zip(reaches, reaches.dropFirst()).allSatisfy { $0 <= $1 }, "\(reaches)")
        #expect(reaches.first! < reaches.last!, "\(reaches)")
    }

    /// libvips' own integer Gaussian mask does not sum exactly in the form its convolution holds
    /// it: a flat 215 came out anywhere from 210 to 217 depending on the sigma, and the unsharp
    /// mask doubled that. The masks the shim makes sum exactly.
    @Test(arguments: [UInt8(215), 40, 255])
    func flatAreasStayExactlyAsTheyWere(level: UInt8) throws {
        let flat = DecodedImage(
            width: 120, height: 90, pixels: (0..<120 * 90).flatMap { _ in [level, level, level, 255] })
        var changed: [String] = []
        for sigma in stride(from: 0.5, through: 40, by: 0.5) {
            for (name, processor) in [("blur", ImageProcessors.GaussianBlur(sigma: sigma) as any ImageProcessing),
                                      ("unsharp", ImageProcessors.UnsharpMask(sigma: min(sigma, 10), amount: 1))] {
                let made = try processor.process(flat)
                let middle = made.pixel(x: 60, y: 45)
                if middle.red != level || middle.green != level || middle.blue != level || made.pixels != flat.pixels {
                    changed.append("\(name) \(sigma): \(middle.red)")
                }
            }
        }
        #expect(changed.isEmpty, "\(changed)")
    }
}
