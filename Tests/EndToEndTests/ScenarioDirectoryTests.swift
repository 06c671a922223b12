// SPDX-License-Identifier: MIT
// Where the CLI finds scenarios: symbolic-link loops in a scenario directory (reported, not walked forever), the
// same directory given twice (loaded once), a user file reusing a bundled name (a problem naming both files,
// from serve and from validate), and the binary installed in the Docker image's layout, run as
// docker/compose.yaml runs it, with the paths read from docker/Dockerfile and docker/compose.yaml.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Scenario directories: links, repeats, bundled names, the image's layout")
struct ScenarioDirectoryTests {
    static func binary() throws -> URL { try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)") }

    /// Starts `payment-sandbox --port 0 --quiet` plus `arguments` in `workingDirectory` and runs `body` with its
    /// port and startup line; kills it afterwards.
    static func serving<T>(_ executable: URL, _ arguments: [String] = [], environment: [String: String?] = [:],
                           workingDirectory: URL, _ body: (_ port: Int, _ line: String) async throws -> T) async throws -> T {
        try await ResourceGate.shared {
            let child = try ChildProcess(executable, ["--port", "0", "--quiet"] + arguments, environment: environment,
                                         workingDirectory: workingDirectory)
            defer { child.kill() }
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(CLITests.listeningPort(line), "unexpected startup line: \(line); stderr: \(child.stderr)")
            return try await body(port, line)
        }
    }

    /// The names GET /__sandbox/scenarios lists.
    static func scenarioNames(port: Int) async throws -> [String] {
        let response = try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/scenarios"))
        try #require(response.status == 200, "GET /__sandbox/scenarios: \(response)")
        let scenarios = try #require(try response.jsonObject()["scenarios"] as? [[String: Any]])
        return scenarios.compactMap { $0["name"] as? String }
    }

    /// The scenario names of the repository's scenarios/, read as the tests' own count does.
    static func bundledNames() throws -> Set<String> {
        try Set(ScenarioLibrary.load(directories: [ScenarioPaths.bundled], vocabulary: .sandbox).get().names)
    }

