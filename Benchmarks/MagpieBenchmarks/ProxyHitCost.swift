import Foundation
import Logging
import Magpie
import MagpieServer
import MagpieTesting
import Tracing

/// A proxy request answered from the encoded-result memory cache, through `respond(to:)`: the
/// URL read and checked, the options parsed, the keys derived, the headers written. What a CDN
/// miss that the proxy has seen before costs, without the network around it.
func measureProxyHitCost(into report: inout Report, workspace: URL) async throws {
    let server = try await ImageServer.start()
    server.serve("/hit.jpg", .image(try TestImages.texture(width: 640, height: 480)))
    var configuration = ProxyConfiguration()
    configuration.allowsUnsignedURLs = true
    configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
    // Each answer would be logged at info: what the benchmark measures is the answer.
    configuration.logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
    let proxy = try ImageProxy(configuration: configuration)
    let source = server.url("/hit.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let request = ProxyRequest(path: "/unsafe/s:256:256/q:80/f:jpeg/plain/" + source)
    guard await proxy.respond(to: request).status == 200 else { fatalError("the first request should be answered") }
    let iterations = 200_000
    var costs: [Double] = []
    for _ in 0..<3 {
        let start = ContinuousClock.now
        for _ in 0..<iterations {
            _ = await proxy.respond(to: request)
        }
        costs.append(nanoseconds(ContinuousClock.now - start) / Double(iterations))
    }
    let median = costs.sorted()[1]
    report.add(
        "proxy memory hit, `respond(to:)` for `/unsafe/s:256:256/q:80/f:jpeg/plain/…`, median of 3 (all: \(costs.map { format($0) }.joined(separator: ", ")))",
        "\(format(median)) ns/op", target: "< 20,000 ns", met: median < 20_000)
    await proxy.shutdown()
    await server.shutdown()
    measureTracingOffCost(into: &report, request: request, hit: median)
}

/// What the instrumentation costs with no tracer bootstrapped (the default): the request's
/// span opened and closed as the proxy does it, and the check a stage makes before opening its
/// span; set beside the memory hit, the cheapest answer there is.
private func measureTracingOffCost(into report: inout Report, request: ProxyRequest, hit: Double) {
    let iterations = 2_000_000
    var requestCosts: [Double] = [], stageCosts: [Double] = []
    // Read after the loops so that the compiler keeps what is measured.
    var recording = 0
    for _ in 0..<3 {
        var start = ContinuousClock.now
        for _ in 0..<iterations {
            let span = RequestSpan.start(for: request) { $0 }
            RequestSpan.end(span, status: 200, cache: "memory", reason: "")
        }
        requestCosts.append(nanoseconds(ContinuousClock.now - start) / Double(iterations))
        start = ContinuousClock.now
        for _ in 0..<iterations {
            if !InstrumentationSystem.isOff { recording += 1 }
        }
        stageCosts.append(nanoseconds(ContinuousClock.now - start) / Double(iterations))
    }
    precondition(recording == 0, "no tracer is bootstrapped: no span records")
    let (request, stage) = (requestCosts.sorted()[1], stageCosts.sorted()[1])
    report.add(
        "tracing off: a request's span, median of 3 (all: \(requestCosts.map { format($0) }.joined(separator: ", ")))",
        "\(format(request)) ns/op = \(String(format: "%.1f", 100 * request / hit))% of a memory hit", target: "< 1% of a hit", met: request < hit / 100)
    report.add(
        "tracing off: a stage's check for a tracer, median of 3 (all: \(stageCosts.map { format($0) }.joined(separator: ", ")))",
        "\(format(stage)) ns/op", target: "", met: nil)
}
