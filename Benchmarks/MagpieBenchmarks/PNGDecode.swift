import Foundation
import Magpie
import MagpieTesting

/// A full-size decode of a 3 MP PNG: what the PNG integrity checks cost on top of libvips.
func measurePNGDecode(into report: inout Report) throws {
    let bytes = try TestImages.texture(width: 2000, height: 1500, format: .png, seed: 42)
    let decoder = VipsDecoder()
    let result = try medianMilliseconds(of: 10) { _ = try decoder.decode(bytes, thumbnail: nil, maximumPixels: 100_000_000) }
    let megabytes = format(Double(bytes.count) / 1_048_576)
    report.add("3 MP PNG (\(megabytes) MB, noisy texture), full-size decode, median of 10", "\(format(result)) ms")
}
