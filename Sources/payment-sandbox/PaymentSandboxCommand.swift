// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxPlugIn
import SwedbankPaySandbox
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@main
enum PaymentSandboxCommand {
    static func main() {
        // Before any thread exists, so every thread inherits it: SIGTERM and SIGINT stay pending until
        // the signal thread takes them with sigwait. A signal sent the instant the server is ready is
        // never lost (with SIG_IGN plus a Dispatch source it could be, between the two).
        TerminationSignals.block()
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("payment-sandbox: \(error.message)\n\n\(CommandLineOptions.usage)")
            exit(2)
        }
        switch options.command {
        case .help:
            print(CommandLineOptions.usage)
        case .version:
            print("payment-sandbox \(SandboxVersion.current)")
        case .healthcheck:
            exit(Healthcheck.run(host: options.host, port: options.port, timeoutSeconds: options.healthcheckTimeoutSeconds) ? 0 : 1)
        case .validate:
            // Read on a thread of its own; this one takes SIGTERM and SIGINT, so a slow file system cannot keep it.
            let paths = options.validatePaths
            TerminationSignals.exitOnSignal(during: "validate") {
                testStartPause()
                exit(validate(paths))
            }
        case .schema:
            print(ScenarioSchema.text(for: .sandbox), terminator: "")
        case .openapi:
            print(String(decoding: PaymentSandbox.controlAPIDocument, as: UTF8.self))
        case .serve:
            serve(options)
        }
    }

    /// `payment-sandbox validate DIR...`: every problem as `file:line:column: JSON path: what is wrong`; exit 1 if any.
    /// The given files are checked as `serve` would load them, after the bundled scenarios: a name the
    /// bundled set already uses is a problem (naming both files). Without arguments: the bundled set.
    static func validate(_ paths: [String]) -> Int32 {
        let bundled = bundledScenarioDirectory()
        let locations = paths.isEmpty ? bundled.map { [$0] } ?? [] : paths.map { URL(fileURLWithPath: $0) }
        guard !locations.isEmpty else {
            printError("payment-sandbox: validate: no directory given and the bundled scenarios were not found (set PAYMENT_SANDBOX_BUNDLED_SCENARIOS)")
            return 2
        }
        let (problems, warnings, count) = ScenarioLibrary.validate(files: locations, after: paths.isEmpty ? [] : bundled.map { [$0] } ?? [],
                                                          vocabulary: .sandbox)
        // Warnings (a condition on a field the operation's request cannot have) do not fail the check.
        if !warnings.isEmpty { printError(warnings.map(\.description).joined(separator: "\n")) }
        guard problems.isEmpty else {
            printError(problems.map(\.description).joined(separator: "\n"))
            printError("\(problems.count) problem\(problems.count == 1 ? "" : "s") found")
            return 1
        }
        print("\(count) scenario file\(count == 1 ? "" : "s") valid")
        return 0
    }

    static func serve(_ options: CommandLineOptions) -> Never {
        // Configured, made and started (the scenario files and the state file read) on a thread of its own, while
        // this one waits for SIGTERM and SIGINT: a signal before the start finished ends the process at once.
        let phase = Locked(StartPhase.starting)
        let starter = Thread {
            testStartPause()
            let (configuration, directories) = configure(options)
            let sandbox = PaymentSandbox(configuration: configuration)
            let baseURL = start(sandbox, options)
            let handedOver = phase.withLock { phase -> Bool in
                guard case .starting = phase else { return false }
                phase = .running(sandbox)
                return true
            }
            guard handedOver else { return }  // a signal came first: the process is exiting
            for warning in sandbox.scenarios.warnings { configuration.logger?.log(.warning, warning.description) }
            let scenarioList = directories.map(\.path).joined(separator: ", ")
            // Written straight to the descriptor: tests and scripts wait for this line, so it must not sit in a buffer.
            let line = "payment-sandbox \(SandboxVersion.current) listening on \(baseURL.absoluteString) (scenarios: \(scenarioList.isEmpty ? "none" : scenarioList))\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        starter.name = "payment-sandbox-start"
        starter.start()

        let signal = TerminationSignals.wait()
        let started = phase.withLock { phase -> PaymentSandbox? in
            if case .running(let sandbox) = phase { return sandbox }
            phase = .abandoned
            return nil
        }
        guard let sandbox = started else {
            printError("payment-sandbox: \(signal.name) received while starting; not started")
            exit(signal.exitStatus)
        }
        let logger = sandbox.configuration.logger
        logger?.log(.info, "\(signal.name) received, stopping")
        Task {
            await sandbox.stop()
            // The state file is written by the stop: a failure is worth a non-zero exit (and a line, even with --quiet).
            if let failure = sandbox.stateFileWriteFailure {
                printError("payment-sandbox: \(failure)")
                exit(1)
            }
            exit(0)
        }
        // More signals while stopping change nothing: the stop is bounded (the grace period, then the state file's
        // write), and leaving before the write ends would lose the newest state. The Task above exits.
        while true {
            let again = TerminationSignals.wait()
            let writing = sandbox.configuration.stateFile != nil ? "; exiting once the state file is written" : ""
            printError("payment-sandbox: \(again.name) received again while stopping\(writing)")
        }
    }

    /// The sandbox's configuration from the options, and its scenario directories (the bundled one first); exits 2
    /// for a `--scenarios` that is no directory.
    static func configure(_ options: CommandLineOptions) -> (SandboxConfiguration, [URL]) {
        var directories: [URL] = []
        if let bundled = bundledScenarioDirectory() {
            directories.append(bundled)
        } else {
            printError("payment-sandbox: warning: the bundled scenarios were not found (set PAYMENT_SANDBOX_BUNDLED_SCENARIOS)")
        }
        for path in options.scenarioDirectories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                printError("payment-sandbox: --scenarios \(path): no such directory\n\n\(CommandLineOptions.usage)")
                exit(2)
            }
            let directory = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
            // The same directory given twice (or the bundled one given again) is loaded once.
            let real = directory.resolvingSymlinksInPath().path
            if !directories.contains(where: { $0.resolvingSymlinksInPath().path == real }) { directories.append(directory) }
        }

        raiseOpenFileLimit()
        var configuration = SandboxConfiguration(host: options.host, port: options.port, scenarioDirectories: directories)
        configuration.includesBundledScenarios = false  // `directories` starts with this binary's own copy
        configuration.http.limits.maxBodyBytes = options.maxBodyBytes
        configuration.http.limits.maxHeadBytes = options.maxHeadBytes
        configuration.http.maxConnections = options.maxConnections
        configuration.http.headTimeout = .seconds(options.headTimeoutSeconds)
        configuration.http.idleTimeout = .seconds(options.idleTimeoutSeconds)
        configuration.http.handlerTimeout = .seconds(options.handlerTimeoutSeconds)
        configuration.publicBaseURL = options.publicURL
        configuration.trustedForwardedHeaders = options.trustProxy
        configuration.controlToken = options.controlToken
        configuration.allowedHosts = options.allowedHosts
        configuration.maxObjects = options.maxObjects
        configuration.callbackOutboxCapacity = options.callbackOutbox
        configuration.callbackOutboxCapacityPerNamespace = options.callbackOutboxPerNamespace
        configuration.stateFile = options.stateFile.map { URL(fileURLWithPath: $0) }
        configuration.snapshotInterval = options.snapshotIntervalSeconds.map { .seconds($0) }
        // SIGTERM must end the process within a second: 0.7 s grace, 0.1 s (shutdownLingerPeriod) to deliver the
        // last answers, and time to exit.
        configuration.http.shutdownGracePeriod = .milliseconds(700)
        configuration.logger = options.quiet ? nil : LineLogger(format: options.logFormat)
        return (configuration, directories)
    }

    /// Where a starting `serve` is: the main thread (signals) and the starting thread agree on it under a lock.
    enum StartPhase: Sendable {
        case starting
        case running(PaymentSandbox)
        /// A signal came before the start finished: the process exits, the sandbox is never handed over.
        case abandoned
    }

    /// Starts `sandbox`; on failure says why and exits 1.
    static func start(_ sandbox: PaymentSandbox, _ options: CommandLineOptions) -> URL {
        do {
            return try sandbox.start()
        } catch let failure as ScenarioLoadFailure {
            printError("\(failure)\npayment-sandbox: not starting: \(failure.problems.count) problem\(failure.problems.count == 1 ? "" : "s") in the scenario files")
            exit(1)
        } catch let failure as StateFileError {
            printError("payment-sandbox: not starting: \(failure)")
            exit(1)
        } catch HTTPServerError.addressInUse(let host, let port) {
            printError("payment-sandbox: port \(port) on \(host) is already in use")
            exit(1)
        } catch {
            printError("payment-sandbox: cannot listen on \(options.host):\(options.port): \(error)")
            exit(1)
        }
    }

    /// Test-only: `PAYMENT_SANDBOX_TEST_START_PAUSE` seconds to wait, announced on stderr, before `validate` reads the
    /// files or `serve` starts, so a test can signal a process that is still loading. Not for production use.
    static func testStartPause() {
        guard let seconds = ProcessInfo.processInfo.environment["PAYMENT_SANDBOX_TEST_START_PAUSE"].flatMap(Double.init) else { return }
        printError("payment-sandbox: test pause: loading in \(seconds) s")
        Thread.sleep(forTimeInterval: seconds)
    }

    /// Where the bundled scenarios are, the first that exists of: `PAYMENT_SANDBOX_BUNDLED_SCENARIOS` (set by
    /// docker/Dockerfile), `../share/payment-sandbox/scenarios` beside the executable (an installed binary, the
    /// image's layout), and `scenarios/` of this package when the executable was built in it (`swift run`,
    /// `.build*/…/payment-sandbox`). Never the working directory: its `scenarios/` is the user's own
    /// (in the image, `/scenarios` is the mounted user directory).
    static func bundledScenarioDirectory() -> URL? {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["PAYMENT_SANDBOX_BUNDLED_SCENARIOS"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        let executable = executableURL()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("../share/payment-sandbox/scenarios"))
        // .build/<triple>/<configuration>/payment-sandbox: the package is a few folders up.
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            if let manifest = try? RegularFile.read(folder.appendingPathComponent("Package.swift").path, limit: 1 << 20),
               String(decoding: manifest, as: UTF8.self).contains(#"name: "payment-sandbox""#) {
                candidates.append(folder.appendingPathComponent("scenarios"))
                break
            }
        }
        return candidates.map(\.standardizedFileURL).first { url in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// The running executable, links resolved: /proc/self/exe where there is one, else what Foundation says,
    /// else argv[0]. Not argv[0] first: run through PATH (as the image's ENTRYPOINT does) it is a bare name.
    static func executableURL() -> URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return URL(fileURLWithPath: path) }
        return (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath()
    }

    /// Lets --max-connections exceed the default soft limit of 1024 descriptors, as nginx's worker_rlimit_nofile does.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = min(limit.rlim_max, 1 << 20)
        _ = setrlimit(resource, &limit)
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

