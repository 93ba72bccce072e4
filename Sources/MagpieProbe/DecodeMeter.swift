import Foundation
import Magpie
import MagpieTesting

/// Decodes files one by one with the pipeline's decoder, as the pipeline does (every frame of an
/// animation, the animation pixel limit equal to the still one), and reports, for each, the
/// wall time and how far the process's resident memory rose above where it started.
enum DecodeMeter {
    static func run(files: [String], maximumPixels: Int, thumbnail: ImageRequest.Thumbnail?) {
        let decoder = VipsDecoder()
        let encoder = JSONEncoder()
        for file in files {
            let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
            ProcessMemory.resetPeak()
            let before = ProcessMemory.resident
            let start = ContinuousClock.now
            var failure: String?
            let options = DecodingOptions(
                thumbnail: thumbnail, maximumPixels: maximumPixels, decodesAllFrames: true, maximumAnimationPixels: maximumPixels)
            do {
                _ = try decoder.decode(bytes, options: options)
            } catch {
                failure = error.description
            }
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            let report = DecodeReport(
                file: file, ok: failure == nil, error: failure,
                milliseconds: Double(seconds) * 1000 + Double(attoseconds) / 1e15,
                peakMemoryIncrease: max(0, ProcessMemory.peak - before))
            let line = (try? encoder.encode(report)) ?? Data("{}".utf8)
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        }
    }
}
