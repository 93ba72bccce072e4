import Foundation
import Magpie

/// The JSON answers about a source rather than an image: imgproxy's `/info` and thumbor's
/// `meta/`.
enum SourceDescription {
    /// imgproxy's keys for what was asked, plus `orientation` (EXIF, 1 to 8); the size is
    /// upright, as Magpie serves the image. The header is read, and the blurhash computed, on
    /// the pipeline's decoding threads; the blurhash's thumbnail is the pipeline's own load of
    /// `request`'s source (within the decode budget, shrunk while decoding, cached).
    static func info(
        of data: [UInt8], request: ImageRequest, asked options: InfoOptions, pipeline: ImagePipeline
    ) async throws(MagpieError) -> [UInt8] {
        let info = try await pipeline.runOnDecodingThreads { () throws(MagpieError) in try ImageInfo(reading: data) }
        var object: [String: Any] = ["orientation": info.orientation]
        if options.format { object["format"] = info.format.rawValue }
        if options.dimensions { (object["width"], object["height"]) = (info.width, info.height) }
        if options.size { object["size"] = data.count }
        if options.pagesNumber { object["pages_number"] = info.frameCount }
        if let components = options.blurhash {
            // A thumbnail is plenty for a few cosine components, and JPEGs shrink while loading.
            var thumbnailRequest = request
            (thumbnailRequest.thumbnail, thumbnailRequest.processors) = (.init(width: 64, height: 64, fit: .fit), [])
            thumbnailRequest.options.insert(.firstFrameOnly)
            let thumbnail = try await pipeline.image(for: thumbnailRequest).container.image
            object["blurhash"] = try await pipeline.runOnDecodingThreads { () throws(MagpieError) in
                try Blurhash.encode(thumbnail.frame(0), componentsX: components[0], componentsY: components[1])
            }
        }
        return json(object)
    }

    /// thumbor's `meta/` shape: the source, the crops and resize thumbor's transformer would run
    /// (in the source's pixels; a smart crop is reported centred), the flips, and the target.
    static func meta(of data: [UInt8], source: URL, options: ProxyOptions) throws(MagpieError) -> [UInt8] {
        let info = try ImageInfo(reading: data)
        let plan = LayoutPlan(options.layout, source: DecodedImage.Size(width: info.width, height: info.height))
        var operations: [[String: Any]] = []
        var shown = DecodedImage.Size(width: info.width, height: info.height)
        if let crop = plan.crop {
            let (x, y, width, height) = rectangle(crop, within: shown)
            operations.append(["type": "crop", "left": x, "top": y, "right": x + width, "bottom": y + height])
            shown = DecodedImage.Size(width: width, height: height)
        }
        let scaled = plan.scaled ?? shown
        if let cut = plan.resultCrop {
            // Thumbor cuts before it resizes: the window in the (cropped) source's pixels.
            let (x, y, width, height) = rectangle(cut, within: scaled)
            let across = Double(shown.width) / Double(scaled.width), down = Double(shown.height) / Double(scaled.height)
            let left = Int((Double(x) * across).rounded()), top = Int((Double(y) * down).rounded())
            operations.append([
                "type": "crop", "left": left, "top": top,
                "right": Int((Double(x + width) * across).rounded()), "bottom": Int((Double(y + height) * down).rounded()),
            ])
        }
        let target = plan.size
        if plan.scaled != nil || plan.resultCrop != nil { operations.append(["type": "resize", "width": target.width, "height": target.height]) }
        if options.layout.flipHorizontal { operations.append(["type": "flip_horizontally"]) }
        if options.layout.flipVertical { operations.append(["type": "flip_vertically"]) }
        return json([
            "thumbor": [
                "source": ["url": source.absoluteString, "width": info.width, "height": info.height, "frameCount": info.frameCount],
                "operations": operations,
                "target": ["width": target.width, "height": target.height],
            ] as [String: Any]
        ])
    }

    private static func rectangle(_ cut: LayoutPlan.Cut, within size: DecodedImage.Size) -> (Int, Int, Int, Int) {
        switch cut {
        case .rectangle(let x, let y, let width, let height): (x, y, width, height)
        case .smart(_, let width, let height): ((size.width - width) / 2, (size.height - height) / 2, width, height)
        }
    }

    private static func json(_ object: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8))
    }
}
