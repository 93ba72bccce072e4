import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// URLs built by imgproxy's own Python URL builder (PyPI `imgproxy`, Tests/Reference/imgproxy_urls.py),
/// signed with the proxy's key and salt: each answer's size, format and the source area it shows
/// are checked against what imgproxy's documentation says it makes (``DropInCase``).
@Suite("imgproxy drop-in")
struct ImgproxyDropInTests {
    @Test func everyBuiltURLIsAnsweredAsImgproxyWould() async throws {
        let png = try ImageEncoder().encode(DropInCase.gradient, as: .png)
        let magenta = DecodedImage(width: 40, height: 20, pixels: Array([[UInt8]](repeating: [255, 0, 255, 255], count: 800).joined()))
        let cyan = try ImageEncoder().encode(DecodedImage(width: 20, height: 20, pixels: Array([[UInt8]](repeating: [0, 255, 255, 255], count: 400).joined())), as: .png)
        try await withProxyFixture(configure: {
            $0.presets["thumb"] = "rs:fill:100:100"
            $0.watermark = .init(identifier: "magenta", image: magenta)
        }) { fixture in
            fixture.origin.serve("/g.png", .image(png, contentType: "image/png"))
            fixture.origin.serve("/mark.png", .image(cyan, contentType: "image/png"))
            fixture.origin.serve("/bordered.png", .image(try DropInCase.bordered(), contentType: "image/png"))
            let cases = try DropInCase.cases(
                script: "imgproxy_urls.py",
                [
                    ProxyFixture.key, ProxyFixture.salt, fixture.origin.url("/g.png").absoluteString,
                    fixture.origin.url("/bordered.png").absoluteString, fixture.origin.url("/mark.png").absoluteString,
                ])
            #expect(cases.count >= 40)
            for item in cases {
                try item.check(try await fixture.get(item.path), original: png)
            }
        }
    }
}

/// A signed URL a CDN rewrote on its way (`://` made `:/`, `:` in the options made `%3A`) is
/// answered as the URL its client signed, as imgproxy restores it before the signature check; a
/// rewrite that changes what was signed is still a 403.
@Suite("imgproxy: paths a CDN normalised")
struct NormalisedPathTests {
    @Test func aRewrittenSignedURLIsAnsweredAsTheSignedOne() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.png", .image(try TestImages.texture(width: 120, height: 80, format: .png)))
            let signer = URLSigner(keys: [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)])
            let source = fixture.origin.url("/a.png").absoluteString
            let signed = signer.sign("/rs:fit:60:60/f:png/plain/" + source)
            let original = try await fixture.get(signed)
            #expect(original.status == 200)
            let signature = signed.split(separator: "/")[0]
            let rewritten = "/\(signature)/rs%3Afit%3A60%3A60/f%3Apng/plain/" + source.replacingOccurrences(of: "://", with: ":/")
            let restored = try await fixture.get(rewritten)
            #expect(restored.status == 200 && restored.body == original.body)
            let tampered = rewritten.replacingOccurrences(of: "60%3A60", with: "61%3A60")
            #expect(try await fixture.get(tampered).status == 403)
        }
    }

    /// Unsigned, the grammar is told by the options' form: encoded colons still mark imgproxy's.
    @Test func aRewrittenUnsignedURLIsReadAsImgproxys() async throws {
        try await withProxyFixture(configure: { $0.allowsUnsignedURLs = true }) { fixture in
            fixture.origin.serve("/a.png", .image(try TestImages.texture(width: 120, height: 80, format: .png)))
            let source = fixture.origin.url("/a.png").absoluteString.replacingOccurrences(of: "://", with: ":/")
            let reply = try await fixture.get("/unsafe/rs%3Afit%3A60%3A60/f%3Apng/plain/" + source)
            #expect(reply.status == 200 && reply.header("Content-Type") == "image/png", "\(reply.text)")
        }
    }
}

