import AsyncHTTPClient
import Foundation
@testable import Magpie
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

/// Writing to the store: once only (`If-None-Match: *`), with metadata, and in parts above a
/// size, against SeaweedFS on loopback.
@Suite("S3 writes")
struct S3ObjectClientTests {
    static func writer(_ store: SeaweedFS, credentials: AWSCredentials? = nil) -> S3ObjectClient {
        S3ObjectClient(endpoint: store.s3Endpoint(credentials: credentials), client: HTTPClient.shared)
    }

    @Test func aKeyIsWrittenOnceOnly() async throws {
        try await S3SourceTests.withStore { store, prefix in
            let writer = Self.writer(store)
            let first = Array("first".utf8)
            let outcome = try await writer.put(first, bucket: "photos", key: prefix + "results/a b+ሴ.webp", metadata: ["magpie-expires": "1790000000"], once: true)
            guard case .written(let etag) = outcome else { Issue.record("not written: \(outcome)"); return }
            #expect(etag != nil)
            #expect(try await writer.put(Array("second".utf8), bucket: "photos", key: prefix + "results/a b+ሴ.webp", once: true) == .alreadyThere)
            #expect(try await store.get(bucket: "photos", key: prefix + "results/a b+ሴ.webp") == first, "the first write stands")
            // Without `once`, a write replaces.
            _ = try await writer.put(Array("third".utf8), bucket: "photos", key: prefix + "results/a b+ሴ.webp", once: false)
            #expect(try await store.get(bucket: "photos", key: prefix + "results/a b+ሴ.webp") == Array("third".utf8))
            try await writer.delete(bucket: "photos", key: prefix + "results/a b+ሴ.webp")
            try await writer.delete(bucket: "photos", key: prefix + "results/a b+ሴ.webp")
            #expect(try await store.get(bucket: "photos", key: prefix + "results/a b+ሴ.webp") == nil)
        }
    }

    @Test func metadataIsStoredWithTheObject() async throws {
        try await S3SourceTests.withStore { store, prefix in
            let writer = Self.writer(store)
            _ = try await writer.put(
                Array("x".utf8), bucket: "photos", key: prefix + "m.png", contentType: "image/png", metadata: ["Magpie-Checksum": "abc"], once: true)
            let signed = store.s3Endpoint().request("HEAD", bucket: "photos", key: prefix + "m.png", at: Date())
            var request = HTTPClientRequest(url: signed.url.absoluteString)
            request.method = .HEAD
            for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status.code == 200)
            #expect(response.headers.first(name: "x-amz-meta-magpie-checksum") == "abc")
            #expect(response.headers.first(name: "Content-Type") == "image/png")
        }
    }

    @Test func aLargeObjectGoesUpInParts() async throws {
        try await S3SourceTests.withStore { store, prefix in
            var writer = Self.writer(store)
            writer.multipartThreshold = 5 * 1024 * 1024
            writer.partSize = 5 * 1024 * 1024
            var random = SeededRandom(seed: 7)
            let large = (0..<(12 * 1024 * 1024 + 1234)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let outcome = try await writer.put(large, bucket: "photos", key: prefix + "large.bin", metadata: ["magpie-expires": "1"], once: true)
            guard case .written = outcome else { Issue.record("not written: \(outcome)"); return }
            #expect(try await store.get(bucket: "photos", key: prefix + "large.bin") == large)
            #expect(try await writer.put(large, bucket: "photos", key: prefix + "large.bin", once: true) == .alreadyThere)
        }
    }

    @Test func aWrongSecretIsRefused() async throws {
        try await S3SourceTests.withStore { store, prefix in
            let writer = Self.writer(store, credentials: AWSCredentials(accessKeyID: store.credentials.accessKeyID, secretAccessKey: "wrong"))
            do {
                _ = try await writer.put(Array("x".utf8), bucket: "photos", key: prefix + "x", once: true)
                Issue.record("a write signed with the wrong secret was stored")
            } catch MagpieError.sourceRefused(_, let status, let reason) {
                #expect(status == 403)
                #expect(reason.hasPrefix("SignatureDoesNotMatch"), "\(reason)")
            }
            #expect(try await store.get(bucket: "photos", key: prefix + "x") == nil)
        }
    }
}
