import AsyncHTTPClient
import Foundation
import Magpie
import MagpieOrigin
import MagpieServer
import MagpieTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing

/// The replicas article's topology (its nginx block), run as an operator runs it: `magpie proxy` processes behind
/// nginx (a consistent hash on the source), one SeaweedFS bucket behind them. Every variant is
/// rendered once in all, a replica killed mid-run costs only what it held, and a replica
/// started afterwards answers from the store.
@Suite("Replicas sharing a store")
struct ReplicaScaleOutCommandTests {
    static let options = ["s:64", "s:96:96/fit:fill", "s:128", "s:160/q:70", "s:48:64/fit:fill", "s:200/f:webp"]

    /// One `magpie proxy` process.
    struct Replica {
        let process: Process
        let port: Int

        func metric(_ name: String, label: String? = nil, client: HTTPClient) async throws -> Double {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(30))
            let text = String(buffer: try await response.body.collect(upTo: 8 << 20))
            var total = 0.0
            for row in text.split(separator: "\n") where row.hasPrefix(name) && !row.hasPrefix("#") {
                let sample = row.split(separator: " ")
                guard sample.count >= 2, sample[0] == name || sample[0].hasPrefix(name + "{") else { continue }
                if let label, !sample[0].contains(label) { continue }
                total += Double(sample[1]) ?? 0
            }
            return total
        }
    }

    @Test func replicasRenderEachVariantOnceAndANewOneStartsWarm() async throws {
        try await S3SourceTests.withStore { store, prefix in
            let origin = try await ImageServer.start()
            let tool = try MagpieTool.locate()
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            var replicas: [Replica] = []
            var nginx: NginxReplicas?
            func startReplica() async throws -> Replica {
                let directory = tool.home.appending(path: "replica-\(UUID().uuidString)")
                let (process, output) = try tool.start(
                    [
                        "proxy", "--port", "0", "--signing-key", ProxyFixture.key, "--signing-salt", ProxyFixture.salt, "--allow-addresses", "loopback",
                        "--cache-dir", directory.path, "--log-level", "warning",
                    ],
                    environment: [
                        "MAGPIE_STORE_S3_BUCKET": "results", "MAGPIE_STORE_S3_PREFIX": prefix + "fleet/", "IMGPROXY_S3_ENDPOINT": store.endpoint.absoluteString,
                        "AWS_ACCESS_KEY_ID": store.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": store.credentials.secretAccessKey,
                    ])
                return Replica(process: process, port: try await MagpieTool.listeningPort(in: output))
            }
            func sum(_ name: String, label: String? = nil, over some: [Replica]) async throws -> Double {
                var total = 0.0
                for replica in some { total += try await replica.metric(name, label: label, client: client) }
                return total
            }
            do {
                let sources = (0..<100).map { "/photo\($0).jpg" }
                for (index, path) in sources.enumerated() {
                    origin.serve(path, .image(try TestImages.texture(width: 320, height: 240, format: .jpeg, seed: UInt32(index + 1))))
                }
                let signer = URLSigner(keys: [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)])
                var random = SeededRandom(seed: 35)
                let paths = sources.flatMap { source in
                    Self.options.map { options in
                        let encoded = origin.url(source).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                        return signer.sign("/\(options)/plain/\(encoded)")
                    }
                }.shuffled(using: &random)
                #expect(Set(paths).count == 600)
                for _ in 0..<3 { replicas.append(try await startReplica()) }
                let replicaPorts = replicas.map(\.port)
                let balancer = try await NginxReplicas { RunningReplicasArticle.nginx(replicas: replicaPorts, port: $0) }
                nginx = balancer

                // Eight clients through nginx; `onAnswer` sees each answer's count as it arrives.
                func requestAll(_ paths: [String], at base: @escaping @Sendable (String) -> URL, onAnswer: @escaping @Sendable (Int) -> Void = { _ in }) async -> [Int] {
                    let next = NIOLockedValueBox(0)
                    let answered = NIOLockedValueBox(0)
                    return await withTaskGroup(of: [Int].self) { group in
                        for _ in 0..<8 {
                            group.addTask {
                                var statuses: [Int] = []
                                while true {
                                    let index = next.withLockedValue { value -> Int in
                                        defer { value += 1 }
                                        return value
                                    }
                                    guard index < paths.count else { return statuses }
                                    var status = 0
                                    if let response = try? await client.execute(HTTPClientRequest(url: base(paths[index]).absoluteString), timeout: .seconds(60)),
                                        (try? await response.body.collect(upTo: 16 << 20)) != nil
                                    {
                                        status = Int(response.status.code)
                                    }
                                    statuses.append(status)
                                    onAnswer(answered.withLockedValue { $0 += 1; return $0 })
                                }
                            }
                        }
                        return await group.reduce(into: []) { $0 += $1 }
                    }
                }

                // First pass: every variant made, once, by the replica its source hashes to.
                let first = await requestAll(paths, at: { balancer.url($0) })
                #expect(first.count == 600 && first.allSatisfy { $0 == 200 }, "first pass: \(Dictionary(grouping: first) { $0 }.mapValues(\.count))")
                // The uploads finish after the answers.
                for _ in 0..<600 where try await sum("magpie_shared_store_total", label: "outcome=\"written\"", over: replicas) < 600 {
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(try await sum("magpie_variants_stored_total", over: replicas) == 600, "every variant rendered once in all")
                #expect(try await sum("magpie_shared_store_total", label: "outcome=\"written\"", over: replicas) == 600)
                let rendered = try await (0..<3).asyncMap { try await replicas[$0].metric("magpie_variants_stored_total", client: client) }
                #expect(rendered.allSatisfy { $0 > 0 }, "the hash spread the sources: \(rendered)")

                // Second pass, in another order: its first third with every replica up renders
                // nothing; then the second replica is killed while the rest is under way.
                let again = paths.shuffled(using: &random)
                let firstThird = await requestAll(Array(again.prefix(200)), at: { balancer.url($0) })
                #expect(firstThird.allSatisfy { $0 == 200 })
                #expect(try await sum("magpie_variants_stored_total", over: replicas) == 600, "the second pass renders nothing")
                let victim = replicas[1].process.processIdentifier
                let rest = await requestAll(Array(again.dropFirst(200)), at: { balancer.url($0) }) { answered in
                    if answered == 24 { kill(victim, SIGKILL) }
                }
                let failed = rest.filter { $0 != 200 }.count
                #expect(!replicas[1].process.isRunning, "the second replica was killed")
                #expect(failed <= 8, "only what the killed replica held may fail: \(failed)")
                let survivors = [replicas[0], replicas[2]]
                let renderedAgain = try await sum("magpie_variants_stored_total", over: survivors) - (rendered[0] + rendered[2])
                #expect(renderedAgain == 0, "the survivors read the killed replica's variants from the store instead of rendering them")
                #expect(try await sum("magpie_shared_store_total", label: "outcome=\"hit\"", over: survivors) > 0)

                // A new replica, cold memory and disk: the first pass's URLs come from the store.
                let fresh = try await startReplica()
                replicas.append(fresh)
                let freshPort = fresh.port
                let third = await requestAll(paths, at: { URL(string: "http://127.0.0.1:\(freshPort)\($0)")! })
                #expect(third.allSatisfy { $0 == 200 })
                #expect(try await fresh.metric("magpie_variants_stored_total", client: client) == 0, "nothing rendered")
                #expect(try await fresh.metric("magpie_shared_store_total", label: "outcome=\"hit\"", client: client) == 600)
                #expect(try await fresh.metric("magpie_downloads_total", client: client) == 0, "no original fetched")
            } catch {
                Issue.record(error)
            }
            try? await client.shutdown()
            nginx?.stop()
            for replica in replicas where ChildEnd.status(of: replica.process) == nil {
                replica.process.terminate()
                #expect(await MagpieTool.waitForExit(replica.process) == 0, "SIGTERM stops a replica cleanly")
            }
            await origin.shutdown()
            tool.cleanUp()
        }
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
