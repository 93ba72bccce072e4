import Foundation

/// Reads `data:` URLs (`data:image/png;base64,iVBOR…`), the images a page or a feed carries
/// inline; the pipeline registers it for the `data` scheme. The bytes are the URL's own, so
/// nothing is fetched or kept on disk; they are bounded like any source's, by
/// ``SourceRequest/limit``.
public struct DataURLLoader: SourceLoader {
    public init() {}

    public var isRemote: Bool { false }

    public func load(_ request: SourceRequest) async throws(MagpieError) -> SourceResponse {
        try .loaded(read(request.url.absoluteString, limit: request.limit))
    }

    /// The bytes of the `data:` URL `text`: `data:[type][;parameters][;base64],payload`.
    public func read(_ text: String, limit: Int) throws(MagpieError) -> SourceData {
        // Percent-encoding triples a byte at most: a longer URL cannot fit, whatever it says.
        guard text.utf8.count / 3 <= limit + 1024 else { throw .responseTooLarge(limit: limit) }
        guard text.prefix(5).lowercased() == "data:", let comma = text.firstIndex(of: ",") else {
            throw .invalidURL(String(text.prefix(100)), reason: "a data URL is data:[type][;base64],payload")
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let parameters = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let isBase64 = parameters.last?.lowercased() == "base64"
        let payload = String(text[text.index(after: comma)...])
        let bytes: [UInt8]
        if isBase64 {
            // Whitespace and percent-encoding are allowed around base64 in the wild (RFC 2397
            // leaves it to URL rules); anything else is not base64.
            var compact = (payload.removingPercentEncoding ?? payload).filter { !$0.isWhitespace }
            // Padding is often left off.
            compact += String(repeating: "=", count: (4 - compact.utf8.count % 4) % 4)
            guard let data = Data(base64Encoded: compact) else {
                throw .invalidURL(String(text.prefix(100)), reason: "its payload is not base64")
            }
            bytes = Array(data)
        } else {
            guard let decoded = payload.removingPercentEncoding else {
                throw .invalidURL(String(text.prefix(100)), reason: "its payload is not valid percent-encoding")
            }
            bytes = Array(decoded.utf8)
        }
        guard bytes.count <= limit else { throw .responseTooLarge(limit: limit) }
        let type = parameters.first.flatMap { $0.contains("/") ? $0 : nil }
        return SourceData(bytes: bytes, metadata: HTTPMetadata(contentType: type))
    }
}
