import Magpie
import NIOPosix

/// Decodes, processes and encodes one image on the proxy's own threads (never Swift's
/// cooperative pool, whose few threads serve every request), timing each step.
struct Renderer: Sendable {
    struct Output: Sendable {
        let bytes: [UInt8]
        let format: ImageFormat
        let timings: StageTimings
    }

    let decoder: any ImageDecoding
    let threads: NIOThreadPool

    func render(
        _ source: [UInt8], decoding: DecodingOptions, processors: [any ImageProcessing], quality: Int,
        format choose: @escaping @Sendable (DecodedImage) -> ImageFormat
    ) async throws(MagpieError) -> Output {
        let decoder = self.decoder
        do {
            return try await threads.runIfActive { () throws(MagpieError) -> Output in
            var timings = StageTimings()
            let clock = ContinuousClock()
            var start = clock.now
            var image = try decoder.decode(source, options: decoding)
            timings.add(start.duration(to: clock.now), to: .decode)
            start = clock.now
            for processor in processors { image = try processor.process(image) }
            if !processors.isEmpty { timings.add(start.duration(to: clock.now), to: .process) }
            start = clock.now
            let format = choose(image)
            let bytes = try ImageEncoder(quality: quality).encode(image, as: format)
            timings.add(start.duration(to: clock.now), to: .encode)
            return Output(bytes: bytes, format: format, timings: timings)
            }
        } catch let error as MagpieError {
            throw error
        } catch {
            throw .cancelled
        }
    }
}
