import Foundation
import Magpie

/// thumbor's filters that change levels band by band: `rgb`, `colorize`, `saturation`,
/// `equalize`, `noise`, `curve` and `convolution`, each with thumbor's arithmetic; and imagor's
/// `hue`, with imagor's.
extension ThumborFilters {
    static let tone: [(String, Apply)] = [
        ("rgb", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(3...3, usage: "rgb(RED,GREEN,BLUE), each -100 to 100")
            // thumbor adds 255·n/100 levels in whole numbers; past ±100 every level saturates.
            let levels = try (0..<3).map { index throws(ThumborFilterFailure) in Double(255 * max(-100, min(100, try arguments.integer(index))) / 100) }
            if levels != [0, 0, 0] { reading.options.filters.append(ImageProcessors.Levels.adding(red: levels[0], green: levels[1], blue: levels[2])) }
        }),
        ("colorize", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(4...4, usage: "colorize(RED%,GREEN%,BLUE%,RRGGBB)")
            let shares = try (0..<3).map { index throws(ThumborFilterFailure) in try arguments.positive(index) }
            let hex = arguments.string(3)
            guard hex.count == 6, let colour = Colour(opaqueHex: Substring(hex)) else { throw arguments.skip("the colour is six hex digits") }
            if shares.contains(where: { $0 > 100 }) { reading.skipped.append("\(arguments.written): shares above 100% applied as 100%") }
            let clamped = shares.map { Double(min(100, $0)) / 100 }
            reading.options.filters.append(ImageProcessors.Levels.blending(towards: colour, red: clamped[0], green: clamped[1], blue: clamped[2]))
        }),
        ("saturation", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "saturation(CHANGE)")
            let change = try arguments.decimal(0)
            let applied = max(-10, min(10, change))
            if applied != change { reading.skipped.append("\(arguments.written): applied as \(applied), within Magpie's -10 to 10") }
            if applied != 1 { reading.options.filters.append(ImageProcessors.PerceivedSaturation(change: applied)) }
        }),
        ("hue", { arguments, reading throws(ThumborFilterFailure) in
            // imagor's: a turn of the hue in LCh by any number of degrees.
            try arguments.expect(1...1, usage: "hue(DEGREES)")
            let turn = ImageProcessors.Modulate(hue: try arguments.decimal(0))
            if turn != ImageProcessors.Modulate() { reading.options.filters.append(turn) }
        }),
        ("equalize", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(0...0, usage: "equalize()")
            reading.options.filters.append(ImageProcessors.Equalize())
        }),
        ("noise", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...2, usage: "noise(AMOUNT[,SEED])")
            let amount = try arguments.positive(0)
            let seed = arguments.has(1) ? try arguments.positive(1) : 0
            // thumbor's levels are uniform over AMOUNT, whose standard deviation is AMOUNT/√12.
            let sigma = min(255, Double(amount) / 12.0.squareRoot())
            if sigma > 0 { reading.options.filters.append(ImageProcessors.Noise(sigma: sigma, seed: seed)) }
        }),
        ("curve", curve), ("convolution", convolution),
    ]

    /// `curve(ALL,RED,GREEN,BLUE)`, each `[(x,y),...]`.
    private static func curve(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(4...4, usage: "curve([(x,y),...],[...],[...],[...]) for all bands, red, green and blue")
        var curves: [[ImageProcessors.ToneCurve.Point]] = []
        for text in arguments.values {
            guard text.hasPrefix("["), text.hasSuffix("]") else { throw arguments.skip("a curve is [(x,y),...]") }
            var points: [ImageProcessors.ToneCurve.Point] = []
            for pair in text.dropFirst().dropLast().split(separator: ")", omittingEmptySubsequences: true) {
                let inside = pair.drop { $0 == "," }
                guard inside.hasPrefix("(") else { throw arguments.skip("a curve is [(x,y),...]") }
                let numbers = inside.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
                guard numbers.count == 2, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                    let x = Int(numbers[0]), let y = Int(numbers[1])
                else { throw arguments.skip("a curve's points are (x,y) in whole levels") }
                points.append(.init(x, y))
            }
            guard ImageProcessors.ToneCurve.isValid(points) else { throw arguments.skip("a curve's levels are 0 to 255, its x rising") }
            curves.append(points)
        }
        reading.options.filters.append(ImageProcessors.ToneCurve(all: curves[0], red: curves[1], green: curves[2], blue: curves[3]))
    }

    /// `convolution(W1;W2;...,COLUMNS[,NORMALIZE])`.
    private static func convolution(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(2...3, usage: "convolution(W1;W2;...,COLUMNS[,NORMALIZE])")
        let parts = arguments.values[0].split(separator: ";", omittingEmptySubsequences: false)
        let weights = parts.compactMap { part -> Double? in
            let digits = part.hasPrefix("-") ? part.dropFirst() : part
            guard let first = digits.first, first.isASCII, first.isNumber else { return nil }
            return Double(part.hasSuffix(".") ? String(part.dropLast()) : String(part))
        }
        guard weights.count == parts.count, weights.allSatisfy(\.isFinite) else { throw arguments.skip("the matrix is numbers separated by ';'") }
        let columns = try arguments.positiveNonZero(1)
        let normalizes = arguments.has(2) ? try arguments.boolean(2) : true
        guard weights.count % columns == 0 else { throw arguments.skip("the matrix does not fill whole rows of \(columns)") }
        let side = ImageProcessors.Convolution.maximumSide
        guard columns <= side, weights.count / columns <= side else {
            throw .refuse(.malformed("filter '\(arguments.written)': a convolution matrix is at most \(side)x\(side)"))
        }
        reading.options.filters.append(ImageProcessors.Convolution(weights: weights, columns: columns, normalizes: normalizes))
    }
}
