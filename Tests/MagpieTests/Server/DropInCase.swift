import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// One URL a client library built, with what the server it was built for makes of it
/// (Tests/Reference/imgproxy_urls.py and thumbor_urls.py), checked against the proxy's answer.
/// The source is a 1200x800 gradient whose red and green channels are x and y, so the source
/// area an answer shows can be read back from its pixels.
struct DropInCase: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let path: String
    let status: Int?
    let message: String?
    let width: Int?
    let height: Int?
    let format: String?
    /// The source rectangle shown, `[left, top, right, bottom]`.
    let window: [Double]?
    /// Where the image's top-left corner is on a transparent canvas.
    let canvas: [Int]?
    /// The source point shown at the output's top-left corner.
    let corner: [Double]?
    /// The opaque colour at the output's top-left corner.
    let background: [Int]?
    let disposition: String?
    let original: Bool?
    /// Every pixel grey.
    let grey: Bool?
    /// The top-left corner transparent.
    let transparentCorner: Bool?
    /// The answer is at most this many bytes.
    let maxBytes: Int?
    /// `[left, top, right, bottom, red, green, blue]`: a watermark covers that output rectangle
    /// in that colour, and not the pixels just outside it.
    let mark: [Int]?
    /// A colour found near the output's centre (a text watermark).
    let tint: [Int]?
    /// `[x, y, red, green, blue]`: the colour of one output pixel (a mark blended over the image).
    let blend: [Int]?
    /// The JSON answer, compact with sorted keys (thumbor's `meta/`).
    let json: String?
    /// Every pixel's green equals its blue (a ramp through pure red).
    let greenIsBlue: Bool?
    /// The top-left pixel's red, green, blue and alpha.
    let cornerRGBA: [Int]?
    var testDescription: String { name }

    enum CodingKeys: String, CodingKey {
        case name, path, status, message, width, height, format, window, canvas, corner, background, disposition, original, grey, mark, tint, blend, json
        case greenIsBlue = "green_is_blue"
        case cornerRGBA = "corner_rgba"
        case transparentCorner = "transparent_corner"
        case maxBytes = "max_bytes"
    }

    static let size = (width: 1200, height: 800)

    static let gradient: DecodedImage = {
        var pixels = [UInt8](repeating: 255, count: size.width * size.height * 4)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let offset = (y * size.width + x) * 4
                pixels[offset] = UInt8((Double(x) * 255 / Double(size.width - 1)).rounded())
                pixels[offset + 1] = UInt8((Double(y) * 255 / Double(size.height - 1)).rounded())
                pixels[offset + 2] = 128
            }
        }
        return DecodedImage(width: size.width, height: size.height, pixels: pixels)
    }()

    /// The gradient on a white 1400x1000 canvas at (100, 100), for trimming.
    static func bordered() throws -> [UInt8] {
        try ImageEncoder().encode(try ImageProcessors.Embed(width: 1400, height: 1000, x: 100, y: 100, background: .white).process(gradient), as: .png)
    }

    /// The source point an output pixel shows, read back from its colour.
    static func sourcePoint(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)) -> (x: Double, y: Double) {
        (Double(pixel.red) * Double(size.width - 1) / 255, Double(pixel.green) * Double(size.height - 1) / 255)
    }

    static func agree(_ got: Any, _ want: Any, key: String?) -> Bool {
        switch (got, want) {
        case (let got as [String: Any], let want as [String: Any]):
            return Set(got.keys) == Set(want.keys) && want.allSatisfy { agree(got[$0.key]!, $0.value, key: $0.key) }
        case (let got as [Any], let want as [Any]):
            return got.count == want.count && zip(got, want).allSatisfy { agree($0, $1, key: key) }
        case (let got as Int, let want as Int) where ["left", "top", "right", "bottom"].contains(key ?? ""):
            return abs(got - want) <= 4
        case (let got as NSObject, let want as NSObject):
            return got == want
        default:
            return false
        }
    }

    static func close(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8), _ colour: [Int], within tolerance: Int) -> Bool {
        abs(Int(pixel.red) - colour[0]) <= tolerance && abs(Int(pixel.green) - colour[1]) <= tolerance && abs(Int(pixel.blue) - colour[2]) <= tolerance
    }

    private func checkMark(_ mark: [Int], in image: DecodedImage) {
        let (left, top, right, bottom, colour) = (mark[0], mark[1], mark[2], mark[3], Array(mark[4...]))
        // Its four corner pixels in the colour (JPEG-free PNG output: within rounding).
        for (x, y) in [(left, top), (right - 1, top), (left, bottom - 1), (right - 1, bottom - 1)] {
            #expect(Self.close(image.pixel(x: x, y: y), colour, within: 3), "\(name): the mark at \(x),\(y) is \(image.pixel(x: x, y: y))")
        }
        // And not one pixel beyond each side, where the image has one.
        let outside = [(left - 1, top), (right, top), (left, top - 1), (left, bottom)].filter { $0.0 >= 0 && $0.0 < image.width && $0.1 >= 0 && $0.1 < image.height }
        for (x, y) in outside {
            #expect(!Self.close(image.pixel(x: x, y: y), colour, within: 3), "\(name): the mark reaches \(x),\(y)")
        }
    }

    static func cases(script: String, _ arguments: [String]) throws -> [DropInCase] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/\(script)")
        return try JSONDecoder().decode([DropInCase].self, from: try PythonScript.run(url, arguments))
    }

    func check(_ reply: ProxyFixture.Reply, original source: [UInt8]) throws {
        if let status {
            #expect(reply.status == status, "\(name)")
            if let message { #expect(reply.text.contains("'\(message)'"), "\(name): \(reply.text)") }
            return
        }
        try #require(reply.status == 200, "\(name): \(reply.status) \(reply.text)")
        if let json {
            #expect(reply.header("Content-Type") == "application/json", "\(name)")
            // A crop's edges may sit a output pixel apart (Magpie scales before it cuts): a few
            // source pixels; everything else exactly.
            let got = try JSONSerialization.jsonObject(with: Data(reply.body)), want = try JSONSerialization.jsonObject(with: Data(json.utf8))
            #expect(Self.agree(got, want, key: nil), "\(name): \(reply.text)")
            return
        }
        if original == true {
            #expect(reply.body == source, "\(name): the source's bytes as they are")
            return
        }
        let format = ImageFormat(sniffing: reply.body)
        #expect(format.rawValue == (self.format ?? "png"), "\(name)")
        #expect(reply.header("Content-Type") == format.mediaType, "\(name)")
        if let disposition {
            // imgproxy's header; for a name that is not ASCII, Magpie adds the `filename*` RFC 6266
            // defines (issue 32), which imgproxy leaves out.
            let header = reply.header("Content-Disposition") ?? ""
            #expect(String(header[..<(header.range(of: "; filename*=")?.lowerBound ?? header.endIndex)]) == disposition, "\(name)")
        }
        if let maxBytes { #expect(reply.body.count <= maxBytes, "\(name): \(reply.body.count) bytes") }
        let image = try VipsDecoder().decode(reply.body, thumbnail: nil, maximumPixels: .max)
        #expect(image.width == width && image.height == height, "\(name): \(image.width)x\(image.height)")
        guard image.width == width, image.height == height else { return }
        // One source level is 4.7 px across and 3.1 px down; resampling, a half-pixel centre
        // shift and the servers' own roundings of a window's edge stay well inside 10 px.
        let tolerance = 10.0
        if let window {
            let first = Self.sourcePoint(image.pixel(x: 0, y: 0))
            let last = Self.sourcePoint(image.pixel(x: image.width - 1, y: image.height - 1))
            let scale = ((window[2] - window[0]) / Double(image.width), (window[3] - window[1]) / Double(image.height))
            // Pixel centres: half a pixel in from each edge of the window.
            #expect(abs(first.x - (window[0] + scale.0 / 2)) < tolerance && abs(first.y - (window[1] + scale.1 / 2)) < tolerance, "\(name): starts at \(first)")
            #expect(abs(last.x - (window[2] - scale.0 / 2)) < tolerance && abs(last.y - (window[3] - scale.1 / 2)) < tolerance, "\(name): ends at \(last)")
        }
        if let corner {
            let first = Self.sourcePoint(image.pixel(x: 0, y: 0))
            #expect(abs(first.x - corner[0]) < tolerance && abs(first.y - corner[1]) < tolerance, "\(name): the corner shows \(first)")
        }
        if let canvas {
            #expect(image.pixel(x: 0, y: 0).alpha == 0 || canvas == [0, 0], "\(name): the canvas is transparent")
            let inside = image.pixel(x: canvas[0] + 1, y: canvas[1] + 1)
            #expect(inside.alpha == 255 && inside.blue == 128, "\(name): the image starts at \(canvas)")
            if canvas[0] > 0 { #expect(image.pixel(x: canvas[0] - 1, y: canvas[1] + 1).alpha == 0, "\(name): nothing left of \(canvas)") }
            if canvas[1] > 0 { #expect(image.pixel(x: canvas[0] + 1, y: canvas[1] - 1).alpha == 0, "\(name): nothing above \(canvas)") }
        }
        if let background {
            let pixel = image.pixel(x: 0, y: 0)
            #expect([Int(pixel.red), Int(pixel.green), Int(pixel.blue), Int(pixel.alpha)] == background + [255], "\(name)")
        }
        if grey == true {
            var coloured = 0
            for offset in stride(from: 0, to: image.pixels.count, by: 4 * 97) {
                let (red, green, blue) = (image.pixels[offset], image.pixels[offset + 1], image.pixels[offset + 2])
                if red != green || green != blue { coloured += 1 }
            }
            #expect(coloured == 0, "\(name): grey")
        }
        if let mark { checkMark(mark, in: image) }
        if greenIsBlue == true {
            let unequal = stride(from: 0, to: image.pixels.count, by: 4 * 89).filter { image.pixels[$0 + 1] != image.pixels[$0 + 2] }
            #expect(unequal.isEmpty, "\(name): green and blue differ in \(unequal.count) samples")
        }
        if let cornerRGBA {
            let pixel = image.pixel(x: 0, y: 0)
            #expect(Self.close(pixel, cornerRGBA, within: 1) && abs(Int(pixel.alpha) - cornerRGBA[3]) <= 1, "\(name): \(pixel)")
        }
        if let blend {
            let pixel = image.pixel(x: blend[0], y: blend[1])
            #expect(Self.close(pixel, Array(blend[2...]), within: 3), "\(name): \(pixel) at \(blend[0]),\(blend[1])")
        }
        if let tint {
            let near = (image.height / 3..<image.height * 2 / 3).contains { y in
                (image.width / 3..<image.width * 2 / 3).contains { x in Self.close(image.pixel(x: x, y: y), tint, within: 40) }
            }
            #expect(near, "\(name): \(tint) near the centre")
        }
        if transparentCorner == true { #expect(image.pixel(x: 0, y: 0).alpha == 0, "\(name): a transparent corner") }
    }
}
