import Foundation
import Magpie
import MagpieServer

/// The `/options` page of `magpie demo --proxy`: one source under many options of both URL
/// grammars the proxy answers, imgproxy's and thumbor's, each cell captioned with its URL's
/// options, in the gallery page's frame (``ProxyDemoPage/document(title:introduction:figures:columnWidth:figureBackground:)``).
struct ProxyOptionsPage {
    let source: URL
    let proxy: ImageProxy
    let thumbor: ThumborSigner

    static let imgproxyOptions = [
        "rs:fit:240:240", "rs:fill:240:240", "rs:fill:240:240/g:sm", "rs:fill:240:240/g:no", "rs:fill:240:120/g:so:0:10",
        "rs:fill:240:240/g:fp:0.3:0.6", "rs:fill-down:240:240", "rs:force:240:120", "rs:auto:240:160", "rs:fit:240:240/ex:1/bg:334455",
        "rs:fit:240:240/exar:1", "rs:fit:200:200/pd:20/bg:ffffff", "c:0.5:0.5:nowe/rs:fit:240:240", "t:10/rs:fit:240:240",
        "rs:fit:240:240/rot:90", "rs:fit:240:240/fl:1:0", "rs:fit:240:240/z:0.5", "rs:fit:120:120/dpr:2", "rs:fit:240:240/bl:4",
        "rs:fit:240:240/sh:2", "rs:fit:240:240/pix:10", "rs:fit:240:240/r:24", "rs:fill:240:240/circle:1", "rs:fit:240:240/grayscale:1",
        "rs:fit:240:240/q:20/f:jpeg", "rs:fit:240:240/f:webp", "rs:fit:240:240/mw:240/mh:200",
        "rs:fit:240:240/wmt:\(base64URL("<span foreground=\"white\"><b>Magpie</b></span>"))/wm:0.9:re:16:16",
        "rs:fit:240:240/mc:1:3366cc", "rs:fit:240:240/dt:1:1e3264:f0c850", "rs:fit:240:240/a:20:1.3:1.5",
        "rs:fit:240:240/ar:0/rot:90", "rs:fit:480:480/mrd:160", "rs:fit:240:240/ex:1/bg:f80", "rs:fit:240:240/f:bmp",
        "rs:fit:240:240/f:ico", "rs:fit:240:240/ph:1/f:png",
    ]

    /// URL-safe base64 without padding, as imgproxy's text and URL options take it.
    private static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let thumborOptions = [
        "240x240", "240x160", "fit-in/240x240", "full-fit-in/160x160", "adaptive-fit-in/160x240", "-240x160", "240x-160",
        "240x240/left/top", "240x240/right/bottom", "240x240/smart", "10x10:400x300/240x0", "trim/240x0",
        "fit-in/240x240/filters:fill(334455)", "240x160/filters:grayscale():blur(3)", "240x160/filters:round_corner(20,34,68,85)",
        "240x160/filters:rotate(90)", "240x160/filters:quality(30):format(webp)", "480x320/filters:proportion(0.5)",
        "240x160/filters:sharpen(2,1,true):background_color(ffffff)", "2400x1600/filters:no_upscale()",
        "240x240/filters:focal(300x100:400x200)", "origx160", "trim:bottom-right/240x0",
        "fit-in/240x240/filters:upscale()", "240x240/filters:stretch()", "240x160/filters:max_age(60)",
        "240x160/filters:rgb(20,-10,0)", "240x160/filters:colorize(30,20,10,ff8800)", "240x160/filters:saturation(2)",
        "240x160/filters:equalize()", "240x160/filters:noise(40,1)",
        "240x160/filters:curve([(0,0),(96,160),(255,255)],[(0,20),(255,235)],[(0,0),(255,255)],[(0,0),(128,96),(255,255)])",
        "240x160/filters:convolution(-1;-1;-1;-1;8;-1;-1;-1;-1,3,false)", "240x160/filters:redeye():blur(1)",
        "fit-in/240x240/filters:fill(auto)", "fit-in/240x240/filters:fill(blur)", "fit-in/240x240/filters:background_color(auto)",
    ]

    /// A thumbor URL's path for `options`, signed.
    private func thumborPath(_ options: String) -> String {
        let image = "\(source.host ?? "127.0.0.1"):\(source.port ?? 80)\(source.path)"
        let part = options + "/" + image
        return "/" + thumbor.signature(for: part) + "/" + part
    }

    /// Cells on the page: every option above, and thumbor's `frame`, whose URL names the origin.
    static var cellCount: Int { imgproxyOptions.count + thumborOptions.count + 1 }

    /// Where the origin serves ``ninePatch``, for thumbor's `frame` filter.
    static let ninePatchPath = "/frame.9.png"

    /// A picture frame as a nine-patch, 28 pixels square inside its marker border: a dark outer
    /// band, a gold line and a clear middle; the middle third of each side stretches, and the
    /// content sits 9 pixels in.
    static func ninePatch() throws -> [UInt8] {
        let side = 30
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        func set(_ x: Int, _ y: Int, _ rgba: [UInt8]) { pixels.replaceSubrange((y * side + x) * 4..<(y * side + x) * 4 + 4, with: rgba) }
        for y in 1..<side - 1 {
            for x in 1..<side - 1 {
                let edge = min(x - 1, y - 1, side - 2 - x, side - 2 - y)
                set(x, y, edge < 6 ? [60, 36, 20, 255] : edge < 8 ? [212, 175, 55, 255] : [0, 0, 0, 0])
            }
        }
        for index in 10..<20 {
            set(index, 0, [0, 0, 0, 255])
            set(0, index, [0, 0, 0, 255])
        }
        for index in 10..<20 {
            set(index, side - 1, [0, 0, 0, 255])
            set(side - 1, index, [0, 0, 0, 255])
        }
        return try ImageEncoder().encode(DecodedImage(width: side, height: side, pixels: pixels), as: .png)
    }

    var html: String {
        let frame = "fit-in/200x200/filters:frame(\(source.host ?? "127.0.0.1"):\(source.port ?? 80)\(Self.ninePatchPath))"
        let cells = Self.imgproxyOptions.map { ("imgproxy", $0, proxy.path(for: source, options: $0)) }
            + (Self.thumborOptions + [frame]).map { ("thumbor", $0, thumborPath($0)) }
        let figures = cells.map { grammar, options, path in
            """
            <figure><img src="\(path)" alt="\(grammar) \(options)"><figcaption><b>\(grammar)</b> <code>\(options)</code></figcaption></figure>
            """
        }
        return ProxyDemoPage.document(
            title: "One source, \(cells.count) URLs",
            introduction: """
                The same photo through imgproxy's options and thumbor's, both answered by this proxy on one port. \
                <a href="/">Back to the gallery</a>.
                """,
            figures: figures, columnWidth: 260,
            // A checkerboard, so transparent canvases and corners show.
            figureBackground: "repeating-conic-gradient(#2a2d33 0% 25%, #22252b 0% 50%) 50% / 16px 16px")
    }
}
