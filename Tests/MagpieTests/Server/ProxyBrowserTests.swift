import AsyncHTTPClient
import Foundation
@testable import MagpieCLI
import NIOCore
import NIOHTTP1
import Testing

/// `magpie demo --proxy` opened in headless Chromium: every image of the page renders, and
/// the proxy's metrics show Chromium was sent AVIF or WebP, never the sources' formats; and the
/// `/options` grid of one photo under imgproxy's and thumbor's options renders every cell.
@Suite("Proxy in a browser")
struct ProxyBrowserTests {
    @Test func theDemoPageRendersEveryImageInAModernFormat() async throws {
        let chromium = try HeadlessChromium.locate()
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let imageCount = 12
        let (process, output) = try tool.start([
            "demo", "--proxy", "--images", String(imageCount), "--latency", "0", "--port", "0",
            "--workspace", tool.home.appendingPathComponent("workspace").path,
        ])
        defer { if process.isRunning { process.terminate() } }
        // The gallery is made first (seconds), then the page's address is printed.
        let page = try #require(URL(string: "http://127.0.0.1:\(try await MagpieTool.listeningPort(in: output, timeout: .seconds(120)))/"))

        let dom = try await chromium.dumpDOM(of: page)
        #expect(dom.contains("data-rendered=\"\(imageCount)/\(imageCount)\""), "the page reports \(Self.attribute("data-rendered", in: dom) ?? "nothing")")
        #expect(dom.components(separatedBy: "data-state=\"rendered\"").count - 1 == imageCount)


        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let metrics: String
        do {
            let response = try await client.execute(HTTPClientRequest(url: page.absoluteString + "metrics"), timeout: .seconds(30))
            metrics = String(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        // Every format's series is there from the start; those sent are above zero.
        let sent = Self.counts(of: "magpie_proxy_responses_by_format_total", label: "format", in: metrics).filter { $0.value > 0 }
        #expect((sent["avif"] ?? 0) + (sent["webp"] ?? 0) >= imageCount, "formats sent: \(sent)")
        #expect(sent.keys.allSatisfy { ["avif", "webp"].contains($0) }, "formats sent: \(sent)")

        // After the gallery's formats are counted: one photo under every option of the grid, imgproxy's and thumbor's URLs together, JPEG and PNG among them.
        let cells = ProxyOptionsPage.cellCount
        let grid = try await chromium.dumpDOM(of: page.appendingPathComponent("options"))
        #expect(grid.contains("data-rendered=\"\(cells)/\(cells)\""), "the grid reports \(Self.attribute("data-rendered", in: grid) ?? "nothing")")
        #expect(grid.components(separatedBy: "data-state=\"rendered\"").count - 1 == cells)

        process.interrupt()
        #expect(await MagpieTool.waitForExit(process) == 0, "Ctrl-C stops the demo cleanly")
        #expect(String(decoding: try Data(contentsOf: output), as: UTF8.self).contains("Stopped."))
    }

    /// `name{label="value"} count` lines of a Prometheus exposition, by label value.
    static func counts(of name: String, label: String, in metrics: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in metrics.split(separator: "\n") where line.hasPrefix(name + "{") {
            guard let open = line.range(of: "\(label)=\""), let close = line[open.upperBound...].firstIndex(of: "\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            counts[String(line[open.upperBound..<close]), default: 0] += Int(value)
        }
        return counts
    }

    private static func attribute(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: name + "=\"") else { return nil }
        return html[start.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }
}
