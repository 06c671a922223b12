// SPDX-License-Identifier: MIT
// How writes of the state file are shared and finished: snapshot requests that come while a write is underway share
// the next write; the stop's write abandons an older write instead of waiting for it; a second SIGTERM while the stop
// writes the file does not end the process before the file is written; a write of many objects leaves the requests of
// their namespace and shard answered while it runs.
import Foundation
import SandboxHTTP
import SandboxScenarios
@testable import PaymentSandbox
import Testing

@Suite("State file: shared writes and the stop's write")
struct StateFileWriteTests {
    /// Waits until `condition` holds (a bound against a hang, not a timing assertion); false when it never did.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// POST /__sandbox/snapshot; the number of the write that answered it.
    static func snapshot(_ server: RunningServer) async throws -> Int? {
        let answer = try await StateFileTests.send(server, "POST", "/__sandbox/snapshot")
        try #require(answer.status == 200, "\(answer)")
        return try answer.jsonObject()["write"] as? Int
    }

    /// Two requests at once (the write held, test-only, before it reads anything): one write answers both.
    @Test func twoSnapshotRequestsAtOnce_ShareOneWrite() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let (sandbox, server) = try StateFileTests.sandbox(file, clock: ManualClock())
            let stateFile = try #require(sandbox.stateFile)
            let session = try await KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret").newSession()
            stateFile.testHoldBeforeReading.withLock { $0 = true }
            let first = Task { try await Self.snapshot(server) }
            try #require(try await Self.eventually { stateFile.writesHeld.withLock { $0 } == 1 }, "the write never started")
            let second = Task { try await Self.snapshot(server) }
            try #require(try await Self.eventually { stateFile.waitingForRunningWrite == 2 }, "the second request never waited")
            stateFile.testHoldBeforeReading.withLock { $0 = false }
            #expect([try await first.value, try await second.value] == [1, 1], "one write for both")
            #expect(try String(contentsOf: file, encoding: .utf8).contains(session))
            #expect(try await Self.snapshot(server) == 2)
            await sandbox.stop()
        }
    }

    @Test func snapshotRequestsDuringAWrite_ShareTheNextWrite_WhichHoldsWhatEachAskedFor() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let (sandbox, server) = try StateFileTests.sandbox(file, clock: ManualClock())
            let stateFile = try #require(sandbox.stateFile)
            let klarna = KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret")
            stateFile.testHold.withLock { $0 = true }
            let first = Task { try await Self.snapshot(server) }
            try #require(try await Self.eventually { stateFile.writesHeld.withLock { $0 } == 1 }, "the first write never started")
            // Made while the first write is underway: the first write may not hold it; the next one must.
            let session = try await klarna.newSession()
            let second = Task { try await Self.snapshot(server) }
            let third = Task { try await Self.snapshot(server) }
            try #require(try await Self.eventually { stateFile.waitingForNextWrite == 2 }, "the requests never waited")
            stateFile.testHold.withLock { $0 = false }
            let answers = [try await first.value, try await second.value, try await third.value]
            #expect(answers == [1, 2, 2], "the two requests that came during the first write share the second")
            #expect(try String(contentsOf: file, encoding: .utf8).contains(session))
            // Nothing underway: a request starts a write of its own.
            #expect(try await Self.snapshot(server) == 3)
            await sandbox.stop()
        }
    }

    @Test func theStopsWrite_AbandonsASnapshotUnderway_WhoseRequestGetsTheStopsWrite() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let (sandbox, server) = try StateFileTests.sandbox(file, clock: ManualClock())
            let stateFile = try #require(sandbox.stateFile)
            stateFile.testHold.withLock { $0 = true }
            let snapshot = Task { try await Self.snapshot(server) }
            try #require(try await Self.eventually { stateFile.writesHeld.withLock { $0 } == 1 }, "the snapshot never started")
            let session = try await KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret").newSession()
            let stop = Task { await sandbox.stop() }
            try #require(try await Self.eventually { stateFile.waitingForNextWrite == 1 }, "the stop never asked for a write")
            stateFile.testHold.withLock { $0 = false }
            await stop.value
            let answer = try await snapshot.value
            #expect(answer == 2, "the snapshot's request is answered by the stop's write")
            #expect(try String(contentsOf: file, encoding: .utf8).contains(session))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state.json"], "the abandoned write's file stayed")
            #expect(sandbox.stateFileWriteFailure == nil)
        }
    }

    /// A namespace with three lock holds' worth of sessions; the write is held (test-only) between two holds of the
    /// lock, a hold's worth written: a request of that namespace, and one of another namespace on the same shard of
    /// the stores, are answered before the snapshot is. (A write that encoded a namespace, or a shard, in one hold of
    /// its lock kept both waiting until it was through.)
    @Test func whileASnapshotOfManyObjectsRuns_RequestsOfTheirNamespaceAndShardAreAnswered_BeforeTheSnapshotIs() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let (sandbox, server) = try StateFileTests.sandbox(file, clock: ManualClock())
            let stateFile = try #require(sandbox.stateFile)
            let big = KlarnaClient(server, namespace: "big", password: "secret")
            let count = 3 * SavedStateOutput.objectsPerLock
            var sessions: [String] = []
            for _ in 0..<count { sessions.append(try await big.newSession()) }
            // A namespace on the same shard as "big" (the stores shard by the namespace's hash, 16 ways).
            func shard(_ name: String) -> Int { Int(UInt(bitPattern: Namespace(name).hashValue) % 16) }
            let neighbour = try #require((0..<10_000).lazy.map { "neighbour-\($0)" }.first { shard($0) == shard("big") })
            let other = KlarnaClient(server, namespace: neighbour, password: "secret")

            stateFile.testHoldMidWrite.withLock { $0 = true }
            let finished = Locked(false)
            let snapshot = Task {
                let answer = try await StateFileTests.send(server, "POST", "/__sandbox/snapshot")
                finished.withLock { $0 = true }
                return answer
            }
            try #require(try await Self.eventually { stateFile.writesHeld.withLock { $0 } == 1 }, "the write never got to the objects")
            #expect(stateFile.objectsWrittenByTheWriteUnderway == SavedStateOutput.objectsPerLock)
            #expect(try await big.readSession(sessions[count - 1]).status == 200)
            let made = try await big.newSession()
            let neighbours = try await other.newSession()
            #expect(try await other.readSession(neighbours).status == 200)
            #expect(!finished.withLock { $0 }, "the snapshot finished before the requests")
            stateFile.testHoldMidWrite.withLock { $0 = false }

            let answer = try await snapshot.value
            #expect(answer.status == 200, "\(answer)")
            #expect(try answer.jsonObject()["objects"] as? Int == count, "the objects the namespace had when the write came to it")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(sessions.allSatisfy { text.contains($0) })
            #expect(!text.contains(made), "made after the write took the namespace")
            #expect(stateFile.objectsWrittenByTheWriteUnderway == count)
        }
    }

    /// The stop's write pauses (the test-only variable); a second SIGTERM meanwhile is reported and the process exits
    /// 0 once the file is written, with what was made before the first signal in it.
    @Test func aSecondSIGTERMDuringTheStopsWrite_ExitsOnlyOnceTheFileIsWritten() async throws {
        try await alone {
            try await withStateDirectory { directory in
                let file = directory.appendingPathComponent("state.json")
                let (child, server) = try await StateFileCLITests.start(file, environment: [SandboxStateFile.testPauseVariable: "2"])
                defer { child.kill() }
                let session = try await KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret").newSession()
                child.terminate()
                try #require(try await Self.eventually { child.stderr.contains("test pause:") }, "the stop never wrote; \(child.stderr)")
                child.terminate()
                child.interrupt()
                let status = try await child.waitForExit(timeout: .seconds(60))
                #expect(status == 0, "exit status \(String(describing: status)); stderr: \(child.stderr)")
                #expect(child.stderr.contains("payment-sandbox: SIGTERM received again while stopping; exiting once the state file is written"),
                        "\(child.stderr)")
                #expect(try String(contentsOf: file, encoding: .utf8).contains(session), "the newest state is not in the file")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state.json"])
            }
        }
    }
}
