// Helper processes for the reliability tests, which need work done in a process they can
// kill or measure on its own:
//
//   MagpieProbe write-cache DIR SIZE_LIMIT   stores entries forever, printing each index once
//                                             handed to the cache; killed with SIGKILL by the test
//   MagpieProbe decode MAX_PIXELS FILE...    decodes each file, printing one JSON line per file
//                                             with the time and peak memory it took
//   MagpieProbe thumbnail MAX_PIXELS BOX FILE...   the same, downsampled into a BOX x BOX square
import Foundation
import Magpie

#if canImport(Glibc)
import Glibc
#endif

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
default:
    usage()
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: MagpieProbe write-cache DIR SIZE_LIMIT | decode MAX_PIXELS FILE... | thumbnail MAX_PIXELS BOX FILE...\n".utf8))
    exit(2)
}
