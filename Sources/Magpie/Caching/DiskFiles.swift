import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file-system side of the disk cache: naming, atomic writes, reads, scans.
struct DiskFiles: Sendable {
    let directory: URL
    private var path: String { directory.path }

    struct ScannedFile {
        var name: String
        var size: Int
        var modified: Date
    }

    enum FileError: Error, CustomStringConvertible {
        case system(operation: String, path: String, errno: Int32)

        var description: String {
            switch self {
            case .system(let operation, let path, let code):
                "\(operation) \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Names are hashes, so no key (`../`, NUL bytes, 10 kB of query string) can pick a path.
    func name(for key: String) -> String {
        DiskEntryFormat.sha256Hex(key)
    }

    /// A variant's file is named after its original's, so removing a URL finds its variants
    /// in the index without reading any file.
    func name(for key: String, variant: String) -> String {
        name(for: key) + "-" + DiskEntryFormat.sha256Hex(variant)
    }

    /// Whether `name` is a variant of the original named `original`.
    static func isVariant(_ name: String, of original: String) -> Bool {
        name.utf8.count == 129 && name.hasPrefix(original + "-")
    }

    static func isVariant(_ name: String) -> Bool { name.utf8.count == 129 }

    func url(for name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: false)
    }

    func createDirectory() throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func read(_ name: String) -> [UInt8]? {
        let descriptor = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0 else { return nil }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + offset, size - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            offset += count
        }
        return bytes
    }

    /// Writes to a unique temporary file in the same directory, then renames it over `name`,
    /// so readers see the old file or the new one, never a mixture.
    func writeAtomically(_ bytes: [UInt8], as name: String, recreatingDirectory: Bool = true) throws {
        let temporary = path + "/.tmp-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            // The directory may have been deleted under us: make it again once and retry.
            if errno == ENOENT, recreatingDirectory {
                try createDirectory()
                return try writeAtomically(bytes, as: name, recreatingDirectory: false)
            }
            throw FileError.system(operation: "create", path: temporary, errno: errno)
        }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, bytes.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let code = errno
                close(descriptor)
                unlink(temporary)
                throw FileError.system(operation: "write", path: temporary, errno: code)
            }
            offset += count
        }
        close(descriptor)
        guard rename(temporary, path + "/" + name) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileError.system(operation: "rename", path: temporary, errno: code)
        }
    }

    func remove(_ name: String) {
        unlink(path + "/" + name)
    }

    func setModified(_ name: String, to date: Date) {
        let seconds = date.timeIntervalSince1970
        var moment = timespec()
        moment.tv_sec = time_t(seconds)
        moment.tv_nsec = Int((seconds - seconds.rounded(.down)) * 1e9)
        let times = [moment, moment]
        _ = utimensat(AT_FDCWD, path + "/" + name, times, 0)
    }

    /// Where `d_name` starts in a `dirent`.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    /// Every entry file with its size and last-use time; leftover temporary files are removed.
    func scan() -> [ScannedFile] {
        guard let directoryStream = opendir(path) else { return [] }
        defer { closedir(directoryStream) }
        var files: [ScannedFile] = []
        while let item = readdir(directoryStream) {
            // Read in place up to its NUL: an entry is only as long as its name (`d_reclen`), and
            // copying the whole 256-byte `d_name` out of `pointee` read past the last entry of the
            // buffer into an unmapped page (a crash in the suite, once).
            let name = String(cString: UnsafeRawPointer(item).advanced(by: Self.nameOffset).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            let full = path + "/" + name
            if name.hasPrefix(".tmp-") {
                // Left by a writer that died; one still writing (another process) is recent.
                var status = stat()
                if stat(full, &status) == 0, time(nil) - status.st_mtim.tv_sec > 3600 { unlink(full) }
                continue
            }
            // Only names this cache could have made (SHA-256 in hex, or two joined by "-" for a
            // variant), so a cache pointed at a folder with other files never evicts or clears them.
            guard Self.isEntryName(name) else { continue }
            var status = stat()
            guard stat(full, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Date(
                timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
            files.append(ScannedFile(name: name, size: Int(status.st_size), modified: modified))
        }
        return files
    }
}

extension DiskFiles {
    fileprivate static func isEntryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        func isHash(_ part: ArraySlice<UInt8>) -> Bool { part.count == 64 && part.allSatisfy(\.isLowercaseHexDigit) }
        switch bytes.count {
        case 64: return isHash(bytes[...])
        case 129: return bytes[64] == UInt8(ascii: "-") && isHash(bytes[..<64]) && isHash(bytes[65...])
        default: return false
        }
    }
}

extension UInt8 {
    fileprivate var isLowercaseHexDigit: Bool { (0x30...0x39).contains(self) || (0x61...0x66).contains(self) }
}
