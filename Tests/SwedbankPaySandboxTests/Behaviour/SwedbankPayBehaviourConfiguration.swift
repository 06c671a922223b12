// SPDX-License-Identifier: MIT
// The deterministic configuration of the Swedbank Pay behaviour tests, in a file of its own: it names the clock and id
// generator as `import PaymentSandbox` exports them (the other files also see SwedbankPaySandbox's, of the same name).
import Foundation
import PaymentSandbox

/// A manual clock (time moves only through `/__sandbox/clock`) from 2027-01-15T08:00:00Z, sequential ids, the
/// bundled scenarios and `scenarioDirectories`.
func deterministicConfiguration(scenarioDirectories: [URL] = []) -> SandboxConfiguration {
    var configuration = SandboxConfiguration(scenarioDirectories: scenarioDirectories)
    configuration.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    configuration.ids = SequentialIDGenerator()
    configuration.scenarioWatchInterval = nil
    return configuration
}

/// A manual clock from 2027-01-15T08:00:00Z, random ids, the bundled scenarios and `scenarioDirectories`: the session
/// and checkout-page tests' sandbox.
func manualClockConfiguration(scenarioDirectories: [URL] = []) -> SandboxConfiguration {
    var configuration = SandboxConfiguration(scenarioDirectories: scenarioDirectories)
    configuration.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    configuration.scenarioWatchInterval = nil
    return configuration
}
