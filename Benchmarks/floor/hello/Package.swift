// swift-tools-version:6.0
// A Hummingbird hello-world of the version CarePortal runs on: the ceiling `Benchmarks/floor/run` measures against.
import PackageDescription

let package = Package(
    name: "hello",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1")
    ],
    targets: [
        .executableTarget(name: "hello", dependencies: [.product(name: "Hummingbird", package: "hummingbird")])
    ]
)
