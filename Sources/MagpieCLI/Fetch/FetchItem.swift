import Magpie

/// What `fetch` does to an image once it loads: decode at thumbnail size, then process.
struct FetchWork: Sendable {
    var thumbnail: ImageRequest.Thumbnail?
    var processors: [any ImageProcessing] = []

    /// Whether the written image differs from the downloaded one.
    var changesPixels: Bool { thumbnail != nil || !processors.isEmpty }
}

/// One entry of `fetch`'s list: a URL and, when its line gives any, its own work, which
/// replaces the command's: `URL --thumbnail 256x256 --fit fill`, `URL --process resize:1024x1024`.
/// One run can then mix jobs (thumbnails for most images, processed full-size ones for some).
struct FetchItem: Sendable {
    let url: String
    let work: FetchWork?

    /// A list line's options are a subset of the command's.
    static let lineOptions = "--thumbnail, --fit and --process"

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(line: String, number: Int) throws(ParseError) -> FetchItem {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let url = words.first else { throw ParseError(description: "line \(number) is empty") }
        guard words.count > 1 else { return FetchItem(url: url, work: nil) }
        var thumbnail: String?
        var fit = Fit.fit
        var processors: [any ImageProcessing] = []
        var index = 1
        while index < words.count {
            let option = words[index]
            guard index + 1 < words.count else {
                throw ParseError(description: "line \(number): \(option) needs a value")
            }
            let value = words[index + 1]
            switch option {
            case "--thumbnail":
                guard ThumbnailBox.parse(value) != nil else {
                    throw ParseError(description: "line \(number): --thumbnail must be WIDTHxHEIGHT, e.g. 256x256, not '\(value)'")
                }
                thumbnail = value
            case "--fit":
                do {
                    fit = try Fit.argument(value)
                } catch {
                    throw ParseError(description: "line \(number): \(error)")
                }
            case "--process":
                do {
                    processors = try ProcessingList.parse(value)
                } catch {
                    throw ParseError(description: "line \(number): \(error.description)")
                }
            default:
                throw ParseError(description: "line \(number): '\(option)' is not an option a line may give (\(lineOptions))")
            }
            index += 2
        }
        let box = thumbnail.flatMap { ThumbnailBox.parse($0, fit: fit) }
        return FetchItem(url: url, work: FetchWork(thumbnail: box, processors: processors))
    }
}
