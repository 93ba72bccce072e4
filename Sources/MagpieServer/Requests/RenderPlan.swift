import Foundation
import Magpie

/// How the options become the pipeline's request: a decode-time thumbnail and processors.
/// Shrink-on-load does the scaling wherever it can, so a 256 px thumbnail of a 12 MP JPEG never
/// exists at full size.
struct RenderPlan: Sendable {
    let thumbnail: ImageRequest.Thumbnail?
    let processors: [any ImageProcessing]
    let firstFrameOnly: Bool

    init(_ options: ProxyOptions, limits: ProcessingLimits) throws(ProxyURLError) {
        let (width, height) = (options.pixelWidth, options.pixelHeight)
        var processors: [any ImageProcessing] = []
        switch options.fit {
        case .fit, .exact, .cover:
            thumbnail = width > 0 || height > 0 ? .init(width: width, height: height, fit: options.fit) : nil
        case .fill where options.gravity == .centre:
            thumbnail = .init(width: width, height: height, fit: .fill)
        case .fill:
            // Shrunk only to cover the box, so the crop can keep the gravity's side.
            thumbnail = .init(width: width, height: height, fit: .cover)
            processors.append(.resize(width: width, height: height, fit: .fill, gravity: options.gravity))
        case .crop:
            thumbnail = nil
            processors.append(.crop(width: width, height: height, gravity: options.gravity))
        }
        for option in ProcessingOption.all {
            guard let values = options.processing[option.name] else { continue }
            do {
                if let processor = try option.processor(.init(values, scale: options.dpr, limits: limits)) { processors.append(processor) }
            } catch {
                throw .malformed("option '\(option.name)': \(error.description)")
            }
        }
        self.processors = processors
        firstFrameOnly = options.firstFrame
    }

    /// What the pipeline is asked to load for `source`.
    func imageRequest(for source: URL) -> ImageRequest {
        ImageRequest(url: source, thumbnail: thumbnail, processors: processors, options: firstFrameOnly ? [.firstFrameOnly] : [])
    }
}
