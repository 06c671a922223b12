// SPDX-License-Identifier: MIT
// Invalid scenario files at start: PaymentSandbox.start() throws ScenarioLoadFailure; the CLI refuses to
// serve (exit 1, the problem as file:line:column on stderr); `payment-sandbox validate` checks directories
// and files (exit 1 with every problem, or exit 0 and "N scenario files valid").
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Scenario control: invalid files at start and validate")
struct ScenarioControlStartupTests {
    static let typo = scenarioFile("e2e-bad", "An outcome with a typo.", rules: [
        #"{"operation": "klarna.payments.authorize", "outcome": "rejekt"}"#,
    ])
    static let typoMessage = #"$.rules[0].outcome: unknown outcome "rejekt": did you mean "reject"?"#

    /// The problem line of the typo in `bad.json` of `directory` as `shown` names the directory.
    static func typoProblem(_ shownDirectory: String) throws -> String {
        let at = try #require(position(of: "\"rejekt\"", in: typo))
        return "\(shownDirectory)/bad.json:\(at.line):\(at.column): \(typoMessage)"
    }

    @Test("PaymentSandbox.start() throws ScenarioLoadFailure naming every problem as file:line:column: path: message")
    func startThrows() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("bad.json", Self.typo)
            // A name the bundled set already has.
            let duplicate = scenarioFile("reject", rules: [])
            try directory.write("reject-again.json", duplicate)
            let bundledReject = try String(contentsOf: ScenarioPaths.bundled.appendingPathComponent("klarna/reject.json"), encoding: .utf8)
            let first = try #require(position(of: #""reject""#, in: bundledReject))
            let again = try #require(position(of: #""reject""#, in: duplicate))
            let expected = [
                try Self.typoProblem(directory.url.path),
                "\(directory.shown("reject-again.json")):\(again.line):\(again.column): $.name: duplicate scenario name \"reject\" "
                    + "(also in \(ScenarioPaths.bundled.path)/klarna/reject.json:\(first.line):\(first.column))",
            ]
            var configuration = SandboxConfiguration(port: 0)
            configuration.scenarioDirectories = [ScenarioPaths.bundled, directory.url]
            try await ResourceGate.shared {
                let sandbox = PaymentSandbox(configuration: configuration)
                do {
                    let url = try sandbox.start()
                    Issue.record("started on \(url) despite invalid scenario files")
                } catch let failure as ScenarioLoadFailure {
                    #expect(failure.problems.map(\.description) == expected)
                    #expect(failure.description == expected.joined(separator: "\n"))
                }
                #expect(sandbox.baseURL == nil)
                await sandbox.stop()
            }
        }
    }

    @Test("the CLI with --scenarios <invalid dir> exits 1 with the problem on stderr and does not listen")
    func serveRefuses() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("bad.json", Self.typo)
            let result = try await runCLI(["--port", "0", "--quiet", "--scenarios", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stderr == """
                \(try Self.typoProblem(directory.url.path))
                payment-sandbox: not starting: 1 problem in the scenario files

                """, "stderr: \(result.stderr)")
            #expect(!result.stdout.contains("listening"), "stdout: \(result.stdout)")
        }
    }

    @Test("validate <invalid dir> exits 1 and prints every problem, sorted, then the count")
    func validateInvalid() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("bad.json", Self.typo)
            let worse = #"{"name": "e2e-worse", "description": "", "rules": [], "extra": 1}"# + "\n"
            try directory.write("worse.json", worse)
            let empty = try #require(position(of: #""""#, in: worse))
            let extra = try #require(position(of: #""extra""#, in: worse))
            // A relative directory is named as given.
            let parent = directory.url.deletingLastPathComponent()
            let relative = directory.url.lastPathComponent
            let result = try await runCLI(["validate", relative], workingDirectory: parent)
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stderr == """
                \(try Self.typoProblem(relative))
                \(relative)/worse.json:\(empty.line):\(empty.column): $.description: must not be empty
                \(relative)/worse.json:\(extra.line):\(extra.column): $.extra: unknown key "extra" (expected one of: $schema, name, description, rules)
                3 problems found

                """, "stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")

            // The same through the test helper that the other CLI tests use, with an absolute path.
            let absolute = try await CLITests.run(["validate", directory.url.path])
            #expect(absolute.status == 1)
            #expect(absolute.stderr.hasPrefix(try Self.typoProblem(directory.url.path) + "\n"), "stderr: \(absolute.stderr)")
        }
    }

    @Test("validate without arguments, in the package root, checks the bundled scenarios/: exit 0, N scenario files valid")
    func validateBundled() async throws {
        let count = ScenarioPaths.countScenarioFiles(in: ScenarioPaths.bundled)
        #expect(count >= 13)
        let result = try await runCLI(["validate"], workingDirectory: ScenarioPaths.packageRoot)
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout == "\(count) scenario files valid\n", "stdout: \(result.stdout)")
        #expect(result.stderr.isEmpty, "stderr: \(result.stderr)")
    }

    @Test("validate with a good file and a good directory counts both")
    func validateFileAndDirectory() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("one.json", scenarioFile("e2e-one", rules: []))
            try directory.write("nested/two.json", scenarioFile("e2e-two", rules: []))
            try directory.write("scenario.schema.json", "not a scenario, never read")
            try directory.write(".hidden.json", "not read either")
            let result = try await runCLI(["validate", "scenarios/klarna/reject.json", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout == "3 scenario files valid\n", "stdout: \(result.stdout)")
            let one = try await runCLI(["validate", "scenarios/klarna/reject.json"], workingDirectory: ScenarioPaths.packageRoot)
            #expect(one.stdout == "1 scenario file valid\n", "stdout: \(one.stdout) stderr: \(one.stderr)")
        }
    }

    @Test("validate prints a warning for a field the operation's request cannot have, and still exits 0")
    func validateWarnsAboutUnknownFields() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("typo.json", scenarioFile("e2e-typo", rules: [
                #"{"operation": "klarna.payments.authorize", "when": [{"field": "billing_adress.country", "equals": "SE"}], "outcome": "reject"}"#,
            ]))
            let result = try await runCLI(["validate", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout == "1 scenario file valid\n", "stdout: \(result.stdout)")
            #expect(result.stderr.contains(#"warning: "billing_adress.country" cannot occur in the request of klarna.payments.authorize"#),
                    "stderr: \(result.stderr)")
            #expect(result.stderr.contains("nearest known keys: billing_address"), "stderr: \(result.stderr)")
        }
    }

    @Test("schema prints the JSON Schema the registered vocabulary generates, as committed in scenarios/")
    func schemaCommand() async throws {
        let result = try await runCLI(["schema"], workingDirectory: ScenarioPaths.packageRoot)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == ScenarioSchema.text(for: .sandbox))
        let committed = try String(contentsOf: ScenarioPaths.bundled.appendingPathComponent("scenario.schema.json"), encoding: .utf8)
        #expect(result.stdout == committed)
    }
}
