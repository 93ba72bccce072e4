import Foundation

/// The checks a request passes before any work starts.
extension PipelineContext {
    func validate(_ input: StageInput) throws(MagpieError) {
        let url = input.request.url
        let scheme = url.scheme?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" {
            guard let host = url.host, !host.isEmpty else { throw .invalidURL(url.absoluteString, reason: "it has no host") }
            try input.keys.sources.check(url, hop: 0, of: url)
        } else if scheme == "file" {
            guard sourceLoaders["file"] != nil else {
                throw .invalidURL(url.absoluteString, reason: "file URLs are not allowed by the configuration")
            }
        } else {
            guard sourceLoaders[scheme] != nil else {
                throw .invalidURL(url.absoluteString, reason: "the scheme \(scheme.isEmpty ? "(none)" : scheme) is not allowed")
            }
            try input.keys.sources.check(url, hop: 0, of: url)
        }
        if !input.request.options.contains(.retryFailed), blocklist.contains(input.keys.data) {
            throw .blocked(url)
        }
    }
}
