import CMagpieVips

/// The size a decode makes: the one geometry a decoder is handed (``DecodingOptions/target``).
///
/// The pipeline works it out once a request, from the request's ``ImageRequest/thumbnail`` or
/// its first processor (``init(_:)``), keys the decode by it, and resolves a layout against the
/// header it reads for the memory estimate; the decoder then only carries it out.
public enum DecodeTarget: Sendable, Hashable {
    /// Every pixel, at the image's own size.
    case whole
    /// Shrunk while decoding to this box (shrink-on-load, then resampled). A
    /// ``Fit/crop`` box is cut from the centre of the whole image instead.
    case thumbnail(ImageRequest.Thumbnail)
    /// At a reduced scale that leaves at least twice `size` on each side, where the format
    /// allows (libjpeg's DCT scaling, libwebp's scaled decode), `size` being what the layout
    /// then resamples the upright image to; the whole image's size is said in
    /// ``DecodedImage/fullSize``: a ``layout(_:)`` that shrinks
    /// ``Layout/DecoderShrink/leavingTwice``, resolved.
    case reduced(toward: DecodedImage.Size)
    /// What `layout` needs first: when it only scales the whole image down, the size it scales
    /// to (``scaled(to:whole:)``) or a reduced scale that leaves twice that
    /// (``reduced(toward:)``), as its ``Layout/decoderShrink`` says, once the header is read;
    /// otherwise every pixel.
    case layout(Layout)
    /// Straight to `size`, upright, with `whole` (the upright image's size) said in
    /// ``DecodedImage/fullSize``: a ``layout(_:)`` resolved, which then has no resize left to do.
    case scaled(to: DecodedImage.Size, whole: DecodedImage.Size)

    /// The target `request` decodes to: its thumbnail's box, or what its first processor (a
    /// resize or a layout) lets the decode shrink to; every pixel otherwise. A resize that only
    /// cuts keys the decode as every pixel, so it shares the decode of the image's other uses.
    public init(_ request: ImageRequest) {
        if let box = request.thumbnail {
            self = .thumbnail(box)
        } else if let resize = request.processors.first as? ImageProcessors.Resize, resize.fit != .crop {
            self = .layout(resize.layout)
        } else if let layout = request.processors.first as? ImageProcessors.Layout {
            self = .layout(layout.layout)
        } else {
            self = .whole
        }
    }

    /// The box the decode goes to: a thumbnail's (a crop box is cut from the whole image), or
    /// the exact size of a layout resolved.
    var box: ImageRequest.Thumbnail? {
        switch self {
        case .thumbnail(let box): box
        case .scaled(let size, _): ImageRequest.Thumbnail(width: size.width, height: size.height, fit: .exact)
        case .whole, .reduced, .layout: nil
        }
    }

    /// This target for an image with `header`: a layout that only scales the whole image down
    /// becomes the size it scales to, or a reduced scale that leaves twice that; any other
    /// layout, every pixel. One rule for the memory estimate, the pipeline and the decoder.
    func resolved(for header: magpie_header, keepsHighDepth: Bool) -> DecodeTarget {
        resolving(for: header, keepsHighDepth: keepsHighDepth).target
    }

    /// ``resolved(for:keepsHighDepth:)``, with the layout's plan it was read from, if one was
    /// made (``Layout/decodePlan(for:)``).
    func resolving(for header: magpie_header, keepsHighDepth: Bool) -> (target: DecodeTarget, plan: LayoutPlan?) {
        guard case .layout(let layout) = self else { return (self, nil) }
        guard let (size, upright, plan) = layout.decodePlan(for: header) else { return (.whole, nil) }
        switch layout.decoderShrink {
        case .leavingTwice:
            return (.reduced(toward: size), plan)
        case .toSize:
            // libvips' thumbnail writes 8 bits a sample: a depth to keep is decoded whole, and
            // the layout scales it.
            return (keepsHighDepth && header.deep != 0 ? .whole : .scaled(to: size, whole: upright), plan)
        }
    }

    /// The decoded image brought to the target: a crop box's centre cut. (A layout's whole size
    /// the decoder says itself, ``DecodedImage/fullSize``.)
    func finish(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
        guard case .thumbnail(let box) = self, box.fit == .crop else { return image }
        let (width, height) = (box.width > 0 ? box.width : image.width, box.height > 0 ? box.height : image.height)
        return try ImageProcessors.Crop(.gravity(.centre, width: width, height: height)).process(image)
    }

    /// Whether the pixels change after the decode (a centre cut), so nothing is encoded alongside.
    var cutsAfterDecode: Bool {
        if case .thumbnail(let box) = self { box.fit == .crop } else { false }
    }
}
