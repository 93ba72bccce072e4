import Foundation

/// One expectation from a peer's own test suite, transcribed as data
/// (Tests/PeerExpectations/imgproxy.tsv and thumbor.tsv; their format is in the README there):
/// the source, the URL, and what the peer answers.
struct PeerRow: Sendable, CustomStringConvertible {
    let peerFile: String
    let peerTest: String
    let config: [String: String]
    let source: String
    let path: String
    let status: Int?
    let format: String?
    let width: Int?
    let height: Int?
    let checks: [(key: String, value: String)]
    let notes: String

    /// Which row a known gap names.
    var key: String { peerTest + "\t" + path }

    var description: String { "\(peerFile) \(peerTest): \(path)" }

    /// The rows of a peer's file.
    static func load(_ peer: String) throws -> [PeerRow] {
        let text = try String(contentsOf: PeerExpectations.folder.appendingPathComponent("\(peer).tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line -> PeerRow? in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 10 else { return nil }
            func value(_ index: Int) -> String? { fields[index] == "-" || fields[index].isEmpty ? nil : fields[index] }
            let config = value(2).map { text in
                Dictionary(text.split(separator: ";").compactMap { pair -> (String, String)? in
                    guard let equals = pair.firstIndex(of: "=") else { return nil }
                    return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
                }, uniquingKeysWith: { $1 })
            } ?? [:]
            let checks = value(9).map { text in
                text.split(separator: ";").map { part -> (String, String) in
                    guard let equals = part.firstIndex(of: "=") else { return (String(part), "") }
                    return (String(part[..<equals]), String(part[part.index(after: equals)...]))
                }
            } ?? []
            return PeerRow(
                peerFile: fields[0], peerTest: fields[1], config: config, source: fields[3], path: fields[4],
                status: value(5).flatMap { Int($0) }, format: value(6), width: value(7).flatMap { Int($0) },
                height: value(8).flatMap { Int($0) }, checks: checks, notes: fields.count > 10 ? fields[10] : "")
        }
    }
}

/// Where the rows are, and the rows Magpie does not answer as the peer does yet, each with why
/// (gaps.tsv: peer, test, path, reason).
enum PeerExpectations {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("PeerExpectations")

    static func gaps(_ peer: String) throws -> [String: String] {
        let text = try String(contentsOf: folder.appendingPathComponent("gaps.tsv"), encoding: .utf8)
        var gaps: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, fields[0] == peer else { continue }
            gaps[fields[1] + "\t" + fields[2]] = fields[3]
        }
        return gaps
    }
}
