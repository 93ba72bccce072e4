/// Pango markup for a text mark, read and bounded before anything is drawn: Pango draws
/// whatever size the markup asks for (`<span font="16000">W</span>`, 27 bytes, took 1.3 GB),
/// so the tags and attributes are read here, every size is held within
/// ``maximumFontPixels``, and the area the text can cover is estimated from its characters
/// and held within ``maximumPixels``. Markup Pango would refuse, or that Magpie cannot bound,
/// is refused with a reason naming the part.
public struct TextMarkup: Sendable, Hashable {
    /// Why markup is refused, in a sentence.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// The largest font size anywhere in the markup, in pixels.
    public static let maximumFontPixels = 1000
    /// The largest area the drawn text may cover: 8 MP, 32 MB as RGBA.
    public static let maximumPixels = 8_000_000
    /// Deepest nesting of tags.
    public static let maximumDepth = 16

    /// The markup as given.
    public let markup: String
    /// An upper estimate of the drawn text's width × height: each character at most 1.25 of
    /// its size wide (wider glyphs exist, but not by the hundreds-fold a size attribute gives),
    /// each line as tall as 1.25 of its largest size (or its `line_height`), plus spacing and rise.
    public let estimatedPixels: Int

    /// Reads `markup` drawn at `fontPixels`, refusing what cannot be drawn or bounded.
    public init(_ markup: String, fontPixels: Int) throws(Refusal) {
        var reader = Reader(bytes: Array(markup.utf8), base: Double(fontPixels))
        try reader.read()
        self.markup = markup
        estimatedPixels = reader.estimate
    }

    private struct Style {
        var name: String
        var size: Double
        var lineHeight: Double?
        var letterSpacing: Double = 0
        var rise: Double = 0
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var stack: [Style]
        var lineWidth = 0.0, lineHeight = 0.0, widest = 0.0, totalHeight = 0.0

        init(bytes: [UInt8], base: Double) {
            self.bytes = bytes
            stack = [Style(name: "", size: base)]
        }

        var estimate: Int {
            let width = max(widest, lineWidth), height = totalHeight + lineHeight
            return Int(min(width * height, Double(Int.max / 2)).rounded(.up))
        }

