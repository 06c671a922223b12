// SPDX-License-Identifier: MIT
// The spawner every CLI test stands on (Support/ChildProcess.swift): what the child inherits, where it
// starts, and how its end is reported.
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ChildProcess, the tests' spawner")
struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    #if os(Linux)
    @Test("the child holds stdin, stdout and stderr only: a descriptor this process left inheritable is closed in it")
    func onlyStandardDescriptorsAreInherited() async throws {
        try await ResourceGate.shared {
            var leaky: [Int32] = [0, 0]
            try #require(pipe(&leaky) == 0)  // no FD_CLOEXEC: a plain spawn would hand both ends down
            defer { close(leaky[0]); close(leaky[1]) }
            // ls runs as the shell's child and lists the shell's table (`; true` keeps sh from exec-ing ls).
            let result = try await ChildProcess.run(Self.shell, ["-c", "ls /proc/$$/fd; true"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout == "0\n1\n2\n")
        }
    }
    #endif

    @Test("workingDirectory is where the child starts; the environment is this process's plus the additions")
    func workingDirectoryAndEnvironment() async throws {
        try await ResourceGate.shared {
            let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
            let result = try await ChildProcess.run(Self.shell, ["-c", "pwd; echo \"$CHILD_PROCESS_TEST\"; echo \"${HOME:+home set}\""],
                                                    environment: ["CHILD_PROCESS_TEST": "added"], workingDirectory: directory)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let expectHome = ProcessInfo.processInfo.environment["HOME"].map { $0.isEmpty ? "" : "home set" } ?? ""
            #expect(result.stdout == "\(directory.path)\nadded\n\(expectHome)\n")
        }
    }

    @Test("an exit status is reported as such; a signal as its number, with terminatedBySignal")
    func exitStatusAndSignal() async throws {
        try await ResourceGate.shared {
            let exited = try await ChildProcess.run(Self.shell, ["-c", "echo out; echo err >&2; exit 3"])
            #expect(exited.status == 3)
            #expect(exited.stdout == "out\n")
            #expect(exited.stderr == "err\n")

            let child = try ChildProcess(Self.shell, ["-c", "echo ready; exec sleep 30"])
            _ = try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout)
            child.terminate()
            #expect(try await child.waitForExit(timeout: .seconds(30)) == SIGTERM)
            #expect(child.terminatedBySignal)
            #expect(!child.isRunning)
        }
    }
}
