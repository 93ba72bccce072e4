import CMagpieVips

/// How an image is brought to a box: by a thumbnail while decoding
/// (``ImageRequest/Thumbnail``), by a ``ImageProcessors/Resize``, and by every syntax that asks
/// for either (the command line's `resize:256x256:fill`, the proxy's `fit:fill`).
public enum Fit: String, Sendable, Hashable, CaseIterable {
    /// The whole image fits inside the box; the aspect ratio is kept.
    case fit
    /// The image covers the box and is cropped to it, keeping the ``Gravity`` side (a
    /// thumbnail's crop is centred).
    case fill
    /// The image covers the box and is not cropped: for a crop with another gravity, or a
    /// smart crop, afterwards.
    case cover
    /// The image is stretched to the box.
    case exact
    /// The box is cut from the image at the ``Gravity`` side, without scaling.
    case crop

    /// The scales, across and down, that bring an image to a box `across` times its width and
    /// `down` times its height (before any crop); 1 for ``crop``.
    func scales(across: Double, down: Double) -> (across: Double, down: Double) {
        switch self {
        case .fit: return (min(across, down), min(across, down))
        case .fill, .cover: return (max(across, down), max(across, down))
        case .exact: return (across, down)
        case .crop: return (1, 1)
        }
    }

    /// A layout's resizing for the scaling ones (a crop is the layout's crop instead).
    var resizing: Layout.Resizing {
        switch self {
        case .fit, .crop: .fit
        case .fill: .fill
        case .cover: .cover
        case .exact: .force
        }
    }

    /// The shim's fit for the scaling ones (a crop is its own operation).
    var shimValue: magpie_fit {
        switch self {
        case .fit, .crop: MAGPIE_FIT_FIT
        case .fill: MAGPIE_FIT_FILL
        case .cover: MAGPIE_FIT_COVER
        case .exact: MAGPIE_FIT_EXACT
        }
    }
}

/// Which part of an image a crop keeps, for ``Fit/fill``, ``Fit/crop`` and
/// ``ImageProcessors/Crop``.
public enum Gravity: String, Sendable, Hashable, CaseIterable {
    case centre, top, bottom, left, right
    /// libvips' attention smart crop: keeps what draws the eye (skin tones, saturated
    /// colour, edges).
    case attention
    /// libvips' entropy smart crop: keeps the busiest part.
    case entropy

    /// Where a layout keeps its area for this gravity.
    var placement: Placement {
        switch self {
        case .centre: .centre
        case .top: .anchored(.north)
        case .bottom: .anchored(.south)
        case .left: .anchored(.west)
        case .right: .anchored(.east)
        case .attention, .entropy: .smart(self)
        }
    }

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
