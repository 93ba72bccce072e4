import Foundation
import Magpie

/// What happened to one URL: a line for people, a JSON object for scripts.
struct FetchResult: Encodable {
    enum Status: String, Encodable {
        case ok, error
    }

    let url: String
    let status: Status
    var source: String?
    var width: Int?
    var height: Int?
    /// Frames of an animation; absent for a still.
    var frames: Int?
    /// Bytes downloaded for this URL (0 when it came from a cache).
    var bytes: Int?
    var milliseconds: Double
    var format: String?
    var file: String?
    var error: String?

    static func success(
        url: String, source: ImageSource, width: Int, height: Int, frames: Int, format: ImageFormat, bytes: Int,
        milliseconds: Double, file: URL?
    ) -> FetchResult {
        FetchResult(
            url: url, status: .ok, source: source.rawValue, width: width, height: height, frames: frames > 1 ? frames : nil, bytes: bytes,
            milliseconds: milliseconds, format: format.rawValue, file: file?.path)
    }

    static func failure(url: String, message: String, milliseconds: Double) -> FetchResult {
        FetchResult(url: url, status: .error, milliseconds: milliseconds, error: message)
    }

    var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    var plainLine: String {
        guard status == .ok else { return "error  \(url)  \(error ?? "")" }
        let size = "\(width ?? 0)x\(height ?? 0)" + (frames.map { " \($0) frames" } ?? "")
        var parts = ["ok     \(url)", "\(size) \(format ?? "")", source ?? ""]
        if let bytes, bytes > 0 { parts.append(ByteCount.format(bytes)) }
        parts.append(String(format: "%.0f ms", milliseconds))
        if let file { parts.append("-> \(file)") }
        return parts.joined(separator: "  ")
    }
}
