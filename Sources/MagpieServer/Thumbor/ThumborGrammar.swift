import Foundation
import Magpie

/// thumbor's grammar: `/<signature>/[meta/]...<image>` (``ThumborPath``), signed with HMAC-SHA1
/// over exactly the path after the signature segment, filters as thumbor applies them, and
/// thumbor's statuses: a bad signature or a source that is not an image is a 400.
struct ThumborGrammar: ProxyGrammar {
    let signer: ThumborSigner
    let limits: ProcessingLimits
    let allowsUnsignedURLs: Bool
    /// The operator's longest result side (``ProxyConfiguration/maximumResultDimension``).
    var maximumResultDimension: Int?
    /// ``ProxyConfiguration/thumborAutoFormats`` and ``ProxyConfiguration/thumborOpaquePNGAsJPEG``.
    var autoFormats: Set<ImageFormat> = []
    var opaquePNGAsJPEG = false

    var kind: URLGrammar { .thumbor }

    /// thumbor's watermark alpha is the whole say.
    var watermarkOpacity: Double { 1 }

    var healthChecks: [String: String] { ["/healthcheck": "WORKING"] }

    func read(_ path: String) throws(ProxyURLError) -> ProxyURL {
        let (signature, signedPart) = try ProxyPath.signed(path)
        try checkSignature(signature, for: String(signedPart.dropFirst()))
        let path = try ThumborPath(path)
        var reading = try ThumborReading(path, limits: limits)
        reading.options.limits.resultDimension = maximumResultDimension
        if reading.options.format == nil {
            if !autoFormats.isEmpty { reading.options.format = .acceptedAmong(autoFormats) }
            reading.options.opaquePNGAsJPEG = opaquePNGAsJPEG
        }
        return ProxyURL(
            options: reading.options, source: reading.source, sourceStem: "image", reply: path.meta ? .meta(reading.options) : .image,
            skipped: reading.skipped)
    }

    /// thumbor answers a source it cannot read as an image with a 400 (its handler's "cannot
    /// identify image file"), where imgproxy says 422.
    func status(for error: MagpieError) -> Int {
        switch error {
        case .unsupportedFormat, .decodingFailed: 400
        default: FailureResponse.status(for: error)
        }
    }

    /// thumbor's handler answers a source its loader does not allow, like any URL it refuses, 400.
    func status(for error: ProxyURLError) -> Int {
        switch error.kind {
        case .malformed, .signature, .source: 400
        case .expired, .other: error.status
        }
    }

    /// A missing, unsafe-but-not-allowed or wrong signature is a 400 (its handler's "Malformed
    /// URL"), where imgproxy's URLs get a 403.
    private func checkSignature(_ signature: String, for signedPart: String) throws(ProxyURLError) {
        if signature == "unsafe" {
            guard allowsUnsignedURLs else { throw .malformed("unsigned URLs are not accepted here") }
            return
        }
        guard signer.isValid(signature, for: signedPart) else { throw .malformed("the signature does not match the URL") }
    }
}
