// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
import PackageDescription

// No package dependencies: Foundation, Dispatch and the platform C library only.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "payment-sandbox",
    // Duration, Clock and Task.sleep(for:) need these on Apple platforms; everything but the CLI builds for iOS.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "PaymentSandbox", targets: ["PaymentSandbox"]),
        .library(name: "PaymentSandboxTesting", targets: ["PaymentSandboxTesting"]),
        .library(name: "PaymentSandboxKlarnaMobile", targets: ["PaymentSandboxKlarnaMobile"]),
        .executable(name: "payment-sandbox", targets: ["payment-sandbox"]),
    ],
    targets: [
        // Sockets, HTTP/1.1 parsing and serialisation, routing. Knows nothing of payments.
        .target(name: "SandboxHTTP", swiftSettings: strict),
        // The core of shared state and plumbing: namespaces and their clocks, stores, retention, the saved state,
        // JSON, the journal, callbacks and their outbox, merchant URLs, money. Names no provider.
        .target(name: "SandboxCore", dependencies: ["SandboxHTTP"], swiftSettings: strict),
        // The scenario language on that core: files, conditions, outcomes, the engine that picks a decision.
        .target(name: "SandboxScenarios", dependencies: ["SandboxCore"], swiftSettings: strict),
        // The provider plug-in protocol (`SandboxProvider`, error formats) and the scenario player providers call.
        .target(name: "SandboxPlugIn", dependencies: ["SandboxScenarios"], swiftSettings: strict),
        // Klarna Payments, Hosted Payment Page, Order Management, Customer Token: routes, models, stores, errors.
        .target(name: "KlarnaSandbox", dependencies: ["SandboxPlugIn"], swiftSettings: strict),
        // Swedbank Pay: Payment Order v3, the payment-session API of the Mobile SDKs, the checkout pages.
        .target(name: "SwedbankPaySandbox", dependencies: ["SandboxPlugIn"], swiftSettings: strict),
        // The sandbox itself: wires the providers and the control API onto the HTTP core.
        .target(name: "PaymentSandbox",
                dependencies: ["SandboxPlugIn", "KlarnaSandbox", "SwedbankPaySandbox", "BundledScenarios"],
                swiftSettings: strict),
        // The bundled scenarios/ folder as a resource bundle (nothing to compile), so in-process users play them
        // with no path given. The folder stays at the top: the CLI, the image and CI read it there.
        .target(name: "BundledScenarios", path: "scenarios", exclude: ["README.md", "scenario.schema.json"],
                resources: [.copy("klarna"), .copy("swedbankpay")]),
        // For users' tests: one client for an in-process or a live sandbox, and typed control calls.
        .target(name: "PaymentSandboxTesting", dependencies: ["PaymentSandbox", "SandboxHTTP"], swiftSettings: strict),
        // Klarna's Mobile SDK for iOS (KlarnaPaymentView and its listener), played by a sandbox through SandboxClient.
        .target(name: "PaymentSandboxKlarnaMobile", dependencies: ["PaymentSandboxTesting", "SandboxHTTP"], swiftSettings: strict),
        // The command line: flags, environment, signals. Process-only code lives here.
        .executableTarget(name: "payment-sandbox",
                          dependencies: ["PaymentSandbox", "SandboxHTTP", "SandboxCore", "SandboxScenarios", "SandboxPlugIn", "KlarnaSandbox", "SwedbankPaySandbox"],
                    swiftSettings: strict),
        // Test code several test targets share (the Swedbank Pay SDK mirror, walker and session driver, the checkout
        // page client, escaping payloads): a plain target, since one test target cannot depend on another. No
        // product names it, so only tests build it.
        .target(name: "SandboxTestSupport", dependencies: ["PaymentSandboxTesting", "PaymentSandbox", "SwedbankPaySandbox", "SandboxHTTP", "SandboxCore"],
                path: "Tests/SandboxTestSupport", swiftSettings: strict),
        .testTarget(name: "SandboxHTTPTests", dependencies: ["SandboxHTTP"], exclude: ["FuzzCorpus"], swiftSettings: strict),
        .testTarget(name: "SandboxCoreTests", dependencies: ["SandboxCore"], swiftSettings: strict),
        .testTarget(name: "SandboxScenariosTests", dependencies: ["SandboxScenarios", "SandboxPlugIn", "PaymentSandbox", "KlarnaSandbox", "SwedbankPaySandbox"], swiftSettings: strict),
        .testTarget(name: "KlarnaSandboxTests", dependencies: ["KlarnaSandbox", "SandboxCore", "PaymentSandboxTesting", "PaymentSandbox", "SandboxTestSupport"], swiftSettings: strict),
        .testTarget(name: "SwedbankPaySandboxTests", dependencies: ["SwedbankPaySandbox", "PaymentSandboxTesting", "PaymentSandbox", "SandboxTestSupport"], swiftSettings: strict),
        .testTarget(name: "PaymentSandboxTestingTests", dependencies: ["PaymentSandboxTesting", "PaymentSandbox"],
                    swiftSettings: strict),
        .testTarget(name: "PaymentSandboxKlarnaMobileTests",
                    dependencies: ["PaymentSandboxKlarnaMobile", "PaymentSandboxTesting", "PaymentSandbox"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests",
                    dependencies: ["PaymentSandbox", "SandboxHTTP", "SandboxCore", "SandboxScenarios", "SandboxPlugIn", "KlarnaSandbox", "SwedbankPaySandbox",
                                   "PaymentSandboxTesting", "SandboxTestSupport"],
                    swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
