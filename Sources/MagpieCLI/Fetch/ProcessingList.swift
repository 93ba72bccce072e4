import Foundation
import Magpie

/// Reads `fetch --process`: steps separated by commas, each a name and its arguments separated
/// by colons, for example `resize:256x256:fill,round:16,blur:2`. `resize` and `crop` are this
/// syntax's own; every other step is a ``Magpie/ProcessingOption``, read as the proxy reads it.
enum ProcessingList {
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    static let help =
        (["resize:WxH[:fit|fill|cover|exact|crop][:GRAVITY][:upscale]", "crop:WxH[:GRAVITY]", "crop:WxH+X+Y"]
        + ProcessingOption.all.map(\.usage)).joined(separator: ", ")
        + "; GRAVITY is centre, top, bottom, left, right, attention or entropy"

    static func parse(_ text: String) throws(ParseError) -> [any ImageProcessing] {
        let steps = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var processors: [any ImageProcessing] = []
        for (index, step) in steps.enumerated() {
            do throws(ParseError) {
                if let processor = try parse(step: step) { processors.append(processor) }
            } catch {
                throw ParseError(description: "--process step \(index + 1) '\(step)': \(error.description)")
            }
        }
        return processors
    }

    /// The step's processor; `nil` for one that asks for none (`blur:0`).
    private static func parse(step: String) throws(ParseError) -> (any ImageProcessing)? {
        let parts = step.lowercased().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let arguments = Array(parts.dropFirst())
        switch parts[0] {
        case "resize": return try resize(arguments)
        case "crop": return try crop(arguments)
        case "": throw ParseError(description: "the step is empty")
        default:
            guard let option = ProcessingOption.named(parts[0]) else {
                throw ParseError(description: "unknown step '\(parts[0])'; the steps are \(help)")
            }
            do {
                return try option.processor(.init(arguments, limits: limits))
            } catch {
                throw ParseError(description: error.description)
            }
        }
    }

    /// The limits every syntax states once.
    static let limits = ProcessingLimits()

    private static func resize(_ arguments: [String]) throws(ParseError) -> any ImageProcessing {
        guard let box = arguments.first.flatMap(size) else {
            throw ParseError(description: "give the box as WIDTHxHEIGHT, e.g. resize:256x256:fill")
        }
        var fit = Fit.fit
        var gravity = Gravity.centre
        var upscale = false
        for argument in arguments.dropFirst() {
            if let chosen = Fit(rawValue: argument) {
                fit = chosen
            } else if argument == "upscale" {
                upscale = true
            } else {
                guard let chosen = Gravity(name: argument), [.fill, .crop].contains(fit) else {
                    throw ParseError(description: "'\(argument)' is not fit, fill, cover, exact, crop, upscale or (after fill or crop) a gravity")
                }
                gravity = chosen
            }
        }
        return .resize(width: box.width, height: box.height, fit: fit, gravity: gravity, upscale: upscale)
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
            guard let gravity = Gravity(name: name) else {
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

extension Gravity {
    init?(name: String) {
        if name == "center" { self = .centre } else { self.init(rawValue: name) }
    }
}
