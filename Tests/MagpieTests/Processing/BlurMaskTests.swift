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
}
