import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// The request signing, against the published SigV4 test suite and against botocore's S3
/// signer on generated requests: keys with every kind of character, queries, ranges,
/// conditions, temporary credentials.
@Suite("SigV4 signing")
struct SigV4Tests {
    static let reference = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Reference")

    struct Suite: Decodable {
        struct Case: Decodable {
            let name: String
            let method: String
            let target: String
            let headers: [[String]]
            let body: String
            let authorization: String
        }

        let accessKeyID: String
        let secretAccessKey: String
        let region: String
        let service: String
        let cases: [Case]
    }

    static func date(_ timestamp: String) throws -> Date {
        let strategy = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted)
        return try Date(timestamp, strategy: strategy)
    }

    @Test func thePublishedTestSuite() throws {
        let suite = try JSONDecoder().decode(Suite.self, from: Data(contentsOf: Self.reference.appending(path: "aws4-testsuite.json")))
        #expect(suite.cases.count == 24)
        for testCase in suite.cases {
            let headers = testCase.headers.map { (name: $0[0], value: $0[1]) }
            let token = headers.first { $0.name.lowercased() == "x-amz-security-token" }?.value
            let timestamp = try #require(headers.first { $0.name.lowercased() == "x-amz-date" }?.value)
            let (rawPath, _, rawQuery) = testCase.target.partitioned(by: "?")
            // The suite writes its requests as they go on the wire: a query percent-encoded or
            // not, a path in UTF-8.
            let query = rawQuery.split(separator: "&").map { pair in
                let (name, _, value) = String(pair).partitioned(by: "=")
                return (name: name.removingPercentEncoding ?? name, value: value.removingPercentEncoding ?? value)
            }
            let signer = SigV4Signer(
                credentials: AWSCredentials(accessKeyID: suite.accessKeyID, secretAccessKey: suite.secretAccessKey, sessionToken: token),
                region: suite.region, service: suite.service)
            let request = SigV4Signer.Request(
                method: testCase.method, path: SigV4Signer.uriEncode(rawPath, keepingSlashes: true), query: query,
                headers: headers.filter { !["x-amz-date", "x-amz-security-token"].contains($0.name.lowercased()) },
                payloadHash: DiskEntryFormat.sha256Hex(Array(testCase.body.utf8)))
            let added = signer.signingHeaders(for: request, at: try Self.date(timestamp))
            #expect(added.first { $0.name == "Authorization" }?.value == testCase.authorization, "\(testCase.name)")
            #expect(added.first { $0.name == "X-Amz-Date" }?.value == timestamp, "\(testCase.name)")
        }
    }

    /// One request as botocore is asked to sign it and as Magpie signs it.
    struct Generated: Encodable {
        let method: String
        let host: String
        let bucket: String
        let key: String
        let query: [[String]]
        let headers: [[String]]
        let body: String
        let accessKeyID: String
        let secretAccessKey: String
        let sessionToken: String?
        let region: String
        let time: String
    }

    @Test func agreesWithBotocoreOnGeneratedRequests() throws {
        var random = SeededRandom(seed: 35)
        let alphabet = Array("abcXYZ019-_.~ /+=&%?#:@!$'()*,;[]éሴ😀\u{7F}")
        let hosts = ["127.0.0.1:8333", "bucket.s3.eu-west-3.amazonaws.com", "localhost:9000"]
        let regions = ["us-east-1", "eu-west-3", "auto"]
        var generated: [Generated] = []
        var requests: [(SigV4Signer, SigV4Signer.Request, Date)] = []
        for index in 0..<200 {
            let key = String((0..<Int.random(in: 1...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let bucket = "bucket-\(index % 3)"
            let path = "/\(bucket)/" + SigV4Signer.uriEncode(key, keepingSlashes: true)
            var query: [(name: String, value: String)] = []
            if index % 4 == 1 { query = [(name: "uploads", value: "")] }
            if index % 4 == 2 { query = [(name: "uploadId", value: "2~Ab/c+d=\(index)"), (name: "partNumber", value: "\(index % 9 + 1)")] }
            let host = hosts[index % hosts.count]
            var headers = [(name: "Host", value: host)]
            if index % 3 == 0 { headers.append((name: "Range", value: "bytes=\(index * 100)-")) }
            if index % 5 == 0 { headers.append((name: "If-None-Match", value: "*")) }
            if index % 7 == 0 { headers.append((name: "Content-Type", value: "image/jpeg;   charset =  x")) }
            if index % 11 == 0 { headers.append((name: "x-amz-meta-magpie-expires", value: "  \(index)  ")) }
            let body = index % 2 == 0 ? "" : String(repeating: "part \(index) ", count: index)
            let payloadHash = DiskEntryFormat.sha256Hex(Array(body.utf8))
            headers.append((name: "X-Amz-Content-SHA256", value: payloadHash))
            let credentials = AWSCredentials(
                accessKeyID: "AKID\(index)", secretAccessKey: "secret/\(index)+key",
                sessionToken: index % 6 == 0 ? "token-\(index)//+==" : nil)
            let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 86_399.5)
            let region = regions[index % regions.count]
            let method = index % 2 == 0 ? "GET" : "PUT"
            generated.append(
                Generated(
                    method: method, host: host, bucket: bucket, key: key, query: query.map { [$0.name, $0.value] },
                    headers: headers.map { [$0.name, $0.value] }, body: body, accessKeyID: credentials.accessKeyID,
                    secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken, region: region,
                    time: SigV4Signer.timestamp(date)))
            requests.append(
                (
                    SigV4Signer(credentials: credentials, region: region, service: "s3"),
                    SigV4Signer.Request(method: method, path: path, query: query, headers: headers, payloadHash: payloadHash), date
                ))
        }
        let input = FileManager.default.temporaryDirectory.appending(path: "sigv4-\(UUID().uuidString).json")
        try JSONEncoder().encode(generated).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let output = try PythonScript.run(Self.reference.appending(path: "sigv4_botocore.py"), [input.path])
        let expected = try JSONDecoder().decode([[String: String]].self, from: output)
        try #require(expected.count == requests.count)
        for (index, (signer, request, date)) in requests.enumerated() {
            let added = Dictionary(uniqueKeysWithValues: signer.signingHeaders(for: request, at: date).map { ($0.name, $0.value) })
            #expect(added["Authorization"] == expected[index]["Authorization"], "request \(index): \(generated[index].key)")
            #expect(added["X-Amz-Date"] == expected[index]["X-Amz-Date"])
            #expect(added["X-Amz-Security-Token"] == expected[index]["X-Amz-Security-Token"])
            #expect(request.payloadHash == expected[index]["X-Amz-Content-SHA256"])
        }
    }

    @Test func credentialsFromTheEnvironment() {
        #expect(AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a"]) == nil)
        #expect(AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": ""]) == nil)
        let credentials = AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": ""])
        #expect(credentials == AWSCredentials(accessKeyID: "a", secretAccessKey: "s"))
        #expect(!"\(credentials!)".contains("s)"), "the secret is never printed")
    }
}

/// SplitMix64: the same requests on every run, so a failure can be looked at again.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension String {
    /// Before the first `separator`, the separator, and after it (empty when absent).
    fileprivate func partitioned(by separator: Character) -> (String, String, String) {
        guard let index = firstIndex(of: separator) else { return (self, "", "") }
        return (String(self[..<index]), String(separator), String(self[self.index(after: index)...]))
    }
}
