// swift-tools-version: 6.0
import Foundation
import PackageDescription

// libFuzzer harnesses for funnel's readers and decoders (docs/fuzzing.md; `scripts/fuzz` builds
// and runs them). The library modules are compiled here from the main package's own sources
// (`Library` links to ../Sources) so that they, and not only the harnesses, carry the fuzzer's
// coverage and the address sanitizer; the packages they depend on are built plain.

/// Coverage for libFuzzer and the address sanitizer, on every module of funnel's own.
let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
/// A harness: instrumented like the libraries; its `@main` hands the process to libFuzzer's
/// driver (`runFuzzer`), as the package manager gives every executable an entry point of its own.
let harness: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])]
let harnessLink: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]

/// Of ClickHouseStore, the RowBinary reader and what it names: the rest of the module needs
/// SwiftNIO and the HTTP client, which the reader does not (the rest is excluded by name, so
/// that the package manager does not warn about it).
let rowBinaryFiles = ["RowBinaryReader.swift", "ClickHouseError.swift", "ClickHouseLocation.swift"]
let otherClickHouseFiles = ((try? FileManager.default.contentsOfDirectory(
    atPath: Context.packageDirectory + "/Library/ClickHouseStore")) ?? []).filter { !rowBinaryFiles.contains($0) }

func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies + ["FuzzSupport"], path: "Sources/\(name)",
                      swiftSettings: harness, linkerSettings: harnessLink)
}

let package = Package(
    name: "funnel-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Library/CZlib", pkgConfig: "zlib"),
        .systemLibrary(name: "CDeflate", path: "Library/CDeflate", pkgConfig: "libdeflate"),
        .systemLibrary(name: "CIsal", path: "Library/CIsal", pkgConfig: "libisal"),
        .systemLibrary(name: "CZstd", path: "Library/CZstd", pkgConfig: "libzstd"),
        .systemLibrary(name: "CGlibc", path: "Library/CGlibc"),
        .target(name: "FunnelModel", dependencies: ["Workers"], path: "Library/FunnelModel", swiftSettings: instrumented),
        .target(name: "LogFiles", dependencies: ["FunnelModel", "CZlib", "CDeflate", "CIsal", "CZstd"], path: "Library/LogFiles",
                swiftSettings: instrumented),
        .target(name: "Flows", dependencies: ["FunnelModel"], path: "Library/Flows", swiftSettings: instrumented),
        .target(name: "Workers", path: "Library/Workers", swiftSettings: instrumented),
        .target(name: "LogSources", dependencies: ["FunnelModel"], path: "Library/LogSources", swiftSettings: instrumented),
        .target(name: "LineParsing", dependencies: ["FunnelModel", "LogFiles", "LogSources", "Workers"], path: "Library/LineParsing",
                swiftSettings: instrumented),
        .target(name: "StoreCore", dependencies: [
            "FunnelModel", "LogFiles", "LogSources", "LineParsing", "Workers", "CGlibc", .product(name: "Crypto", package: "swift-crypto"),
        ], path: "Library/StoreCore", swiftSettings: instrumented),
        .target(name: "Journeys", dependencies: ["FunnelModel", "LogFiles", "Workers", "LineParsing", "StoreCore"], path: "Library/Journeys",
                swiftSettings: instrumented),
        .target(name: "ClickHouseStore", dependencies: ["FunnelModel"], path: "Library/ClickHouseStore",
                exclude: otherClickHouseFiles, sources: rowBinaryFiles, swiftSettings: instrumented),
        // What several harnesses share: the input as a file, a failure that libFuzzer reports.
        .target(name: "FuzzSupport", dependencies: ["LogFiles"], swiftSettings: instrumented),
        fuzzTarget("gzip", ["LogFiles"]),
        fuzzTarget("lines", ["LogFiles"]),
        fuzzTarget("decoder", ["LogFiles", "FunnelModel"]),
        fuzzTarget("decoder-diff", ["LogFiles", "FunnelModel"]),
        fuzzTarget("flows", ["Flows", "FunnelModel"]),
        fuzzTarget("rowbinary", ["ClickHouseStore"]),
        fuzzTarget("journey", ["Journeys", "Flows", "LogFiles", "FunnelModel"]),
    ],
    swiftLanguageModes: [.v6]
)
