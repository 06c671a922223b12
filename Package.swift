// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
import PackageDescription

// No package dependencies: Foundation, Dispatch, Synchronization and the platform C library only.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "payment-sandbox",
    // Synchronization.Mutex / Atomic need these on Apple platforms; everything but the CLI builds for iOS.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "PaymentSandbox", targets: ["PaymentSandbox"]),
        .executable(name: "payment-sandbox", targets: ["payment-sandbox"]),
    ],
    targets: [
        // Sockets, HTTP/1.1 parsing and serialisation, routing. Knows nothing of payments.
        .target(name: "SandboxHTTP", swiftSettings: strict),
        // Shared by every provider: namespaces, the injected clock and id generator (and the scenario engine).
        .target(name: "SandboxScenarios", dependencies: ["SandboxHTTP"], swiftSettings: strict),
        // Klarna Payments, Hosted Payment Page, Order Management: routes, models, stores, errors.
        .target(name: "KlarnaSandbox", dependencies: ["SandboxHTTP", "SandboxScenarios"], swiftSettings: strict),
        // Swedbank Pay: Payment Order v3 and the payment-session API of the Mobile SDKs.
        .target(name: "SwedbankPaySandbox", dependencies: ["SandboxHTTP", "SandboxScenarios"], swiftSettings: strict),
        // The sandbox itself: wires the providers and the control API onto the HTTP core.
        .target(name: "PaymentSandbox", dependencies: ["SandboxHTTP", "SandboxScenarios", "KlarnaSandbox", "SwedbankPaySandbox"],
                swiftSettings: strict),
        // The command line: flags, environment, signals. Process-only code lives here.
        .executableTarget(name: "payment-sandbox", dependencies: ["PaymentSandbox"], swiftSettings: strict),
        .testTarget(name: "SandboxHTTPTests", dependencies: ["SandboxHTTP"], exclude: ["FuzzCorpus"], swiftSettings: strict),
        .testTarget(name: "SandboxScenariosTests", dependencies: ["SandboxScenarios", "PaymentSandbox"], swiftSettings: strict),
        .testTarget(name: "KlarnaSandboxTests", dependencies: ["KlarnaSandbox"], swiftSettings: strict),
        .testTarget(name: "SwedbankPaySandboxTests", dependencies: ["SwedbankPaySandbox"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["PaymentSandbox", "SandboxHTTP"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
