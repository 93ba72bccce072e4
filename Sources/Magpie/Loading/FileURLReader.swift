import Dispatch
import Foundation

/// Reads `file:` URLs (when the configuration allows them) on a dispatch queue, keeping
/// blocking I/O off Swift's thread pool.
enum FileURLReader {
    static func read(_ url: URL, limit: Int) async throws(MagpieError) -> LoadedData {
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(MagpieError) in try readNow(url, limit: limit) })
            }
        }
        return try result.get()
    }

    private static func readNow(_ url: URL, limit: Int) throws(MagpieError) -> LoadedData {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int
        else { throw .network(NetworkFailure(.other, "cannot read \(path)")) }
        guard size <= limit else { throw .responseTooLarge(limit: limit) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .network(NetworkFailure(.other, "cannot read \(path)")) }
        return LoadedData(bytes: Array(data), metadata: nil, source: .disk)
    }
}
