import Magpie

/// imgproxy's options that place and size the result: the box, resizing, gravity, crops,
/// padding, turns and trimming, each read by one function into the layout.
extension OptionParser {
    static let geometryReaders: [(names: [String], read: Reader)] = [
        (["resize", "rs"], resize), (["size", "s"], size), (["resizing_type", "rt"], resizingType),
        (["width", "w"], { option, reading, parser throws(ProxyURLError) in
            reading.options.layout.width = try option.count(limit: parser.limits.maximumDimension)
        }),
        (["height", "h"], { option, reading, parser throws(ProxyURLError) in
            reading.options.layout.height = try option.count(limit: parser.limits.maximumDimension)
        }),
        (["min-width", "mw"], { option, reading, parser throws(ProxyURLError) in
            reading.options.layout.minWidth = try option.count(limit: parser.limits.maximumDimension)
        }),
        (["min-height", "mh"], { option, reading, parser throws(ProxyURLError) in
            reading.options.layout.minHeight = try option.count(limit: parser.limits.maximumDimension)
        }),
        (["zoom", "z"], zoom), (["dpr"], dpr),
        (["enlarge", "el"], { option, reading, _ throws(ProxyURLError) in reading.options.layout.enlarge = try option.bool() }),
        (["extend", "ex"], { option, reading, _ throws(ProxyURLError) in reading.options.layout.extend = try extend(option, from: 0) }),
        (["extend_aspect_ratio", "extend_ar", "exar"], { option, reading, _ throws(ProxyURLError) in
            reading.options.layout.extendAspectRatio = try extend(option, from: 0)
        }),
        (["gravity", "g"], { option, reading, _ throws(ProxyURLError) in reading.options.layout.gravity = try option.placement(from: 0) }),
        (["crop", "c"], crop), (["padding", "pd"], padding), (["auto_rotate", "ar"], autoRotate), (["rotate", "rot"], rotate),
        (["flip", "fl"], flip), (["trim", "t"], trim), (["fit"], fit),
        // Magpie's own: the box's shape (`w:800/aspect_ratio:16:9/rt:fill`).
        (["aspect_ratio"], aspectRatio),
    ]

    /// One number (width over height) or two (`16:9`); from 1:100 to 100:1, so a side made from
    /// the other is at most a hundred times it (and the layout's output limits still hold).
    private static func aspectRatio(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...2, usage: "aspect_ratio is aspect_ratio:RATIO or aspect_ratio:WIDTH:HEIGHT")
        let across = try option.positive(0, limit: 100_000, what: "an aspect ratio's width")
        let down = option.values.count == 2 ? try option.positive(1, limit: 100_000, what: "an aspect ratio's height") : 1
        guard (0.01...100).contains(across / down) else { throw option.failure("an aspect ratio is from 1:100 to 100:1") }
        reading.options.layout.aspectRatio = across / down
    }

    private static func resize(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...8, usage: "resize is rs:TYPE:WIDTH:HEIGHT:ENLARGE:EXTEND")
        if option.has(0) { reading.options.layout.resizing = try resizing(option, 0) }
        try parser.readSize(option, from: 1, into: &reading)
    }

    private static func size(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...7, usage: "size is s:WIDTH:HEIGHT:ENLARGE:EXTEND")
        try parser.readSize(option, from: 0, into: &reading)
    }

    private static func resizingType(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "resizing_type is one of \(resizingNames)")
        reading.options.layout.resizing = try resizing(option, 0)
    }

    private static func zoom(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...2, usage: "zoom is z:FACTOR or z:X:Y")
        reading.options.layout.zoomX = try option.positive(0, limit: 100, what: "zoom")
        reading.options.layout.zoomY = option.values.count == 2 ? try option.positive(1, limit: 100, what: "zoom") : reading.options.layout.zoomX
    }

    private static func dpr(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "dpr takes one number")
        reading.options.layout.dpr = try option.positive(limit: 100, what: "dpr")
    }

    private static func crop(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        let maximum = Double(parser.limits.maximumDimension)
        let width = try option.number(0, in: 0...maximum, what: "a crop's width")
        let height = option.has(1) ? try option.number(1, in: 0...maximum, what: "a crop's height") : 0
        reading.options.layout.crop = Layout.Crop(width: width, height: height, placement: option.values.count > 2 ? try option.placement(from: 2) : nil)
    }

    private static func padding(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...4, usage: "padding is pd:TOP:RIGHT:BOTTOM:LEFT")
        let maximum = parser.limits.maximumDimension
        var padding = reading.options.layout.padding
        if option.has(0) { padding.top = try option.count(0, limit: maximum) }
        padding.right = option.has(1) ? try option.count(1, limit: maximum) : padding.top
        padding.bottom = option.has(2) ? try option.count(2, limit: maximum) : padding.top
        padding.left = option.has(3) ? try option.count(3, limit: maximum) : padding.right
        reading.options.layout.padding = padding
    }

    private static func autoRotate(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        reading.options.autoRotates = try option.bool()
    }

    private static func rotate(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        guard option.values.count == 1, let degrees = Int(option.values[0]), degrees % 90 == 0 else {
            throw option.failure("rotate takes a multiple of 90 degrees")
        }
        reading.options.layout.rotation = (degrees % 360 + 360) % 360
    }

    private static func flip(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...2, usage: "flip is fl:HORIZONTAL:VERTICAL")
        if option.has(0) { reading.options.layout.flipHorizontal = try option.bool(0) }
        if option.has(1) { reading.options.layout.flipVertical = try option.bool(1) }
    }

    private static func trim(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...4, usage: "trim is t:THRESHOLD:COLOUR:EQUAL_HORIZONTAL:EQUAL_VERTICAL")
        guard option.has(0) else {
            // No threshold turns trimming off, as in imgproxy.
            reading.options.layout.trim = nil
            return
        }
        let threshold = try option.number(0, in: 0...255, what: "a trim's threshold")
        var colour: Colour?
        if option.has(1) {
            guard let hex = Colour(opaqueHex: option.values[1]) else { throw option.failure("a trim's colour is RRGGBB (or RGB) in hex") }
            colour = hex
        }
        reading.options.layout.trim = ImageProcessors.Trim(
            threshold: threshold, colour: colour, equalHorizontal: option.has(2) ? try option.bool(2) : false,
            equalVertical: option.has(3) ? try option.bool(3) : false)
    }

    /// Magpie's own spelling, from before imgproxy's names were read.
    private static func fit(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        switch option.values[0].lowercased() {
        case "fit": reading.options.layout.resizing = .fit
        case "fill": reading.options.layout.resizing = .fill
        case "crop": reading.cropsToBox = true
        default: throw option.failure("fit is one of fit, fill, crop")
        }
    }
}
