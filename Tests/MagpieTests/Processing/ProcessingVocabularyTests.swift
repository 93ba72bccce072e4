import Foundation
import Magpie
@testable import MagpieCLI
@testable import MagpieServer
import Testing

/// The command line's `--process` and the proxy's option segments name processors through one
/// vocabulary: the same words make the same processors, and are refused with the same reason.
@Suite("One processing vocabulary")
struct ProcessingVocabularyTests {
    static let proxy = OptionParser(presets: [:], limits: ProcessingLimits())

    /// The proxy runs the shared processors as its layout's filters, on the result before any
    /// canvas is added.
    static func proxyProcessors(_ segments: [String]) throws -> [String] {
        let processors = try RenderPlan(proxy.parse(segments), limits: ProcessingLimits()).processors
        return processors.flatMap { ($0 as? ImageProcessors.Layout)?.filters ?? [$0] }.map(\.identifier)
    }

    @Test func bothSyntaxesMakeTheSameProcessors() throws {
        let fromCommandLine = try ProcessingList.parse("adjust:10:1.2:0.5,blur:2,sharpen:0.5,pixelate:4,round:8,circle,grayscale").map(\.identifier)
        #expect(fromCommandLine == (try Self.proxyProcessors(["a:10:1.2:0.5", "bl:2", "sh:0.5", "pix:4", "r:8", "circle:1", "grayscale:1"])))
        #expect(try Self.proxyProcessors(["br:10", "co:1.2", "sa:0.5"]) == (try Self.proxyProcessors(["adjust:10:1.2:0.5"])))
        #expect(fromCommandLine == [
            ImageProcessors.Adjust(brightness: 10, contrast: 1.2, saturation: 0.5).identifier,
            ImageProcessors.GaussianBlur(sigma: 2).identifier, ImageProcessors.Sharpen(sigma: 0.5).identifier,
            ImageProcessors.Pixelate(size: 4).identifier, ImageProcessors.RoundedCorners(radius: 8).identifier,
            ImageProcessors.Circle().identifier, ImageProcessors.Grayscale().identifier,
        ])
        // A corner radius is in CSS pixels, which dpr multiplies; a sigma is in output pixels, as imgproxy's.
        #expect(try Self.proxyProcessors(["bl:2", "r:8", "dpr:2"]) == (try ProcessingList.parse("blur:2,round:16").map(\.identifier)))
        // Zero asks for nothing in both.
        #expect(try ProcessingList.parse("blur:0,round:0").isEmpty && Self.proxyProcessors(["bl:0", "r:0", "circle:0"]).isEmpty)
    }

    @Test(arguments: ["blur:101", "blur:-1", "blur:x", "sharpen:11", "round:9000", "circle:2", "grayscale:yes", "hue:3601", "hue:x"])
    func limitsAreStatedOnceAndRefusedAlikeInBoth(_ step: String) throws {
        let parts = step.split(separator: ":").map(String.init)
        let option = try #require(ProcessingOption.named(parts[0]))
        var reason = ""
        do {
            _ = try option.processor(.init(Array(parts.dropFirst())))
            Issue.record("\(step) was accepted")
        } catch {
            reason = error.description
        }
        #expect(throws: ProcessingList.ParseError.self) { try ProcessingList.parse(step) }
        do {
            _ = try ProcessingList.parse(step)
        } catch {
            #expect(error.description.hasSuffix(reason), "\(error.description)")
        }
        #expect(throws: ProxyURLError(status: 400, message: "option '\(step)': \(reason)")) { try Self.proxy.parse([step]) }
    }

    @Test func everyOptionIsNamedOnceAndItsUsageStartsWithItsName() {
        let names = ProcessingOption.all.flatMap(\.names)
        #expect(Set(names).count == names.count)
        for option in ProcessingOption.all {
            #expect(option.usage.hasPrefix(option.name))
            #expect(ProcessingOption.named(option.name.uppercased())?.name == option.name)
        }
    }

    @Test func anOptionGivenNoSpellingHasNoNameAndIsNeverFound() {
        let unnamed = ProcessingOption(names: [], usage: "") { _ in nil }
        #expect(unnamed.name.isEmpty)
        #expect(ProcessingOption.named("", in: [unnamed]) == nil)
    }
}
