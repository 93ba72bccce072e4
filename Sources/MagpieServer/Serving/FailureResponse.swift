import Magpie

/// The status and message a failed load becomes. The message is the pipeline's own sentence,
/// so an operator reading the body or the log knows what to fix.
enum FailureResponse {
    /// The status for `error` on a URL of `grammar`: thumbor answers a source it cannot read as
    /// an image with a 400 (its handler's "cannot identify image file"), imgproxy with a 422.
    static func status(for error: MagpieError, grammar: URLGrammar) -> Int {
        switch (error, grammar) {
        case (.unsupportedFormat, .thumbor), (.decodingFailed, .thumbor): 400
        default: status(for: error)
        }
    }

    static func status(for error: MagpieError) -> Int {
        switch error {
        case .httpStatus(let code, _): [404, 410].contains(code) ? 404 : 502
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