    static func link(_ directory: ScenarioDirectory, _ name: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: directory.url.appendingPathComponent(name).path, withDestinationPath: destination)
    }

    static func loopProblems(_ directory: ScenarioDirectory, _ names: [String]) -> [String] {
        names.map { "\(directory.shown($0)): symbolic link loop: leads back to \(directory.url.path); not followed" }
    }

    // MARK: Symbolic links

    @Test("four links to `.`: validate and serve finish at once and name each loop (the old walk ran for minutes)")
    func linkLoops() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("mine.json", scenarioFile("e2e-looped", rules: []))
            let names = ["l1", "l2", "l3", "l4"]
            for name in names { try Self.link(directory, name, to: ".") }
            let problems = Self.loopProblems(directory, names)

            let validated = try await runCLI(["validate", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(validated.status == 1, "stdout: \(validated.stdout) stderr: \(validated.stderr)")
            #expect(validated.stderr == problems.joined(separator: "\n") + "\n4 problems found\n", "stderr: \(validated.stderr)")

            let served = try await runCLI(["--port", "0", "--quiet", "--scenarios", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(served.status == 1, "stdout: \(served.stdout) stderr: \(served.stderr)")
            #expect(served.stderr == problems.joined(separator: "\n") + "\npayment-sandbox: not starting: 4 problems in the scenario files\n",
                    "stderr: \(served.stderr)")
        }
    }

    // MARK: The same directory twice, bundled names

    @Test("the bundled directory given again, and one directory given twice, load once: the sandbox starts")
    func sameDirectoryTwice() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("mine.json", scenarioFile("e2e-mine", rules: []))
            let bundled = try Self.bundledNames()
            try await Self.serving(try Self.binary(), ["--scenarios", ScenarioPaths.bundled.path, "--scenarios", directory.url.path,
                                                       "--scenarios", directory.url.path + "/"],
                                   workingDirectory: ScenarioPaths.packageRoot) { port, line in
                #expect(line.hasSuffix("(scenarios: \(ScenarioPaths.bundled.path), \(directory.url.path))"), "\(line)")
                let names = try await Self.scenarioNames(port: port)
                #expect(Set(names) == bundled.union(["e2e-mine"]))
                #expect(names.count == bundled.count + 1)
            }
        }
    }

    /// The old lookup took `./scenarios` of the working directory as the bundled set: in a project with its own
    /// scenarios/, `--scenarios ./scenarios` then loaded that directory twice and refused to start.
    @Test("in a project with its own scenarios/, --scenarios ./scenarios loads the bundled set and the project's")
    func projectWithItsOwnScenariosFolder() async throws {
        try await withScenarioDirectory { project in
            try project.write("scenarios/project.json", scenarioFile("e2e-project", rules: []))
            let bundled = try Self.bundledNames()
            try await Self.serving(try Self.binary(), ["--scenarios", "./scenarios"], workingDirectory: project.url) { port, line in
                #expect(line.hasSuffix("(scenarios: \(ScenarioPaths.bundled.path), \(project.url.path)/scenarios)"), "\(line)")
                let names = try await Self.scenarioNames(port: port)
                #expect(Set(names) == bundled.union(["e2e-project"]))
            }
        }
    }

    @Test("a user file reusing a bundled name: serve and validate DIR both name the user's file and the bundled one")
    func bundledNameReused() async throws {
        try await withScenarioDirectory { directory in
            let mine = scenarioFile("reject", rules: [])
            try directory.write("my-reject.json", mine)
            let bundledReject = try String(contentsOf: ScenarioPaths.bundled.appendingPathComponent("klarna/reject.json"), encoding: .utf8)
            let first = try #require(position(of: #""reject""#, in: bundledReject))
            let again = try #require(position(of: #""reject""#, in: mine))
            let problem = "\(directory.shown("my-reject.json")):\(again.line):\(again.column): $.name: duplicate scenario name \"reject\" "
                + "(also in \(ScenarioPaths.bundled.path)/klarna/reject.json:\(first.line):\(first.column))"

            let served = try await runCLI(["--port", "0", "--quiet", "--scenarios", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(served.status == 1, "stdout: \(served.stdout) stderr: \(served.stderr)")
            #expect(served.stderr == problem + "\npayment-sandbox: not starting: 1 problem in the scenario files\n", "stderr: \(served.stderr)")

            let validated = try await runCLI(["validate", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(validated.status == 1, "stdout: \(validated.stdout) stderr: \(validated.stderr)")
            #expect(validated.stderr == problem + "\n1 problem found\n", "stderr: \(validated.stderr)")

            // Renamed, it validates; the count is of the given directory's files.
            try directory.write("my-reject.json", scenarioFile("my-reject", rules: []))
            let fixed = try await runCLI(["validate", directory.url.path], workingDirectory: ScenarioPaths.packageRoot)
            #expect(fixed.status == 0, "stdout: \(fixed.stdout) stderr: \(fixed.stderr)")
            #expect(fixed.stdout == "1 scenario file valid\n")
        }
    }

    // MARK: The Docker image's layout

    /// What docker/Dockerfile and docker/compose.yaml say about paths: where the binary and the bundled scenarios
    /// are installed, the run stage's WORKDIR and PAYMENT_SANDBOX_BUNDLED_SCENARIOS, and where compose mounts
    /// the user's scenarios and points PAYMENT_SANDBOX_SCENARIOS.
    struct ImageLayout {
        var binary: String
        var bundledScenarios: String
        var workingDirectory: String?
        var bundledVariable: String?
        var mountTarget: String
        var scenariosVariable: String

        static func read() throws -> ImageLayout {
            let docker = ScenarioPaths.packageRoot.appendingPathComponent("docker")
            let dockerfile = try String(contentsOf: docker.appendingPathComponent("Dockerfile"), encoding: .utf8)
            let compose = try String(contentsOf: docker.appendingPathComponent("compose.yaml"), encoding: .utf8)
            let tokens = dockerfile.split(whereSeparator: \.isWhitespace).map(String.init)
            // The build stage installs into /out, copied to / by the run stage.
            let installed = tokens.filter { $0.hasPrefix("/out/") }.map { String($0.dropFirst(4)) }
            let lines = dockerfile.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let runStage = lines.lastIndex { $0.hasPrefix("FROM ") } ?? 0
            let composeLines = compose.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let mount = composeLines.first { $0.hasPrefix("- ./scenarios:") }.map { $0.split(separator: ":") }
            return ImageLayout(
                binary: try #require(installed.first { $0.hasSuffix("/bin/payment-sandbox") }, "Dockerfile: no /out/.../bin/payment-sandbox"),
                bundledScenarios: try #require(installed.first { $0.hasSuffix("/scenarios") }, "Dockerfile: no /out/.../scenarios"),
                workingDirectory: lines[runStage...].last { $0.hasPrefix("WORKDIR ") }.map { String($0.dropFirst(8)) },
                bundledVariable: tokens.first { $0.hasPrefix("PAYMENT_SANDBOX_BUNDLED_SCENARIOS=") }.map { String($0.split(separator: "=")[1]) },
                mountTarget: try #require(mount.map { String($0[1]) }, "compose.yaml: no ./scenarios volume"),
                scenariosVariable: try #require(composeLines.first { $0.hasPrefix("PAYMENT_SANDBOX_SCENARIOS:") }
                    .map { $0.dropFirst("PAYMENT_SANDBOX_SCENARIOS:".count).trimmingCharacters(in: .whitespaces) }, "compose.yaml: no PAYMENT_SANDBOX_SCENARIOS"))
        }

        /// `path` of the image (absolute) under the temporary `root` standing for its `/`.
        static func under(_ root: URL, _ path: String) -> URL { URL(fileURLWithPath: root.path + path) }

        /// Installs the built binary and the repository's scenarios under `root` as the image has them.
        func install(under root: URL) throws -> URL {
            let binaryURL = Self.under(root, binary)
            try FileManager.default.createDirectory(at: binaryURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try ScenarioDirectoryTests.binary(), to: binaryURL)
            let scenariosURL = Self.under(root, bundledScenarios)
            try FileManager.default.createDirectory(at: scenariosURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: ScenarioPaths.bundled, to: scenariosURL)
            try FileManager.default.createDirectory(at: Self.under(root, mountTarget), withIntermediateDirectories: true)
            return binaryURL
        }
    }

    /// The image's files under a temporary root, a user scenario in the mounted directory, the environment
    /// compose gives (and the Dockerfile's, unless `withBundledVariable` is false), run from the Dockerfile's
    /// WORKDIR (or `/` of the image when it has none, or when `fromImageRoot`).
    @Test("installed in the image's layout and run as compose runs it, it serves the bundled and the mounted scenarios",
          arguments: [(true, false), (false, true)])
    func imageLayout(withBundledVariable: Bool, fromImageRoot: Bool) async throws {
        let layout = try ImageLayout.read()
        #expect(layout.bundledVariable == layout.bundledScenarios, "Dockerfile: PAYMENT_SANDBOX_BUNDLED_SCENARIOS is not where the scenarios are copied")
        #expect(layout.scenariosVariable == layout.mountTarget, "compose.yaml: PAYMENT_SANDBOX_SCENARIOS is not the mounted directory")
        try await withScenarioDirectory { image in
            let root = image.url
            let binary = try layout.install(under: root)
            try image.write(String(layout.mountTarget.dropFirst()) + "/mounted.json", scenarioFile("e2e-mounted", rules: []))
            var environment: [String: String?] = ["PAYMENT_SANDBOX_SCENARIOS": root.path + layout.scenariosVariable]
            if withBundledVariable, let bundled = layout.bundledVariable { environment["PAYMENT_SANDBOX_BUNDLED_SCENARIOS"] = root.path + bundled }
            let workingDirectory = fromImageRoot ? root : ImageLayout.under(root, layout.workingDirectory ?? "")
            let bundled = try Self.bundledNames()
            try await Self.serving(binary, environment: environment, workingDirectory: workingDirectory) { port, line in
                let bundledPath = ImageLayout.under(root, layout.bundledScenarios).path
                #expect(line.hasSuffix("(scenarios: \(bundledPath), \(root.path + layout.mountTarget))"), "\(line)")
                let names = try await Self.scenarioNames(port: port)
                #expect(Set(names) == bundled.union(["e2e-mounted"]))
            }

            // A mounted file reusing a bundled name: serve and validate name both files.
            try image.write(String(layout.mountTarget.dropFirst()) + "/reject.json", scenarioFile("reject", rules: []))
            let bundledReject = ImageLayout.under(root, layout.bundledScenarios).path + "/klarna/reject.json"
            let served = try await ResourceGate.shared {
                try await ChildProcess.run(binary, ["--port", "0", "--quiet"], environment: environment, workingDirectory: workingDirectory,
                                           timeout: .seconds(10))
            }
            #expect(served.status == 1, "stdout: \(served.stdout) stderr: \(served.stderr)")
            #expect(served.stderr.hasPrefix("\(root.path + layout.mountTarget)/reject.json:2:11: $.name: duplicate scenario name \"reject\" (also in \(bundledReject):"),
                    "stderr: \(served.stderr)")
            let validated = try await ResourceGate.shared {
                try await ChildProcess.run(binary, ["validate", root.path + layout.mountTarget], environment: environment,
                                           workingDirectory: workingDirectory, timeout: .seconds(10))
            }
            #expect(validated.status == 1, "stdout: \(validated.stdout) stderr: \(validated.stderr)")
            #expect(validated.stderr.contains("duplicate scenario name \"reject\" (also in \(bundledReject):"), "stderr: \(validated.stderr)")
        }
    }
}
