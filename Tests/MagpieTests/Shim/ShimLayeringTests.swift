import Foundation
import Testing

/// The C shim's files call each other in one direction only (the layers are drawn in
/// `shim_internal.h`): a loop between files means two ideas have grown into each other.
@Suite("C shim layering")
struct ShimLayeringTests {
    static let shim = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Sources/CMagpieVips").standardizedFileURL

    /// Which file defines each `magpie_` function, and which files each file calls into.
    static func calls() throws -> [String: Set<String>] {
        let files = try FileManager.default.contentsOfDirectory(atPath: shim.path).filter { $0.hasSuffix(".c") }
        var sources: [String: String] = [:]
        for file in files { sources[file] = try String(contentsOf: shim.appendingPathComponent(file), encoding: .utf8) }
        // A definition starts a line and its parameter list is followed by a body, not `;`.
        let definition = try Regex(#"(?m)^[A-Za-z_][\w \*]*?\b(magpie_\w+)\([^;{]*\)\s*\{"#)
        let call = try Regex(#"\b(magpie_\w+)\s*\("#)
        var definedIn: [String: String] = [:]
        for (file, text) in sources {
            for match in text.matches(of: definition) {
                if let name = match.output[1].substring { definedIn[String(name)] = file }
            }
        }
        var edges: [String: Set<String>] = [:]
        for (file, text) in sources {
            let called = text.matches(of: call).compactMap { $0.output[1].substring.map(String.init) }
            edges[file] = Set(called.compactMap { definedIn[$0] }.filter { $0 != file })
        }
        return edges
    }

    @Test func filesCallEachOtherWithoutLoops() throws {
        let edges = try Self.calls()
        #expect(edges.count >= 10, "the shim's sources were found")
        #expect(edges["decode.c"]?.contains("frames.c") == true, "the analysis sees calls between files")
        var finished: Set<String> = []
        var onPath: [String] = []
        func visit(_ file: String) {
            if finished.contains(file) { return }
            if let start = onPath.firstIndex(of: file) {
                Issue.record("a loop: \((onPath[start...] + [file]).joined(separator: " → "))")
                return
            }
            onPath.append(file)
            for next in (edges[file] ?? []).sorted() { visit(next) }
            onPath.removeLast()
            finished.insert(file)
        }
        for file in edges.keys.sorted() { visit(file) }
    }

    @Test func privateHeadersStayOutOfThePublicFolder() throws {
        let published = try FileManager.default.contentsOfDirectory(atPath: Self.shim.appendingPathComponent("include").path)
        // What Swift imports: the shim's API headers, and geometry shared by decode and process.
        #expect(Set(published).isSubset(of: [
            "magpie_decode.h", "magpie_encode.h", "magpie_formats.h", "magpie_geometry.h", "magpie_process.h", "magpie_runtime.h",
            "magpie_text.h",
        ]), "\(published.sorted())")
    }
}
