// SPDX-License-Identifier: MIT
// The journal keeps at most 4 KiB of each request body: large calls, even refused ones, do not pile up in the
// server's memory. Measured on the CLI process itself (its resident size in /proc/PID/statm, Linux only).
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@Suite("Journal: memory of large request bodies and targets")
struct JournalMemoryTests {
    #if os(Linux)
    /// `swift test --sanitize=thread` links ThreadSanitizer's runtime into the test process, which exports
    /// `__tsan_init` (dlsym with a nil handle is RTLD_DEFAULT on Linux).
    static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

    /// Resident size of process `pid` from /proc/PID/statm (its second field, in pages).
    static func residentBytes(of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// Starts the CLI, sends `warmUp` then `calls` requests made by `request(index)` (each answered 401: no
    /// credentials, journaled all the same) and returns how much the server's resident size grew over the `calls`,
    /// with the journal's entries afterwards.
    static func growth(warmUp: Int, calls: Int, _ request: (Int) -> String) async throws -> (bytes: Int, entries: [[String: Any]]) {
        let binary = try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
        return try await ResourceGate.shared {
            let child = try ChildProcess(binary, ["--port", "0", "--quiet"])
            defer { child.kill() }
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(CLITests.listeningPort(line), "unexpected startup line: \(line)")
            func send(_ range: Range<Int>) async throws {
                for index in range {
                    let response = try await RawClient.exchange(port: port, request(index), timeout: .seconds(10))
                    try #require(response.status == 401, "\(response)")
                }
            }
            // Warm up: buffers and allocator arenas reach their working size.
            try await send(0..<warmUp)
            let before = try #require(residentBytes(of: child.processIdentifier))
            try await send(warmUp..<(warmUp + calls))
            let after = try #require(residentBytes(of: child.processIdentifier))
            let journal = try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/journal?limit=\(warmUp + calls)"))
            let entries = try #require(try journal.jsonObject()["entries"] as? [[String: Any]], "\(journal)")
            return (after - before, entries)
        }
    }

    /// Each call was measured at +1.02 MiB when entries kept a slice of the whole body; 150 calls would be
    /// +150 MiB. Now each entry holds its 4 KiB: the growth stays far below that.
    @Test("150 calls with 1 MiB bodies and no credentials (401, journaled) leave the server at most 40 MiB bigger")
    func largeBodiesAreNotKept() async throws {
        let request = rawRequest("POST", "/payments/v1/sessions", headers: [("Content-Type", "application/json")],
                                 body: String(repeating: "x", count: 1 << 20))
        let (growth, entries) = try await Self.growth(warmUp: 10, calls: 150) { _ in request }
        #expect(entries.count == 160)
        #expect(entries.allSatisfy { ($0["request_body"] as? String)?.utf8.count == 4096 && $0["request_body_truncated"] as? Bool == true })
        #expect(growth < 40 << 20, "the server grew by \(growth >> 20) MiB over 150 calls of 1 MiB")
    }

    /// A request head may be 64 KiB: entries that kept whole targets grew the server by ~61 KiB per call (the
    /// ring holds 10,000: ~620 MB; 600 calls: +36 MiB). Each entry now keeps 2 KiB of path and 2 KiB of query.
    @Test("600 calls with a 60 KB path and a 3 KB query leave the server at most 16 MiB bigger (whole targets: +36 MiB)",
          .enabled(if: !underThreadSanitizer,
                   "ThreadSanitizer's shadow memory is in the RSS, and 63 KB heads parsed under it starve the other tests"))
    func longTargetsAreNotKept() async throws {
        let (growth, entries) = try await Self.growth(warmUp: 20, calls: 600) { index in
            rawRequest("GET", "/payments/v1/sessions/\(index)" + String(repeating: "p", count: 60_000) + "?q=" + String(repeating: "q", count: 3000))
        }
        #expect(entries.count == 620)
        #expect(entries.allSatisfy { $0["path_truncated"] as? Bool == true && $0["query_truncated"] as? Bool == true })
        #expect(growth < 16 << 20, "the server grew by \(growth >> 20) MiB over 600 calls with 63 KB targets")
    }
    #endif
}
