import Magpie

/// The status and message a failed load becomes. The message is the pipeline's own sentence,
/// so an operator reading the body or the log knows what to fix. This is imgproxy's
/// mapping; a grammar may answer some failures differently (``ProxyGrammar/status(for:)``).
enum FailureResponse {
    static func status(for error: MagpieError) -> Int {
        switch error {
        case .httpStatus(let code, _): [404, 410].contains(code) ? 404 : 502
        case .sourceNotFound: 404
        case .sourceRefused: 502
        case .blocked: 502
        case .invalidURL: 400
        case .sourceNotAllowed: 403
        case .network(let failure): failure.reason == .addressNotAllowed ? 403 : 502
        case .tooManyRedirects: 502
        case .timedOut: 504
        case .responseTooLarge, .imageTooLarge, .animationTooLarge, .unsupportedFormat, .decodingFailed, .outputTooLarge: 422
        case .cancelled: 499
        default: 500
        }
    }
}