/// imgproxy Pro's `/info`, free here: what the source's header says, and a BlurHash placeholder.
@Suite("imgproxy info")
struct ImgproxyInfoTests {
    @Test func infoAnswersTheSourcesHeaderAndAPlaceholder() async throws {
        let png = try ImageEncoder().encode(DropInCase.gradient, as: .png)
        try await withProxyFixture { fixture in
            fixture.origin.serve("/g.png", .image(png, contentType: "image/png"))
            let reply = try await fixture.get("/info" + fixture.path("/g.png", "pn:1/bh:4:3"))
            try #require(reply.status == 200, "\(reply.text)")
            #expect(reply.header("Content-Type") == "application/json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
            #expect(object["format"] as? String == "png" && object["width"] as? Int == 1200 && object["height"] as? Int == 800)
            #expect(object["size"] as? Int == png.count && object["pages_number"] as? Int == 1 && object["orientation"] as? Int == 1)
            // 4x3 components: the size flag (3 + 2 * 9 = 21, 'L'), the maximum, 4 DC and 2 per AC digit.
            let hash = try #require(object["blurhash"] as? String)
            #expect(hash.count == 1 + 1 + 4 + 2 * 11 && hash.first == "L")
            let plain = try await fixture.get("/info" + fixture.path("/g.png", ""))
            let defaults = try #require(try JSONSerialization.jsonObject(with: Data(plain.body)) as? [String: Any])
            #expect(Set(defaults.keys) == ["format", "width", "height", "size", "orientation"])
            #expect(try await fixture.get("/info" + fixture.path("/g.png", "exif:1")).status == 404)
            // Signed after `/info`, like any URL: another source under the same signature is refused.
            let forged = ("/info" + fixture.path("/g.png", "")).replacingOccurrences(of: "g.png", with: "h.png")
            #expect(try await fixture.get(forged).status == 403)
        }
    }
}

/// imgproxy's `keep_copyright`: the source's EXIF Copyright is the one tag written; without it,
/// nothing is. Made and read back with Pillow.
@Suite("imgproxy keep_copyright")
struct KeepCopyrightTests {
    static func script(_ arguments: [String], name: String = "exif_copyright.py") throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/\(name)")
        return try PythonScript.run(url, arguments)
    }

    /// The path imgproxy's Python builder makes for `options`, fitting into 200x200.
    static func builtPath(_ fixture: ProxyFixture, _ source: String, _ options: [String]) throws -> String {
        let output = try script([ProxyFixture.key, ProxyFixture.salt, fixture.origin.url(source).absoluteString, "200", "200"] + options, name: "imgproxy_path.py")
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func tags(of bytes: [UInt8]) throws -> [String: String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-kcr-\(UUID().uuidString).img")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try JSONDecoder().decode([String: String].self, from: try script(["read", file.path]))
    }

    @Test func libvipsCopyrightFieldsAreRead() {
        #expect(VipsDecoder.copyright(vipsField: "(c) 2026 Jane Doe ((c) 2026 Jane Doe (Photographer) - [None] (Editor), ASCII, 18 components, 18 bytes)") == "(c) 2026 Jane Doe")
        #expect(VipsDecoder.copyright(vipsField: "Jane (c) Doe (Jane (c) Doe, ASCII, 13 components, 13 bytes)") == "Jane (c) Doe")
        #expect(VipsDecoder.copyright(vipsField: "[None] ([None] (Photographer) - Ed (Editor), ASCII, 4 components, 4 bytes)") == nil)
        #expect(VipsDecoder.copyright(vipsField: "cut off (cut o") == nil)
        #expect(VipsDecoder.copyright(vipsField: "") == nil)
    }

    @Test(arguments: ["jpg", "webp"])
    func theCopyrightIsTheOnlyTagKept(format: String) async throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-kcr-\(UUID().uuidString).jpg")
        _ = try Self.script(["make", source.path, "(c) 2026 Jane Doe, Magpie tests"])
        let jpeg = Array(try Data(contentsOf: source))
        try? FileManager.default.removeItem(at: source)
        try await withProxyFixture { fixture in
            fixture.origin.serve("/c.jpg", .image(jpeg, contentType: "image/jpeg"))
            let kept = try await fixture.get(try Self.builtPath(fixture, "/c.jpg", ["kcr:1", "f:\(format)"]))
            try #require(kept.status == 200, "\(kept.text)")
            let tags = try Self.tags(of: kept.body)
            #expect(tags["Copyright"] == "(c) 2026 Jane Doe, Magpie tests", "\(tags)")
            #expect(tags["Artist"] == nil && tags["Model"] == nil, "only the copyright: \(tags)")
            let stripped = try await fixture.get(try Self.builtPath(fixture, "/c.jpg", ["keep_copyright:0", "f:\(format)"]))
            #expect(try Self.tags(of: stripped.body)["Copyright"] == nil)
        }
    }
}
