// swift-tools-version: 6.0
import PackageDescription

// The modules on ingest's hot path skip the runtime exclusivity checks in release builds, a
// cost on every access (debug builds and the tests keep them; the compile-time checks stay on
// everywhere). Measured in docs/performance.md.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "funnel",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "funnel", targets: ["funnel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", path: "Sources/CDeflate", pkgConfig: "libdeflate",
                       providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CIsal", path: "Sources/CIsal", pkgConfig: "libisal",
                       providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"])]),
        // glibc calls Swift's Glibc module leaves out (Linux): the allocator's knobs, starting a file's write-out.
        .systemLibrary(name: "CGlibc", path: "Sources/CGlibc"),
        // SQLite's variadic sqlite3_config, which Swift cannot call.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "FunnelModel", dependencies: ["Workers"]),
        .target(name: "LogFiles", dependencies: ["FunnelModel", "CZlib", "CDeflate", "CIsal", "CZstd"], swiftSettings: hotPath),
        .target(name: "Flows", dependencies: ["FunnelModel"]),
        // Vendor exports (PostHog, Segment, …) read through source definitions: data, like flows.
        .target(name: "LogSources", dependencies: ["FunnelModel"]),
        .target(name: "Simulator", dependencies: ["FunnelModel", "LogFiles", "LogSources"]),
        // Threads and queues: the one toolkit of worker threads and hand-offs.
        .target(name: "Workers"),
        // The parse pipeline: an input's lines decoded, keyed and batched on a thread of its own.
        .target(name: "LineParsing", dependencies: ["FunnelModel", "LogFiles", "LogSources", "Workers"], swiftSettings: hotPath),
        // What every store shares: the read protocol, records, options, summary, errors, the ledger's content hash.
        .target(name: "StoreCore", dependencies: [
            "FunnelModel", "LogFiles", "LogSources", "LineParsing", "Workers", "CGlibc",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The embedded store: the log in SQLite (GRDB).
        .target(name: "EventStore", dependencies: [
            "FunnelModel", "LogFiles", "LogSources", "Workers", "LineParsing", "StoreCore", "CSQLite",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: hotPath),
        // A second backend for the log: ClickHouse, one server or a cluster, over HTTP.
        .target(name: "ClickHouseStore", dependencies: [
            "FunnelModel", "LogFiles", "LogSources", "Workers", "LineParsing", "StoreCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ]),
        // The fold, with no store behind it: journeys, facts, glances, replay, journeys folded
        // from any log or held across a ClickHouse ingest.
        .target(name: "Journeys", dependencies: ["FunnelModel", "LogFiles", "Workers", "LineParsing", "StoreCore"], swiftSettings: hotPath),
        // The journeys projection kept in the SQLite store.
        .target(name: "Projections", dependencies: [
            "FunnelModel", "LogFiles", "Workers", "LineParsing", "StoreCore", "Journeys", "EventStore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ], swiftSettings: hotPath),
        // The journeys' report facts kept beside a ClickHouse log, on each shard.
        .target(name: "ClickHouseProjections", dependencies: ["FunnelModel", "Workers", "LineParsing", "StoreCore", "Journeys", "ClickHouseStore"]),
        .target(name: "Reports", dependencies: ["FunnelModel", "LogFiles", "StoreCore", "Journeys"]),
        .executableTarget(name: "funnel", dependencies: [
            "FunnelModel", "LogFiles", "Flows", "LogSources", "Simulator", "StoreCore", "EventStore", "Journeys", "Projections", "Reports",
            "ClickHouseStore", "ClickHouseProjections",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Each stage of a cold ingest alone, for the per-stage table (scripts/stages): a
        // measuring tool, not part of funnel.
        .executableTarget(name: "funnel-stages", dependencies: ["FunnelModel", "LogFiles", "Flows", "LineParsing", "StoreCore", "EventStore", "Journeys", "Projections"]),
        // What the test targets share: scratch folders (removed when the test process exits),
        // ClickHouse servers, fixtures and sample stores, and the in-memory backend.
        .target(name: "TestSupport", dependencies: ["FunnelModel", "Workers", "LogFiles", "Flows", "LineParsing", "StoreCore", "Journeys", "EventStore", "Projections",
                                                 "ClickHouseStore", "Simulator", "CZlib"], path: "Tests/TestSupport"),
        .testTarget(name: "FunnelModelTests", dependencies: ["FunnelModel", "Simulator"]),
        .testTarget(name: "WorkersTests", dependencies: ["Workers"]),
        .testTarget(name: "LogFilesTests", dependencies: ["TestSupport", "LogFiles", "FunnelModel", "CZlib", "CZstd"]),
        .testTarget(name: "FlowsTests", dependencies: ["TestSupport", "Flows", "FunnelModel"]),
        .testTarget(name: "LogSourcesTests", dependencies: ["TestSupport", "LogSources", "Simulator", "Flows", "LogFiles", "FunnelModel"]),
        .testTarget(name: "SimulatorTests", dependencies: ["TestSupport", "Simulator", "LogFiles", "Flows", "FunnelModel"]),
        .testTarget(name: "LineParsingTests", dependencies: ["TestSupport", "LineParsing", "LogFiles", "LogSources", "FunnelModel"]),
        .testTarget(name: "StoreCoreTests", dependencies: ["TestSupport", "StoreCore", "LineParsing", "LogFiles", "FunnelModel", "CGlibc"]),
        .testTarget(name: "EventStoreTests", dependencies: ["TestSupport", "EventStore", "StoreCore", "LineParsing", "LogFiles", "Flows", "FunnelModel",
                                                       .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "ClickHouseStoreTests", dependencies: ["TestSupport", "ClickHouseStore", "StoreCore", "EventStore", "LogFiles", "LogSources", "Flows", "FunnelModel"]),
        .testTarget(name: "ClickHouseProjectionsTests", dependencies: ["TestSupport", "ClickHouseProjections", "ClickHouseStore", "Journeys", "Projections", "StoreCore", "EventStore", "LogFiles", "Flows", "FunnelModel"]),
        // The fold's tests, mirroring Sources/Journeys; some compare with the SQLite projection.
        .testTarget(name: "JourneysTests", dependencies: ["TestSupport", "Journeys", "Projections", "Workers", "Flows", "LineParsing", "StoreCore", "EventStore", "LogFiles", "FunnelModel",
                                                      .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "ProjectionsTests", dependencies: ["TestSupport", "Journeys", "Projections", "Workers", "Simulator", "Flows", "LineParsing", "StoreCore", "EventStore", "LogFiles", "FunnelModel",
                                                        .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "ReportsTests", dependencies: ["TestSupport", "Reports", "Journeys", "Projections", "StoreCore", "EventStore", "LogFiles", "Flows",
                                                     "FunnelModel", "CZlib"]),
        // `funnel`: the tests run the built binary.
        .testTarget(name: "funnelTests", dependencies: ["TestSupport", "funnel", "Reports", "Journeys", "StoreCore", "Flows", "LogFiles", "FunnelModel", "Workers",
                                                    .product(name: "GRDB", package: "GRDB.swift")]),
    ],
    swiftLanguageModes: [.v6]
)
