import Magpie

/// thumbor's built-in filters (thumbor 7.8's `BUILTIN_FILTERS`), each read by one function into
/// the URL's options with thumbor's arguments, defaults and ranges. What thumbor skips (an
/// unknown filter, arguments that do not match, a value its filter ignores) is skipped and said.
enum ThumborFilters {
    typealias Apply = @Sendable (ThumborArguments, inout ThumborReading) throws(ThumborFilterFailure) -> Void

    /// Every built-in filter by name.
    static let all: [String: Apply] = {
        var table: [String: Apply] = [:]
        for (name, apply) in geometry + pixels + tone + output {
            precondition(table[name] == nil, "thumbor's filter '\(name)' is read twice")
            table[name] = apply
        }
        return table
    }()

    /// Why a filter that is not built in is skipped.
    static func unknownReason(_ name: String) -> String {
        switch name {
        case "redeye", "red_eye": "needs an eye detector, which Magpie does not have (thumbor without one skips it too)"
        case "blur_faces": "needs a face detector, which Magpie does not have (thumbor without one skips it too)"
        case "gifv": "needs thumbor's gifv engine (ffmpeg), which Magpie does not have"
        case "autojpg": "not one of thumbor 7.8's built-in filters: the operator adds it to FILTERS (thumbor skips it too)"
        default: "not a thumbor filter (thumbor skips it)"
        }
    }

    /// Filters thumbor ships that an operator adds to its `FILTERS`
    /// (``ProxyConfiguration/thumborOptionalFilters``).
    static let optional: [String: Apply] = [
        // `autojpg([BOOLEAN])`: turns AUTO_PNG_TO_JPG on (the default) or off for this URL.
        "autojpg": { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(0...1, usage: "autojpg([true|false])")
            reading.opaquePNGAsJPEG = arguments.has(0) ? try arguments.boolean(0) : true
        }
    ]
}
