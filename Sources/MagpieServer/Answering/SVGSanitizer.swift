import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Magpie

/// An SVG made inert before it is served as it is, as imgproxy does by default: the document is
/// read with an XML parser and written again keeping only what draws. Gone are scripts, elements
/// that embed other documents (`foreignObject`, `iframe`, `embed`, `object`), event handlers
/// (`on…`), references that leave the document (an `href` that is not `#id` or an image in a
/// `data:` URL; CSS `url(…)`, `@import`) and animations that would set a link. Comments,
/// processing instructions and the document type are not written. A document type with
/// entities (the billion laughs) is refused rather than expanded.
enum SVGSanitizer {
    /// The sanitised document, or `unsupportedFormat` when it is not an SVG that can be read.
    static func sanitized(_ bytes: [UInt8]) throws(MagpieError) -> [UInt8] {
        let head = bytes.prefix(65_536)
        if head.firstRange(of: Array("<!ENTITY".utf8)) != nil || head.firstRange(of: Array("<!entity".utf8)) != nil {
            throw .unsupportedFormat("an SVG that declares entities is not served")
        }
        let writer = Writer()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = writer
        guard parser.parse(), writer.sawRoot else {
            throw .unsupportedFormat("the SVG cannot be read: \(parser.parserError.map { "\($0)" } ?? "no <svg> element")")
        }
        return writer.output
    }

    /// Element names whose whole subtree is dropped.
    static let droppedElements: Set<String> = ["script", "foreignobject", "iframe", "embed", "object", "handler", "listener"]
    /// Animations that can set an attribute; dropped when they aim at a link or a handler.
    static let animations: Set<String> = ["set", "animate", "animatetransform", "animatemotion"]

    /// Whether an attribute stays, by its name and value.
    static func keeps(attribute name: String, value: String) -> Bool {
        let lowered = name.lowercased()
        if lowered.hasPrefix("on") { return false }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if lowered == "href" || lowered.hasSuffix(":href") || lowered == "src" {
            return trimmed.hasPrefix("#")
                || ["data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp"].contains { trimmed.hasPrefix($0) }
        }
        return isInertStyle(trimmed)
    }

    /// CSS and attribute values that neither run nor fetch: `url(#id)` only.
    static func isInertStyle(_ lowered: String) -> Bool {
        if lowered.contains("javascript:") || lowered.contains("@import") || lowered.contains("expression(") { return false }
        var rest = Substring(lowered)
        while let range = rest.range(of: "url(") {
            let inside = rest[range.upperBound...].drop { $0 == " " || $0 == "\"" || $0 == "'" }
            guard inside.hasPrefix("#") else { return false }
            rest = inside
        }
        return true
    }

    /// Writes what the parser reads, leaving out what is not inert.
    private final class Writer: NSObject, XMLParserDelegate {
        var output: [UInt8] = []
        var sawRoot = false
        /// Depth inside a dropped element; 0 when writing.
        private var dropping = 0
        /// Whether the open element is `<style>`, whose text is CSS.
        private var styles: [Bool] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let local = (elementName.split(separator: ":").last.map(String.init) ?? elementName).lowercased()
            if !sawRoot {
                guard local == "svg" else {
                    parser.abortParsing()
                    return
                }
                sawRoot = true
            }
            if dropping > 0 || SVGSanitizer.droppedElements.contains(local)
                || (SVGSanitizer.animations.contains(local) && !SVGSanitizer.keepsAnimation(attributes))
            {
                dropping += 1
                return
            }
            styles.append(local == "style")
            var text = "<" + elementName
            // Sorted, so the same document is always written the same way.
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) where SVGSanitizer.keeps(attribute: name, value: value) {
                text += " " + name + "=\"" + SVGSanitizer.escaped(value, quotes: true) + "\""
            }
            output += Array((text + ">").utf8)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if dropping > 0 {
                dropping -= 1
                return
            }
            styles.removeLast()
            output += Array(("</" + elementName + ">").utf8)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            write(text: string)
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            write(text: String(decoding: CDATABlock, as: UTF8.self))
        }

        private func write(text: String) {
            guard dropping == 0, !styles.isEmpty else { return }
            // A style sheet that fetches or runs anything is left out whole.
            if styles.last == true, !SVGSanitizer.isInertStyle(text.lowercased()) { return }
            output += Array(SVGSanitizer.escaped(text, quotes: false).utf8)
        }
    }

    /// An animation stays unless it sets a link or a handler.
    static func keepsAnimation(_ attributes: [String: String]) -> Bool {
        guard let target = attributes.first(where: { $0.key.lowercased() == "attributename" })?.value.lowercased() else { return true }
        return !(target == "href" || target.hasSuffix(":href") || target.hasPrefix("on"))
    }

    static func escaped(_ text: String, quotes: Bool) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"" where quotes: escaped += "&quot;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
