import CMagpieVips

extension ImageProcessors {
    /// Resamples an image to exactly `width` by `height` pixels: the step every geometry ends
    /// in. Reducing is a box average then Lanczos-3, enlarging Lanczos-3 (bicubic along a single
    /// axis), premultiplied where there is transparency. An image decoded at a reduced scale
    /// (``DecodedImage/fullSize``) is resampled from what it holds. With a `window`, only that
    /// part of the result is made (a fill's cut): libvips then resamples only the pixels kept.
    struct Resample: ImageProcessing, Hashable {
        /// A rectangle of the resampled image, inside it.
        struct Window: Hashable {
            let x: Int, y: Int, width: Int, height: Int
        }

        let width: Int
        let height: Int
        var window: Window?

        var identifier: String {
            "magpie.resample/1?width=\(width)&height=\(height)" + (window.map { "&window=\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "")
        }

        func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            var box = magpie_resize_box()
            (box.width, box.height, box.fit, box.upscale) = (Int32(clamping: width), Int32(clamping: height), MAGPIE_FIT_EXACT, 1)
            if let fullSize = image.fullSize {
                (box.full_width, box.full_height) = (Int32(clamping: fullSize.width), Int32(clamping: fullSize.height))
            }
            if let window {
                (box.window_x, box.window_y) = (Int32(clamping: window.x), Int32(clamping: window.y))
                (box.window_width, box.window_height) = (Int32(clamping: window.width), Int32(clamping: window.height))
            }
            return try VipsProcessing.run(on: image, by: self) { magpie_resize($0, &box, $1, $2, $3) }
        }

        var keepsHighDepth: Bool { true }
    }
}
