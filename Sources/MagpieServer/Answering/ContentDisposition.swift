/// `Content-Disposition` as RFC 6266 writes it: the name as a quoted string, escaped, and, when
/// the name is not ASCII, the name in UTF-8 as `filename*` too (RFC 8187).
enum ContentDisposition {
    static func value(attachment: Bool, filename: String) -> String {
        // Byte by byte: this runs for every response, memory hits included.
        var value = Array((attachment ? "attachment" : "inline").utf8) + Array("; filename=\"".utf8)
        var ascii = true
        for byte in filename.utf8 {
            switch byte {
            // Control characters would split the header.
            case 0..<0x20, 0x7F: continue
            // A quote would end the string; imgproxy writes it %22, which every client reads.
            case UInt8(ascii: "\""): value += Array("%22".utf8)
            // A backslash escapes the next character in a quoted string: escaped itself.
            case UInt8(ascii: "\\"): value += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x80...:
                // As imgproxy sends it (browsers read the quoted name as UTF-8), with the name
                // again in `filename*`, the form RFC 6266 defines for it.
                ascii = false
                value.append(byte)
            default: value.append(byte)
            }
        }
        value.append(UInt8(ascii: "\""))
        if !ascii {
            value += Array("; filename*=UTF-8''".utf8)
            for byte in filename.utf8 where byte >= 0x20 && byte != 0x7F {
                if isAttributeCharacter(byte) {
                    value.append(byte)
                } else {
                    value += [UInt8(ascii: "%"), hexDigit(byte >> 4), hexDigit(byte & 0x0F)]
                }
            }
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// RFC 8187's `attr-char`: what may stand unencoded in an extended value.
    private static func isAttributeCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$&+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
