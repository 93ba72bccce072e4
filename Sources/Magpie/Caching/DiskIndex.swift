import Foundation

/// What the disk cache knows about its files without opening them: size and last use.
///
/// Last use is kept here, not read from the file system's atime (which `noatime` and
/// `relatime` mounts do not keep), and persisted as the file's mtime, which the cache sets
/// itself on every hit.
struct DiskIndex {
    struct Entry {
        var size: Int
        var lastUsed: Date
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var totalSize = 0

    mutating func record(_ name: String, size: Int, lastUsed: Date) {
        if let old = entries[name] { totalSize -= old.size }
        entries[name] = Entry(size: size, lastUsed: lastUsed)
        totalSize += size
    }

    mutating func touch(_ name: String, at date: Date) {
        entries[name]?.lastUsed = date
    }

    mutating func remove(_ name: String) {
        if let old = entries.removeValue(forKey: name) { totalSize -= old.size }
    }

    mutating func removeAll() {
        entries.removeAll()
        totalSize = 0
    }

    /// Names to delete, least recently used first, until the total is at most `size`.
    func victims(toFit size: Int) -> [String] {
        guard totalSize > size else { return [] }
        var remaining = totalSize
        var names: [String] = []
        for (name, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard remaining > size else { break }
            names.append(name)
            remaining -= entry.size
        }
        return names
    }

    /// Names not used since `date`.
    func unused(since date: Date) -> [String] {
        entries.compactMap { $0.value.lastUsed < date ? $0.key : nil }
    }
}
