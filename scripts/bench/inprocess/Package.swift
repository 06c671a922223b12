// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
// scripts/bench/inprocess: in-process start + stop of the sandbox with the bundled scenarios, built against this
// repository as a dependent package builds it (scripts/bench.sh runs it; see Sources/inprocess-startstop).
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (the checkout's, whatever it is called).
let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL

let package = Package(
    name: "inprocess-bench",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: repository.path)],
    targets: [
        .executableTarget(name: "inprocess-startstop", dependencies: [
            .product(name: "PaymentSandbox", package: repository.lastPathComponent),
            .product(name: "PaymentSandboxTesting", package: repository.lastPathComponent),
        ]),
        .target(name: "BenchRequests"),
        .executableTarget(name: "inprocess-instructions", dependencies: [
            "BenchRequests",
            .product(name: "PaymentSandbox", package: repository.lastPathComponent),
            .product(name: "PaymentSandboxTesting", package: repository.lastPathComponent),
        ]),
        .target(name: "HeapStatistics"),
        .executableTarget(name: "memory-per-flow", dependencies: [
            "BenchRequests",
            "HeapStatistics",
            .product(name: "PaymentSandbox", package: repository.lastPathComponent),
            .product(name: "PaymentSandboxTesting", package: repository.lastPathComponent),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
