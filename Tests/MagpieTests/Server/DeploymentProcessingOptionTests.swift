import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// A deployment names processors of its own in imgproxy URLs, beside the built-in ones
/// (`ProxyConfiguration.processingOptions`).
@Suite("A deployment's own processing options")
struct DeploymentProcessingOptionTests {
    /// `soften:1` (or `sf:1`; a URL's option segment has a colon) is a blur of 3, `soften:0`
    /// none.
    static let soften = ProcessingOption(names: ["soften", "sf"], usage: "soften", scalesWithPixelRatio: false) {
        arguments throws(ProcessingOption.Failure) in
        guard arguments.values.count <= 1 else { throw ProcessingOption.Failure("soften takes nothing, or 0 for none") }
        return arguments.values.first == "0" ? nil : ImageProcessors.GaussianBlur(sigma: 3)
    }

    static let photo: [UInt8] = (try? TestImages.texture(width: 800, height: 600, format: .jpeg)) ?? []

    @Test func anOptionOfTheDeploymentsOwnIsReadLikeABuiltInOne() async throws {
        try await withProxyFixture(configure: { $0.processingOptions = ProcessingOption.all + [Self.soften] }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let softened = try await fixture.get(fixture.path("/a.jpg", "s:200:200/sf:1/f:png"))
            let blurred = try await fixture.get(fixture.path("/a.jpg", "s:200:200/bl:3/f:png"))
            let plain = try await fixture.get(fixture.path("/a.jpg", "s:200:200/soften:0/f:png"))
            let unprocessed = try await fixture.get(fixture.path("/a.jpg", "s:200:200/f:png"))
            #expect(softened.status == 200 && blurred.status == 200 && plain.status == 200)
            let same = (softened.body == blurred.body, softened.body == unprocessed.body, plain.body == unprocessed.body)
            #expect(same.0, "the deployment's option makes the processor it names")
            #expect(!same.1)
            #expect(same.2, "an option that asks for no processor adds none")
            // As imgproxy answers any option it cannot read.
            let refused = try await fixture.get(fixture.path("/a.jpg", "s:200:200/sf:1:2"))
            #expect(refused.status == 404 && refused.text.contains("soften takes nothing"), "\(refused.status) \(refused.text)")
        }
    }

    @Test func withoutItTheNameIsUnknown() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:200:200/sf:1"))
            #expect(reply.status == 404 && reply.text.contains("unknown option 'sf'"), "\(reply.status) \(reply.text)")
        }
    }

    @Test(arguments: [["bl"], ["w"], ["preset"], ["blurry", "blurry"]])
    func aNameImgproxyOrAnotherOptionHasIsRefusedAtStart(_ names: [String]) throws {
        var configuration = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
        configuration.allowsUnsignedURLs = true
        configuration.processingOptions.append(ProcessingOption(names: names, usage: names[0]) { _ throws(ProcessingOption.Failure) in nil })
        #expect(throws: ProxyConfigurationError.self) { try ImageProxy(configuration: configuration) }
    }
}
