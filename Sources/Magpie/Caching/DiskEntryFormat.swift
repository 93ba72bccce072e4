import Crypto
import Foundation

/// The layout of one disk-cache file:
///
///     "MAGPIE1\n"  UInt32 (little endian) header length  header (JSON)  payload
///
/// The header holds the key, so a hash collision or a foreign file is detected, and the
/// payload's SHA-256, so a torn or bit-flipped file is detected; either is read as a miss.
package enum DiskEntryFormat {
    static let magic: [UInt8] = Array("MAGPIE1\n".utf8)
    static let largestHeader = 64 * 1024

    struct Header: Codable {
        var key: String
        var metadata: HTTPMetadata
        var payloadLength: Int
        var payloadSHA256: String
    }

    package enum ParseError: Error, Equatable {
        case truncated, badMagic, badHeader, wrongKey, wrongLength, checksumMismatch
    }

    package static func encode(_ entry: CachedData) throws -> [UInt8] {
        let header = Header(
            key: entry.key, metadata: entry.metadata, payloadLength: entry.data.count,
            payloadSHA256: sha256Hex(entry.data))
        let headerBytes = try Array(JSONEncoder().encode(header))
        var file = magic
        file.reserveCapacity(magic.count + 4 + headerBytes.count + entry.data.count)
        withUnsafeBytes(of: UInt32(headerBytes.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(contentsOf: headerBytes)
        file.append(contentsOf: entry.data)
        return file
    }

    /// Parses a file's bytes; `expectedKey` nil accepts any key (used by maintenance tools).
    package static func decode(_ file: [UInt8], expectedKey: String?) throws(ParseError) -> CachedData {
        let prefix = magic.count + 4
        guard file.count >= prefix else { throw .truncated }
        guard file[0..<magic.count].elementsEqual(magic) else { throw .badMagic }
        var length: UInt32 = 0
        for index in 0..<4 { length |= UInt32(file[magic.count + index]) << (8 * UInt32(index)) }
        let headerLength = Int(length)
        guard headerLength <= largestHeader else { throw .badHeader }
        guard file.count >= prefix + headerLength else { throw .truncated }
        let headerBytes = Data(file[prefix..<(prefix + headerLength)])
        guard let header = try? JSONDecoder().decode(Header.self, from: headerBytes) else { throw .badHeader }
        if let expectedKey, header.key != expectedKey { throw .wrongKey }
        let payloadStart = prefix + headerLength
        guard header.payloadLength >= 0, file.count - payloadStart == header.payloadLength else {
            throw .wrongLength
        }
        let payload = Array(file[payloadStart...])
        guard sha256Hex(payload) == header.payloadSHA256 else { throw .checksumMismatch }
        return CachedData(key: header.key, data: payload, metadata: header.metadata)
    }

    static func sha256Hex(_ bytes: some DataProtocol) -> String {
        hex(SHA256.hash(data: bytes))
    }

    package static func sha256Hex(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    package static func sha256Hex(_ string: String) -> String {
        hex(SHA256.hash(data: Array(string.utf8)))
    }

    /// Lowercase hex of `bytes` (a digest, a MAC).
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
