import Foundation
import NIOHTTP1

/// How an entry's key, checksum and ``HTTPMetadata`` travel as an object's user metadata
/// (`x-amz-meta-magpie-*`), so an operator can read them with any S3 tool, and a read can tell
/// a whole object of the right key from a damaged or foreign one.
enum StoredObjectMetadata {
    /// S3's limit on an object's user metadata, names and values together.
    static let largestMetadata = 2 * 1024

    private enum Field: String, CaseIterable {
        case key = "magpie-key"
        case checksum = "magpie-sha256"
        case etag = "magpie-etag"
        case lastModified = "magpie-last-modified"
        case freshUntil = "magpie-fresh-until"
        case cacheControl = "magpie-cache-control"
        case date = "magpie-date"
        case redirects = "magpie-redirects"
    }

    /// The metadata to store bytes whose SHA-256 is `checksum` under `key` with, or `nil` when
    /// it would exceed S3's limit (a long redirect chain).
    static func fields(key: String, checksum: String, metadata: HTTPMetadata) -> [String: String]? {
        var fields: [String: String] = [
            Field.key.rawValue: encoded(key),
            Field.checksum.rawValue: checksum,
        ]
        fields[Field.etag.rawValue] = metadata.etag.map(encoded)
        fields[Field.lastModified.rawValue] = metadata.lastModified.map(encoded)
        fields[Field.freshUntil.rawValue] = metadata.freshUntil.map(milliseconds)
        fields[Field.cacheControl.rawValue] = metadata.cacheControl.map(encoded)
        fields[Field.date.rawValue] = metadata.date.map(milliseconds)
        if !metadata.redirects.isEmpty {
            fields[Field.redirects.rawValue] = metadata.redirects.map { encoded($0.absoluteString) }.joined(separator: " ")
        }
        let size = fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        return size <= largestMetadata ? fields : nil
    }

    /// The entry an object holds, if its metadata names `key` and its bytes match the checksum.
    static func entry(key: String, headers: HTTPHeaders, body: [UInt8]) -> CachedData? {
        func field(_ field: Field) -> String? {
            headers.first(name: "x-amz-meta-" + field.rawValue).flatMap { $0.removingPercentEncoding }
        }
        guard field(.key) == key, let checksum = field(.checksum), checksum == DiskEntryFormat.sha256Hex(body) else { return nil }
        var redirects: [URL] = []
        if let list = headers.first(name: "x-amz-meta-" + Field.redirects.rawValue) {
            for item in list.split(separator: " ") {
                guard let text = String(item).removingPercentEncoding, let url = URL(string: text) else { return nil }
                redirects.append(url)
            }
        }
        let metadata = HTTPMetadata(
            etag: field(.etag), lastModified: field(.lastModified), contentType: headers.first(name: "Content-Type"),
            freshUntil: field(.freshUntil).flatMap(date), cacheControl: field(.cacheControl), date: field(.date).flatMap(date),
            redirects: redirects)
        return CachedData(key: key, data: body, metadata: metadata)
    }

    /// Visible ASCII but `%`: what every store passes through unchanged (S3 rewrites other
    /// characters in metadata, and HTTP trims spaces at the ends).
    private static let kept = CharacterSet(charactersIn: UnicodeScalar(0x21)...UnicodeScalar(0x7E)).subtracting(CharacterSet(charactersIn: "%"))

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: kept) ?? ""
    }

    private static func milliseconds(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    private static func date(_ text: String) -> Date? {
        Int64(text).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}
