// SPDX-License-Identifier: MIT
// A temporary directory of scenario files that a test writes (docs/scenarios.md), for the tests of every target.
import Foundation

/// A directory under the system's temporary directory, removed by ``withScenarioDirectory(_:)``.
package struct ScenarioDirectory: Sendable {
    package let url: URL

    package init(url: URL) {
        self.url = url
    }

    /// Writes `text` to `name` (relative to the directory), replacing what was there.
    package func write(_ name: String, _ text: String) throws {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file, options: .atomic)
    }

    package func remove(_ name: String) throws { try FileManager.default.removeItem(at: url.appendingPathComponent(name)) }

    /// The file's path as the sandbox names it in problems: the directory as given, then "/" and the name.
    package func shown(_ name: String) -> String { url.path + "/" + name }
}

/// Creates a fresh temporary directory, runs `body`, removes the directory whatever happens.
package func withScenarioDirectory<T>(_ body: (ScenarioDirectory) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("payment-sandbox-test-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        .standardizedFileURL
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(ScenarioDirectory(url: url))
}
