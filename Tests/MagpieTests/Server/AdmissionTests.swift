import Foundation
import Magpie
@testable import MagpieServer
import MagpieTesting
import Testing

@Suite("Proxy admission")
struct AdmissionTests {
    @Test func decodesWaitForTheMemoryBudgetInArrivalOrder() async throws {
        let admission = Admission(slots: 4, queueLimit: 8, memoryBudget: 100)
        #expect(try await admission.enter(cost: 60) == .admitted)
        let big = Task { try await admission.enter(cost: 60) }
        try await waitUntil { admission.usage.queued == 1 }
        // A small one arriving later does not overtake the large one waiting at the front.
        let small = Task { try await admission.enter(cost: 10) }
        try await waitUntil { admission.usage.queued == 2 }
        #expect(admission.usage.running == 1)

        admission.leave(cost: 60)
        #expect(try await big.value == .admitted)
        #expect(try await small.value == .admitted)
        #expect(admission.usage == (running: 2, memory: 70, queued: 0))
        admission.leave(cost: 60)
        admission.leave(cost: 10)
        #expect(admission.usage == (running: 0, memory: 0, queued: 0))
    }

    @Test func aSourceLargerThanTheBudgetRunsAlone() async throws {
        let admission = Admission(slots: 4, queueLimit: 8, memoryBudget: 100)
        #expect(try await admission.enter(cost: 10) == .admitted)
        let huge = Task { try await admission.enter(cost: 300) }
        try await waitUntil { admission.usage.queued == 1 }
        admission.leave(cost: 10)
        #expect(try await huge.value == .admitted)
        #expect(admission.usage == (running: 1, memory: 300, queued: 0))
        admission.leave(cost: 300)
    }

    @Test func aFullQueueTurnsAwayAndACancelledWaiterLetsTheNextIn() async throws {
        let admission = Admission(slots: 1, queueLimit: 2, memoryBudget: 100)
        #expect(try await admission.enter(cost: 90) == .admitted)
        let first = Task { try await admission.enter(cost: 90) }
        let second = Task { try await admission.enter(cost: 5) }
        try await waitUntil { admission.usage.queued == 2 }
        #expect(try await admission.enter(cost: 0) == .queueFull)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        admission.leave(cost: 90)
        #expect(try await second.value == .admitted)
        #expect(admission.usage == (running: 1, memory: 5, queued: 0))
        admission.leave(cost: 5)
    }

    @Test func progressiveJPEGsAreCostedByTheirCoefficients() throws {
        // 1000×800, 4:2:0 (libvips' choice below quality 90): 125×100 luma blocks and 63×50 of each chroma.
        let progressive = try TestImages.texture(width: 1000, height: 800, format: .jpeg, progressive: true)
        let coefficients = (125 * 100 + 2 * 63 * 50) * 128
        #expect(DecodeMemory.progressiveCoefficients(progressive) == coefficients)
        #expect(DecodeMemory.progressiveCoefficients(try TestImages.texture(width: 1000, height: 800, format: .jpeg)) == 0)
        #expect(DecodeMemory.progressiveCoefficients(try TestImages.texture(width: 100, height: 80, format: .png)) == 0)
        #expect(DecodeMemory.progressiveCoefficients(Array(progressive.prefix(40))) == 0)
        #expect(DecodeMemory.progressiveCoefficients([0xFF, 0xD8, 0xFF, 0xC2, 0x00]) == 0)

        // The whole estimate adds the bitmap the decode produces: the thumbnail's, or the source's.
        var options = DecodingOptions(maximumPixels: 100_000_000)
        #expect(DecodeMemory.estimate(progressive, options: options) == coefficients + 1000 * 800 * 4)
        options.thumbnail = .init(width: 100, height: 100)
        #expect(DecodeMemory.estimate(progressive, options: options) == coefficients + 100 * 80 * 4)
        options.thumbnail = .init(width: 100, height: 100, fit: .fill)
        #expect(DecodeMemory.estimate(progressive, options: options) == coefficients + 125 * 100 * 4)
        // Over the pixel limit nothing is allocated: the decode is refused first.
        options.maximumPixels = 500_000
        #expect(DecodeMemory.estimate(progressive, options: options) == 0)
        #expect(DecodeMemory.estimate(Array(progressive.prefix(40)), options: DecodingOptions(maximumPixels: 100_000_000)) == 0)
    }

    @Test func animationsAreCostedByEveryFrame() throws {
        let clip = try ImageEncoder().encode(TestImages.animation(width: 200, height: 100, frames: 12), as: .gif)
        var options = DecodingOptions(maximumPixels: 100_000_000, decodesAllFrames: true)
        #expect(DecodeMemory.estimate(clip, options: options) == 200 * 100 * 4 * 12)
        options.decodesAllFrames = false
        #expect(DecodeMemory.estimate(clip, options: options) == 200 * 100 * 4)
    }
}
