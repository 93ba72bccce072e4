import CMagpieVips

extension ImageProcessors {
    /// Levels mapped through curves, each a natural cubic spline through its points (thumbor's
    /// `curve`): a band's own curve first, then the curve for all bands. A curve of fewer than
    /// two points leaves its levels.
    public struct ToneCurve: ImageProcessing, Hashable {
        /// A point of a curve: a level in and the level out, 0...255 each.
        public struct Point: Sendable, Hashable {
            public let input: Int
            public let output: Int

            public init(_ input: Int, _ output: Int) {
                self.input = input
                self.output = output
            }
        }

        public let all: [Point]
        public let red: [Point]
        public let green: [Point]
        public let blue: [Point]

        /// Points of one curve go left to right (each input above the last), within 0...255.
        public init(all: [Point], red: [Point] = [], green: [Point] = [], blue: [Point] = []) {
            self.all = all
            self.red = red
            self.green = green
            self.blue = blue
        }

        public var identifier: String {
            let curves = [all, red, green, blue].map { $0.map { "\($0.input):\($0.output)" }.joined(separator: ",") }
            return "magpie.tone-curve/1?curves=\(curves.joined(separator: ";"))"
        }

        /// Whether `points` can be a curve: inputs rising, every level within 0...255.
        public static func isValid(_ points: [Point]) -> Bool {
            points.allSatisfy { (0...255).contains($0.input) && (0...255).contains($0.output) }
                && zip(points, points.dropFirst()).allSatisfy { $0.input < $1.input }
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard [all, red, green, blue].allSatisfy(Self.isValid) else {
                throw .processingFailed(processor: identifier, reason: "a curve's points rise left to right, within 0...255")
            }
            let overall = Self.levels(all)
            var table = [UInt8](repeating: 0, count: 256 * 3)
            for (band, curve) in [red, green, blue].enumerated() {
                let own = Self.levels(curve)
                for level in 0..<256 { table[level * 3 + band] = overall[Int(own[level])] }
            }
            return try table.withUnsafeBufferPointer { table throws(MagpieError) in
                try VipsProcessing.run(on: image, by: self) { magpie_lookup($0, table.baseAddress, $1, $2, $3) }
            }
        }

        /// The curve's output for every level: the spline between its first and last points,
        /// their outputs before and after them.
        static func levels(_ points: [Point]) -> [UInt8] {
            guard points.count >= 2 else { return (0..<256).map { UInt8($0) } }
            let x = points.map { Double($0.input) }, y = points.map { Double($0.output) }
            let curvature = secondDerivatives(x: x, y: y)
            var levels = [UInt8](repeating: UInt8(points[0].output), count: 256)
            for index in 0..<(points.count - 1) {
                let width = x[index + 1] - x[index]
                for level in points[index].input..<points[index + 1].input {
                    let t = (Double(level) - x[index]) / width, a = 1 - t
                    let value = a * y[index] + t * y[index + 1]
                        + width * width / 6 * ((a * a * a - a) * curvature[index] + (t * t * t - t) * curvature[index + 1])
                    levels[level] = UInt8(max(0, min(255, value.rounded())))
                }
            }
            for level in points[points.count - 1].input..<256 { levels[level] = UInt8(points[points.count - 1].output) }
            return levels
        }

        /// A natural spline's second derivatives at its points (zero at both ends), from the
        /// tridiagonal system the spline's continuity gives.
        private static func secondDerivatives(x: [Double], y: [Double]) -> [Double] {
            let count = x.count
            var lower = [Double](repeating: 0, count: count), diagonal = [Double](repeating: 1, count: count)
            var upper = [Double](repeating: 0, count: count), right = [Double](repeating: 0, count: count)
            for i in 1..<(count - 1) {
                lower[i] = (x[i] - x[i - 1]) / 6
                diagonal[i] = (x[i + 1] - x[i - 1]) / 3
                upper[i] = (x[i + 1] - x[i]) / 6
                right[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
            }
            for i in 1..<count {
                let factor = lower[i] / diagonal[i - 1]
                diagonal[i] -= factor * upper[i - 1]
                right[i] -= factor * right[i - 1]
            }
            var result = [Double](repeating: 0, count: count)
            for i in stride(from: count - 1, through: 0, by: -1) {
                result[i] = (right[i] - (i + 1 < count ? upper[i] * result[i + 1] : 0)) / diagonal[i]
            }
            return result
        }
    }

    /// The colour bands (and alpha, on an image with transparency) convolved with a matrix of
    /// weights, edges repeated (thumbor's `convolution`).
    public struct Convolution: ImageProcessing, Hashable {
        /// The weights, row by row; at most 25 x 25.
        public let weights: [Double]
        public let columns: Int

        /// With `normalizes`, the weights are divided by their sum (unless it is 0), so the
        /// image keeps its brightness.
        public init(weights: [Double], columns: Int, normalizes: Bool) {
            let sum = weights.reduce(0, +)
            self.weights = normalizes && sum != 0 ? weights.map { $0 / sum } : weights
            self.columns = columns
        }

        /// The largest side of a matrix.
        public static let maximumSide = 25

        public var identifier: String { "magpie.convolution/1?columns=\(columns)&weights=\(weights.map { String($0) }.joined(separator: ","))" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard columns >= 1, columns <= Self.maximumSide, !weights.isEmpty, weights.count % columns == 0,
                weights.count / columns <= Self.maximumSide, weights.allSatisfy(\.isFinite)
            else {
                throw .processingFailed(processor: identifier, reason: "the weights fill 1 to \(Self.maximumSide) rows of 1 to \(Self.maximumSide) columns")
            }
            let rows = Int32(weights.count / columns)
            return try weights.withUnsafeBufferPointer { matrix throws(MagpieError) in
                try VipsProcessing.run(on: image, by: self) { magpie_convolve($0, matrix.baseAddress, Int32(columns), rows, $1, $2, $3) }
            }
        }
    }
}
