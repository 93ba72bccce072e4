/// What one decode makes, worked out once from its options before libvips is asked: the box
/// libvips decodes to (a layout that only scales down resolved to the size it scales to, with
/// shrink-on-load), the whole image's size to report beside it when it did, and the box to cut
/// from the centre of the whole image when a thumbnail fills its box by cropping.
struct DecodeTarget {
    /// What the shim is told: its thumbnail box or the resize it may shrink on load for.
    let options: DecodingOptions
    /// Said in ``DecodedImage/fullSize`` when the decode went straight to a layout's size.
    let wholeSize: DecodedImage.Size?
    /// Cut from the centre of the whole image, which is decoded at full size: nothing to
    /// downsample first.
    let centreCut: ImageRequest.Thumbnail?

    init(_ decoding: DecodingOptions, data: [UInt8]) {
        var options = decoding
        // A caller that has not read the header (the pipeline has) gets its layout resolved here.
        if options.thumbnail == nil, options.layoutFirst != nil, let header = DecodeMemory.header(of: data, vectorDPI: options.vectorDPI) {
            options = options.resolvingLayout(for: header)
        }
        wholeSize = options.thumbnail == nil ? nil : options.wholeSize
        options.wholeSize = nil
        if let box = options.thumbnail, box.fit == .crop {
            centreCut = box
            options.thumbnail = nil
            options.resizeFirst = nil
        } else {
            centreCut = nil
        }
        self.options = options
    }

    /// The decoded image brought to the target: the centre cut, and the whole size said.
    func finish(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
        var image = image
        if let box = centreCut {
            let (width, height) = (box.width > 0 ? box.width : image.width, box.height > 0 ? box.height : image.height)
            image = try ImageProcessors.Crop(.gravity(.centre, width: width, height: height)).process(image)
        }
        guard let wholeSize else { return image }
        return DecodedImage(
            width: image.width, height: image.height, pixels: image.pixels, sourceFormat: image.sourceFormat,
            sourceWidth: image.sourceWidth, sourceHeight: image.sourceHeight, animation: image.animation,
            firstFrameReason: image.firstFrameReason, fullSize: wholeSize, copyright: image.copyright,
            sourceOrientation: image.sourceOrientation, sampleDepth: image.sampleDepth)
    }
}
