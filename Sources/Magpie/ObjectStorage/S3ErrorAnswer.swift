import Foundation

/// The code and message of an S3 error response (`<Error><Code>…</Code><Message>…</Message>`),
/// read from the start of its body.
struct S3ErrorAnswer: Sendable, Equatable {
    let code: String?
    let message: String?

    init(_ body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        code = Self.element("Code", in: text)
        message = Self.element("Message", in: text)
    }

    /// `Code: Message`, or whichever of the two there is.
    var reason: String? {
        switch (code, message) {
        case (let code?, let message?): "\(code): \(message)"
        case (let one?, nil), (nil, let one?): one
        case (nil, nil): nil
        }
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else {
            return nil
        }
        let value = text[open.upperBound..<close.lowerBound]
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
        // A store's words go into logs and error pages: one line, bounded.
        let line = value.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.isEmpty ? nil : String(line.prefix(300))
    }
}
