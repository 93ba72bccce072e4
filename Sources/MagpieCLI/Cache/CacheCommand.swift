import ArgumentParser
import Foundation
import Magpie

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and manage the disk cache.",
        subcommands: [Stats.self, Trim.self, Clear.self, Path.self])

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show how many images the cache holds and their size.")
        @OptionGroup var cache: CacheLocation

        func run() async throws {
            let directory = cache.directory
            guard let dataCache = await CacheCommand.open(directory) else {
                print("No cache at \(directory.path) (0 images, 0 B).")
                return
            }
            let (count, variants, size) = (await dataCache.count, await dataCache.variantCount, await dataCache.totalSize)
            print("Cache:     \(directory.path)")
            print("Images:    \(count)")
            print("Originals: \(count - variants)")
            print("Variants:  \(variants)")
            print("Size:      \(ByteCount.format(size))")
        }
    }

    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove least recently used images until the cache fits a size.")
        @Option(help: ArgumentHelp("Size to fit in, e.g. 100MB, 1.5GB, 512MiB.", valueName: "size"))
        var maxSize: String
        @OptionGroup var cache: CacheLocation

        func validate() throws {
            guard ByteCount.parse(maxSize) != nil else {
                throw ValidationError("--max-size must be a size such as 100MB, 1.5GB or 512MiB, not '\(maxSize)'.")
            }
        }

        func run() async throws {
            let limit = ByteCount.parse(maxSize)!
            guard let dataCache = await CacheCommand.open(cache.directory) else {
                print("No cache at \(cache.directory.path); nothing to trim.")
                return
            }
            let (count, size) = (await dataCache.count, await dataCache.totalSize)
            await dataCache.trim(toSize: limit)
            let (newCount, newSize) = (await dataCache.count, await dataCache.totalSize)
            print("Removed \(count - newCount) images (\(ByteCount.format(size - newSize))); \(newCount) images, \(ByteCount.format(newSize)) remain.")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every cached image.")
        @OptionGroup var cache: CacheLocation

        func run() async throws {
            guard let dataCache = await CacheCommand.open(cache.directory) else {
                print("No cache at \(cache.directory.path); nothing to clear.")
                return
            }
            let (count, size) = (await dataCache.count, await dataCache.totalSize)
            await dataCache.removeAll()
            print("Removed \(count) images (\(ByteCount.format(size))) from \(cache.directory.path).")
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the cache folder.")
        @OptionGroup var cache: CacheLocation

        func run() {
            print(cache.directory.path)
        }
    }

    /// The cache in `directory` once its opening scan is done, or `nil` if there is none (so
    /// looking at a cache never creates one).
    static func open(_ directory: URL) async -> DataCache? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        // No size limit and no age limit: looking must not evict anything by itself.
        let configuration = DataCache.Configuration(directory: directory, sizeLimit: .max, maximumAge: .seconds(Int64.max / 2))
        let cache = DataCache(configuration: configuration)
        await cache.flush()
        return cache
    }
}
