import Foundation
import Magpie

/// Reads `fetch --process`: steps separated by commas, each a name and its arguments separated
/// by colons, for example `resize:256x256:fill,round:16,blur:2`.
enum ProcessingList {
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    static let help = """
        resize:WxH[:fit|fill|exact][:GRAVITY][:upscale], crop:WxH[:GRAVITY], crop:WxH+X+Y, round:RADIUS, circle, \
        blur:SIGMA, grayscale; GRAVITY is centre, top, bottom, left, right, attention or entropy
        """

    static func parse(_ text: String) throws(ParseError) -> [any ImageProcessing] {
        let steps = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var processors: [any ImageProcessing] = []
        for (index, step) in steps.enumerated() {
            do throws(ParseError) {
                processors.append(try parse(step: step))
            } catch {
                throw ParseError(description: "--process step \(index + 1) '\(step)': \(error.description)")
            }
        }
        return processors
    }

    private static func parse(step: String) throws(ParseError) -> any ImageProcessing {
        let parts = step.lowercased().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let arguments = Array(parts.dropFirst())
        switch parts[0] {
        case "resize": return try resize(arguments)
        case "crop": return try crop(arguments)
        case "round":
            guard arguments.count == 1, let radius = Double(arguments[0]), radius >= 0, radius.isFinite else {
                throw ParseError(description: "give the corner radius in pixels, e.g. round:16")
            }
            return .roundedCorners(radius: radius)
        case "circle":
            guard arguments.isEmpty else { throw ParseError(description: "circle takes no arguments") }
            return .circle
        case "blur":
            guard arguments.count == 1, let sigma = Double(arguments[0]), sigma > 0, sigma <= 1000 else {
                throw ParseError(description: "give the blur's sigma in pixels (above 0, at most 1000), e.g. blur:2")
            }
            return .blur(sigma: sigma)
        case "grayscale", "greyscale", "gray", "grey":
            guard arguments.isEmpty else { throw ParseError(description: "grayscale takes no arguments") }
            return .grayscale
        case "":
            throw ParseError(description: "the step is empty")
        default:
            throw ParseError(description: "unknown step '\(parts[0])'; the steps are \(help)")
        }
    }

    private static func resize(_ arguments: [String]) throws(ParseError) -> any ImageProcessing {
        guard let box = arguments.first.flatMap(size) else {
            throw ParseError(description: "give the box as WIDTHxHEIGHT, e.g. resize:256x256:fill")
        }
        var mode = ImageProcessors.Resize.Mode.fit
        var upscale = false
        for argument in arguments.dropFirst() {
            switch argument {
            case "fit": mode = .fit
            case "fill": mode = .fill()
            case "exact": mode = .exact
            case "upscale": upscale = true
            default:
                guard let gravity = ImageProcessors.Gravity(name: argument), case .fill = mode else {
                    throw ParseError(description: "'\(argument)' is not fit, fill, exact, upscale or (after fill) a gravity")
                }
                mode = .fill(gravity)
            }
        }
        return .resize(width: box.width, height: box.height, mode: mode, upscale: upscale)
    }

    private static func crop(_ arguments: [String]) throws(ParseError) -> any ImageProcessing {
        guard let first = arguments.first, arguments.count <= 2 else {
            throw ParseError(description: "give the size as WxH (with :GRAVITY) or the rectangle as WxH+X+Y, e.g. crop:200x100:attention")
        }
        let pieces = first.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard let box = size(pieces[0]) else { throw ParseError(description: "'\(pieces[0])' is not WIDTHxHEIGHT") }
        if pieces.count == 3 {
            guard arguments.count == 1, let x = Int(pieces[1]), let y = Int(pieces[2]), x >= 0, y >= 0 else {
                throw ParseError(description: "a rectangle is WxH+X+Y with X and Y at least 0, and takes no gravity")
            }
            return .crop(x: x, y: y, width: box.width, height: box.height)
        }
        guard pieces.count == 1 else { throw ParseError(description: "a rectangle is WxH+X+Y") }
        let gravity = try arguments.dropFirst().first.map { name throws(ParseError) in
            guard let gravity = ImageProcessors.Gravity(name: name) else {
                throw ParseError(description: "'\(name)' is not a gravity (centre, top, bottom, left, right, attention, entropy)")
            }
            return gravity
        } ?? .centre
        return .crop(width: box.width, height: box.height, gravity: gravity)
    }

    private static func size(_ text: String) -> (width: Int, height: Int)? {
        ThumbnailBox.parse(text).map { ($0.width, $0.height) }
    }
}

extension ImageProcessors.Gravity {
    init?(name: String) {
        if name == "center" { self = .centre } else { self.init(rawValue: name) }
    }
}
