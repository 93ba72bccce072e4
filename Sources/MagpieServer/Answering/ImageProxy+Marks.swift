import Foundation
import Magpie

/// Watermark marks: fetched, decoded or drawn within the request's admission, kept by what they are.
extension ImageProxy {
    /// The longest side a fetched mark keeps: 16 MB of pixels at most.
    static let markSide = 2048

    /// A 1x1 transparent pixel: the mark's pixels in a request only used for its key.
    static let markStandIn = DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 0])

    /// The mark ready now (the operator's image), or the one to fetch or draw when answering.
    func watermarkMark(_ watermark: WatermarkOptions) throws(ProxyURLError) -> (ImageProcessors.Watermark.Mark?, WatermarkOptions.Mark?) {
        switch watermark.mark {
        case .configured:
            if let mark = configuration.watermark { return (mark, nil) }
            if let url = configuration.watermarkURL { return (nil, .url(url)) }
            // Taken out of the options, and said, when reading the request.
            return (nil, nil)
        case .url(let url):
            if case .failure(let refusal) = Result(catching: { () throws(MagpieError) in try pipeline.configuration.sourcePolicy.check(url) }) {
                throw .sourceNotAllowed("the watermark: \(refusal.description)")
            }
            return (nil, watermark.mark)
        case .text:
            return (nil, watermark.mark)
        }
    }

    /// A frame's nine-patch, fetched at its own size (shrinking it would blur the one-pixel
    /// markers along its border), kept in ``marks`` like a mark; one over ``markSide`` on a side
    /// is refused.
    func framePatch(_ url: URL) async -> Result<ImageProcessors.Watermark.Mark, MagpieError> {
        let identifier = ThumborFilters.frameIdentifier(url)
        let key = ImageCacheKey(dataKey: "magpie-frame:" + identifier, thumbnail: nil)
        if let kept = marks[key] { return .success(.init(identifier: identifier, image: kept)) }
        do {
            var request = ImageRequest(url: url, options: [.firstFrameOnly])
            request.diskCachePolicy = .originals
            let image = try await pipeline.image(for: request).container.image
            guard image.width <= Self.markSide, image.height <= Self.markSide else {
                return .failure(.imageTooLarge(width: image.width, height: image.height, limit: Self.markSide * Self.markSide))
            }
            marks.store(image, for: key)
            return .success(.init(identifier: identifier, image: image))
        } catch {
            return .failure(error)
        }
    }

    func markIdentifier(_ mark: WatermarkOptions.Mark) -> String {
        switch mark {
        case .configured: "configured"
        // The bound a fetched mark is shrunk to is part of what it looks like.
        case .url(let url): "url:" + pipeline.configuration.cacheKey(url) + "#within:\(Self.markSide)"
        case .text(let text): ImageProcessors.Watermark.Mark.textIdentifier(text)
        }
    }

    /// Why a mark could not be made: its text (the URL's fault, a 400) or its image.
    enum MarkFailure: Error {
        case drawing(String)
        case loading(MagpieError)
    }

    /// Fetches (through the pipeline and its caches, under the source rules) or draws a mark,
    /// once the request is admitted: an image mark is decoded on the decoding threads within
    /// the decode budget like any source; a text mark is drawn there too, within the budget for
    /// the area its markup may cover. Both are kept in ``marks`` by their identifier (a text
    /// mark's is its markup's digest).
    func markImage(_ mark: WatermarkOptions.Mark) async -> Result<ImageProcessors.Watermark.Mark, MarkFailure> {
        let identifier = markIdentifier(mark)
        let key = ImageCacheKey(dataKey: "magpie-mark:" + identifier, thumbnail: nil)
        if let kept = marks[key] { return .success(.init(identifier: identifier, image: kept)) }
        let made: ImageProcessors.Watermark.Mark
        switch mark {
        case .url(let url):
            do {
                // A mark larger than this is shrunk to fit while it decodes: it is laid on a
                // result of at most the output limit, and held while that result is made. Only
                // its original bytes are kept on disk: a variant is JPEG when opaque, and a
                // mark's edges would come back blurred by it.
                let bound = ImageRequest.Thumbnail(width: Self.markSide, height: Self.markSide, fit: .fit)
                var request = ImageRequest(url: url, thumbnail: bound, options: [.firstFrameOnly])
                request.diskCachePolicy = .originals
                made = .init(identifier: identifier, image: try await pipeline.image(for: request).container.image)
            } catch {
                return .failure(.loading(error))
            }
        case .configured:
            // Resolved to the operator's image or URL before any work is pending.
            return .failure(.loading(.processingFailed(processor: "magpie.watermark", reason: "no watermark is configured")))
        case .text(let text):
            do {
                let markup = try ImageProcessors.Watermark.Mark.checkText(text)
                // Pango and cairo hold the text as ARGB, then libvips copies it out: about
                // three copies of four bytes a pixel.
                made = try await pipeline.runOnDecodingThreads(memory: markup.estimatedPixels * 12) { () throws(MagpieError) in
                    try ImageProcessors.Watermark.Mark.text(text)
                }
            } catch .cancelled {
                return .failure(.loading(.cancelled))
            } catch .processingFailed(_, let reason) {
                return .failure(.drawing(reason))
            } catch {
                return .failure(.drawing(error.description))
            }
        }
        marks.store(made.image, for: key)
        return .success(made)
    }
}
