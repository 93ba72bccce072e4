// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// scripts/fuzz sets MAGPIE_FUZZING=1: libFuzzer's coverage and AddressSanitizer then go into
// Magpie's own code (the fuzzed bytes are parsed there and in libvips, which is C built
// elsewhere), and its dependencies stay as the test build made them, so the fuzz build reuses
// that build instead of compiling every dependency again (six minutes of CI's budget).
let fuzzing = Context.environment["MAGPIE_FUZZING"] == "1"
let fuzzedSwift: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
let fuzzedC: [CSetting] = fuzzing ? [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])] : []

// Magpie is built and tested on Linux only (the disk cache and memory-pressure code call Glibc
// and read /proc and cgroup files), so the package declares no Apple platforms.
let package = Package(
    name: "Magpie",
    products: [
        .library(name: "Magpie", targets: ["Magpie"]),
        .library(name: "MagpieServer", targets: ["MagpieServer"]),
        .library(name: "MagpieTesting", targets: ["MagpieTesting"]),
        .executable(name: "magpie", targets: ["magpie"]),
        // `swift package install-libvips`, from a package that depends on Magpie.
        .plugin(name: "InstallLibvips", targets: ["InstallLibvips"]),
    ],
    // The OTLP exporter of `magpie proxy` (swift-otel and its protocol buffers), on by default.
    // Builds that never run the exporter (Thread Sanitizer's, the distribution libvips' one)
    // leave it out with --disable-default-traits: a few minutes of CI's budget each.
    traits: [
        .trait(name: "OpenTelemetry", description: "magpie proxy exports traces over OTLP/HTTP"),
        .default(enabledTraits: ["OpenTelemetry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // OTLP over HTTP only: the gRPC exporter would bring gRPC and HTTP/2 into every build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .plugin(
            name: "InstallLibvips",
            capability: .command(
                intent: .custom(
                    verb: "install-libvips",
                    description: "Installs the Debian packages Magpie builds against and the libvips 8.18 it runs fastest on")
            )
        ),
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev", "libpng-dev"])]
        ),
        .target(
            name: "CMagpieVips",
            dependencies: ["CVips"],
            cSettings: fuzzedC,
            linkerSettings: [
                .linkedLibrary("jpeg"), .linkedLibrary("heif"), .linkedLibrary("stb"), .linkedLibrary("jxl"), .linkedLibrary("webpdemux"),
                .linkedLibrary("webp"), .linkedLibrary("z"),
            ]
        ),
        .target(name: "CMagpieSystem", cSettings: fuzzedC),
        // Only the `magpie` executable links it: its batch commands' allocator tunables.
        .target(name: "CMagpieLaunch"),
        // The loopback origin's generated pixels.
        .target(name: "CMagpieOrigin"),
        // Only tests link it.
        .target(
            name: "CMagpieTestSupport",
            linkerSettings: [.linkedLibrary("z")]
        ),
        .target(
            name: "Magpie",
            dependencies: [
                "CMagpieVips",
                "CMagpieSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings + fuzzedSwift
        ),
        .target(
            name: "MagpieServer",
            dependencies: [
                "Magpie",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // The loopback image server and the generated images that `magpie serve` and `magpie demo`
        // run, and that the tests use through MagpieTesting.
        .target(
            name: "MagpieOrigin",
            dependencies: [
                "Magpie",
                "CMagpieVips",
                "CMagpieOrigin",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MagpieTesting",
            dependencies: [
                "Magpie",
                "MagpieOrigin",
                "CMagpieTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MagpieCLI",
            dependencies: [
                "Magpie",
                "MagpieServer",
                "MagpieOrigin",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "magpie",
            dependencies: ["MagpieCLI", "Magpie", "CMagpieLaunch"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "MagpieProbe",
            dependencies: ["Magpie", "MagpieTesting"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "MagpieFuzz",
            dependencies: ["Magpie"],
            swiftSettings: strictSettings + fuzzedSwift + (fuzzing ? [.define("FUZZING"), .unsafeFlags(["-parse-as-library"])] : []),
            // lld, because gold fails with an internal error on the sanitized objects.
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-Xclang-linker", "-fuse-ld=lld"])] : []
        ),
        .executableTarget(
            name: "MagpieBenchmarks",
            dependencies: [
                "Magpie", "MagpieServer", "MagpieTesting", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Benchmarks/MagpieBenchmarks",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MagpieTests",
            dependencies: [
                "Magpie", "MagpieTesting", "MagpieCLI", "MagpieServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            // Inputs replayed by FuzzRegressionTests and used as seeds by scripts/fuzz.
            exclude: ["FuzzRegressions"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
