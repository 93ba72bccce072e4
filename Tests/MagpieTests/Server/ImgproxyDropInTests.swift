import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// URLs built by imgproxy's own Python URL builder (PyPI `imgproxy`, Tests/Reference/imgproxy_urls.py),
/// signed with the proxy's key and salt, against a 1200x800 source whose red and green channels
/// are its x and y: each answer's size, format and the source area it shows are checked against
/// what imgproxy's documentation says it makes, worked out by hand in the script.
@Suite("imgproxy drop-in")
struct ImgproxyDropInTests {
    struct Expected: Decodable, Sendable, CustomTestStringConvertible {
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
        let background: [Int]?
        let disposition: String?
        let original: Bool?
        var testDescription: String { name }
    }

    static let size = (width: 1200, height: 800)

    /// Red is x and green is y, scaled to 0...255; blue is constant.
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

    static func cases(source: URL, bordered: URL) throws -> [Expected] {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/imgproxy_urls.py")
        let output = try PythonScript.run(script, [ProxyFixture.key, ProxyFixture.salt, source.absoluteString, bordered.absoluteString])
        return try JSONDecoder().decode([Expected].self, from: output)
    }

    /// The source point an output pixel shows, read back from its colour.
    static func sourcePoint(_ pixel: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)) -> (x: Double, y: Double) {
        (Double(pixel.red) * Double(size.width - 1) / 255, Double(pixel.green) * Double(size.height - 1) / 255)
    }

    @Test func everyBuiltURLIsAnsweredAsImgproxyWould() async throws {
        let png = try ImageEncoder().encode(Self.gradient, as: .png)
        let bordered = try ImageEncoder().encode(
            try ImageProcessors.Embed(width: 1400, height: 1000, x: 100, y: 100, background: .white).process(Self.gradient), as: .png)
        try await withProxyFixture(configure: { $0.presets["thumb"] = "rs:fill:100:100" }) { fixture in
            fixture.origin.serve("/g.png", .image(png, contentType: "image/png"))
            fixture.origin.serve("/bordered.png", .image(bordered, contentType: "image/png"))
            let cases = try Self.cases(source: fixture.origin.url("/g.png"), bordered: fixture.origin.url("/bordered.png"))
            #expect(cases.count >= 40)
            for item in cases {
                let reply = try await fixture.get(item.path)
                try check(reply, item, original: png)
            }
        }
    }

    private func check(_ reply: ProxyFixture.Reply, _ item: Expected, original: [UInt8]) throws {
        let name = item.name
        if let status = item.status {
            #expect(reply.status == status, "\(name)")
            if let message = item.message { #expect(reply.text.contains("'\(message)'"), "\(name): \(reply.text)") }
            return
        }
        try #require(reply.status == 200, "\(name): \(reply.status) \(reply.text)")
        if item.original == true {
            #expect(reply.body == original, "\(name): the source's bytes as they are")
            return
        }
        let format = ImageFormat(sniffing: reply.body)
        #expect(format.rawValue == (item.format ?? "png"), "\(name)")
        #expect(reply.header("Content-Type") == format.mediaType, "\(name)")
        if let disposition = item.disposition { #expect(reply.header("Content-Disposition") == disposition, "\(name)") }
        let image = try VipsDecoder().decode(reply.body, thumbnail: nil, maximumPixels: .max)
        #expect(image.width == item.width && image.height == item.height, "\(name): \(image.width)x\(image.height)")
        guard image.width == item.width, image.height == item.height else { return }
        // One source level is 4.7 px across and 3.1 px down; resampling and a half-pixel
        // centre shift stay well inside 10 px.
        let tolerance = 10.0
        if let window = item.window {
            let first = Self.sourcePoint(image.pixel(x: 0, y: 0))
            let last = Self.sourcePoint(image.pixel(x: image.width - 1, y: image.height - 1))
            let scale = ((window[2] - window[0]) / Double(image.width), (window[3] - window[1]) / Double(image.height))
            // Pixel centres: half a pixel in from each edge of the window.
            #expect(abs(first.x - (window[0] + scale.0 / 2)) < tolerance && abs(first.y - (window[1] + scale.1 / 2)) < tolerance, "\(name): starts at \(first)")
            #expect(abs(last.x - (window[2] - scale.0 / 2)) < tolerance && abs(last.y - (window[3] - scale.1 / 2)) < tolerance, "\(name): ends at \(last)")
        }
        if let corner = item.corner {
            let first = Self.sourcePoint(image.pixel(x: 0, y: 0))
            #expect(abs(first.x - corner[0]) < tolerance && abs(first.y - corner[1]) < tolerance, "\(name): the corner shows \(first)")
        }
        if let canvas = item.canvas {
            #expect(image.pixel(x: 0, y: 0).alpha == 0 || canvas == [0, 0], "\(name): the canvas is transparent")
            let inside = image.pixel(x: canvas[0] + 1, y: canvas[1] + 1)
            #expect(inside.alpha == 255 && inside.blue == 128, "\(name): the image starts at \(canvas)")
            if canvas[0] > 0 { #expect(image.pixel(x: canvas[0] - 1, y: canvas[1] + 1).alpha == 0, "\(name): nothing left of \(canvas)") }
            if canvas[1] > 0 { #expect(image.pixel(x: canvas[0] + 1, y: canvas[1] - 1).alpha == 0, "\(name): nothing above \(canvas)") }
        }
        if let background = item.background {
            let pixel = image.pixel(x: 2, y: 2)
            #expect([Int(pixel.red), Int(pixel.green), Int(pixel.blue), Int(pixel.alpha)] == background + [255], "\(name)")
        }
    }
}
