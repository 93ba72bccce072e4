/// What `MagpieProbe pixels` decoded from one file: one JSON line each.
public struct PixelDumpReport: Codable, Sendable {
    public let file: String
    /// The libvips the probe ran on (`Libvips.version`).
    public let libvips: String
    public var width: Int?
    public var height: Int?
    /// Where the RGBA pixels were written; `nil` when decoding failed.
    public var pixels: String?
    public var error: String?

    public init(file: String, libvips: String) {
        self.file = file
        self.libvips = libvips
    }
}
