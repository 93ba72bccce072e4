import CMagpieOrigin
public import Magpie

/// Images made on the spot: textures that compress like real photos, stills and animations,
/// optionally labelled. (The malformed files tests need are in MagpieTesting.)
public enum TestImages {
    /// A gradient with noise and stripes, `width` by `height`, encoded as `format`.
    /// `seed` changes the texture so images of one size differ; `label` is written across it.
    public static func texture(
        width: Int, height: Int, format: ImageFormat = .jpeg, seed: UInt32 = 1, progressive: Bool = false,
        label: String? = nil
    ) throws -> [UInt8] {
        try ImageEncoder(quality: 85, progressive: progressive)
            .encode(pixels(width: width, height: height, seed: seed, label: label), as: format)
    }

    /// An animation of `frames` different textures, `width` by `height`, each shown for
    /// `delay` milliseconds, playing `loopCount` times (0 forever).
    public static func animation(
        width: Int, height: Int, frames: Int, delay: Int = 80, loopCount: Int = 0
    ) -> DecodedImage {
        let pixels = (0..<frames).flatMap { Self.pixels(width: width, height: height, seed: UInt32($0 + 1)).pixels }
        return DecodedImage(
            width: width, height: height, pixels: pixels, sourceFormat: .gif,
            animation: Animation(frameDelays: Array(repeating: delay, count: frames), loopCount: loopCount))
    }

    /// A camera panning across a texture, `frames` frames of `width` by `height`, each shown
    /// for `delay` ms and forever repeated: each frame differs from the last, as in a video
    /// clip turned into a GIF. `label` is written across the scene.
    public static func panningClip(
        width: Int, height: Int, frames: Int, seed: UInt32 = 11, delay: Int = 40, label: String? = nil
    ) -> DecodedImage {
        let scene = pixels(width: width + frames * 4, height: height + frames * 2, seed: seed, label: label)
        var clip: [UInt8] = []
        clip.reserveCapacity(width * height * 4 * frames)
        for frame in 0..<frames {
            for row in 0..<height {
                let start = ((row + frame * 2) * scene.width + frame * 4) * 4
                clip += scene.pixels[start..<start + width * 4]
            }
        }
        return DecodedImage(
            width: width, height: height, pixels: clip, sourceFormat: .gif,
            animation: Animation(frameDelays: Array(repeating: delay, count: frames), loopCount: 0))
    }

    /// The decoded texture (what ``texture(width:height:format:seed:progressive:label:)`` encodes).
    public static func pixels(width: Int, height: Int, seed: UInt32 = 1, label: String? = nil) -> DecodedImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { magpie_texture($0.baseAddress, Int32(width), Int32(height), seed) }
        if let label { TextStamp.stamp(label, on: &pixels, width: width, height: height) }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }
}
