import Magpie

/// What an imgproxy `/info` URL (`/info/%signature/%info_options/%source`) asks to know of a
/// source, with imgproxy's option names; an option Magpie does not answer is refused by name.
struct InfoOptions: Sendable, Hashable {
    var size = true
    var format = true
    var dimensions = true
    var pagesNumber = false
    /// Components across and down, or `nil` for no hash.
    var blurhash: [Int]?

    init(_ segments: [String]) throws(ProxyURLError) {
        for segment in segments {
            let option = OptionValues(segment)
            switch option.name {
            case "size", "s": size = try option.bool()
            case "format", "f": format = try option.bool()
            case "dimensions", "d": dimensions = try option.bool()
            case "pages_number", "pn": pagesNumber = try option.bool()
            case "blurhash", "bh":
                guard option.values.count == 2 || (option.values.count == 1 && option.values[0] == "0") else {
                    throw option.failure("blurhash is bh:X_COMPONENTS:Y_COMPONENTS, 1 to 9 each, or bh:0")
                }
                if option.values.count == 1 {
                    blurhash = nil
                    continue
                }
                let components = [try option.count(0, limit: 9), try option.count(1, limit: 9)]
                guard components.allSatisfy({ $0 >= 1 }) else { throw option.failure("a blurhash has 1 to 9 components each way") }
                blurhash = components
            default:
                throw .malformed("the info option '\(option.name)' is not supported by Magpie; it answers size, format, dimensions, pages_number and blurhash")
            }
        }
    }
}
