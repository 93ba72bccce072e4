import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// What the README tells an operator in a hurry (issue 52): the URL signing snippet signs as
/// imgproxy does, and the Kubernetes example it shows is `packaging/kubernetes.yaml` itself,
/// which the container test runs: the image of this version, probes on /health, the security
/// context and limits the test gives podman.
struct OperatorReadmeTests {
    static let readme = KubernetesExample.file.deletingLastPathComponent().appendingPathComponent("../README.md").standardized

    @Test func theSigningSnippetSignsAsImgproxyDoes() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let afterMarker = try #require(text.components(separatedBy: "<!-- signing:").dropFirst().first)
        let snippet = try #require(afterMarker.components(separatedBy: "```python\n").dropFirst().first?.components(separatedBy: "```").first)
        let source = "https://images.example.com/photos/a cat?.jpg"
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-sign-\(UUID().uuidString).py")
        try snippet.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let printed = try ChildProcess.run("env", ["KEY=\(ProxyFixture.key)", "SALT=\(ProxyFixture.salt)", "python3", script.path, source])
        let signer = URLSigner(keys: [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)])
        let path = "/rs:fill:300:200/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))! + "@webp"
        #expect(String(decoding: printed, as: UTF8.self) == "http://127.0.0.1:8080" + signer.sign(path) + "\n")
    }

    @Test func theReadmeShowsTheExampleFileAsItIs() throws {
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        let file = try String(contentsOf: KubernetesExample.file, encoding: .utf8)
        let blocks = readme.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        #expect(blocks.contains(file), "README.md's yaml block differs from packaging/kubernetes.yaml")
    }

    @Test func theExampleRunsThisVersionAsTheContainerTestRunsIt() throws {
        let example = try KubernetesExample()
        #expect(Set(example.documents.compactMap { $0["kind"] as? String }) == ["Secret", "Deployment", "Service", "HorizontalPodAutoscaler"])
        #expect((example.container["image"] as? String)?.hasSuffix("/magpie:\(MagpieVersion.current)") == true)
        let ports = example.container["ports"] as? [[String: Any]] ?? []
        #expect(ports.first?["containerPort"] as? Int == 8080)
        for probe in ["readinessProbe", "livenessProbe"] {
            let get = (example.container[probe] as? [String: Any])?["httpGet"] as? [String: Any]
            #expect(get?["path"] as? String == "/health", "\(probe)")
        }
        #expect(
            example.podmanArguments == [
                "--user", "65534:65534", "--read-only", "--security-opt", "no-new-privileges", "--cap-drop=ALL", "--memory", "268435456", "--cpus", "1.0",
            ])
        let mounts = (example.container["volumeMounts"] as? [[String: Any]] ?? []).compactMap { $0["mountPath"] as? String }
        #expect(mounts.contains("/var/cache/magpie"))
        #expect(example.environment.contains { $0.name == "MAGPIE_STORE_S3_BUCKET" })
    }
}
