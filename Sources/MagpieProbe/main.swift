// Helper processes for the reliability tests, which need work done in a process they can
// kill or measure on its own:
//
//   MagpieProbe write-cache DIR SIZE_LIMIT   stores entries forever, printing each index once
//                                             handed to the cache; killed with SIGKILL by the test
//   MagpieProbe decode MAX_PIXELS FILE...    decodes each file, printing one JSON line per file
//                                             with the time and peak memory it took
//   MagpieProbe thumbnail MAX_PIXELS BOX FILE...   the same, downsampled into a BOX x BOX square
//   MagpieProbe pixels MAX_PIXELS DIR FILE... decodes each file (full size, first frame), writing
//                                             its RGBA pixels into DIR and a JSON line per file
//   MagpieProbe soak PHOTO_DIR LOADS CONCURRENCY BOX|full cache|no-cache EVERY
//                                             loads LOADS distinct URLs of the photos (full size or
//                                             as BOX thumbnails, with or without the memory cache),
//                                             printing a JSON memory sample every EVERY loads
//   MagpieProbe burst CACHE_DIR BOX|full URL...   loads every URL at once through a default
//                                             pipeline, printing one JSON line with the peak memory
//   MagpieProbe nginx                         starts an nginx the way the tests do, prints its port
//                                             and waits to be killed
import Foundation
import Magpie
import MagpieTesting

#if canImport(Glibc)
import Glibc
#endif

// Before any other thread allocates, as `magpie` does: see MallocArenas.
_ = MallocArenas.limit
let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "write-cache":
    guard arguments.count == 3, let limit = Int(arguments[arguments.startIndex + 2]) else { usage() }
    await CacheWriter.run(directory: URL(fileURLWithPath: arguments[arguments.startIndex + 1]), sizeLimit: limit)
case "decode":
    guard arguments.count >= 2, let maximumPixels = Int(arguments[arguments.startIndex + 1]) else { usage() }
    DecodeMeter.run(files: Array(arguments.dropFirst(2)), maximumPixels: maximumPixels, thumbnail: nil)
case "thumbnail":
    guard arguments.count >= 3, let maximumPixels = Int(arguments[arguments.startIndex + 1]),
          let box = Int(arguments[arguments.startIndex + 2]), box > 0 else { usage() }
    let thumbnail = ImageRequest.Thumbnail(width: box, height: box)
    DecodeMeter.run(files: Array(arguments.dropFirst(3)), maximumPixels: maximumPixels, thumbnail: thumbnail)
case "pixels":
    guard arguments.count >= 3, let maximumPixels = Int(arguments[arguments.startIndex + 1]) else { usage() }
    PixelDump.run(
        directory: URL(fileURLWithPath: arguments[arguments.startIndex + 2]), files: Array(arguments.dropFirst(3)),
        maximumPixels: maximumPixels)
case "soak":
    let values = Array(arguments.dropFirst())
    guard values.count == 6, let loads = Int(values[1]), let concurrency = Int(values[2]), concurrency > 0,
        let every = Int(values[5]), every > 0, ["cache", "no-cache"].contains(values[4])
    else { usage() }
    let box = Int(values[3])
    guard box != nil || values[3] == "full" else { usage() }
    try await SoakRun.run(SoakRun.Settings(
        photos: URL(fileURLWithPath: values[0]), loads: loads, concurrency: concurrency,
        thumbnail: box.map { ImageRequest.Thumbnail(width: $0, height: $0) }, memoryCache: values[4] == "cache",
        reportEvery: every))
case "burst":
    let values = Array(arguments.dropFirst())
    guard values.count >= 3, Int(values[1]) != nil || values[1] == "full" else { usage() }
    let urls = values.dropFirst(2).compactMap { URL(string: $0) }
    await BurstRun.run(
        urls: urls, thumbnail: Int(values[1]).map { ImageRequest.Thumbnail(width: $0, height: $0) },
        cacheDirectory: URL(fileURLWithPath: values[0]))
case "nginx":
    let server = try await NginxServer()
    FileHandle.standardOutput.write(Data(("nginx listening on " + server.url("/").absoluteString + "\n").utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
default:
    usage()
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: MagpieProbe write-cache DIR SIZE_LIMIT | decode MAX_PIXELS FILE... | thumbnail MAX_PIXELS BOX FILE... | pixels MAX_PIXELS DIR FILE... | soak PHOTO_DIR LOADS CONCURRENCY BOX|full cache|no-cache EVERY | burst CACHE_DIR BOX|full URL... | nginx\n".utf8))
    exit(2)
}
