import Foundation
@testable import Magpie
import Testing

/// How a store is addressed and read from the standard variables, and how its refusals are
/// read; the signing itself is ``SigV4Tests``'s, the requests' acceptance SeaweedFS's.
@Suite("S3 endpoints")
struct S3EndpointTests {
    static let date = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func awsIsAddressedByVirtualHost() {
        let endpoint = S3Endpoint(region: "eu-west-3", credentials: AWSCredentials(accessKeyID: "id", secretAccessKey: "secret"))
        let request = endpoint.request("GET", bucket: "photos", key: "a b/ሴ.jpg", at: Self.date)
        #expect(request.url.absoluteString == "https://photos.s3.eu-west-3.amazonaws.com/a%20b/%E1%88%B4.jpg")
        #expect(request.headers["Host"] == "photos.s3.eu-west-3.amazonaws.com")
        #expect(request.headers["X-Amz-Content-SHA256"] == SigV4Signer.emptyPayloadHash)
        #expect(request.headers["Authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=id/20260921/eu-west-3/s3/aws4_request") == true)
    }

    @Test func anEndpointOfItsOwnIsAddressedByPath() {
        let store = S3Endpoint(url: URL(string: "http://127.0.0.1:8333")!)
        let request = store.request("GET", bucket: "photos", key: "x+y=z&.jpg", query: [(name: "versionId", value: "v 1")], at: Self.date)
        #expect(request.url.absoluteString == "http://127.0.0.1:8333/photos/x%2By%3Dz%26.jpg?versionId=v%201")
        #expect(request.headers["Host"] == "127.0.0.1:8333")
        #expect(request.headers["Authorization"] == nil, "no credentials: unsigned, for a public bucket")
        // A default port is not written in Host, as a client does not send it.
        let https = S3Endpoint(url: URL(string: "https://store.example:443/prefix/")!, addressing: .virtualHost)
        let virtual = https.request("GET", bucket: "b", key: "k", at: Self.date)
        #expect(virtual.url.absoluteString == "https://b.store.example:443/prefix/k")
        #expect(virtual.headers["Host"] == "b.store.example")
    }

    @Test func theStandardVariables() {
        let endpoint = S3Endpoint(environment: [
            "AWS_ENDPOINT_URL": "http://general:1", "AWS_ENDPOINT_URL_S3": "http://s3-only:2", "AWS_DEFAULT_REGION": "ap-south-1",
            "AWS_REGION": "eu-north-1", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
        ])
        #expect(endpoint.url.absoluteString == "http://s3-only:2")
        #expect(endpoint.region == "eu-north-1")
        #expect(endpoint.addressing == .path)
        #expect(endpoint.credentials?.sessionToken == "token")
        let aws = S3Endpoint(environment: [:])
        #expect(aws.url.absoluteString == "https://s3.us-east-1.amazonaws.com" && aws.credentials == nil && aws.addressing == .virtualHost)
    }

    @Test func refusalsAreReadFromTheirBody() {
        let body = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>AccessDenied</Code><Message>Access &amp; more
            denied.</Message><RequestId>1</RequestId></Error>
            """.utf8)
        #expect(S3ErrorAnswer(body).reason == "AccessDenied: Access & more denied.")
        #expect(S3ErrorAnswer(Array("<Error><Code>NoSuchKey</Code></Error>".utf8)).reason == "NoSuchKey")
        #expect(S3ErrorAnswer(Array("<html>bad gateway</html>".utf8)).reason == nil)
        #expect(S3ErrorAnswer(Array("<Code>\(String(repeating: "x", count: 1000))</Code>".utf8)).reason?.count == 300)
    }
}
