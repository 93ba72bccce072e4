public import Foundation

/// A thumbor URL's path, read as thumbor reads it:
/// `/SIGNATURE/[meta/][trim[:top-left][:TOLERANCE]/][AxB:CxD/][adaptive-][full-]fit-in/[-]Wx[-]H/[HALIGN/][VALIGN/][smart/][filters:NAME(ARGS):…/]IMAGE`.
/// Each part is optional, in that order; the image is whatever follows.
public struct ThumborPath: Sendable, Hashable {
    /// How a thumbor URL fits the image to its size.
    public enum Fitting: String, Sendable, Hashable {
        case fitIn = "fit-in"
        case adaptiveFitIn = "adaptive-fit-in"
        case fullFitIn = "full-fit-in"
        case adaptiveFullFitIn = "adaptive-full-fit-in"
    }

    /// A manual crop in source pixels: left, top, right, bottom.
    public struct Crop: Sendable, Hashable {
        public let left, top, right, bottom: Int
    }

    /// Trimming: the corner whose colour is the border's, and how far a colour may be from it.
    public struct Trim: Sendable, Hashable {
        public let corner: String
        public let tolerance: Int
    }

    /// One `name(arguments)` of the filters segment.
    public struct Filter: Sendable, Hashable {
        public let name: String
        public let arguments: [String]
    }

    /// The signature segment (`unsafe`, or the HMAC).
    public let signature: String
    /// What the signature covers: everything after the signature and its slash.
    public let signedPart: String
    public let meta: Bool
    public let trim: Trim?
    public let crop: Crop?
    public let fitting: Fitting?
    /// 0: from the other side and the aspect ratio.
    public let width: Int
    public let height: Int
    /// `orig`: the side is the source's.
    public let originalWidth: Bool
    public let originalHeight: Bool
    public let flipHorizontal: Bool
    public let flipVertical: Bool
    public let horizontalAlignment: String
    public let verticalAlignment: String
    public let smart: Bool
    public let filters: [Filter]
    /// The source URL (`http://` when it has no scheme, as thumbor's HTTP loader does).
    public let source: URL
    /// The source as the path writes it: what follows the options.
    public let writtenSource: String

