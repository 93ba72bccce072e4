import CMagpieTestSupport
import Magpie
public import MagpieOrigin

/// Malformed files for tests: headers that declare enormous sizes (decompression bombs) and
/// files a camera would write. Only tests make these; the shipped demo has no use for them.
extension TestImages {
    /// A PNG whose header declares `width` by `height` pixels, followed by an IDAT that
    /// inflates to `inflatedBytes` zero bytes (a decompression bomb when large).
    public static func pngBomb(width: Int, height: Int, inflatedBytes: Int = 1 << 20) -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = [UInt8]()
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0]  // 8-bit RGBA, deflate, no filter, no interlace
        png += chunk("IHDR", header)
        var compressed = [UInt8](repeating: 0, count: inflatedBytes / 500 + 1024)
        let size = magpie_deflate_zeros(inflatedBytes, &compressed, compressed.count)
        png += chunk("IDAT", Array(compressed.prefix(size)))
        png += chunk("IEND", [])
        return png
    }

    /// A GIF whose screen and only frame declare `width` by `height` pixels (at most 65535).
    public static func gifBomb(width: Int, height: Int, frames: Int = 1) -> [UInt8] {
        var gif = Array("GIF89a".utf8)
        gif += littleEndian16(width) + littleEndian16(height)
        gif += [0x80, 0, 0]  // global colour table of 2 entries
        gif += [0, 0, 0, 255, 255, 255]
        for _ in 0..<max(1, frames) {
            gif += [0x2C, 0, 0, 0, 0] + littleEndian16(width) + littleEndian16(height) + [0]
            // LZW minimum code size 2, one data block: clear code, end code.
            gif += [2, 2, 0x4C, 0x01, 0]
        }
        gif.append(0x3B)
        return gif
    }

    /// A real JPEG whose frame header claims `width` by `height` (each at most 65535).
    public static func jpegBomb(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try texture(width: 16, height: 16, format: .jpeg)
        // SOF0/SOF2 segment: FF C0|C2, length (2), precision (1), height (2), width (2).
        guard let marker = bytes.indices.dropLast(9).first(where: { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        else { throw MagpieError.decodingFailed("no frame header in the generated JPEG") }
        bytes.replaceSubrange((marker + 5)..<(marker + 9), with: bigEndian16(height) + bigEndian16(width))
        return bytes
    }

    /// `jpeg` with an EXIF segment (right after SOI) that says to show it turned by
    /// `orientation` (1...8): the pixels stay as stored, as a camera writes them.
    public static func jpeg(_ jpeg: [UInt8], orientation: Int) -> [UInt8] {
        // APP1 "Exif\0\0", a big-endian TIFF header and one IFD entry: Orientation (0x0112), SHORT.
        let tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01] + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01] + bigEndian16(orientation) + [0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
        let payload = Array("Exif".utf8) + [0x00, 0x00] + tiff
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1] + bigEndian16(payload.count + 2) + payload + jpeg.dropFirst(2)
    }

    /// A real lossy WebP whose canvas and VP8 frame claim `width` by `height` (each at most 16383).
    public static func webpBomb(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try texture(width: 16, height: 16, format: .webp)
        // VP8X (extended) header: canvas width - 1 and height - 1, 24-bit little-endian.
        if let extended = range(of: "VP8X", in: bytes) {
            bytes.replaceSubrange((extended + 12)..<(extended + 18), with: littleEndian24(width - 1) + littleEndian24(height - 1))
        }
        // VP8 key frame: 3-byte tag, start code 9D 01 2A, then 14-bit width and height.
        guard let frame = range(of: "VP8 ", in: bytes), bytes[(frame + 11)..<(frame + 14)].elementsEqual([0x9D, 0x01, 0x2A])
        else { throw MagpieError.decodingFailed("no VP8 key frame in the generated WebP") }
        bytes.replaceSubrange((frame + 14)..<(frame + 18), with: littleEndian16(width & 0x3FFF) + littleEndian16(height & 0x3FFF))
        return bytes
    }

    private static func range(of tag: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(tag.utf8)
        return bytes.indices.dropLast(pattern.count).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    private static func bigEndian16(_ value: Int) -> [UInt8] {
        let clamped = UInt16(clamping: value)
        return [UInt8(clamped >> 8), UInt8(clamped & 0xFF)]
    }

    private static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let body = typeBytes + data
        let crc = body.withUnsafeBufferPointer { magpie_crc32(0, $0.baseAddress, $0.count) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func littleEndian16(_ value: Int) -> [UInt8] {
        let clamped = UInt16(clamping: value)
        return [UInt8(clamped & 0xFF), UInt8(clamped >> 8)]
    }
}