        mutating func read() throws(Refusal) {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "<"): try tag()
                case UInt8(ascii: "&"): try entity()
                default: try character()
                }
            }
            guard stack.count == 1 else { throw Refusal(description: "<\(stack.last!.name)> is never closed") }
            try check()
        }

        /// One character of text, decoded from UTF-8 only to count it.
        mutating func character() throws(Refusal) {
            let byte = bytes[index]
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            index += length
            if byte == UInt8(ascii: "\n") {
                newLine()
            } else if byte < 0x20, byte != UInt8(ascii: "\t") {
                throw Refusal(description: "control characters cannot be drawn")
            } else {
                place()
            }
        }

        mutating func place() {
            let style = stack.last!
            lineWidth += style.size * 1.25 + max(style.letterSpacing, 0)
            lineHeight = max(lineHeight, (style.lineHeight ?? style.size * 1.25) + abs(style.rise))
        }

        mutating func newLine() {
            widest = max(widest, lineWidth)
            totalHeight += max(lineHeight, stack.last!.size * 1.25)
            (lineWidth, lineHeight) = (0, 0)
        }

        /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and character references.
        mutating func entity() throws(Refusal) {
            guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw Refusal(description: "'&' starts no entity (write &amp;)")
            }
            let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            index = end + 1
            if ["amp", "lt", "gt", "quot", "apos"].contains(name) { return place() }
            let number: UInt32? =
                name.hasPrefix("#x") || name.hasPrefix("#X")
                ? UInt32(name.dropFirst(2), radix: 16) : name.hasPrefix("#") ? UInt32(name.dropFirst()) : nil
            guard let number else { throw Refusal(description: "unknown entity &\(name);") }
            guard let scalar = Unicode.Scalar(number), number >= 0x20 || number == 0x09 || number == 0x0A else {
                throw Refusal(description: "&\(name); is not a character that can be drawn")
            }
            if scalar == "\n" { newLine() } else { place() }
        }

        mutating func tag() throws(Refusal) {
            guard let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { throw Refusal(description: "a tag is never closed with '>'") }
            var inside = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            index = end + 1
            if inside.hasPrefix("/") {
                let name = inside.dropFirst().trimmingSpaces
                guard stack.count > 1, stack.last!.name == name else { throw Refusal(description: "</\(name)> closes no open <\(name)>") }
                stack.removeLast()
                return
            }
            let closesItself = inside.hasSuffix("/")
            if closesItself { inside.removeLast() }
            let (name, attributes) = try Self.split(inside)
            guard stack.count <= Self.depthLimit else { throw Refusal(description: "tags are nested more than \(maximumDepth) deep") }
            var style = stack.last!
            style.name = name
            switch name {
            case "markup", "b", "i", "s", "u", "tt": break
            case "big": style.size *= 1.2
            case "small", "sub", "sup": style.size /= 1.2
            case "span":
                for (attribute, value) in attributes { try Self.apply(attribute, value, to: &style) }
            default: throw Refusal(description: "<\(name)> is not a Pango markup tag")
            }
            guard name == "span" || attributes.isEmpty else { throw Refusal(description: "<\(name)> takes no attributes") }
            if !closesItself { stack.append(style) }
            try check()
        }

        static let depthLimit = maximumDepth

        func check() throws(Refusal) {
            if let style = stack.last, style.size > Double(maximumFontPixels) {
                throw Refusal(description: "a font size of \(Int(style.size)) pixels; at most \(maximumFontPixels)")
            }
            guard estimate <= maximumPixels else {
                throw Refusal(description: "the text would cover about \(estimate) pixels; at most \(maximumPixels)")
            }
        }

        /// `name attribute="value" ...`, each value in single or double quotes.
        static func split(_ inside: String) throws(Refusal) -> (String, [(String, String)]) {
            var rest = Substring(inside)
            let name = String(rest.prefix { !$0.isWhitespace })
            rest = rest.dropFirst(name.count)
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) else {
                throw Refusal(description: "'<\(inside)>' is not a tag")
            }
            var attributes: [(String, String)] = []
            while true {
                rest = rest.drop { $0.isWhitespace }
                guard !rest.isEmpty else { break }
                let attribute = String(rest.prefix { $0 != "=" && !$0.isWhitespace })
                rest = rest.dropFirst(attribute.count).drop { $0.isWhitespace }
                guard rest.first == "=" else { throw Refusal(description: "the attribute '\(attribute)' has no value") }
                rest = rest.dropFirst().drop { $0.isWhitespace }
                guard let quote = rest.first, quote == "\"" || quote == "'" else {
                    throw Refusal(description: "the value of '\(attribute)' is not in quotes")
                }
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: quote) else { throw Refusal(description: "the value of '\(attribute)' is never closed") }
                // Pango would decode a character reference (`font="Sans &#49;6000"`) after this
                // reading, so a value with one is not read at all.
                guard !rest[..<close].contains("&") else { throw Refusal(description: "the value of '\(attribute)' holds an entity") }
                attributes.append((attribute, String(rest[..<close])))
                rest = rest[close...].dropFirst()
            }
            return (name, attributes)
        }

        /// The span attributes Magpie draws: colours and lines as they are, sizes, spacing and
        /// rise bounded; anything else is refused rather than passed to Pango unread.
        static func apply(_ attribute: String, _ value: String, to style: inout Style) throws(Refusal) {
            switch attribute {
            case "foreground", "fgcolor", "color", "background", "bgcolor", "alpha", "fgalpha", "background_alpha", "bgalpha",
                "underline", "underline_color", "overline", "overline_color", "strikethrough", "strikethrough_color",
                "font_style", "style", "font_weight", "weight", "font_variant", "variant", "font_stretch", "stretch",
                "font_family", "face", "font_features", "lang", "fallback", "allow_breaks", "insert_hyphens", "font_scale":
                guard value.utf8.count <= 64 else { throw Refusal(description: "the value of '\(attribute)' is over 64 bytes") }
            case "size", "font_size":
                style.size = try size(value, current: style.size, attribute: attribute)
            case "font", "font_desc":
                // A font description: family, style words, then the size (points, or `px`).
                guard let last = value.split(whereSeparator: { $0 == " " || $0 == "," }).last else { return }
                let number = last.hasSuffix("px") ? last.dropLast(2) : last
                if let points = Double(number) {
                    guard points.isFinite, points > 0 else { throw Refusal(description: "the font '\(value)' has no usable size") }
                    style.size = points
                }
            case "letter_spacing":
                style.letterSpacing = try points(value, attribute: attribute)
            case "rise", "baseline_shift":
                style.rise = try points(value, attribute: attribute)
            case "line_height":
                guard let number = Double(value), number.isFinite, number > 0 else {
                    throw Refusal(description: "line_height is a factor or a size in 1024ths of a point")
                }
                // Pango reads values below 1024 as a factor of the font size.
                style.lineHeight = number < 1024 ? number * style.size : number / 1024
                guard style.lineHeight! <= Double(maximumFontPixels) * 2 else {
                    throw Refusal(description: "a line height of \(Int(style.lineHeight!)) pixels; at most \(maximumFontPixels * 2)")
                }
            default:
                throw Refusal(description: "the span attribute '\(attribute)' is not drawn by Magpie")
            }
        }

        /// Pango's sizes: 1024ths of a point, `Npt`, a percentage, or a named size.
        static func size(_ value: String, current: Double, attribute: String) throws(Refusal) -> Double {
            let named = ["xx-small": -3, "x-small": -2, "small": -1, "medium": 0, "large": 1, "x-large": 2, "xx-large": 3]
            if let step = named[value] { return current * pow12(step) }
            if value == "larger" { return current * 1.2 }
            if value == "smaller" { return current / 1.2 }
            if value.hasSuffix("%"), let percent = Double(value.dropLast()), percent.isFinite, percent > 0 {
                return current * percent / 100
            }
            let points = try points(value, attribute: attribute)
            guard points > 0 else { throw Refusal(description: "\(attribute)='\(value)' is not a size") }
            return points
        }

        /// 1024ths of a point, or `Npt`; a point is a pixel at the 72 dpi text is drawn at.
        static func points(_ value: String, attribute: String) throws(Refusal) -> Double {
            let number = value.hasSuffix("pt") ? Double(value.dropLast(2)) : Double(value).map { $0 / 1024 }
            guard let number, number.isFinite, abs(number) <= Double(maximumFontPixels) else {
                throw Refusal(description: "\(attribute)='\(value)' is not a size of at most \(maximumFontPixels) points")
            }
            return number
        }

        static func pow12(_ step: Int) -> Double {
            var factor = 1.0
            for _ in 0..<abs(step) { factor *= 1.2 }
            return step < 0 ? 1 / factor : factor
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
