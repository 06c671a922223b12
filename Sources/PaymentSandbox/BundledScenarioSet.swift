// SPDX-License-Identifier: MIT
import BundledScenarios
import Foundation
import SandboxPlugIn

/// The scenarios that ship with the package, read and parsed once per process: starting a sandbox with them
/// (``SandboxConfiguration/includesBundledScenarios``) then costs no file reads.
enum BundledScenarioSet {
    /// The resource bundle, else the package's `scenarios/` folder; nil when neither is found (none are played).
    static let folder: URL? = BundledScenarioFolder.url

    static let parsed: Result<ScenarioLibrary, ScenarioLoadFailure> =
        folder.map { ScenarioLibrary.load(directories: [$0], vocabulary: .sandbox) } ?? .success(ScenarioLibrary(scenarios: []))
}
