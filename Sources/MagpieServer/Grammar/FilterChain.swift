public import Magpie

/// The processors a URL asks for beyond its layout, built once from its options, in the order
/// they run: imgproxy's in its fixed order whatever the URL's, thumbor's in the URL's. Two
/// chains are equal when their processors' identifiers are, which name what they make.
public struct FilterChain: Sendable, Hashable {
    /// In the order they run.
    public private(set) var processors: [any ImageProcessing] = []

    /// No processors.
    public init() {}

    var isEmpty: Bool { processors.isEmpty }

    /// Runs `processor` after those already in the chain.
    mutating func append(_ processor: any ImageProcessing) {
        processors.append(processor)
    }

    var identifiers: [String] { processors.map(\.identifier) }

    /// The chain with `patch` in every nine-patch frame (each written with a stand-in, which
    /// names it the same, until its patch is fetched).
    func framing(with patch: ImageProcessors.Watermark.Mark) -> FilterChain {
        var chain = self
        chain.processors = processors.map { processor in
            guard let frame = processor as? ImageProcessors.NinePatchFrame else { return processor }
            return ImageProcessors.NinePatchFrame(patch: patch, limits: frame.limits)
        }
        return chain
    }

    public static func == (left: FilterChain, right: FilterChain) -> Bool {
        left.identifiers == right.identifiers
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifiers)
    }
}
