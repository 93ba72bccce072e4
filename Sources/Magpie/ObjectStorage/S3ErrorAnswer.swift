import Foundation

/// The code and message of an S3 error response (`<Error><Code>…</Code><Message>…</Message>`),
/// read from the start of its body.
struct S3ErrorAnswer: Sendable, Equatable {
    let code: String?
    let message: String?

    init(_ body: [UInt8]) {
        code = S3XML.element("Code", in: body).flatMap(Self.line)
        message = S3XML.element("Message", in: body).flatMap(Self.line)
    }

    /// `Code: Message`, or whichever of the two there is.
    var reason: String? {
        switch (code, message) {
        case (let code?, let message?): "\(code): \(message)"
        case (let one?, nil), (nil, let one?): one
        case (nil, nil): nil
        }
    }

    /// A store's words go into logs and error pages: one line, bounded.
    private static func line(_ text: String) -> String? {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.isEmpty ? nil : String(line.prefix(300))
    }
}

/// The few elements Magpie reads from S3's XML answers, found by name: the answers are small
/// and flat, and a parser would add nothing.
enum S3XML {
    /// The text of the first `<name>` element in `body`, its entities decoded.
    static func element(_ name: String, in body: [UInt8]) -> String? {
        elements(name, in: body, limit: 1).first
    }

    /// The text of every `<name>` element in `body` (up to `limit`), in order, entities decoded.
    static func elements(_ name: String, in body: [UInt8], limit: Int = .max) -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        var found: [String] = []
        var from = text.startIndex
        while found.count < limit, let open = text.range(of: "<\(name)>", range: from..<text.endIndex),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        {
            found.append(
                text[open.upperBound..<close.lowerBound]
                    .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                    .replacingOccurrences(of: "&amp;", with: "&"))
            from = close.upperBound
        }
        return found
    }

    /// `text` with the characters XML reserves written as entities.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
