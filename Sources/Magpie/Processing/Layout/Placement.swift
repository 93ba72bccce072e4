/// Where a crop keeps its area, or where an image sits on a larger canvas: a side or corner with
/// offsets, a point, or the part libvips finds most interesting.
public enum Placement: Sendable, Hashable {
    /// The compass points an area is pushed against.
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case centre, north, south, east, west, northEast, northWest, southEast, southWest

        var touchesNorth: Bool { [.north, .northEast, .northWest].contains(self) }
        var touchesSouth: Bool { [.south, .southEast, .southWest].contains(self) }
        var touchesEast: Bool { [.east, .northEast, .southEast].contains(self) }
        var touchesWest: Bool { [.west, .northWest, .southWest].contains(self) }
    }

    /// Against `anchor`, moved inwards by `x` and `y`: pixels (times the result's pixel ratio)
    /// when at least 1 in size, otherwise fractions of the outer side. Along an axis the anchor
    /// does not touch, the offset moves right or down from the centre.
    case anchored(Anchor, x: Double = 0, y: Double = 0)
    /// Centred on the point at fractions `x` and `y` (0...1) of the width and height, as far as
    /// the area stays inside.
    case focusPoint(x: Double, y: Double)
    /// Centred on the pixel at `x`, `y` of the upright image before any crop (thumbor's focal
    /// point), as far as the area stays inside. ``LayoutPlan`` turns it into a
    /// ``focusPoint(x:y:)`` once the image's size is known.
    case focusPixel(x: Double, y: Double)
    /// libvips' smart crop: ``Gravity/attention`` or ``Gravity/entropy``. Crops only; a canvas
    /// treats it as the centre.
    case smart(Gravity)

    /// The centre, without offsets.
    public static let centre = Placement.anchored(.centre)

    /// Where an area of `inner` goes inside `outer`, its top-left corner, kept inside (or, with
    /// `allowsOverflow`, overlapping `outer` by at least a pixel). `scale` multiplies offsets
    /// given in pixels; `arithmetic` says where a centred area's spare pixel goes. Smart
    /// placements answer the centre.
    func origin(
        outer: DecodedImage.Size, inner: DecodedImage.Size, scale: Double, allowsOverflow: Bool = false, arithmetic: Layout.Arithmetic = .imgproxy
    ) -> (x: Int, y: Int) {
        var left: Int
        var top: Int
        switch self {
        case .focusPoint(let x, let y):
            left = Rounding.scaleToEven(outer.width, x) - inner.width / 2
            top = Rounding.scaleToEven(outer.height, y) - inner.height / 2
        case .smart, .focusPixel:
            return Placement.centre.origin(outer: outer, inner: inner, scale: scale, allowsOverflow: allowsOverflow, arithmetic: arithmetic)
        case .anchored(let anchor, let x, let y):
            let offsetX = abs(x) >= 1 ? Int((x * scale).rounded(.toNearestOrEven)) : Rounding.scaleToEven(outer.width, x)
            let offsetY = abs(y) >= 1 ? Int((y * scale).rounded(.toNearestOrEven)) : Rounding.scaleToEven(outer.height, y)
            left = Self.centred(outer.width - inner.width, arithmetic) + offsetX
            top = Self.centred(outer.height - inner.height, arithmetic) + offsetY
            if anchor.touchesNorth { top = offsetY }
            if anchor.touchesSouth { top = outer.height - inner.height - offsetY }
            if anchor.touchesWest { left = offsetX }
            if anchor.touchesEast { left = outer.width - inner.width - offsetX }
        }
        if allowsOverflow {
            return (max(1 - inner.width, min(left, outer.width - 1)), max(1 - inner.height, min(top, outer.height - 1)))
        }
        return (max(0, min(left, outer.width - inner.width)), max(0, min(top, outer.height - inner.height)))
    }

    /// Where an area `spare` pixels smaller than its outer side starts, centred.
    private static func centred(_ spare: Int, _ arithmetic: Layout.Arithmetic) -> Int {
        switch arithmetic {
        case .imgproxy: Rounding.halfToEven(spare + 1)
        case .direct: spare / 2
        }
    }

    /// A focus pixel as a focus point in an area of `size` whose top-left corner is at `origin`
    /// of the image the pixel was given in; other placements as they are.
    func resolved(in size: DecodedImage.Size, from origin: (x: Int, y: Int) = (0, 0)) -> Placement {
        guard case .focusPixel(let x, let y) = self, size.width > 0, size.height > 0 else { return self }
        return .focusPoint(
            x: min(max((x - Double(origin.x)) / Double(size.width), 0), 1), y: min(max((y - Double(origin.y)) / Double(size.height), 0), 1))
    }

    /// How identifiers and cache keys write it.
    var name: String {
        switch self {
        case .anchored(let anchor, let x, let y): x == 0 && y == 0 ? anchor.rawValue : "\(anchor.rawValue):\(x):\(y)"
        case .focusPoint(let x, let y): "fp:\(x):\(y)"
        case .focusPixel(let x, let y): "focal:\(x):\(y)"
        case .smart(let gravity): gravity.rawValue
        }
    }
}
