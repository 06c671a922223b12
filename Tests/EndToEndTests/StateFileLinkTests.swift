// SPDX-License-Identifier: MIT
// What the state file's path leads to: a link planted where the temporary file used to be (its target untouched), a
// state file that is a symbolic link (it stays one, its target gets the new contents), and a FIFO or /dev/zero given
// as the state file (refused as what it is, at once, in-process and through the executable).
import Foundation
import PaymentSandbox
import SandboxHTTP
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("State file: links, FIFOs and devices")
struct StateFileLinkTests {
    /// A sandbox with `file` as its state file (loaded), a Klarna Payments session in it, and a snapshot written.
    /// Returns the session's id.
    @discardableResult
    static func snapshotWithASession(_ file: URL) async throws -> String {
        let (_, server) = try StateFileTests.sandbox(file, clock: ManualClock())
        let session = try await KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret").newSession()
        let snapshot = try await StateFileTests.send(server, "POST", "/__sandbox/snapshot")
        try #require(snapshot.status == 200, "\(snapshot)")
        return session
    }

    static func mode(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int(info.st_mode) & 0o777
    }

    @Test("a symbolic link planted at the old temporary name (state.json.tmp): its target is untouched; the file is 0600")
    func plantedLinkAtTheTemporaryName() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let victim = directory.appendingPathComponent("victim.txt")
            try Data("precious\n".utf8).write(to: victim)
            try FileManager.default.createSymbolicLink(atPath: file.path + ".tmp", withDestinationPath: victim.path)

            let session = try await Self.snapshotWithASession(file)
            #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
            #expect(try String(contentsOf: file, encoding: .utf8).contains(session))
            #expect(Self.mode(file.path) == 0o600)
            // No temporary file is left behind; the planted link is left as it was.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                    == ["state.json", "state.json.tmp", "victim.txt"])
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file.path + ".tmp") == victim.path)
        }
    }

    @Test("a state file that is a relative symbolic link into another directory stays one; its target gets the new contents")
    func stateFileThatIsALink() async throws {
        try await withStateDirectory { directory in
            let real = directory.appendingPathComponent("real", isDirectory: true)
            let linked = directory.appendingPathComponent("linked", isDirectory: true)
            try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
            let target = real.appendingPathComponent("state.json")
            let file = linked.appendingPathComponent("state.json")
            try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "../real/state.json")

            // Nothing there yet (a dangling link): an empty start, and the write creates the target through the link.
            let first = try await Self.snapshotWithASession(file)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file.path) == "../real/state.json")
            #expect(try String(contentsOf: target, encoding: .utf8).contains(first))

            // Loaded through the link, written again: still the link, the target has both sessions.
            let second = try await Self.snapshotWithASession(file)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file.path) == "../real/state.json")
            let written = try String(contentsOf: target, encoding: .utf8)
            #expect(written.contains(first) && written.contains(second))
            #expect(try FileManager.default.contentsOfDirectory(atPath: linked.path) == ["state.json"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: real.path) == ["state.json"])
        }
    }

    /// The state file's path is a FIFO (no writer: a plain open would block for good) or /dev/zero (endless).
    static func specialFile(_ kind: String, in directory: URL) throws -> (path: String, reason: String) {
        switch kind {
        case "fifo":
            let path = directory.appendingPathComponent("state.json").path
            try #require(mkfifo(path, 0o600) == 0, "mkfifo: \(errno)")
            return (path, "is not a regular file (a FIFO)")
        default:
            return ("/dev/zero", "is not a regular file (a character device)")
        }
    }

    @Test("a FIFO or /dev/zero as the state file: loadStateFile() says what it is, at once", .timeLimit(.minutes(1)),
          arguments: ["fifo", "dev-zero"])
    func specialFileInProcess(_ kind: String) async throws {
        try await withStateDirectory { directory in
            let (path, reason) = try Self.specialFile(kind, in: directory)
            var configuration = SandboxConfiguration(port: 0)
            configuration.stateFile = URL(fileURLWithPath: path)
            let sandbox = PaymentSandbox(configuration: configuration)
            #expect(throws: StateFileError.self) { try sandbox.loadStateFile() }
            do { try sandbox.loadStateFile() } catch {
                #expect("\(error)" == "state file \(path): \(reason)")
            }
        }
    }

    @Test("a FIFO or /dev/zero as the state file: the executable exits 1 within seconds, saying what it is",
          arguments: ["fifo", "dev-zero"])
    func specialFileByTheExecutable(_ kind: String) async throws {
        try await withStateDirectory { directory in
            let (path, reason) = try Self.specialFile(kind, in: directory)
            let (status, stdout, stderr) = try await ResourceGate.shared {
                try await ChildProcess.run(try CLITests.binary(), ["--port", "0", "--quiet", "--state-file", path], timeout: .seconds(60))
            }
            #expect(status == 1, "exit status \(String(describing: status)) (nil: still running after 60 s); stderr: \(stderr)")
            #expect(stderr == "payment-sandbox: not starting: state file \(path): \(reason)\n")
            #expect(!stdout.contains("listening"))
        }
    }
}
