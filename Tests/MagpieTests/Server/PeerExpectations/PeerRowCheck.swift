import Foundation
import Magpie

/// What an answer does not hold of a row's expectations, each as one line (none: the row holds).
/// The source is the gradient Tests/Reference/peer_sources.py makes (red is x, green is y), so a
/// window is read back from the answer's corner pixels.
struct PeerRowCheck {
    let row: PeerRow
    let reply: ProxyFixture.Reply
    /// The source's stored size, for windows.
    let sourceSize: (width: Int, height: Int)?
    /// The header fields the origin received with the row's source (names lowercased).
    var upstream: [String: String] = [:]

    func failures() -> [String] {
        var failures: [String] = []
        if let status = row.status, reply.status != status {
            return ["status \(reply.status), the peer's \(status): \(reply.text.prefix(160).trimmingCharacters(in: .whitespacesAndNewlines))"]
        }
        let formatChecks = row.format != nil || row.width != nil || row.height != nil
            || row.checks.contains { ["window", "grey", "alpha", "opaque", "pixel", "frames"].contains($0.key) }
        var image: DecodedImage?
        if formatChecks, reply.status == 200 {
            image = try? VipsDecoder().decode(reply.body, options: DecodingOptions(maximumPixels: .max, decodesAllFrames: row.checks.contains { $0.key == "frames" }))
        }
        if let format = row.format {
            let got = ImageFormat(sniffing: reply.body)
            if Self.name(of: got) != Self.canonical(format) { failures.append("format \(got.rawValue), the peer's \(format)") }
        }
        if row.width != nil || row.height != nil {
            if let image {
                let (width, height) = (image.width, image.height / max(1, image.frameCount))
                if let expected = row.width, width != expected { failures.append("width \(width), the peer's \(expected)") }
                if let expected = row.height, height != expected { failures.append("height \(height), the peer's \(expected)") }
            } else {
                failures.append("the answer (\(reply.status), \(reply.body.count) bytes) does not decode")
            }
        }
        for (key, value) in row.checks {
            if let failure = check(key, value, image) { failures.append(failure) }
        }
        if let failure = depthFailure() { failures.append(failure) }
        return failures
    }

    /// The bits a sample the peer's test saw in its output ("output interpretation RGB16 (16-bit
    /// RGB)", "sRGB (8-bit)" in the row's notes), against what the answer holds.
    private func depthFailure() -> String? {
        guard reply.status == 200, let range = row.notes.range(of: "output interpretation ") else { return nil }
        let note = row.notes[range.upperBound...]
        guard let open = note.firstIndex(of: "("), let bits = Int(note[note.index(after: open)...].prefix { $0.isNumber }) else { return nil }
        var options = DecodingOptions(maximumPixels: .max)
        options.keepsHighDepth = true
        guard let answer = try? VipsDecoder().decode(reply.body, options: options) else { return "the answer does not decode" }
        let got = answer.sampleDepth == .sixteen ? 16 : 8
        return got == bits ? nil : "\(got) bits a sample, the peer's \(bits)"
    }

