import Foundation

/// An encoded image ready to send, with what its response headers need.
struct ProxyResult: Sendable {
    let body: [UInt8]
    let contentType: String
    let etag: String
    let lastModified: String?
    /// When it was made, for the result cache's time to live.
    let created: Date

    /// The bytes kept on disk: a short header of text lines, an empty line, then the body.
    var envelope: [UInt8] {
        let header = ["magpie-result/1", contentType, etag, lastModified ?? "", String(created.timeIntervalSince1970), ""]
        return Array((header.joined(separator: "\n") + "\n").utf8) + body
    }

    init(body: [UInt8], contentType: String, etag: String, lastModified: String?, created: Date) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.created = created
    }

    /// Reads an envelope; `nil` for anything else (a file from another version).
    init?(envelope: [UInt8]) {
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < envelope.count, lines.count < 6, index - start < 1024 {
            if envelope[index] == UInt8(ascii: "\n") {
                lines.append(String(decoding: envelope[start..<index], as: UTF8.self))
                start = index + 1
            }
            index += 1
        }
        guard lines.count == 6, lines[0] == "magpie-result/1", lines[5].isEmpty, let seconds = Double(lines[4]) else { return nil }
        self.init(
            body: Array(envelope[start...]), contentType: lines[1], etag: lines[2], lastModified: lines[3].isEmpty ? nil : lines[3],
            created: Date(timeIntervalSince1970: seconds))
    }
}