    /// Splits `path` (as received, percent-encoding intact).
    public init(_ path: String) throws(ProxyURLError) {
        (signature, signedPart) = try ProxyPath.signed(path)
        var segments = ProxyPath.split(signedPart.dropFirst(), at: "/")
        func take(_ matches: (String) -> Bool) -> String? {
            guard let first = segments.first, segments.count > 1, matches(first) else { return nil }
            segments.removeFirst()
            return first
        }
        if take({ $0 == "debug" }) != nil { throw .malformed("thumbor's debug/ is not supported") }
        meta = take { $0 == "meta" } != nil
        trim = try take { $0 == "trim" || $0.hasPrefix("trim:") }.map(Self.trim)
        crop = take(Self.isCrop).map(Self.crop)
        fitting = take { Fitting(rawValue: $0) != nil }.flatMap(Fitting.init(rawValue:))
        let sizeSegment = take(Self.isSize)
        let size = try sizeSegment.map(Self.size)
        (width, height, flipHorizontal, flipVertical) = size ?? (0, 0, false, false)
        let sides = sizeSegment?.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false).map { $0.hasPrefix("-") ? $0.dropFirst() : $0 }
        (originalWidth, originalHeight) = (sides?.first == "orig", sides?.last == "orig")
        horizontalAlignment = take { ["left", "center", "right"].contains($0) } ?? "center"
        verticalAlignment = take { ["top", "middle", "bottom"].contains($0) } ?? "middle"
        smart = take { $0 == "smart" } != nil
        var filters: [Filter] = []
        if let first = segments.first, first.hasPrefix("filters:"), segments.count > 1 {
            // A filter's arguments may hold slashes (a watermark's URL): up to the segment ending in ')'.
            var text = ""
            while let segment = segments.first, segments.count > 1 {
                segments.removeFirst()
                text += text.isEmpty ? segment : "/" + segment
                if segment.hasSuffix(")") { break }
            }
            filters = try Self.filters(String(text.dropFirst("filters:".count)))
        }
        self.filters = filters
        writtenSource = segments.joined(separator: "/")
        source = try Self.source(writtenSource)
    }

    private static func trim(_ segment: String) throws(ProxyURLError) -> Trim {
        var corner = "top-left", tolerance = 0
        for part in segment.split(separator: ":").dropFirst() {
            if part == "top-left" || part == "bottom-right" {
                corner = String(part)
            } else if let value = Int(part), (0...442).contains(value) {
                tolerance = value
            } else {
                throw .malformed("'\(segment)': trim is trim[:top-left|bottom-right][:TOLERANCE]")
            }
        }
        return Trim(corner: corner, tolerance: tolerance)
    }

    private static func isCrop(_ segment: String) -> Bool {
        let halves = segment.split(separator: ":", omittingEmptySubsequences: false)
        return halves.count == 2 && halves.allSatisfy { half in
            let sides = half.split(separator: "x", omittingEmptySubsequences: false)
            return sides.count == 2 && sides.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }
        }
    }

    private static func crop(_ segment: String) -> Crop {
        let numbers = segment.split(separator: ":").flatMap { $0.split(separator: "x") }.map { Int($0) ?? 0 }
        return Crop(left: numbers[0], top: numbers[1], right: numbers[2], bottom: numbers[3])
    }

    private static func isSize(_ segment: String) -> Bool {
        let sides = segment.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard sides.count == 2 else { return false }
        return sides.allSatisfy { side in
            let number = side.hasPrefix("-") ? side.dropFirst() : side
            return number.isEmpty || number == "orig" || number.allSatisfy(\.isASCIIDigitCharacter)
        }
    }

    private static func size(_ segment: String) throws(ProxyURLError) -> (Int, Int, Bool, Bool) {
        let sides = segment.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        var values: [Int] = []
        for side in sides {
            let number = side.hasPrefix("-") ? side.dropFirst() : side
            guard number.count <= 5 else { throw .malformed("'\(segment)': sizes are at most 5 digits") }
            values.append(Int(number) ?? 0)
        }
        return (values[0], values[1], sides[0].hasPrefix("-"), sides[1].hasPrefix("-"))
    }

    /// `name(a,b):name2():…`, split as thumbor splits it: at every `):`, so an argument may
    /// hold parentheses (a curve's points) but not that pair. Arguments are split at commas
    /// outside brackets, parentheses and single quotes.
    private static func filters(_ text: String) throws(ProxyURLError) -> [Filter] {
        guard text.hasSuffix(")") else { throw .malformed("the filters 'filters:\(text)' are not name(arguments) separated by ':'") }
        let parts = text.dropLast().components(separatedBy: "):")
        var filters: [Filter] = []
        for part in parts {
            guard let open = part.firstIndex(of: "(") else {
                throw .malformed("the filters 'filters:\(text)' are not name(arguments) separated by ':'")
            }
            let inside = part[part.index(after: open)...]
            filters.append(Filter(name: String(part[..<open]), arguments: inside.isEmpty ? [] : Self.arguments(inside)))
        }
        return filters
    }

    private static func arguments(_ text: Substring) -> [String] {
        var arguments: [String] = []
        var current = "", depth = 0, quoted = false
        for character in text {
            switch character {
            case "'": quoted.toggle()
            case "(" where !quoted, "[" where !quoted: depth += 1
            case ")" where !quoted, "]" where !quoted: depth = max(0, depth - 1)
            case "," where !quoted && depth == 0:
                arguments.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        arguments.append(current.trimmingCharacters(in: .whitespaces))
        return arguments
    }

    /// A source as thumbor's HTTP loader reads it, or an `s3://bucket/key` (which the pipeline
    /// reads when the proxy has an S3 store); also a watermark's.
    static func source(_ text: String) throws(ProxyURLError) -> URL {
        guard !text.isEmpty else { throw .malformed("no image after the options") }
        guard var decoded = text.removingPercentEncoding else { throw .malformed("the image '\(text)' is not valid percent-encoding") }
        // A proxy in front may have merged the scheme's two slashes.
        for scheme in ["http:/", "https:/", "s3:/"] where decoded.hasPrefix(scheme) && !decoded.hasPrefix(scheme + "/") {
            decoded = scheme + "/" + decoded.dropFirst(scheme.count)
        }
        if !decoded.contains("://") { decoded = "http://" + decoded }
        guard let url = URL(string: decoded), let scheme = url.scheme?.lowercased(), ["http", "https", "s3"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw .malformed("the image '\(decoded)' is not an http, https or s3 URL")
        }
        return url
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
