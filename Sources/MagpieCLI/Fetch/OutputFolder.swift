import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder `fetch --output` writes into, and the file names it gives images.
struct OutputFolder {
    let directory: URL

    /// Creates the folder if needed and proves it can be written, before anything is fetched.
    init(path: String) throws(OutputFolderError) {
        directory = URL(fileURLWithPath: path, isDirectory: true)
        try Self.makeFolders(directory, shownAs: path)
        let probe = directory.appendingPathComponent(".magpie-write-test-\(UUID().uuidString)").path
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw OutputFolderError(path: path, reason: Self.lastSystemError()) }
        close(descriptor)
        unlink(probe)
    }

    /// `mkdir -p`, done by hand so a failure names its cause ("Not a directory") instead of
    /// Foundation's generic error.
    private static func makeFolders(_ directory: URL, shownAs path: String) throws(OutputFolderError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                let what = directory.standardizedFileURL.path == URL(fileURLWithPath: path).standardizedFileURL.path ? "it" : directory.path
                throw OutputFolderError(path: path, reason: "\(what) is a file, not a folder")
            }
            return
        }
        let parent = directory.deletingLastPathComponent()
        if parent.path != directory.path { try makeFolders(parent, shownAs: path) }
        guard mkdir(directory.path, 0o755) == 0 || errno == EEXIST else {
            throw OutputFolderError(path: path, reason: lastSystemError())
        }
    }

    private static func lastSystemError() -> String { String(cString: strerror(errno)) }

    /// File names without extension for `urls`, in order: the URL's last path component without
    /// its extension, with `-2`, `-3`… added when names clash. Decided up front from the input
    /// order, so the same input always gives the same names whatever order loads finish in.
    static func baseNames(for urls: [URL?]) -> [String] {
        var used: Set<String> = []
        return urls.map { url in
            let stem = url.map(stem(of:)) ?? "image"
            var name = stem
            var counter = 2
            while !used.insert(name.lowercased()).inserted {
                name = "\(stem)-\(counter)"
                counter += 1
            }
            return name
        }
    }

    /// A safe file name from the URL: no separators, no leading dot, at most 100 characters.
    static func stem(of url: URL) -> String {
        let component = url.deletingPathExtension().lastPathComponent
        let cleaned = String(
            component.unicodeScalars.map { scalar in
                CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
            }
        )
        .drop { $0 == "." }
        .prefix(100)
        return cleaned.isEmpty || component == "/" ? "image" : String(cleaned)
    }

    /// Writes `bytes` as `name.ext`, replacing a file from an earlier run atomically.
    func write(_ bytes: [UInt8], name: String, fileExtension: String) throws(OutputFolderError) -> URL {
        let file = directory.appendingPathComponent("\(name).\(fileExtension)")
        do {
            try Data(bytes).write(to: file, options: .atomic)
        } catch {
            throw OutputFolderError(path: file.path, reason: URLList.reason(error))
        }
        return file
    }
}

/// The output folder or a file in it cannot be written.
struct OutputFolderError: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "cannot write to the output folder '\(path)': \(reason)" }
}
