import Foundation
import MagpieTesting

/// `packaging/kubernetes.yaml`, the example the README shows, read with PyYAML (a reader Magpie
/// does not otherwise use), and its container's settings as the container test runs them.
struct KubernetesExample {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../packaging/kubernetes.yaml").standardized

    /// The YAML's documents, as JSON objects.
    let documents: [[String: Any]]

    init() throws {
        let script = "import json, sys, yaml; json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)"
        let json = try ChildProcess.run("python3", ["-c", script, Self.file.path])
        documents = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] ?? []
    }

    func document(_ kind: String) -> [String: Any]? {
        documents.first { $0["kind"] as? String == kind }
    }

    /// The Deployment's one container.
    var container: [String: Any] {
        let spec = (document("Deployment")?["spec"] as? [String: Any])?["template"] as? [String: Any]
        let containers = (spec?["spec"] as? [String: Any])?["containers"] as? [[String: Any]]
        return containers?.first ?? [:]
    }

    /// The container's `env` entries with a value, in order.
    var environment: [(name: String, value: String)] {
        (container["env"] as? [[String: Any]] ?? []).compactMap { entry in
            guard let name = entry["name"] as? String, let value = entry["value"] as? String else { return nil }
            return (name, value)
        }
    }

    /// The names the Secret gives the container through `envFrom`.
    var secretNames: [String] {
        ((document("Secret")?["stringData"] as? [String: Any]) ?? [:]).keys.sorted()
    }

    var securityContext: [String: Any] { container["securityContext"] as? [String: Any] ?? [:] }

    var limits: [String: Any] { (container["resources"] as? [String: Any])?["limits"] as? [String: Any] ?? [:] }

    /// The memory limit in bytes (`256Mi`).
    var memoryLimit: Int? { (limits["memory"] as? String).flatMap(Self.bytes) }

    /// The CPU limit in processors (`"1"`, `500m`).
    var cpuLimit: Double? {
        guard let text = (limits["cpu"] as? String) ?? (limits["cpu"] as? Int).map(String.init) else { return nil }
        return text.hasSuffix("m") ? Double(text.dropLast()).map { $0 / 1000 } : Double(text)
    }

    /// podman's flags for the container's security context and limits: what a kubelet asks of
    /// the runtime for this container.
    var podmanArguments: [String] {
        var arguments: [String] = []
        if let user = securityContext["runAsUser"] as? Int { arguments += ["--user", "\(user):\(securityContext["runAsGroup"] as? Int ?? user)"] }
        if securityContext["readOnlyRootFilesystem"] as? Bool == true { arguments.append("--read-only") }
        if securityContext["allowPrivilegeEscalation"] as? Bool == false { arguments += ["--security-opt", "no-new-privileges"] }
        let dropped = (securityContext["capabilities"] as? [String: Any])?["drop"] as? [String] ?? []
        arguments += dropped.map { "--cap-drop=\($0)" }
        if let memoryLimit { arguments += ["--memory", "\(memoryLimit)"] }
        if let cpuLimit { arguments += ["--cpus", "\(cpuLimit)"] }
        return arguments
    }

    /// Kubernetes' binary and decimal suffixes: `256Mi`, `1Gi`, `500M`.
    static func bytes(_ quantity: String) -> Int? {
        let suffixes: [(String, Int)] = [("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30), ("k", 1000), ("M", 1_000_000), ("G", 1_000_000_000)]
        for (suffix, scale) in suffixes where quantity.hasSuffix(suffix) {
            return Int(quantity.dropLast(suffix.count)).map { $0 * scale }
        }
        return Int(quantity)
    }
}
