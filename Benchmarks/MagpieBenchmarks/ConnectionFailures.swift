import Foundation
import Magpie
import MagpieTesting

/// How long each kind of connection failure takes to reach the caller (a new pipeline each
/// time, so no connection or TLS session is reused), beside curl's own time for the same URL, and the issue's page: six images from a dead port and six from a live origin
/// with six download slots.
func measureConnectionFailures(into report: inout Report) async throws {
    let ca = try ThrowawayCA()
    defer { ca.remove() }
    let expiry = Date().addingTimeInterval(-86_400)
    let trusted = try await NginxServer(certificate: try ca.issueServer())
    let expired = try await NginxServer(certificate: try ca.issueServer(file: "expired", notBefore: expiry.addingTimeInterval(-86_400), notAfter: expiry))
    let otherHost = try await NginxServer(certificate: try ca.issueServer(hosts: ["images.example.com"], file: "other"))
    defer { [trusted, expired, otherHost].forEach { $0.stop() } }
    let silent = try UnansweredPort()
    let dead = try LoopbackPort.unused()

    let cases: [(String, URL, Bool)] = [
        ("connection refused", URL(string: "http://127.0.0.1:\(dead)/a.png")!, true),
        ("host not found (.invalid)", URL(string: "http://magpie-bench.invalid/a.png")!, true),
        ("certificate not trusted", trusted.url("/a.png"), false),
        ("certificate expired", expired.url("/a.png"), true),
        ("certificate for another host", otherHost.url("/a.png"), true),
        ("connect unanswered (connect timeout 5 s)", URL(string: "http://127.0.0.1:\(silent.port)/a.png")!, false),
    ]
    for (name, url, trustsCA) in cases {
        var times: [Double] = []
        var message = ""
        let runs = name.hasPrefix("connect unanswered") ? 1 : 5
        for _ in 0..<runs {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCache = nil
            configuration.memoryCache = nil
            configuration.failedURLBlockDuration = .zero
            if trustsCA { configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)] }
            let started = ContinuousClock.now
            message = await withImagePipeline(configuration: configuration) { pipeline in
                do {
                    _ = try await pipeline.image(for: url)
                    return "loaded (expected a failure)"
                } catch {
                    return "\(error)"
                }
            }
            times.append(milliseconds(ContinuousClock.now - started))
        }
        let curl = curlMilliseconds(url, caFile: trustsCA ? ca.certificateFile.path : nil)
        report.add(
            "\(name): Magpie vs curl (median of \(runs), new pipeline each)",
            "\(format(median(times))) ms vs \(curl.map { "\(format($0)) ms" } ?? "n/a") — \(message)")
    }
    try await measureDeadHostPage(dead: dead, into: &report)
}

/// Six download slots, six URLs on a port with nothing listening and six on a live origin.
private func measureDeadHostPage(dead: Int, into report: inout Report) async throws {
    let server = try await ImageServer.start()
    let png = try TestImages.texture(width: 256, height: 256, format: .png)
    for index in 0..<6 { server.serve("/live\(index).png", .image(png)) }
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = nil
    configuration.maximumConcurrentDownloads = 6
    let urls = (0..<6).map { URL(string: "http://127.0.0.1:\(dead)/dead\($0).png")! } + (0..<6).map { server.url("/live\($0).png") }
    let started = ContinuousClock.now
    let (images, errors) = await withImagePipeline(configuration: configuration) { pipeline in
        await withTaskGroup(of: Bool.self) { group in
            for url in urls { group.addTask { (try? await pipeline.image(for: url)) != nil } }
            return await group.reduce(into: (0, 0)) { counts, loaded in
                if loaded { counts.0 += 1 } else { counts.1 += 1 }
            }
        }
    }
    let elapsed = milliseconds(ContinuousClock.now - started)
    await server.shutdown()
    report.add(
        "6 dead-port + 6 live URLs, 6 download slots: all finished", "\(format(elapsed)) ms (\(images) images, \(errors) errors)",
        target: "< 1000 ms", met: elapsed < 1000 && images == 6 && errors == 6)
}

/// curl's own `time_total` for the same URL (process start-up excluded), or `nil` without curl.
private func curlMilliseconds(_ url: URL, caFile: String?) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments =
        ["-s", "-o", "/dev/null", "-w", "%{time_total}", "--connect-timeout", "5"] + (caFile.map { ["--cacert", $0] } ?? [])
        + [url.absoluteString]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)).map { $0 * 1000 }
}
