/// A processor as the URL and command-line syntaxes write it: its name, then its arguments
/// after colons (`blur:2`, `round:16`, `circle`). The proxy's option segments and
/// `magpie fetch --process` both read these through ``ProcessingOption/all``, so each
/// processor's names, arguments and limits are written once; adding a processor to both
/// syntaxes means adding it to that list. A deployment of the proxy can name processors of its
/// own the same way (`ProxyConfiguration.processingOptions`).
public struct ProcessingOption: Sendable {
    /// What a processor is built from.
    public struct Arguments: Sendable {
        /// The values after the name.
        public let values: [String]
        /// Multiplies lengths in pixels: the proxy's device pixel ratio, 1 on the command line.
        public let scale: Double
        public let limits: ProcessingLimits

        public init(_ values: [String], scale: Double = 1, limits: ProcessingLimits = .init()) {
            self.values = values
            self.scale = scale
            self.limits = limits
        }

        /// The one value, as a number in `range`, or the option's usage as the error.
        func number(_ range: ClosedRange<Double>, usage: String) throws(ProcessingOption.Failure) -> Double {
            guard values.count == 1, let value = Double(values[0]), range.contains(value) else { throw Failure(usage) }
            return value
        }

        /// Whether an option without values is on: written alone, or with `1`, `t` or `true`
        /// (`circle`, `circle:1`, as a URL segment needs a colon), off with `0`, `f` or `false`.
        func isOn(usage: String) throws(ProcessingOption.Failure) -> Bool {
            guard values.count <= 1 else { throw Failure(usage) }
            switch values.first?.lowercased() {
            case nil, "", "1", "t", "true": return true
            case "0", "f", "false": return false
            default: throw Failure(usage)
            }
        }
    }

    /// Why an option's arguments are refused: what it takes, as one line.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Its spellings, the full name first (`blur`, `bl`).
    public let names: [String]
    /// The full name (empty for an option given no spelling, which no URL can name).
    public let name: String
    /// How it is written, for help: `blur:SIGMA`.
    public let usage: String
    /// Whether its lengths are in CSS pixels, multiplied by a URL's pixel ratio (a corner
    /// radius), or in output pixels (a blur's or sharpen's sigma and a pixelation's blocks, as
    /// imgproxy has them).
    public let scalesWithPixelRatio: Bool
    private let make: @Sendable (Arguments) throws(Failure) -> (any ImageProcessing)?

    /// An option spelled `names` (lower case, the full name first) that `make` turns into a
    /// processor, or into none when its arguments ask for nothing; `make` throws a ``Failure``
    /// saying what the option takes when they do not fit. `make` bounds whatever the arguments
    /// scale (sizes, radii, counts) with ``Arguments/limits``, as the built-in options do.
    public init(
        names: [String], usage: String, scalesWithPixelRatio: Bool = true,
        make: @escaping @Sendable (Arguments) throws(Failure) -> (any ImageProcessing)?
    ) {
        self.names = names
        name = names.first ?? ""
        self.usage = usage
        self.scalesWithPixelRatio = scalesWithPixelRatio
        self.make = make
    }

    /// The processor the arguments ask for; `nil` when they ask for none (a blur of 0).
    public func processor(_ arguments: Arguments) throws(Failure) -> (any ImageProcessing)? {
        try make(arguments)
    }

    /// The option of `options` a name spells, if any.
    public static func named(_ name: String, in options: [ProcessingOption] = all) -> ProcessingOption? {
        let lowered = name.lowercased()
        return options.first { $0.names.contains(lowered) }
    }
}
