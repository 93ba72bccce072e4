import ArgumentParser
import Foundation

/// URLs from the command line and from a file or standard input, one per line; blank lines
/// and lines starting with `#` are skipped.
enum URLList {
    /// Reads the list at `path` (`-` for standard input).
    static func read(_ path: String) throws -> [String] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("Cannot read the URL list '\(path)': \(Self.reason(error)).")
            }
        }
        return lines(of: String(decoding: data, as: UTF8.self))
    }

    static func lines(of text: String) -> [String] {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The system's words for a file error ("No such file or directory").
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
