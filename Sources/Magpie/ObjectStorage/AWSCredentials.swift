/// The keys that sign requests to an object store speaking the S3 protocol.
///
/// ```swift
/// let credentials = AWSCredentials(environment: ProcessInfo.processInfo.environment)
/// ```
public struct AWSCredentials: Sendable, Hashable {
    /// The access key's id (`AWS_ACCESS_KEY_ID`).
    public var accessKeyID: String
    /// The secret that signs (`AWS_SECRET_ACCESS_KEY`).
    public var secretAccessKey: String
    /// The token of temporary credentials (`AWS_SESSION_TOKEN`), sent with each request.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials the standard variables name, or `nil` when either key is missing or
    /// empty.
    public init?(environment: [String: String]) {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }
}

extension AWSCredentials: CustomStringConvertible {
    /// The key id only: a logged configuration must not carry the secret.
    public var description: String { "AWSCredentials(\(accessKeyID), secret hidden)" }
}
