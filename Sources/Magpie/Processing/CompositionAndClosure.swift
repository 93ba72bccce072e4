extension ImageProcessors {
    /// Several processors run as one, in order. As one processor it is one node of the request
    /// graph: requests that list the same processors separately share more work.
    public struct Composition: ImageProcessing {
        /// The processors, in the order they run.
        public let processors: [any ImageProcessing]

        /// Creates a composition.
        public init(_ processors: [any ImageProcessing]) {
            self.processors = processors
        }

        public var identifier: String {
            "magpie.composition/1(" + processors.map(\.identifier).joined(separator: ",") + ")"
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            var current = image
            for processor in processors { current = try processor.run(on: current) }
            return current
        }
    }

    /// A processor made from a closure. The identifier is the caller's promise: two closures
    /// given the same identifier must do the same thing, and a changed closure needs a new one.
    ///
    /// The closure sees stills only: an animation is passed to it one frame at a time
    /// (``DecodedImage/mapFrames(_:)``) and put back together with its timing.
    public struct Anonymous: ImageProcessing {
        public let identifier: String
        private let transform: @Sendable (DecodedImage) throws(MagpieError) -> DecodedImage

        /// Creates a processor that calls `transform`.
        public init(identifier: String, _ transform: @escaping @Sendable (DecodedImage) throws(MagpieError) -> DecodedImage) {
            self.identifier = identifier
            self.transform = transform
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try image.mapFrames(transform)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Composition {
    /// Several processors run as one.
    public static func composition(_ processors: [any ImageProcessing]) -> Self { ImageProcessors.Composition(processors) }
}

extension ImageProcessing where Self == ImageProcessors.Anonymous {
    /// A processor made from a closure with a caller-given identifier.
    public static func custom(
        identifier: String, _ transform: @escaping @Sendable (DecodedImage) throws(MagpieError) -> DecodedImage
    ) -> Self {
        ImageProcessors.Anonymous(identifier: identifier, transform)
    }
}
