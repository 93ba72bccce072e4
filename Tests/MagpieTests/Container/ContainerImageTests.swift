import AsyncHTTPClient
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing

/// The image scripts/image builds, run with podman as an operator runs it (issue 52). scripts/test
/// builds it from the package it has just checked and names it in the environment: the image
/// (`MAGPIE_IMAGE`, in the machine's store) and its OCI archive (`MAGPIE_IMAGE_ARCHIVE`). Needs
/// root, as CI is.
@Suite("The container image", .enabled(if: ContainerImage.archive != nil), .serialized, .timeLimit(.minutes(5)))
struct ContainerImageTests {

    /// The container's first line says where it listens, and what it found of its limits.
    static func startLine(of container: String, podman: Podman, host: String) async throws -> String {
        // Each look starts a podman process: five a second, not waitUntil's hundred.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let logs = podman.logs(container)
            if let line = logs.split(separator: "\n").first(where: { $0.hasPrefix("Proxy listening on http://\(host):") }) { return String(line) }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("the container did not start: \(podman.logs(container))")
        throw CancellationError()
    }

    static func port(in line: String, host: String) throws -> Int {
        try #require(line.split(separator: "http://\(host):").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) })
    }

    /// The archive loaded into an empty store, run with the Kubernetes example's security
    /// context, limits and environment (its Secret's values from an env file, the rest with -e),
    /// on the host's network to reach a loopback origin and a loopback S3 store: it answers an
    /// imgproxy URL and a thumbor URL, says at start what it found of its limits, drains 100
    /// requests in flight on `podman stop` and exits 0, having written only to its cache volume.
    @Test func theArchiveRunsAsTheKubernetesExampleRunsIt() async throws {
        let example = try KubernetesExample()
        let archive = try #require(ContainerImage.archive)
        // podman refuses a run root longer than 50 characters.
        let scratch = URL(fileURLWithPath: "/tmp/magpie-podman-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let podman = Podman(store: scratch.appendingPathComponent("store"))
        defer {
            podman.removeStore()
            try? FileManager.default.removeItem(at: scratch)
        }
        #expect(try podman.run(["images", "--quiet"]).isEmpty, "the store starts empty")
        let loaded = try podman.status(["load", "--input", archive]).output  // "Loaded image:" is on standard error
        let image = try #require(loaded.split(separator: "Loaded image: ").dropFirst().first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(image.hasSuffix("magpie:\(MagpieVersion.current)"))

        try await S3SourceTests.withStore { store, prefix in
            let origin = try await ImageServer.start()
            let photo = try TestImages.texture(width: 640, height: 480, format: .jpeg)
            origin.serve("/photo.jpg", .image(photo))
            var slow = ServedRoute.image(photo)
            slow.latency = .seconds(2)
            origin.serve("/slow/photo.jpg", slow)
            let key = ProxyFixture.key, salt = ProxyFixture.salt, thumborKey = "container-thumbor-key"

            // The Secret's names, with this test's values, from an env file; thumbor's key too.
            let secrets = [
                "IMGPROXY_KEY": key, "IMGPROXY_SALT": salt, "AWS_ACCESS_KEY_ID": store.credentials.accessKeyID,
                "AWS_SECRET_ACCESS_KEY": store.credentials.secretAccessKey,
            ]
            #expect(Set(example.secretNames) == Set(secrets.keys))
            let envFile = scratch.appendingPathComponent("secrets.env")
            try (secrets.map { "\($0.key)=\($0.value)" } + ["SECURITY_KEY=\(thumborKey)"]).joined(separator: "\n")
                .write(to: envFile, atomically: true, encoding: .utf8)
            // The Deployment's env, its placeholders pointed at this test's origin and store; and
            // what a loopback origin on the host's network needs besides.
            let placeholders = [
                "IMGPROXY_ALLOWED_SOURCES": origin.url("/").absoluteString, "IMGPROXY_S3_ENDPOINT": store.endpoint.absoluteString,
                "MAGPIE_STORE_S3_BUCKET": "results",
            ]
            var environment = example.environment.map { ($0.name, placeholders[$0.name] ?? $0.value) }
            #expect(Set(placeholders.keys).isSubset(of: example.environment.map(\.name)))
            environment += [
                ("MAGPIE_STORE_S3_PREFIX", prefix), ("IMGPROXY_BIND", "127.0.0.1:0"), ("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "true"),
                // Room for the 100 requests held in flight below beside the quota's two slots.
                ("IMGPROXY_REQUESTS_QUEUE_SIZE", "128"),
            ]
            let arguments =
                ["run", "--detach", "--network=host"] + example.podmanArguments + Podman.limits + ["--env-file", envFile.path]
                + environment.flatMap { ["-e", "\($0)=\($1)"] } + [image]
            let container = try podman.run(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
            defer { podman.remove(container) }

            let line = try await Self.startLine(of: container, podman: podman, host: "127.0.0.1")
            let port = try Self.port(in: line, host: "127.0.0.1")
            // The kubelet's limits as the process sees them: a quarter of the memory limit for
            // decoding, two slots and a decoding thread each for every processor of the quota.
            let memory = try #require(example.memoryLimit), processors = Int(try #require(example.cpuLimit).rounded(.up))
            #expect(
                line.contains("\(2 * processors) processing slots and \(2 * processors) decoding threads for \(processors) processor"),
                "\(line)")
            #expect(line.contains("decoding within \(memory / 4 / 1_000_000) MB"), "\(line)")

            // A connection for each request in flight (AsyncHTTPClient keeps 8 a host by default).
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            defer { Task { try? await client.shutdown() } }
            func get(_ path: String) async throws -> (status: UInt, type: String?, body: [UInt8]) {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 16 << 20)
                return (response.status.code, response.headers.first(name: "Content-Type"), Array(buffer: body))
            }
            let signer = URLSigner(keys: [try SigningKey(keyHex: key, saltHex: salt)])
            func imgproxyPath(_ options: String, _ source: String) -> String {
                signer.sign("/\(options)/plain/" + origin.url(source).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "@webp")
            }
            let imgproxy = try await get(imgproxyPath("rs:fill:160:120", "/photo.jpg"))
            #expect(imgproxy.status == 200 && imgproxy.type == "image/webp")
            let resized = try VipsDecoder().decode(imgproxy.body, thumbnail: nil, maximumPixels: 1_000_000)
            #expect((resized.width, resized.height) == (160, 120))
            let thumborPart = "100x75/smart/127.0.0.1:\(origin.port)/photo.jpg"
            let thumbor = try await get("/" + ThumborSigner(keys: [thumborKey]).signature(for: thumborPart) + "/" + thumborPart)
            #expect(thumbor.status == 200 && thumbor.type == "image/jpeg")
            let cropped = try VipsDecoder().decode(thumbor.body, thumbnail: nil, maximumPixels: 1_000_000)
            #expect((cropped.width, cropped.height) == (100, 75))
            #expect(try await get("/health").status == 200)
            // The results went to the shared store as well as to the cache volume.
            let metrics = String(decoding: try await get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("magpie_shared_store_total{outcome=\"written\"}"), "\(metrics.split(separator: "\n").filter { $0.contains("shared_store") })")

            // podman stop with 100 requests in flight, each held two seconds by the origin.
            let paths = (101...200).map { imgproxyPath("rs:fill:\($0):80", "/slow/photo.jpg") }
            let statuses = NIOLockedValueBox<[UInt]>([])
            let requests = Task {
                await withTaskGroup(of: UInt.self) { group in
                    for path in paths { group.addTask { (try? await get(path).status) ?? 0 } }
                    for await status in group { statuses.withLockedValue { $0.append(status) } }
                }
            }
            try await waitUntil(timeout: .seconds(30)) { origin.statistics(for: "/slow/photo.jpg").requests > 0 }
            try await Task.sleep(for: .milliseconds(500))  // the rest have reached the proxy
            let stopped = ContinuousClock.now
            let stop = try podman.status(["stop", "--time", "40", container])
            #expect(ContinuousClock.now - stopped < .seconds(40), "within the Deployment's grace period")
            await requests.value
            #expect(stop.status == 0, "\(stop.output)")
            let answered = statuses.withLockedValue { $0 }
            #expect(answered.count == 100 && answered.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: answered, by: { $0 }).mapValues(\.count))")
            #expect(try podman.run(["inspect", "--format", "{{.State.ExitCode}}", container]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            #expect(podman.logs(container).contains("Stopped."))

            // Nothing written to the image's files; the results in the cache volume.
            let changed = try podman.run(["diff", container]).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(changed.isEmpty, "\(changed)")
            let volume = try podman.run(["inspect", "--format", "{{range .Mounts}}{{if eq .Destination \"/var/cache/magpie\"}}{{.Source}}{{end}}{{end}}", container])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let kept = FileManager.default.enumerator(atPath: volume)?.allObjects.count ?? 0
            #expect(kept > 0, "nothing in the cache volume \(volume)")
            await origin.shutdown()
        }
    }

    /// The image in the machine's store as a quick start runs it: published on a loopback port,
    /// listening on every interface at 8080 inside, its health check passing, slots and threads
    /// for every processor when there is no CPU limit.
    @Test func theImageServesOnItsPublishedPortAndChecksItsHealth() async throws {
        let podman = Podman()
        let hostPort = Int.random(in: 20_000...40_000)
        let container = try podman.run(
            ["run", "--detach", "-p", "127.0.0.1:\(hostPort):8080", "-e", "IMGPROXY_KEY=\(ProxyFixture.key)", "-e", "IMGPROXY_SALT=\(ProxyFixture.salt)"]
                + Podman.limits + [ContainerImage.name]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { podman.remove(container) }
        let line = try await Self.startLine(of: container, podman: podman, host: "0.0.0.0")
        #expect(try Self.port(in: line, host: "0.0.0.0") == 8080)
        let processors = Processors.available
        #expect(line.contains("\(2 * processors) processing slots and \(2 * processors) decoding threads for \(processors) processor"), "\(line)")
        let client = HTTPClient.shared
        let health = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(hostPort)/health"), timeout: .seconds(30))
        #expect(health.status.code == 200)
        let check = try podman.status(["healthcheck", "run", container])
        #expect(check.status == 0, "\(check.output)")
        let user = try podman.run(["inspect", "--format", "{{.Config.User}}", container]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(user == "65534:65534")
        #expect(try podman.status(["stop", "--time", "40", container]).status == 0)
        #expect(try podman.run(["inspect", "--format", "{{.State.ExitCode}}", container]).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}

/// The image scripts/test built, named by its environment.
enum ContainerImage {
    static let archive = ProcessInfo.processInfo.environment["MAGPIE_IMAGE_ARCHIVE"].flatMap { $0.isEmpty ? nil : $0 }
    static let name = ProcessInfo.processInfo.environment["MAGPIE_IMAGE"] ?? "magpie:\(MagpieVersion.current)"
}