    private func check(_ key: String, _ value: String, _ image: DecodedImage?) -> String? {
        switch key {
        case "header":
            guard let colon = value.firstIndex(of: ":") else { return nil }
            let name = String(value[..<colon]), expected = String(value[value.index(after: colon)...])
            let got = reply.header(name)
            if expected == "none" { return got == nil ? nil : "\(name): \(got!), the peer's none" }
            return Self.tokens(got) == Self.tokens(expected) ? nil : "\(name): \(got ?? "none"), the peer's \(expected)"
        case "upstream":
            guard let colon = value.firstIndex(of: ":") else { return nil }
            let name = String(value[..<colon]), expected = String(value[value.index(after: colon)...])
            let got = upstream[name.lowercased()]
            if expected == "none" { return got == nil ? nil : "the origin received \(name): \(got!), the peer's none" }
            return got == expected ? nil : "the origin received \(name): \(got ?? "none"), the peer's \(expected)"
        case "body":
            let got = reply.text.trimmingCharacters(in: .whitespacesAndNewlines)
            return got == value ? nil : "body '\(got.prefix(80))', the peer's '\(value)'"
        case "json":
            return json(value)
        case "grey":
            guard let image else { return "no image to be grey" }
            return Self.isGrey(image) ? nil : "not grey"
        case "alpha":
            guard let image else { return "no image to have alpha" }
            return image.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element < 250 } ? nil : "no transparency"
        case "opaque":
            guard let image else { return "no image to be opaque" }
            return image.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 } ? nil : "has transparency"
        case "frames":
            guard let image else { return "no image to count frames of" }
            return image.frameCount == Int(value) ? nil : "\(image.frameCount) frames, the peer's \(value)"
        case "pixel":
            guard let image else { return "no image to read a pixel of" }
            let numbers = value.split(separator: ",").compactMap { Int($0) }
            guard numbers.count >= 5, numbers[0] < image.width, numbers[1] < image.height else { return "pixel \(value) is outside the answer" }
            let pixel = image.pixel(x: numbers[0], y: numbers[1])
            let got = [Int(pixel.red), Int(pixel.green), Int(pixel.blue), Int(pixel.alpha)]
            return zip(got, numbers[2...]).allSatisfy({ abs($0 - $1) <= 8 }) ? nil : "pixel \(numbers[0]),\(numbers[1]) is \(got), the peer's \(numbers[2...])"
        case "window":
            return window(value, image)
        default:
            // `similar` names a fixture of the peer's, which is not here to compare with;
            // `origin` and `request` set the exchange up.
            return nil
        }
    }

    /// Whether the row's thumbor size flips the result horizontally and vertically.
    private var flips: (Bool, Bool) {
        for segment in row.path.split(separator: "/") where !segment.contains(":") && !segment.contains(".") {
            let sides = segment.split(separator: "x", omittingEmptySubsequences: false)
            guard sides.count == 2, sides.allSatisfy({ $0.allSatisfy { $0 == "-" || $0.isNumber || $0.isLetter } }) else { continue }
            if sides.contains(where: { $0.hasPrefix("-") }) { return (sides[0].hasPrefix("-"), sides[1].hasPrefix("-")) }
        }
        return (false, false)
    }

    /// The answer's corner pixels show the window's corners of the source.
    private func window(_ value: String, _ image: DecodedImage?) -> String? {
        guard let image, let sourceSize else { return "no image to read a window from" }
        let edges = value.split(separator: ",").compactMap { Double($0) }
        guard edges.count == 4, !Self.isGrey(image) else { return nil }
        let (left, top, right, bottom) = (edges[0], edges[1], edges[2], edges[3])
        let spanX = (right - left) / Double(image.width), spanY = (bottom - top) / Double(image.height)
        // A position is read from a level: one level of the source's gradient, or three where the
        // answer is coded lossily (a 40-pixel JPEG of a 3000-pixel gradient moves a level by up
        // to three), plus the two output pixels a corner spans.
        let levels = [.png, .gif, .bmp, .tiff].contains(ImageFormat(sniffing: reply.body)) ? 1.0 : 3.0
        let toleranceX = levels * Double(sourceSize.width - 1) / 255 + 2 * spanX + 2
        let toleranceY = levels * Double(sourceSize.height - 1) / 255 + 2 * spanY + 2
        // A thumbor size with a minus (`-800x-600`) mirrors the window on that axis.
        let (mirrorsX, mirrorsY) = flips
        let (nearX, farX) = mirrorsX ? (right - spanX / 2, left + spanX / 2) : (left + spanX / 2, right - spanX / 2)
        let (nearY, farY) = mirrorsY ? (bottom - spanY / 2, top + spanY / 2) : (top + spanY / 2, bottom - spanY / 2)
        for (x, y, expectedX, expectedY) in [(0, 0, nearX, nearY), (image.width - 1, image.height - 1, farX, farY)] {
            let pixel = image.pixel(x: x, y: y)
            let shownX = Double(pixel.red) * Double(sourceSize.width - 1) / 255, shownY = Double(pixel.green) * Double(sourceSize.height - 1) / 255
            if abs(shownX - expectedX) > toleranceX || abs(shownY - expectedY) > toleranceY {
                return "pixel \(x),\(y) shows the source's \(Int(shownX)),\(Int(shownY)), the peer's window \(value) puts \(Int(expectedX)),\(Int(expectedY)) there"
            }
        }
        return nil
    }

    private func json(_ value: String) -> String? {
        guard let colon = value.lastIndex(of: ":") else { return nil }
        let path = value[..<colon].split(separator: "."), expected = String(value[value.index(after: colon)...])
        var node = try? JSONSerialization.jsonObject(with: Data(reply.body))
        for part in path { node = (node as? [String: Any])?[String(part)] }
        guard let node else { return "JSON has no \(value[..<colon])" }
        let got = "\(node)"
        return got == expected || got.hasSuffix("/" + expected) ? nil : "JSON \(value[..<colon]) is \(got), the peer's \(expected)"
    }

    static func isGrey(_ image: DecodedImage) -> Bool {
        stride(from: 0, to: image.pixels.count, by: 4).allSatisfy { index in
            let (red, green, blue) = (Int(image.pixels[index]), Int(image.pixels[index + 1]), Int(image.pixels[index + 2]))
            return abs(red - green) <= 3 && abs(green - blue) <= 3
        }
    }

    /// A header's value as a set of its comma-separated parts, so `max-age=1,public` and
    /// `public, max-age=1` agree.
    static func tokens(_ value: String?) -> Set<String> {
        Set((value ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    static func canonical(_ name: String) -> String {
        switch name.lowercased() {
        case "jpg": "jpeg"
        case "heic", "heif": "heif"
        default: name.lowercased()
        }
    }

    static func name(of format: ImageFormat) -> String { canonical(format.rawValue) }
}
