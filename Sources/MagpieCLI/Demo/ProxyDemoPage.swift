import Foundation
import Magpie
import MagpieServer

/// The page of `magpie demo --proxy`: every gallery image as an `<img>` whose `srcset` asks
/// the proxy for 1x and 2x thumbnails in the browser's best format. Once the page has loaded,
/// a script marks each image rendered or broken and writes the count into the page
/// (`body[data-rendered]`), which the browser test reads.
struct ProxyDemoPage {
    let items: [(item: DemoGallery.Item, source: URL)]
    let proxy: ImageProxy

    /// A demo page: a heading, an introduction, a `#status` line and a grid of `figures`. Once
    /// the page has loaded, a script marks each image of the grid rendered or broken and writes
    /// the count into `body[data-rendered]` and `#status`, for a person and for the browser test.
    static func document(title: String, introduction: String, figures: [String], columnWidth: Int, figureBackground: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
        <style>
        body { font: 13px system-ui, sans-serif; background: #16181c; color: #ddd; margin: 24px; }
        main { display: grid; grid-template-columns: repeat(auto-fill, minmax(\(columnWidth)px, 1fr)); gap: 16px; }
        figure { margin: 0; background: \(figureBackground); padding: 8px; border-radius: 6px; text-align: center; }
        img { max-width: 100%; height: auto; }
        figure.broken { outline: 2px solid #e55; }
        figcaption { margin-top: 6px; color: #9aa; overflow-wrap: anywhere; }
        a { color: #8cf; }
        </style></head>
        <body data-rendered="">
        <h1>\(title)</h1>
        <p>\(introduction)</p>
        <p id="status">Loading…</p>
        <main>
        \(figures.joined(separator: "\n"))
        </main>
        <script>
        window.addEventListener("load", () => {
          const images = [...document.querySelectorAll("main img")];
          let rendered = 0;
          for (const image of images) {
            const ok = image.complete && image.naturalWidth > 0;
            image.dataset.state = ok ? "rendered" : "broken";
            if (ok) { rendered += 1; } else { image.parentElement.classList.add("broken"); }
          }
          document.body.dataset.rendered = rendered + "/" + images.length;
          document.getElementById("status").textContent = rendered + " of " + images.length + " images rendered.";
        });
        </script>
        </body></html>
        """
    }

    /// The box every thumbnail fits in, in CSS pixels.
    static let box = (width: 320, height: 240)

    var html: String {
        let figures = items.map { item, source in
            let scale = min(Double(Self.box.width) / Double(item.width), Double(Self.box.height) / Double(item.height), 1)
            let (width, height) = (max(1, Int((Double(item.width) * scale).rounded())), max(1, Int((Double(item.height) * scale).rounded())))
            let options = "s:\(Self.box.width):\(Self.box.height)/f:auto"
            let once = proxy.path(for: source, options: options)
            let twice = proxy.path(for: source, options: options + "/dpr:2")
            return """
                <figure><img src="\(once)" srcset="\(once) 1x, \(twice) 2x" width="\(width)" height="\(height)" alt="\(item.label)">\
                <figcaption>\(item.label)</figcaption></figure>
                """
        }
        return Self.document(
            title: "Magpie proxy demo",
            introduction: """
                \(items.count) images, each requested from the proxy as <code>s:\(Self.box.width):\(Self.box.height)/f:auto</code> with a \
                2x variant in <code>srcset</code>; the proxy picks AVIF or WebP from the browser's <code>Accept</code> header. \
                See <a href="/metrics">/metrics</a> for what it sent, and <a href="/options">one photo under many options</a> \
                of imgproxy's and thumbor's URLs.
                """,
            figures: figures, columnWidth: Self.box.width, figureBackground: "#22252b")
    }
}
