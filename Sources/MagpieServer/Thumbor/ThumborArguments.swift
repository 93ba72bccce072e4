/// One filter's arguments, read as thumbor's filters read theirs: each parameter has a form (a
/// whole number, one that is not negative, a decimal, a boolean, a string), and a filter whose
/// arguments do not all match their forms, or are too few or too many, is skipped, not refused.
struct ThumborArguments: Sendable {
    let filter: ThumborPath.Filter

    var values: [String] { filter.arguments }

    /// The filter as written, for what is said about it.
    var written: String { "\(filter.name)(\(values.joined(separator: ",")))" }

    func skip(_ reason: String) -> ThumborFilterFailure {
        .skip("\(written): \(reason)")
    }

    /// Skips unless there are `range` arguments (thumbor's defaults make the last ones optional).
    func expect(_ range: ClosedRange<Int>, usage: String) throws(ThumborFilterFailure) {
        guard range.contains(values.count), !(values.count == 1 && values[0].isEmpty && range.lowerBound > 0) else {
            throw skip("thumbor reads \(usage)")
        }
    }

    func has(_ index: Int) -> Bool { index < values.count && !values[index].isEmpty }

    /// `-?[0-9]+`.
    func integer(_ index: Int) throws(ThumborFilterFailure) -> Int {
        let text = values[index]
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard Self.isDigits(digits), let value = Int(text) else { throw skip("'\(text)' is not a whole number") }
        return value
    }

    /// `[0-9]+`.
    func positive(_ index: Int) throws(ThumborFilterFailure) -> Int {
        let text = values[index]
        guard Self.isDigits(Substring(text)), let value = Int(text) else { throw skip("'\(text)' is not a whole number from 0") }
        return value
    }

    /// `[0-9]+` other than 0.
    func positiveNonZero(_ index: Int) throws(ThumborFilterFailure) -> Int {
        let value = try positive(index)
        guard value > 0 else { throw skip("'\(values[index])' is not a whole number from 1") }
        return value
    }

    /// `-?` digits with at most one `.`.
    func decimal(_ index: Int) throws(ThumborFilterFailure) -> Double {
        let text = values[index]
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !unsigned.isEmpty, unsigned != ".", parts.allSatisfy({ $0.isEmpty || Self.isDigits($0) }), parts.count <= 2,
            let value = Double(text.hasSuffix(".") ? String(text.dropLast()) : text), value.isFinite
        else { throw skip("'\(text)' is not a number") }
        return value
    }

    /// `True`, `true`, `1` or `False`, `false`, `0`.
    func boolean(_ index: Int) throws(ThumborFilterFailure) -> Bool {
        switch values[index] {
        case "True", "true", "1": return true
        case "False", "false", "0": return false
        default: throw skip("'\(values[index])' is not true or false")
        }
    }

    /// Text, without the single quotes that may surround it.
    func string(_ index: Int) -> String {
        let text = values[index]
        return text.count >= 3 && text.hasPrefix("'") && text.hasSuffix("'") ? String(text.dropFirst().dropLast()) : text
    }

    /// `[A-Za-z0-9_]+`, as thumbor's colour arguments are written.
    func word(_ index: Int) throws(ThumborFilterFailure) -> String {
        let text = values[index]
        guard !text.isEmpty, text.utf8.allSatisfy({ Self.isDigit($0) || Self.isLetter($0) || $0 == UInt8(ascii: "_") }) else {
            throw skip("'\(text)' is not a colour name or hex digits")
        }
        return text
    }

    private static func isDigits(_ text: Substring) -> Bool { !text.isEmpty && text.utf8.allSatisfy(isDigit) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

/// Why a filter is not applied: skipped as thumbor skips it (said in the answer), or refused
/// with the status thumbor answers (a watermark whose image may not be loaded).
enum ThumborFilterFailure: Error, Sendable {
    case skip(String)
    case refuse(ProxyURLError)
}
