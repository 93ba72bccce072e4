import Magpie

/// How the options become a decode and processors: shrink-on-load does the scaling wherever it
/// can, so a 256 px thumbnail of a 12 MP JPEG never exists at full size.
struct RenderPlan: Sendable {
    let thumbnail: ImageRequest.Thumbnail?
    let processors: [any ImageProcessing]

    init(_ options: ProxyOptions) {
        let (width, height) = (options.pixelWidth, options.pixelHeight)
        var processors: [any ImageProcessing] = []
        switch options.fit {
        case .fit:
            thumbnail = width > 0 || height > 0 ? .init(width: width, height: height, contentMode: .fit) : nil
        case .fill where options.gravity == .centre:
            thumbnail = .init(width: width, height: height, contentMode: .fill)
        case .fill:
            // Shrunk only to cover the box, so the crop can keep the gravity's side.
            thumbnail = .init(width: width, height: height, contentMode: .cover)
            processors.append(.resize(width: width, height: height, mode: .fill(options.gravity)))
        case .crop:
            thumbnail = nil
            processors.append(.crop(width: width, height: height, gravity: options.gravity))
        }
        if options.blur > 0 { processors.append(.blur(sigma: options.blur * options.dpr)) }
        if options.cornerRadius > 0 { processors.append(.roundedCorners(radius: Double(options.cornerRadius) * options.dpr)) }
        self.processors = processors
    }
}
