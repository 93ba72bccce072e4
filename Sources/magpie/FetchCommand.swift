import ArgumentParser
import Foundation
import Magpie

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Load images through the pipeline and print what happened.")

    @Argument(help: "Image URLs.")
    var urls: [String]

    @Option(help: "Decode to fit inside WxH, e.g. 256x256.")
    var thumbnail: String?

    @Option(help: "Disk cache directory (default: $XDG_CACHE_HOME/magpie or ~/.cache/magpie).")
    var cacheDir: String?

    func validate() throws {
        if let thumbnail, Thumbnail.parse(thumbnail) == nil {
            throw ValidationError("--thumbnail must look like 256x256, not '\(thumbnail)'.")
        }
    }

    func run() async throws {
        var configuration = ImagePipeline.Configuration()
        if let cacheDir { configuration.diskCache = .init(directory: URL(fileURLWithPath: cacheDir)) }
        let box = thumbnail.flatMap(Thumbnail.parse)
        var failures = 0
        await withImagePipeline(configuration: configuration) { pipeline in
            for text in urls {
                guard let url = URL(string: text), url.scheme != nil else {
                    print("\(text): error: not a URL")
                    failures += 1
                    continue
                }
                do {
                    let response = try await pipeline.image(for: ImageRequest(url: url, thumbnail: box))
                    let image = response.image
                    print("\(text): \(image.width)x\(image.height) \(image.sourceFormat.rawValue) from \(response.source.rawValue)")
                } catch {
                    print("\(text): error: \(error)")
                    failures += 1
                }
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }
}

enum Thumbnail {
    static func parse(_ text: String) -> ImageRequest.Thumbnail? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
        return ImageRequest.Thumbnail(width: width, height: height)
    }
}
