// swift-tools-version:6.2
import PackageDescription

/// The server libraries both the platform and the features build on.
let serverLibraries: [Target.Dependency] = [
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "CSV", package: "CSV.swift"),
    .product(name: "Hummingbird", package: "hummingbird"),
    .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
    .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
    .product(name: "HTTPTypes", package: "swift-http-types"),
    .product(name: "Logging", package: "swift-log"),
    .product(name: "Metrics", package: "swift-metrics"),
    .product(name: "Mustache", package: "swift-mustache"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOWebSocket", package: "swift-nio"),
    .product(name: "PostgresKit", package: "postgres-kit"),
    .product(name: "PostgresNIO", package: "postgres-nio"),
    .product(name: "Prometheus", package: "swift-prometheus"),
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    .product(name: "SQLKit", package: "sql-kit"),
    .product(name: "SQLiteKit", package: "sqlite-kit"),
    .product(name: "SQLiteNIO", package: "sqlite-nio")
]

let package = Package(
    name: "careportal",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "careportal", targets: ["careportal"]),
        .library(name: "CarePortal", targets: ["CarePortal"]),
        .library(name: "SafeHTML", targets: ["SafeHTML"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", exact: "0.9.20")
    ],
    targets: [
        .executableTarget(
            name: "careportal",
            dependencies: [
                "CarePortal",
                "PortalPlatform",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        // What every feature uses — storage, accounts, sessions, audit, outbox, pages, the request's way through
        // middleware to a route — and names no feature: the compiler refuses a platform file that does.
        .target(
            name: "PortalPlatform",
            dependencies: ["CSMTP", "CMalloc", .product(name: "ZIPFoundation", package: "ZIPFoundation")] + serverLibraries,
            resources: [.copy("Resources/common-passwords.txt")]
        ),
        // The features, each in its own folder, and the application assembled from them.
        .target(
            name: "CarePortal",
            dependencies: [
                "PortalPlatform", "SafeHTML", "CHPDF", "CQREncode",
                .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation")
            ] + serverLibraries,
            resources: [.copy("Resources/demo-illustrations")]
        ),
        // libcurl's SMTP client behind a small non-variadic C interface Swift can call.
        .target(name: "CSMTP", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "SafeHTML", dependencies: ["CLibXML2", "CCmark"]),
        // Runs SafeHTML for script/safehtml-check and Benchmarks/safehtml/run.
        .executableTarget(name: "safehtml-tool", dependencies: ["SafeHTML"]),
        // libFuzzer target when built by script/fuzz-safehtml; otherwise it replays saved inputs.
        .executableTarget(name: "SafeHTMLFuzz", dependencies: ["SafeHTML"]),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // libharu draws the patient reports' PDFs.
        .systemLibrary(
            name: "CHPDF",
            providers: [.apt(["libhpdf-dev"])]
        ),
        // libqrencode draws the two-factor set-up's QR code.
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // glibc's malloc.h, for the server's limit on the allocator's arenas.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CCmark",
            pkgConfig: "libcmark",
            providers: [.apt(["libcmark-dev"])]
        ),
        .testTarget(
            name: "CarePortalTests",
            dependencies: [
                "CarePortal",
                "PortalPlatform",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation")
            ]
        ),
        .testTarget(
            name: "SafeHTMLTests",
            dependencies: [
                "SafeHTML",
                .product(name: "PropertyBased", package: "swift-property-based")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
