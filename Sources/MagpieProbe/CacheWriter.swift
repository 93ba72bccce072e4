import Foundation
import Magpie
import MagpieTesting

/// Writes disk-cache entries as fast as it can until killed. Entry `n` has key `entry-n` and a
/// payload the test can rebuild from the key alone (``payload(for:)``), so after a crash every
/// entry found can be checked byte for byte.
enum CacheWriter {
    static func run(directory: URL, sizeLimit: Int) async {
        let cache = DataCache(configuration: DataCache.Configuration(directory: directory, sizeLimit: sizeLimit))
        var index = 0
        while true {
            let key = "entry-\(index)"
            cache.store(CachedData(key: key, data: TestPayloads.cacheEntry(index), metadata: HTTPMetadata(etag: "\"\(index)\"")))
            // Overwrite and delete some entries too, so a kill can land in those paths as well.
            if index % 7 == 3 { cache.store(CachedData(key: "entry-\(index - 2)", data: TestPayloads.cacheEntry(index - 2), metadata: HTTPMetadata())) }
            if index % 11 == 5 { await cache.removeEntry(for: "entry-\(index - 4)") }
            FileHandle.standardOutput.write(Data("\(index)\n".utf8))
            if index % 16 == 0 { await cache.flush() }
            index += 1
        }
    }
}
