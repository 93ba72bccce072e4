import AsyncHTTPClient
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

/// A user's first hour (issue 33): a package of their own, outside this repository, that depends
/// on Magpie by path and whose targets are the README's and the Getting started article's
/// examples, taken from the documents themselves (each block follows a `<!-- consumer: FILE -->`
/// line), in the forms users write them: top-level code, an `@main` type, main-actor and actor
/// code, and a Hummingbird application with its own request context mounting the proxy. It
/// installs the libvips the README tells it to, builds in Swift 6 mode with no warning in its
/// own code, and runs each target against a loopback origin.
@Suite("A package that depends on Magpie")
struct ConsumerPackageTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// A place outside the repository, one per checkout, so a second run rebuilds only what
    /// changed. One place for two checkouts left stale build records when its link moved from
    /// one to the other (a compiler error in code that compiles, seen once).
    static let root = FileManager.default.temporaryDirectory.appendingPathComponent(
        "magpie-consumer" + repository.path.replacingOccurrences(of: "/", with: "-"))
    static let package = root.appendingPathComponent("Gallery")
    static let photo = Corpus.directory.appendingPathComponent("exif-orientation/Landscape_1.jpg")  // 1800x1200

    @Test(.timeLimit(.minutes(40)))
    func theDocumentedExamplesBuildAndRunInAPackageOfTheirOwn() async throws {
        let snippets = try Self.snippets(in: ["README.md", "Sources/Magpie/Magpie.docc/GettingStarted.md"])
        #expect(Set(snippets.keys) == ["TopLevel/main.swift", "AtMain/App.swift", "Isolated/Models.swift", "ImagesApp/ImagesApp.swift"])
        let origin = try await ImageServer.start()
        defer { Task { await origin.shutdown() } }
        let bytes = try Data(contentsOf: Self.photo)
        for name in ["cat.jpg", "avatar.jpg"] { origin.serve("/" + name, .image(Array(bytes))) }
        let base = "http://127.0.0.1:\(origin.port)"
        try Self.writePackage(snippets: snippets, origin: base)

        // What the README says to run, from the package's own folder.
        let install = try await Self.run("/usr/bin/env", ["swift", "package", "install-libvips"], limit: .seconds(900))
        try #require(install.status == 0, "\(install.output)")
        #expect(install.output.contains("pkg-config now gives libvips 8.18"), "\(install.output)")
        #expect(!install.output.contains("Plugins/InstallLibvips/InstallLibvips.swift"), "the plugin compiles cleanly: \(install.output)")
        let build = try await Self.run("/usr/bin/env", ["swift", "build"], limit: .seconds(1800))
        try #require(build.status == 0, "\(build.output.suffix(4000))")
        let ownWarnings = build.output.split(separator: "\n").filter {
            $0.contains(Self.package.appendingPathComponent("Sources").path) && ($0.contains("warning:") || $0.contains("error:"))
        }
        #expect(ownWarnings.isEmpty, "\(ownWarnings)")

        let binaries = Self.package.appendingPathComponent(".build/debug")
        func run(_ target: String) async throws -> String {
            // A disk cache of its own each time, so every load comes from the origin.
            let cache = Self.root.appendingPathComponent("cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: cache) }
            let result = try await Self.run(
                binaries.appendingPathComponent(target).path, [base], environment: ["XDG_CACHE_HOME": cache.path], limit: .seconds(120))
            #expect(result.status == 0, "\(target): \(result.output)")
            return result.output
        }
        #expect(try await run("TopLevel").contains("256 171 network"))
        #expect(try await run("AtMain").contains("1800x1200, 8640000 bytes of RGBA"))
        let isolated = try await run("Isolated")
        #expect(isolated.contains("gallery [\"1800x1200\", \"1800x1200\"]"), "\(isolated)")
        #expect(isolated.contains("completion on the main actor: shown 1800x1200"), "\(isolated)")
        #expect(isolated.contains("actor: 128x85 128x85"), "\(isolated)")
        try await Self.checkImagesApp(binaries.appendingPathComponent("ImagesApp"), origin: base)
    }

    /// Starts the application, asks for its page, an image under `/images` and the proxy's
    /// health (which names the libvips the consumer's process runs on), then stops it with SIGTERM.
    static func checkImagesApp(_ executable: URL, origin: String) async throws {
        let key = try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)
        // Through stdbuf, so what it prints reaches the file at each line, as on a terminal.
        let tool = MagpieTool(executable: URL(fileURLWithPath: "/usr/bin/stdbuf"), home: root.appendingPathComponent("home"))
        try FileManager.default.createDirectory(at: tool.home, withIntermediateDirectories: true)
        let (process, output) = try tool.start(["-oL", executable.path], environment: [
            "IMGPROXY_KEY": ProxyFixture.key, "IMGPROXY_SALT": ProxyFixture.salt, "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
        ])
        var port = 0
        try await waitUntil(timeout: .seconds(60)) {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            port = text.range(of: "Serving on port ").flatMap { Int(text[$0.upperBound...].prefix { $0.isNumber }) } ?? 0
            return port != 0
        }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        func get(_ path: String) async throws -> (status: Int, type: String?, body: [UInt8]) {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 16 << 20)
            return (Int(response.status.code), response.headers.first(name: "Content-Type"), Array(body.readableBytesView))
        }
        do {
            let page = try await get("/")
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self) == "Pages and images from one server.\n")
            let source = (origin + "/cat.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let image = try await get("/images" + URLSigner(keys: [key]).sign("/rs:fit:64:64/f:png/plain/" + source))
            #expect(image.status == 200 && image.type == "image/png")
            let decoded = try VipsDecoder().decode(image.body, options: DecodingOptions())
            #expect((decoded.width, decoded.height) == (64, 43))
            let health = try await get("/images/health")
            let summary = String(decoding: health.body, as: UTF8.self)
            #expect(health.status == 200 && summary.hasPrefix("ok, libvips 8.18.") && summary.contains("SIMD on"), "\(summary)")
        } catch {
            Issue.record(error)
        }
        try? await client.shutdown()
        process.terminate()
        #expect(await MagpieTool.waitForExit(process) == 0, "SIGTERM stops it cleanly")
        tool.cleanUp()
    }

    /// The Swift blocks of `documents` that follow a `<!-- consumer: FILE -->` line, by file
    /// (blocks for one file joined in order).
    static func snippets(in documents: [String]) throws -> [String: String] {
        var files: [String: String] = [:]
        for document in documents {
            let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
            var pending: String?
            var block: [Substring]?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if var lines = block {
                    if line == "```" {
                        files[pending!, default: ""] += lines.joined(separator: "\n") + "\n"
                        (pending, block) = (nil, nil)
                    } else {
                        lines.append(line)
                        block = lines
                    }
                } else if line.hasPrefix("<!-- consumer: "), line.hasSuffix(" -->") {
                    pending = String(line.dropFirst("<!-- consumer: ".count).dropLast(" -->".count))
                } else if pending != nil, line == "```swift" {
                    block = []
                }
            }
        }
        return files
    }

    /// SwiftPM plans a path dependency's targets once: a source file added to Magpie since the
    /// last build is not compiled (its symbols are missing at link time), so the build is
    /// started afresh when the list of Magpie's source files changes.
    static func forgetBuildWhenSourcesAreAddedOrRemoved() throws {
        let sources = repository.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String] ?? []).sorted()
        let stamp = root.appendingPathComponent("sources.txt")
        let listing = files.joined(separator: "\n")
        if (try? String(contentsOf: stamp, encoding: .utf8)) != listing {
            try? FileManager.default.removeItem(at: package.appendingPathComponent(".build"))
            try listing.write(to: stamp, atomically: true, encoding: .utf8)
        }
    }

    /// Writes the package: the README's dependency line (with the path of this checkout for its
    /// URL), the snippets with `https://example.com` turned into the origin and port 8080 into
    /// one the system chooses, and for the main-actor and actor examples a `main.swift` that
    /// drives them. Files are rewritten only when they change, so builds stay incremental.
    static func writePackage(snippets: [String: String], origin: String) throws {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let dependency = try #require(readme.split(separator: "\n").first { $0.hasPrefix(".package(url: ") && $0.contains("magpie") })
        #expect(dependency.contains("from: \"\(MagpieVersion.current)\""), "the README names the current version")
        // The package's identity is the last part of its URL or path: link the checkout as `magpie`.
        let checkout = root.appendingPathComponent("magpie")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try forgetBuildWhenSourcesAreAddedOrRemoved()
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: checkout.path)) != repository.path {
            try? FileManager.default.removeItem(at: checkout)
            try FileManager.default.createSymbolicLink(at: checkout, withDestinationURL: repository)
        }
        let localDependency = dependency.replacingOccurrences(
            of: #"\.package\(url: "[^"]*", from: "[^"]*"\)"#, with: ".package(path: \"../magpie\")", options: .regularExpression)
        let magpie = #".product(name: "Magpie", package: "magpie")"#
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "Gallery",
                dependencies: [
                    \(localDependency)
                    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
                    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
                ],
                targets: [
                    .executableTarget(name: "TopLevel", dependencies: [\(magpie)]),
                    .executableTarget(name: "AtMain", dependencies: [\(magpie)]),
                    .executableTarget(name: "Isolated", dependencies: [\(magpie)]),
                    .executableTarget(name: "ImagesApp", dependencies: [
                        .product(name: "MagpieServer", package: "magpie"),
                        .product(name: "Hummingbird", package: "hummingbird"),
                        .product(name: "Configuration", package: "swift-configuration"),
                    ]),
                ]
            )

            """
        var files = ["Package.swift": manifest, "Sources/Isolated/main.swift": isolatedDriver]
        for (file, code) in snippets {
            files["Sources/" + file] = code
                .replacingOccurrences(of: "https://example.com", with: origin)
                .replacingOccurrences(of: "port: 8080", with: "port: 0")
        }
        for (file, text) in files {
            let url = package.appendingPathComponent(file)
            if (try? String(contentsOf: url, encoding: .utf8)) == text { continue }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// Drives the article's `Gallery` (main-actor) and `ThumbnailStore` (actor) from top-level
    /// code, which runs on the main actor.
    static let isolatedDriver = """
        import Foundation
        import Magpie

        let origin = CommandLine.arguments[1]
        let urls = [URL(string: origin + "/cat.jpg")!, URL(string: origin + "/avatar.jpg")!]
        let gallery = Gallery()
        try await gallery.load(urls)
        print("gallery \\(gallery.sizes)")
        try await withImagePipeline { pipeline in
            gallery.show(urls[0], with: pipeline)
            while gallery.status == "loading" { try await Task.sleep(for: .milliseconds(10)) }
            print("completion on the main actor: \\(gallery.status)")
            let store = ThumbnailStore(pipeline: pipeline)
            let first = try await store.thumbnail(for: urls[1])
            let again = try await store.thumbnail(for: urls[1])
            print("actor: \\(first.width)x\\(first.height) \\(again.width)x\\(again.height)")
        }

        """

    /// Runs `program` in the package's folder with this process's environment (the toolchain's
    /// `PATH`, the user's SwiftPM caches), and returns its status and its output and errors together.
    static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], limit: Duration
    ) async throws -> (status: Int32, output: String) {
        let log = root.appendingPathComponent("run-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = package
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let status = try await MagpieTool.runToEnd(process, limit: limit)
        return (status, String(decoding: try Data(contentsOf: log), as: UTF8.self))
    }
}
