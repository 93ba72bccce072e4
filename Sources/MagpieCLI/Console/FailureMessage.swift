import Foundation
import NIOHTTP1
import Magpie

/// One short line saying why an image failed, for people reading a terminal.
enum FailureMessage {
    static func text(for error: MagpieError) -> String {
        switch error {
        case .invalidURL(_, let reason): "bad URL: \(reason)"
        case .httpStatus(let code, _):
            "HTTP \(code) \(HTTPResponseStatus(statusCode: code).reasonPhrase)".trimmingCharacters(in: .whitespaces)
        case .sourceNotFound: "not found"
        case .sourceRefused(_, let status, let reason): "the store refused (\(status)): \(reason)"
        case .unsupportedFormat(let detail): "not an image (\(detail))"
        case .decodingFailed(let detail): "corrupt image: \(detail)"
        case .imageTooLarge(let width, let height, let limit): "image too large: \(width)x\(height) is over \(limit) pixels"
        case .responseTooLarge(let limit): "response too large: over \(limit) bytes"
        case .tooManyRedirects: "too many redirects"
        case .timedOut: "timed out"
        case .network(let failure): failure.message
        case .blocked: "failed earlier in this run; --retry-failed tries again"
        case .cancelled: "cancelled"
        case .notCached: "not in the cache"
        case .diskCache(let detail): "disk cache error: \(detail)"
        case .processingFailed(let processor, let reason): "processing failed (\(processor)): \(reason)"
        case .encodingFailed(let format, let reason): "encoding \(format) failed: \(reason)"
        case .outputTooLarge(let width, let height, let side, let pixels):
            "result too large: \(width)x\(height) is over \(pixels) pixels or \(side) on a side"
        default: error.description
        }
    }
}
