import Dispatch
import Glibc
public import Foundation

/// Reads images from the file system: `file:` URLs by their absolute paths, or, with a root,
/// the paths of URLs of any scheme below that folder (imgproxy's `local:///path` sources,
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`). Below a root, a path with a `..` segment, or one that a
/// symbolic link leads out of the root, is refused: only what is in the folder can be read.
/// Reads run on a dispatch queue, keeping blocking I/O off Swift's thread pool.
public struct FileSystemLoader: SourceLoader {
    /// The folder paths are read below; `nil` reads `file:` URLs' absolute paths.
    public let root: URL?

    /// A loader for `file:` URLs (what ``ImagePipeline/Configuration/allowsFileURLs`` registers).
    public init() {
        root = nil
    }

    /// A loader for the paths of URLs below `root`.
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// Files are read when asked, never kept in the disk cache.
    public var isRemote: Bool { false }

    public func load(_ request: SourceRequest) async throws(MagpieError) -> SourceResponse {
        try await .loaded(read(request.url, limit: request.limit))
    }

    /// The bytes of the file `url` names, at most `limit` of them.
    public func read(_ url: URL, limit: Int) async throws(MagpieError) -> SourceData {
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(MagpieError) in try readNow(url, limit: limit) })
            }
        }
        return try result.get()
    }

    private func readNow(_ url: URL, limit: Int) throws(MagpieError) -> SourceData {
        let path = try self.path(of: url)
        // Only a regular file: opening a named pipe would wait for a writer, and a device may
        // never end.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw .sourceNotFound(url) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .sourceNotFound(url) }
        defer { try? handle.close() }
        // One byte past the limit tells a file over it from one at it, however the file
        // changes between a size check and the read.
        let data: Data?
        do {
            data = try handle.read(upToCount: limit + 1)
        } catch {
            throw .sourceNotFound(url)
        }
        let bytes = data.map(Array.init) ?? []
        guard bytes.count <= limit else { throw .responseTooLarge(limit: limit) }
        return SourceData(bytes: bytes)
    }

    /// The file `url` names: its own path, or the path below the root, with every link
    /// resolved, refused when it leaves the root.
    private func path(of url: URL) throws(MagpieError) -> String {
        let written = url.path(percentEncoded: false)
        guard let root else { return written }
        let segments = written.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains("..") else {
            throw .invalidURL(url.absoluteString, reason: "its path climbs out of the root folder with '..'")
        }
        let rootPath = root.path(percentEncoded: false)
        let joined = segments.reduce(rootPath.hasSuffix("/") ? String(rootPath.dropLast()) : rootPath) { $0 + "/" + $1 }
        guard let resolved = Self.realPath(joined) else { throw .sourceNotFound(url) }
        let resolvedRoot = Self.realPath(rootPath) ?? rootPath
        guard resolved == resolvedRoot || resolved.hasPrefix(resolvedRoot.hasSuffix("/") ? resolvedRoot : resolvedRoot + "/") else {
            throw .invalidURL(url.absoluteString, reason: "a symbolic link leads out of the root folder")
        }
        return resolved
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
