import Foundation
import Magpie
import MagpieTesting

/// A cold load of the gallery through the pipeline, against curl fetching the same URLs six at
/// a time and against a plain loop decoding the same files one after another.
func measureColdLoad(_ files: [URL], into report: inout Report, workspace: URL) async throws {
    let server = try await ImageServer.start()
    var paths: [String] = []
    var totalBytes = 0
    for file in files {
        let path = "/gallery/" + file.lastPathComponent
        let bytes = try Array(Data(contentsOf: file))
        totalBytes += bytes.count
        server.serve(path, .image(bytes))
        paths.append(path)
    }
    let urls = paths.map { server.url($0) }
    let clock = ContinuousClock()

    // curl: the same downloads, no decoding.
    let config = workspace.appendingPathComponent("curl.config")
    try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"\n" }.joined().write(to: config, atomically: true, encoding: .utf8)
    let curlStart = clock.now
    let curl = Process()
    curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    curl.arguments = ["--silent", "--fail", "--parallel", "--parallel-max", "6", "--config", config.path]
    try curl.run()
    curl.waitUntilExit()
    let curlTime = clock.now - curlStart
    guard curl.terminationStatus == 0 else { throw BenchmarkError.curlFailed(curl.terminationStatus) }

    // A plain decode loop over the files.
    let decoder = VipsDecoder()
    let decodeStart = clock.now
    for file in files {
        _ = try decoder.decode(Array(Data(contentsOf: file)), thumbnail: nil, maximumPixels: 100_000_000)
    }
    let decodeTime = clock.now - decodeStart

    // The pipeline, cold: empty memory and disk caches.
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = .init(directory: workspace.appendingPathComponent("cold-cache"))
    let pipeline = ImagePipeline(configuration: configuration)
    let pipelineStart = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for url in urls {
            group.addTask { _ = try await pipeline.image(for: url) }
        }
        try await group.waitForAll()
    }
    let pipelineTime = clock.now - pipelineStart
    await pipeline.shutdown()
    await server.shutdown()

    let baseline = max(curlTime, decodeTime)
    let ratio = milliseconds(pipelineTime) / milliseconds(baseline)
    let megabytes = Double(totalBytes) / 1_048_576
    report.add("cold load of \(files.count) JPEGs (\(format(megabytes)) MB), curl --parallel-max 6", "\(format(milliseconds(curlTime), 0)) ms")
    report.add("same files, plain decode loop", "\(format(milliseconds(decodeTime), 0)) ms")
    report.add(
        "same URLs through the pipeline (download, disk write, decode)", "\(format(milliseconds(pipelineTime), 0)) ms = \(format(ratio, 2))× max(curl, decode)",
        target: "≤ 1.25×", met: ratio <= 1.25)
}

enum BenchmarkError: Error {
    case curlFailed(Int32)
    case childFailed(String)
}
