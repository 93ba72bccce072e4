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
    /// ``ProxyConfiguration/thumborAutomaticFormat``, ``ProxyConfiguration/thumborOpaquePNGAsJPEG``
    /// and ``ProxyConfiguration/thumborOptionalFilters``.
    var automaticFormat: AutomaticFormat?
    var opaquePNGAsJPEG = false
    var optionalFilters: Set<String> = []
    /// ``ProxyConfiguration/thumborMaxAge``.
    var maxAge: Int?
    /// ``ProxyConfiguration/thumborSourceLimit``.
    var sourceLimit: DecodedImage.Size?
    /// ``ProxyConfiguration/thumborSVGDPI``.
    var svgDPI: Double = 150

    /// What thumbor writes a source in where no format is asked: its own format for those its
    /// engine writes (AVIF and HEIF too), TIFF as PNG; others as JPEG, or PNG with transparency.
    static let sourceFormats = EncodingRequest.webSourceFormats.merging([.avif: .avif, .heif: .heif, .tiff: .png]) { $1 }

    var kind: URLGrammar { .thumbor }

    /// thumbor's watermark alpha is the whole say.
    var watermarkOpacity: Double { 1 }

    /// thumbor's `HEALTHCHECK_ROUTE` (``ProxyConfiguration/thumborHealthcheckRoute``): a path,
    /// its trailing slash optional when it ends `/?`.
    var healthcheckRoute = "/healthcheck/?"

    var healthChecks: [String: String] {
        guard healthcheckRoute.hasSuffix("/?") else { return [healthcheckRoute: "WORKING"] }
        let path = String(healthcheckRoute.dropLast(2))
        return [path.isEmpty ? "/" : path: "WORKING", path + "/": "WORKING"]
    }

    /// What thumbor reads before its image kept; all but the signature when the path does not read.
    func redacted(_ path: String) -> String {
        guard let read = try? ThumborPath(path), path.hasSuffix(read.writtenSource) else {
            return "/" + (ProxyPath.split(path.drop { $0 == "/" }, at: "/").first ?? "") + "/REDACTED"
        }
        return path.dropLast(read.writtenSource.count) + "REDACTED"
    }

    func read(_ path: String) throws(ProxyURLError) -> ProxyURL {
        let (signature, signedPart) = try ProxyPath.signed(path)
        try checkSignature(signature, for: String(signedPart.dropFirst()))
        let path = try ThumborPath(path)
        var reading = try ThumborReading(path, limits: limits, optionalFilters: optionalFilters, sideLimit: sourceLimit)
        reading.options.limits.resultDimension = maximumResultDimension
        reading.options.sourceFormats = Self.sourceFormats
        // thumbor's `Cache-Control` is its MAX_AGE unless the URL's `max_age()` says otherwise.
        if reading.options.maxAge == nil { reading.options.maxAge = maxAge }
        reading.options.layout.sourceLimit = sourceLimit
        reading.options.vectorDPI = svgDPI
        if reading.options.format == nil {
            reading.options.format = automaticFormat.map { .automatic($0) }
            reading.options.opaquePNGAsJPEG = reading.opaquePNGAsJPEG ?? opaquePNGAsJPEG
        }
        return ProxyURL(
            options: reading.options, source: reading.source, sourceStem: "image", reply: path.meta ? .meta(reading.options) : .image,
            skipped: reading.skipped)
    }

    /// thumbor answers a source it cannot read as an image with a 400 (its handler's "cannot
    /// identify image file"), and one over `MAX_PIXELS` too, where imgproxy says 422.
    func status(for error: MagpieError) -> Int {
        switch error {
        case .unsupportedFormat, .decodingFailed, .imageTooLarge: 400
        default: FailureResponse.status(for: error)
        }
    }

    /// thumbor's watermark filter answers 400 for a mark it cannot load, whatever the reason.
    func status(forMark error: MagpieError) -> Int {
        if case .cancelled = error { return status(for: error) }
        return 400
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
