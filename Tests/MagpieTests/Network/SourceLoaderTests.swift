import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Sources by scheme: loaders the pipeline holds by URL scheme")
struct SourceLoaderTests {
    /// A folder holding `photos/a.png`, a link inside it to that file, a link out of it to a
    /// file beside it, and that file; removed by `body`'s end.
    static func withRoot(_ body: (URL) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-root-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
        let png = Data(try TestImages.texture(width: 24, height: 16, format: .png))
        try png.write(to: root.appendingPathComponent("photos/a.png"))
        try png.write(to: base.appendingPathComponent("outside.png"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("inside-link.png").path, withDestinationPath: "photos/a.png")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("outside-link.png").path, withDestinationPath: base.appendingPathComponent("outside.png").path)
        try await body(root)
    }

    @Test func aRegisteredLoaderServesItsScheme() async throws {
        try await Self.withRoot { root in
            try await withTestFixture(configure: { $0.sourceLoaders["local"] = FileSystemLoader(root: root) }) { fixture in
                let response = try await fixture.pipeline.image(for: ImageRequest(url: URL(string: "local:///photos/a.png")!))
                #expect(response.container.image.width == 24 && response.container.image.height == 16)
                #expect(response.source == .disk)
                // A link that stays inside the root is followed; a percent-encoded name is read decoded.
                #expect(try await fixture.pipeline.image(for: URL(string: "local:///inside-link.png")!).width == 24)
                try FileManager.default.copyItem(at: root.appendingPathComponent("photos/a.png"), to: root.appendingPathComponent("photos/with space.png"))
                #expect(try await fixture.pipeline.image(for: URL(string: "local:///photos/with%20space.png")!).width == 24)
                // A scheme nobody registered is refused before anything runs.
                await #expect(throws: MagpieError.invalidURL("s3://bucket/a.png", reason: "the scheme s3 is not allowed")) {
                    try await fixture.pipeline.image(for: URL(string: "s3://bucket/a.png")!)
                }
            }
        }
    }

    /// Only what is in the folder can be read: not through `..`, not through a link leading
    /// out, and a missing file or a folder is "not found", not an I/O error.
    @Test func aRootedLoaderReadsOnlyBelowItsRoot() async throws {
        try await Self.withRoot { root in
            let loader = FileSystemLoader(root: root)
            #expect(try await loader.read(URL(string: "local:///photos/a.png")!, limit: 1 << 20).bytes.count > 0)
            for escape in ["local:///../outside.png", "local:///photos/../../outside.png", "local:///photos/%2E%2E/%2E%2E/outside.png"] {
                await #expect(throws: MagpieError.self, "\(escape)") {
                    _ = try await loader.read(URL(string: escape)!, limit: 1 << 20)
                }
                if case .invalidURL = try await Self.failure(loader, escape) {} else { Issue.record("\(escape) was not refused as leaving the root") }
            }
            #expect(try await Self.failure(loader, "local:///outside-link.png") == .invalidURL("local:///outside-link.png", reason: "a symbolic link leads out of the root folder"))
            #expect(try await Self.failure(loader, "local:///photos/missing.png") == .sourceNotFound(URL(string: "local:///photos/missing.png")!))
            #expect(try await Self.failure(loader, "local:///photos") == .sourceNotFound(URL(string: "local:///photos")!))
            // A named pipe is not waited on: nothing is found there.
            #expect(mkfifo(root.appendingPathComponent("pipe").path, 0o600) == 0)
            #expect(try await Self.failure(loader, "local:///pipe") == .sourceNotFound(URL(string: "local:///pipe")!))
            #expect(try await Self.failure(FileSystemLoader(), root.appendingPathComponent("pipe").absoluteString) != nil)
            // The limit holds on the bytes read, not on a size looked up first.
            let size = try Data(contentsOf: root.appendingPathComponent("photos/a.png")).count
            #expect(try await Self.failure(loader, "local:///photos/a.png", limit: size - 1) == .responseTooLarge(limit: size - 1))
            #expect(try await loader.read(URL(string: "local:///photos/a.png")!, limit: size).bytes.count == size)
        }
    }

    /// A policy that lists hosts refuses sources without one; a `local://` prefix allows them.
    @Test func theSourcePolicyHoldsForEveryScheme() async throws {
        try await Self.withRoot { root in
            let hostsOnly = SourcePolicy(allowedHosts: ["images.example.com"])
            try await withTestFixture(configure: {
                $0.sourceLoaders["local"] = FileSystemLoader(root: root)
                $0.sourcePolicy = hostsOnly
            }) { fixture in
                await #expect(throws: MagpieError.sourceNotAllowed(host: "", hop: 0, url: URL(string: "local:///photos/a.png")!)) {
                    try await fixture.pipeline.image(for: URL(string: "local:///photos/a.png")!)
                }
            }
            try await withTestFixture(configure: {
                $0.sourceLoaders["local"] = FileSystemLoader(root: root)
                $0.sourcePolicy = SourcePolicy(allowedPrefixes: [SourcePrefix("local:///photos/")!])
            }) { fixture throws in
                let image = try await fixture.pipeline.image(for: URL(string: "local:///photos/a.png")!)
                #expect(image.width == 24)
                await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: URL(string: "local:///inside-link.png")!) }
            }
        }
    }

    @Test func prefixesNameSchemesWithoutHosts() throws {
        let local = try #require(SourcePrefix("local://"))
        #expect(local.description == "local://")
        #expect(local.matches(URL(string: "local:///a/b.jpg")!))
        #expect(!local.matches(URL(string: "local://host/b.jpg")!))
        #expect(!local.matches(URL(string: "http://local/b.jpg")!))
        let bucket = try #require(SourcePrefix("s3://images/photos/"))
        #expect(bucket.matches(URL(string: "s3://images/photos/a.jpg")!))
        #expect(!bucket.matches(URL(string: "s3://images/other/a.jpg")!))
        #expect(!bucket.matches(URL(string: "s3://other/photos/a.jpg")!))
        #expect(SourcePrefix("s3://*-media/")!.matches(URL(string: "s3://eu-media/a.jpg")!))
        // HTTP still needs its host; text without a scheme is no prefix.
        #expect(SourcePrefix("http:///photos/") == nil && SourcePrefix("local:/") == nil && SourcePrefix("images/") == nil)
    }

    static func failure(_ loader: FileSystemLoader, _ url: String, limit: Int = 1 << 20) async throws -> MagpieError? {
        do {
            _ = try await loader.read(URL(string: url)!, limit: limit)
            return nil
        } catch {
            return error
        }
    }
}
