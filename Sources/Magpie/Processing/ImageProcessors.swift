import CMagpieVips

/// Magpie's built-in processors. Each is also available with leading-dot syntax:
///
/// ```swift
/// var request = ImageRequest(url: avatarURL)
/// request.processors = [.resize(width: 256, height: 256, mode: .fill()), .roundedCorners(radius: 16)]
/// ```
public enum ImageProcessors {
    /// Which part of an image a crop keeps.
    public enum Gravity: String, Sendable, Hashable, CaseIterable {
        case centre, top, bottom, left, right
        /// libvips' attention smart crop: keeps what draws the eye (skin tones, saturated
        /// colour, edges).
        case attention
        /// libvips' entropy smart crop: keeps the busiest part.
        case entropy

        var shimValue: magpie_gravity {
            switch self {
            case .centre: MAGPIE_GRAVITY_CENTRE
            case .top: MAGPIE_GRAVITY_NORTH
            case .bottom: MAGPIE_GRAVITY_SOUTH
            case .left: MAGPIE_GRAVITY_WEST
            case .right: MAGPIE_GRAVITY_EAST
            case .attention: MAGPIE_GRAVITY_ATTENTION
            case .entropy: MAGPIE_GRAVITY_ENTROPY
            }
        }
    }
}
