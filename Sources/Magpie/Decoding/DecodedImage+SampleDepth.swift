extension DecodedImage {
    /// This image with 8 bits a sample: itself when it has them, otherwise each 16-bit sample's
    /// high byte, as libvips narrows RGB16 to sRGB (so an image narrowed here equals one
    /// decoded at 8 bits), which also undoes widening by 257. What every step that works in 8
    /// bits gets.
    public func narrowedToEightBits() -> DecodedImage {
        guard sampleDepth == .sixteen else { return self }
        let count = pixels.count / 2
        let narrow = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            pixels.withUnsafeBytes { bytes in
                for index in 0..<count {
                    buffer[index] = Self.narrowed(bytes.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self))
                }
            }
            initialized = count
        }
        return DecodedImage(
            width: width, height: height, pixels: narrow, sourceFormat: sourceFormat, sourceWidth: sourceWidth,
            sourceHeight: sourceHeight, animation: animation, firstFrameReason: firstFrameReason, fullSize: fullSize,
            copyright: copyright, sourceOrientation: sourceOrientation)
    }

    /// The 16-bit sample (machine byte order) at byte `offset` of ``pixels``.
    func sample16(at offset: Int) -> UInt16 {
        pixels.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }

    static func narrowed(_ sample: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: sample >> 8)
    }
}
