import Configuration
import Foundation
import Magpie
@testable import MagpieServer
import Testing

/// An imgproxy deployment's environment configures `magpie proxy` as it configured imgproxy.
@Suite("Proxy operator settings")
struct ProxyOperatorSettingsTests {
    static func read(_ variables: [String: String]) throws(ProxyConfigurationError) -> ProxyConfiguration {
        var configuration = ProxyConfiguration()
        try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: variables)))
        return configuration
    }

    @Test func imgproxysNamesAreRead() throws {
        let configuration = try Self.read([
            "IMGPROXY_KEY": "943b421c9eb07c83,6b6579", "IMGPROXY_SALT": "520f986b998545b4,73616c74", "IMGPROXY_SIGNATURE_SIZE": "8",
            "IMGPROXY_MAX_SRC_RESOLUTION": "12.5", "IMGPROXY_MAX_SRC_FILE_SIZE": "1048576", "IMGPROXY_TTL": "600",
            "IMGPROXY_QUALITY": "70", "IMGPROXY_FORMAT_QUALITY": "webp=60,avif=50", "IMGPROXY_WORKERS": "6",
            "IMGPROXY_REQUESTS_QUEUE_SIZE": "200", "IMGPROXY_TIMEOUT": "12.5",
            "IMGPROXY_PRESETS": "default=q:75,thumb=rs:fill:100:100/g:sm",
            "IMGPROXY_ALLOWED_SOURCES": "https://images.example.com/,http://*.cdn.example.net", "SECURITY_KEY": "MY_SECURE_KEY",
        ])
        #expect(configuration.signingKeys == [
            try SigningKey(keyHex: "943b421c9eb07c83", saltHex: "520f986b998545b4"), try SigningKey(keyHex: "6b6579", saltHex: "73616c74"),
        ])
        #expect(configuration.signatureSize == 8)
        #expect(configuration.pipeline.maximumPixels == 12_500_000 && configuration.pipeline.maximumResponseBytes == 1_048_576)
        #expect(configuration.cacheMaxAge == .seconds(600) && configuration.defaultQuality == 70)
        #expect(configuration.formatQuality == [.webp: 60, .avif: 50])
        #expect(configuration.processingSlots == 6)
        #expect(configuration.queueLimit == 200 && configuration.requestTimeout == .milliseconds(12_500))
        #expect(try Self.read(["IMGPROXY_REQUESTS_QUEUE_SIZE": "0"]).queueLimit == ProxyConfiguration.unlimitedQueue, "imgproxy's no limit")
        #expect(configuration.presets == ["default": "q:75", "thumb": "rs:fill:100:100/g:sm"])
        #expect(configuration.sources.allowedPrefixes.map(\.description) == ["https://images.example.com/", "http://*.cdn.example.net"])
        #expect(configuration.thumborSecurityKeys == ["MY_SECURE_KEY"], "thumbor's key")
    }

    @Test func theOperatorsWatermarkIsReadOnceFromItsFile() throws {
        let mark = DecodedImage(width: 8, height: 4, pixels: Array([[UInt8]](repeating: [255, 0, 255, 255], count: 32).joined()))
        let png = try ImageEncoder().encode(mark, as: .png)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-wm-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromPath = try Self.read(["IMGPROXY_WATERMARK_PATH": file.path, "IMGPROXY_WATERMARK_OPACITY": "0.5"])
        let image = try #require(fromPath.watermark?.image)
        #expect(image.width == 8 && image.pixel(x: 0, y: 0) == (255, 0, 255, 255))
        #expect(fromPath.watermarkOpacity == 0.5)
        let fromData = try Self.read(["IMGPROXY_WATERMARK_DATA": Data(png).base64EncodedString()])
        // Named by the bytes, so the same image from either setting is one cache key.
        #expect(fromData.watermark?.identifier == fromPath.watermark?.identifier)
        let fromURL = try Self.read(["IMGPROXY_WATERMARK_URL": "https://cdn.example.com/wm.png"])
        #expect(fromURL.watermarkURL?.absoluteString == "https://cdn.example.com/wm.png" && fromURL.watermark == nil)
    }

    @Test func magpiesOwnKeysComeFirstAndUnsetSettingsKeepTheirDefaults() throws {
        let configuration = try Self.read([
            "MAGPIE_PROXY_KEY": "a1b2", "MAGPIE_PROXY_SALT": "c3d4", "IMGPROXY_KEY": "6b6579", "IMGPROXY_SALT": "73616c74",
        ])
        #expect(configuration.signingKeys == [try SigningKey(keyHex: "a1b2", saltHex: "c3d4")])
        let defaults = ProxyConfiguration()
        #expect(configuration.signatureSize == defaults.signatureSize && configuration.defaultQuality == defaults.defaultQuality)
        #expect(configuration.cacheMaxAge == defaults.cacheMaxAge && configuration.sources.allowsEveryHost)
    }

    /// thumbor's `MAX_PIXELS`, as thumbor writes it (a float, `75e6` by default).
    @Test func thumborsPixelLimitIsRead() throws {
        #expect(try Self.read(["MAX_PIXELS": "75e6"]).pipeline.maximumPixels == 75_000_000)
        #expect(try Self.read(["MAX_PIXELS": "120000000"]).pipeline.maximumPixels == 120_000_000)
        #expect(throws: ProxyConfigurationError(message: "MAX_PIXELS is pixels, 1 or more")) { try Self.read(["MAX_PIXELS": "0"]) }
    }

    @Test func sourceAddressesBeyondThePublicOnesAreAllowedByName() throws {
        #expect(ProxyConfiguration().pipeline.addressPolicy == .publicOnly)
        let loopback = try Self.read(["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"])
        #expect(loopback.pipeline.addressPolicy == AddressPolicy(allowing: .loopback))
        let both = try Self.read(["IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "1", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "T"])
        #expect(both.pipeline.addressPolicy == AddressPolicy(allowing: [.privateNetworks, .linkLocal]))
        let off = try Self.read(["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false"])
        #expect(off.pipeline.addressPolicy == .publicOnly)
    }

    @Test(arguments: [
        (["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "yes"], "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES is true or false"),
        (["IMGPROXY_QUALITY": "high"], "IMGPROXY_QUALITY is a whole number; 'high' is not"),
        (["IMGPROXY_TTL": "1d"], "IMGPROXY_TTL is a whole number; '1d' is not"),
        (["IMGPROXY_MAX_SRC_RESOLUTION": "lots"], "IMGPROXY_MAX_SRC_RESOLUTION is a number; 'lots' is not"),
        (["MAX_PIXELS": "inf"], "MAX_PIXELS is a number; 'inf' is not"),
        (["IMGPROXY_SIGNATURE_SIZE": "40"], "IMGPROXY_SIGNATURE_SIZE is bytes of the HMAC, 1 to 32"),
        (["IMGPROXY_KEY": "6b6579"], "IMGPROXY_SALT needs one salt per key in IMGPROXY_KEY (1 keys, 0 salts)"),
        (["IMGPROXY_KEY": "zz", "IMGPROXY_SALT": "00"], "IMGPROXY_KEY and IMGPROXY_SALT are hex: the signing key is not hex"),
        (["IMGPROXY_QUALITY": "0"], "IMGPROXY_QUALITY is 1 to 100"),
        (["IMGPROXY_WORKERS": "0"], "IMGPROXY_WORKERS is 1 or more"),
        (["IMGPROXY_REQUESTS_QUEUE_SIZE": "-1"], "IMGPROXY_REQUESTS_QUEUE_SIZE is 0 (no limit) or more"),
        (["IMGPROXY_TIMEOUT": "1e300"], "IMGPROXY_TIMEOUT is seconds, more than 0 and at most 3600"),
        (["IMGPROXY_TIMEOUT": "0"], "IMGPROXY_TIMEOUT is seconds, more than 0 and at most 3600"),
        (["IMGPROXY_FORMAT_QUALITY": "webp:60"], "IMGPROXY_FORMAT_QUALITY is FORMAT=QUALITY pairs, e.g. jpeg=80,webp=75; 'webp:60' is not"),
        (["IMGPROXY_PRESETS": "thumb"], "IMGPROXY_PRESETS is NAME=OPTIONS items; 'thumb' is not"),
        (["IMGPROXY_ALLOWED_SOURCES": "images.example.com/"],
         "IMGPROXY_ALLOWED_SOURCES takes URL prefixes (https://images.example.com/, local://, s3://bucket/); 'images.example.com/' is not one"),
        (["IMGPROXY_ALLOWED_SOURCES": "https:///photos/"],
         "IMGPROXY_ALLOWED_SOURCES takes URL prefixes (https://images.example.com/, local://, s3://bucket/); 'https:///photos/' is not one"),
        (["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/nonexistent/magpie-root"],
         "IMGPROXY_LOCAL_FILESYSTEM_ROOT is a folder; '/nonexistent/magpie-root' is not one"),
        (["IMGPROXY_WATERMARK_PATH": "/nonexistent/wm.png"], "IMGPROXY_WATERMARK_PATH names a file that cannot be read: /nonexistent/wm.png"),
        (["IMGPROXY_WATERMARK_DATA": "bm90IGFuIGltYWdl"],
         "IMGPROXY_WATERMARK_DATA is not an image Magpie can decode: Not a supported image: the data is not a JPEG, PNG, WebP, AVIF, GIF, HEIF, TIFF, BMP, ICO, JPEG XL or SVG image."),
        (["IMGPROXY_WATERMARK_URL": "file:///etc/wm.png"], "IMGPROXY_WATERMARK_URL is an http or https URL"),
        (["IMGPROXY_WATERMARK_OPACITY": "1.5"], "IMGPROXY_WATERMARK_OPACITY is 0 to 1"),
    ])
    func unusableSettingsAreRefusedByName(variables: [String: String], message: String) {
        #expect(throws: ProxyConfigurationError(message: message)) { try Self.read(variables) }
    }
}
