import CMagpieVips

extension ImageProcessors {
    /// Resamples an image to exactly `width` by `height` pixels: the step every geometry ends
    /// in. Reducing is a box average then Lanczos-3, enlarging Lanczos-3 (bicubic along a single
    /// axis), premultiplied where there is transparency. An image decoded at a reduced scale
    /// (``DecodedImage/fullSize``) is resampled from what it holds.
    struct Resample: ImageProcessing, Hashable {
        let width: Int
        let height: Int

        var identifier: String { "magpie.resample/1?width=\(width)&height=\(height)" }

        func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            var box = magpie_resize_box(
                width: Int32(clamping: width), height: Int32(clamping: height), fit: MAGPIE_FIT_EXACT, gravity: MAGPIE_GRAVITY_CENTRE,
                upscale: 1, full_width: 0, full_height: 0)
            if let fullSize = image.fullSize {
                box.full_width = Int32(clamping: fullSize.width)
                box.full_height = Int32(clamping: fullSize.height)
            }
            return try VipsProcessing.run(on: image, by: self) { magpie_resize($0, &box, $1, $2, $3) }
        }

        var keepsHighDepth: Bool { true }
    }
}
