import Configuration
import Foundation
import Magpie

extension ProxyConfiguration {
    /// imgproxy's S3 settings, with the standard AWS ones beside them: `IMGPROXY_USE_S3`
    /// registers an ``S3Loader`` for `s3://bucket/key` sources.
    ///
    /// | Setting | Environment | |
    /// |---|---|---|
    /// | `imgproxy.use.s3` | `IMGPROXY_USE_S3` | read `s3://` sources |
    /// | `imgproxy.s3.endpoint`, `aws.endpoint.url.s3`, `aws.endpoint.url` | `IMGPROXY_S3_ENDPOINT`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL` | a store other than AWS (`http://` when no scheme is written) |
    /// | `imgproxy.s3.endpoint.use.path.style` | `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE` | `false` names buckets as hosts at the endpoint |
    /// | `imgproxy.s3.region`, `aws.region`, `aws.default.region` | `IMGPROXY_S3_REGION`, `AWS_REGION`, `AWS_DEFAULT_REGION` | the region signed for (`us-east-1`) |
    /// | `aws.access.key.id`, `aws.secret.access.key`, `aws.session.token` | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` | the keys; none sends requests unsigned |
    /// | `imgproxy.s3.allowed.buckets`, `.denied.buckets` | `IMGPROXY_S3_ALLOWED_BUCKETS`, `IMGPROXY_S3_DENIED_BUCKETS` | comma-separated bucket names |
    ///
    /// imgproxy's role assumption, decryption client and access points are not supported: set,
    /// they are an error rather than a store read without them.
    mutating func readObjectStorage(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        for (key, name) in [
            ("imgproxy.s3.assume.role.arn", "IMGPROXY_S3_ASSUME_ROLE_ARN"), ("imgproxy.s3.access.points", "IMGPROXY_S3_ACCESS_POINTS"),
        ] where settings.string(forKey: ConfigKey(key)).map({ !$0.isEmpty }) == true {
            throw Self.invalid(name, "is not supported by Magpie: give the keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        if try Self.boolean(settings, "imgproxy.s3.use.decryption.client", "IMGPROXY_S3_USE_DECRYPTION_CLIENT") == true {
            throw Self.invalid("IMGPROXY_S3_USE_DECRYPTION_CLIENT", "is not supported by Magpie")
        }
        let usesS3 = try Self.boolean(settings, "imgproxy.use.s3", "IMGPROXY_USE_S3") == true
        if usesS3 {
            let endpoint = try Self.s3Endpoint(settings)
            func buckets(_ key: String) -> Set<String> {
                Set((settings.stringArray(forKey: ConfigKey(key)) ?? []).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
            pipeline.sourceLoaders["s3"] = S3Loader(
                endpoint: endpoint, allowedBuckets: buckets("imgproxy.s3.allowed.buckets"), deniedBuckets: buckets("imgproxy.s3.denied.buckets"))
        }
        try readSharedStore(settings)
    }

    /// The shared store, Magpie's own settings (imgproxy keeps results in a shared store only in
    /// its paid edition), on the same endpoint and keys as `s3://` sources:
    ///
    /// | Setting | Environment | |
    /// |---|---|---|
    /// | `magpie.store.s3.bucket` | `MAGPIE_STORE_S3_BUCKET` | the bucket; set, results are shared |
    /// | `magpie.store.s3.prefix` | `MAGPIE_STORE_S3_PREFIX` | before every object's name (`magpie/`) |
    /// | `magpie.store.keeps` | `MAGPIE_STORE_KEEPS` | `results` (the default), `originals` or `both` |
    /// | `magpie.store.timeout` | `MAGPIE_STORE_TIMEOUT` | seconds one request to the store may take (`2`) |
    private mutating func readSharedStore(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        guard let bucket = settings.string(forKey: "magpie.store.s3.bucket")?.trimmingCharacters(in: .whitespaces), !bucket.isEmpty else {
            return
        }
        var store = SharedStore(endpoint: try Self.s3Endpoint(settings), bucket: bucket, prefix: settings.string(forKey: "magpie.store.s3.prefix") ?? "")
        switch settings.string(forKey: "magpie.store.keeps")?.lowercased() {
        case nil, "", "results", "variants": store.keeps = .variants
        case "originals": store.keeps = .originals
        case "both": store.keeps = .originalsAndVariants
        case let other?: throw Self.invalid("MAGPIE_STORE_KEEPS", "is results, originals or both; '\(other)' is not")
        }
        if let text = settings.string(forKey: "magpie.store.timeout")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let seconds = Double(text), seconds > 0, seconds <= 300 else {
                throw Self.invalid("MAGPIE_STORE_TIMEOUT", "is seconds, more than 0 and at most 300; '\(text)' is not")
            }
            store.timeout = .milliseconds(Int64(seconds * 1000))
        }
        pipeline.sharedStore = store
    }

    /// The store's endpoint: imgproxy's names first, then the standard AWS ones.
    private static func s3Endpoint(_ settings: ConfigReader) throws(ProxyConfigurationError) -> S3Endpoint {
        func text(_ keys: String...) -> String? {
            keys.lazy.compactMap { settings.string(forKey: ConfigKey($0), isSecret: $0.hasPrefix("aws.")) }.first { !$0.isEmpty }
        }
        var endpointURL: URL?
        if let written = text("imgproxy.s3.endpoint", "aws.endpoint.url.s3", "aws.endpoint.url") {
            let withScheme = written.contains("://") ? written : "http://" + written
            guard let url = URL(string: withScheme), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw Self.invalid("IMGPROXY_S3_ENDPOINT", "is an http or https URL of the store; '\(written)' is not")
            }
            endpointURL = url
        }
        let pathStyle = try Self.boolean(settings, "imgproxy.s3.endpoint.use.path.style", "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE") ?? true
        var credentials: AWSCredentials?
        switch (text("aws.access.key.id"), text("aws.secret.access.key")) {
        case (let id?, let secret?): credentials = AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: text("aws.session.token"))
        case (nil, nil): credentials = nil
        default: throw Self.invalid("AWS_ACCESS_KEY_ID", "and AWS_SECRET_ACCESS_KEY are set together, or neither")
        }
        return S3Endpoint(
            url: endpointURL, region: text("imgproxy.s3.region", "aws.region", "aws.default.region") ?? "us-east-1",
            credentials: credentials, addressing: endpointURL == nil ? .virtualHost : pathStyle ? .path : .virtualHost)
    }
}
