// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import SandboxHTTP
import SandboxPlugIn
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a state file was not loaded. The sandbox does not start and leaves the file as it is.
public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "state file \(path): \(reason)" }
}

/// What one write of the state file wrote (the answer of `POST /__sandbox/snapshot`).
package struct StateFileSummary: Sendable {
    package var path: String
    package var bytes: Int
    package var namespaces: Int
    package var objects: Int
    /// The write's number: 1 for the first write of this process. Requests that shared one write see the same number.
    package var write: Int

    var json: JSONText {
        .object([("path", .string(path)), ("bytes", .int(bytes)), ("namespaces", .int(namespaces)), ("objects", .int(objects)),
                 ("write", .int(write))])
    }
}

/// The state file (`--state-file`, ``SandboxConfiguration/stateFile``): one JSON document with every store's objects
/// (a section per ``NamespacedState``, `SavedState.swift`), the namespaces' clock offsets, default scenarios and
/// rule counters, and the id generator's position.
///
/// ```json
/// {"format": "payment-sandbox-state", "format_version": 1, "sandbox_version": "…", "written_at": "…",
///  "clocks": {"<namespace>": <offset seconds>}, "scenarios": {"defaults": {…}, "counters": […]},
///  "ids": {"ids": 12, "error_ids": 3} or null,
///  "stores": {"<store>": {"sequence": N, "namespaces": [{"namespace": "…", "sequence": n, "objects": {…}}]}}}
/// ```
///
/// Written atomically: a temporary file beside it (`<path>.tmp-<random>`, created exclusively, never through a link,
/// mode 0600), written and fsynced, renamed over the file, then the directory fsynced; a crash at any point leaves
/// the last good file. A state file that is a symbolic link stays one: the file it leads to is replaced, in that
/// file's directory. Writes run one at a time on a thread of their own, and requests share them: a write waits
/// ``gatheringTime`` before it reads anything, and requests that come meanwhile join it; a request that comes once it
/// reads waits for the next write, which starts when that one ends and serves every request that came meanwhile (what
/// each asked for is in it; at most one write waits). The stop's write does not wait for an older write: that one is
/// abandoned (its temporary file removed) and its requests get the stop's write. The stores' objects are encoded on
/// ``SavedStateParallel/threads`` threads, a chunk of ``SavedStateOutput/objectsPerLock`` objects copied under its
/// shard's lock at a time, the text handed to the file a MiB at a time; a snapshot's threads run at a lower priority
/// than the event loops, the stop's write at full speed.
///
/// Loading maps a regular file only (a FIFO or a device is refused as what it is, never opened for blocking), reads
/// it a stored object at a time (``SavedStateReader``; batches decoded on a few threads, equal values shared) and
/// holds every value to what the control API would accept (``SavedValueBounds``, the clock's range): a file with
/// one out of bounds is refused, naming the value's key path, and leaves no store with anything restored.
final class SandboxStateFile: Sendable {
    static let format = "payment-sandbox-state"
    static let formatVersion = 1
    /// Test-only: seconds to wait between writing the temporary file and the rename, announced on stderr, so a
    /// test can kill the process mid-write. Not for production use.
    static let testPauseVariable = "PAYMENT_SANDBOX_TEST_STATE_FILE_PAUSE"

    let url: URL
    private let registry: NamespaceRegistry
    private let scenarios: ScenarioEngine
    private let ids: any IDGenerator
    private let states: [any NamespacedState]
    private let retention: ObjectRetention?
    private let logger: (any HTTPServerLogger)?
    /// The write underway and the requests waiting for it or for the next one.
    private let writes = Locked(Writes())
    /// Whether the file was loaded (or found absent): only then may it be written, so a file that failed to load
    /// is never overwritten.
    private let loaded = Locked(false)
    private let testPause: Double?
    /// Test-only, in-process: while true, each write waits before its rename, counted in ``writesHeld``.
    let testHold = Locked(false)
    /// Test-only, in-process: while true, each write waits between two holds of the stores' locks once it has written
    /// objects, counted in ``writesHeld``.
    let testHoldMidWrite = Locked(false)
    let writesHeld = Locked(0)
    /// Test-only, in-process: while true, each write waits before it reads the state, counted in ``writesHeld``.
    let testHoldBeforeReading = Locked(false)
    /// Test-only: false writes objects of classes under the stores' locks instead of from copies (to compare the two).
    let testCopiesObjects = Locked(true)
    /// Test-only: the objects the write underway has written.
    var objectsWrittenByTheWriteUnderway: Int { progress.withLock { $0 } }
    private let progress = Locked(0)
    private let lastFailure = Locked<String?>(nil)

    init(url: URL, registry: NamespaceRegistry, scenarios: ScenarioEngine, ids: any IDGenerator, states: [any NamespacedState],
         retention: ObjectRetention? = nil, logger: (any HTTPServerLogger)?) {
        self.url = url
        self.registry = registry
        self.scenarios = scenarios
        self.ids = ids
        self.states = states
        self.retention = retention
        self.logger = logger
        testPause = ProcessInfo.processInfo.environment[Self.testPauseVariable].flatMap(Double.init)
    }

    var isLoaded: Bool { loaded.withLock { $0 } }

    // MARK: Loading

    /// The largest state file read: far beyond what the stores' bound on objects (`--max-objects`) makes (a million
    /// objects of a few hundred bytes to a few KiB each).
    static let maxFileBytes = 1 << 34

    /// Loads the file once (a missing file is an empty start). Throws when it cannot be read, is not a regular file,
    /// is not a state file, is of another format version or holds a value out of bounds.
    func load() throws(StateFileError) {
        guard !isLoaded else { return }
        let path = url.path
        func failure(_ reason: String) -> StateFileError { StateFileError(path: path, reason: reason) }
        let file: MappedFile
        do {
            file = try MappedFile(path, limit: Self.maxFileBytes)
        } catch {
            switch error {
            case .missing:
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path, isDirectory: &isDirectory),
                      isDirectory.boolValue else {
                    throw failure("its directory does not exist")
                }
                loaded.withLock { $0 = true }
                return
            case .notRegular(let kind):
                throw failure(kind == "a directory" ? "is a directory" : "is not a regular file (\(kind))")
            case .tooLarge(let limit):
                throw failure("is larger than \(limit) bytes")
            case .system(let reason):
                throw failure("cannot be read (\(reason))")
            }
        }
        try withExtendedLifetime(file) { () throws(StateFileError) in try restore(file.bytes, failure: failure) }
        loaded.withLock { $0 = true }
    }

    /// A file mapped into memory, read-only: a large state file is read a page at a time as the restore goes, never
    /// copied whole. Opened as ``RegularFile`` reads (O_NONBLOCK, then fstat(2) on the descriptor): only a regular
    /// file is mapped. (The sandbox's own writes replace the file by a rename, which leaves a mapping as it was.)
    private final class MappedFile {
        let bytes: UnsafeRawBufferPointer

        init(_ path: String, limit: Int) throws(RegularFile.Failure) {
            var fd: Int32
            repeat { fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } while fd < 0 && errno == EINTR
            guard fd >= 0 else { throw errno == ENOENT ? .missing : .system(RegularFile.reason(errno)) }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw .system(RegularFile.reason(errno)) }
            guard Int(info.st_mode) & Int(S_IFMT) == Int(S_IFREG) else { throw .notRegular(RegularFile.kind(ofMode: Int(info.st_mode))) }
            guard info.st_size <= limit else { throw .tooLarge(limit: limit) }
            let size = Int(info.st_size)
            guard size > 0 else {
                bytes = UnsafeRawBufferPointer(start: nil, count: 0)
                return
            }
            let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
            guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
                throw .system(RegularFile.reason(errno))
            }
            #if canImport(Glibc) || canImport(Musl)
            _ = madvise(mapped, size, MADV_SEQUENTIAL)
            _ = madvise(mapped, size, MADV_WILLNEED)
            #endif
            bytes = UnsafeRawBufferPointer(start: mapped, count: size)
        }

        deinit {
            if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        }
    }

    private struct Prelude {
        var clocks: [String: TimeInterval]
        var scenarios: ScenarioEngine.SavedState
        var ids: [String: Int]?
    }

    /// The scenario counters' call counts, read apart to check them (the engine's saved state keeps its fields).
    private struct ScenarioCounts: Decodable {
        struct Counter: Decodable { var calls: Int }
        var counters: [Counter]
    }

    /// Reads the document (``SavedStateReader``): its header and prelude (clocks, scenarios, ids), each checked
    /// before any store is filled, then each store's section, a stored object at a time. A file that fails part way
    /// leaves no store with anything restored.
    private func restore(_ text: UnsafeRawBufferPointer, failure: (String) -> StateFileError) throws(StateFileError) {
        let reader = SavedStateReader(text: text, at: 0)
        // Objects' values whose text is the same decode once and are shared (as they were before the restart).
        reader.values = SavedValueCachePool()
        /// Where each member other than the stores starts (the last of a repeated key).
        var members: [String: Int] = [:]
        var prelude: Prelude?
        var storesRead = false
        var deferredStores: Int?
        do {
            do {
                try reader.readObject { key in
                    guard key == "stores" else {
                        members[key] = reader.position
                        try reader.skipValue()
                        return
                    }
                    // The stores come last in every file a sandbox writes: read them now when the header and the
                    // prelude came before; else after the rest of the document.
                    if prelude == nil, ["format", "format_version", "clocks", "scenarios"].allSatisfy({ members[$0] != nil }) {
                        prelude = try self.prelude(text, members, failure: failure)
                    }
                    guard prelude != nil else {
                        deferredStores = reader.position
                        try reader.skipValue()
                        return
                    }
                    try restoreStores(reader)
                    storesRead = true
                }
                try reader.expectEnd()
            } catch where prelude == nil && (error is SavedStateSyntaxError || error is DecodingError) {
                throw failure("cannot be read: not a JSON object (\(Self.reason(error)))")
            }
            if prelude == nil { prelude = try self.prelude(text, members, failure: failure) }
            if !storesRead {
                guard let deferredStores else { throw failure("cannot be read: stores is missing") }
                let storesReader = SavedStateReader(text: text, at: deferredStores, path: [SavedKey("stores")])
                storesReader.values = reader.values
                try restoreStores(storesReader)
            }
        } catch {
            for state in states { (state as? any StreamedSavedSection)?.discardRestored() }
            switch error {
            case let error as StateFileError: throw error
            case let error as SavedValueOutOfBounds: throw failure("\(error)")
            default: throw failure("cannot be read: \(Self.reason(error))")
            }
        }
        guard let prelude else { return }
        // Restored objects count toward the server's bound, oldest of the whole server first.
        retention?.retain(states.flatMap { $0.heldObjects() })
        registry.restore(offsets: Dictionary(uniqueKeysWithValues: prelude.clocks.map { (Namespace($0.key), $0.value) }))
        scenarios.restore(prelude.scenarios)
        if let position = prelude.ids { ids.restorePosition(position) }
    }

    /// The header (what the file is) and the prelude (clocks, scenarios, ids), checked against what the control API
    /// allows.
    private func prelude(_ text: UnsafeRawBufferPointer, _ members: [String: Int], failure: (String) -> StateFileError) throws -> Prelude {
        func decode<T: Decodable>(_ type: T.Type, _ key: String) throws(StateFileError) -> T? {
            guard let offset = members[key] else { return nil }
            let decoder = SavedStateDecoder(text: text)
            decoder.basePath = [SavedKey(key)]
            do {
                return try decoder.decode(type, at: offset).value
            } catch {
                throw failure("cannot be read: \(Self.reason(error))")
            }
        }
        let format = try? decode(String.self, "format"), version = try? decode(Int.self, "format_version")
        guard format == Self.format, let version else {
            throw failure("is not a payment-sandbox state file (no \"format\": \"\(Self.format)\" with a \"format_version\")")
        }
        guard version == Self.formatVersion else {
            throw failure("has format_version \(version); this payment-sandbox \(SandboxVersion.current) reads format_version "
                          + "\(Self.formatVersion) only")
        }
        guard let clocks = try decode([String: TimeInterval].self, "clocks") else { throw failure("cannot be read: clocks is missing") }
        guard let scenarioState = try decode(ScenarioEngine.SavedState.self, "scenarios") else {
            throw failure("cannot be read: scenarios is missing")
        }
        let ids = try decode([String: Int]?.self, "ids") ?? nil
        for (index, counter) in (try decode(ScenarioCounts.self, "scenarios")?.counters ?? []).enumerated()
        where !SavedValueBounds.isCount(counter.calls) {
            throw failure("scenarios.counters[\(index)].calls: \(SavedValueBounds.counterMessage(counter.calls))")
        }
        // The limits of POST /__sandbox/clock and of the counters, before any store is filled.
        for (name, offset) in clocks.sorted(by: { $0.key < $1.key }) where !registry.allowsOffset(offset) {
            throw failure("clocks.\(name): an offset of \(offset) seconds puts the namespace's clock outside the range it can show, "
                          + "\(SandboxClockRange.description) (what POST /__sandbox/clock allows)")
        }
        if let ids { try checkIDs(ids, failure: failure) }
        return Prelude(clocks: clocks, scenarios: scenarioState, ids: ids)
    }

    private func checkIDs(_ ids: [String: Int], failure: (String) -> StateFileError) throws(StateFileError) {
        for (name, position) in ids.sorted(by: { $0.key < $1.key }) where !SavedValueBounds.isCount(position) {
            throw failure("ids.\(name): \(SavedValueBounds.counterMessage(position))")
        }
    }

    /// Each store's section, to its store; a section for a store this sandbox lacks refuses the file.
    private func restoreStores(_ reader: SavedStateReader) throws {
        try reader.readObject { name in
            guard let state = states.first(where: { $0.stateName == name }) else {
                throw SavedStateError("a section for \"\(name)\", which this sandbox does not have")
            }
            if let streamed = state as? any StreamedSavedSection {
                try streamed.restoreSavedSection(from: reader)
            } else {
                try reader.withDecoder { decoder in try state.restoreSection(from: decoder) }
            }
        }
    }

    /// A decoding error as a person reads it: what is wrong and where (`stores.klarna_payments.namespaces[0]`).
    static func reason(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case let error as SavedStateError: return error.message
        case let error as SavedStateSyntaxError: return error.description
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? context.debugDescription : "\(path(context.codingPath)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case let error as CocoaError where error.code == .fileReadNoPermission:
            return "permission denied"
        default:
            return error.localizedDescription
        }
    }

    // MARK: Writing

    /// A request for a write: answered with the write's summary or why it failed.
    private typealias Waiter = CheckedContinuation<Result<StateFileSummary, any Error>, Never>

    /// The writes: at most one underway and the requests waiting for it; the requests that came after it started
    /// wait for the next one.
    private struct Writes {
        /// The write underway.
        var running: Round?
        var runningWaiters: [Waiter] = []
        /// Whether it has begun to read the state: until then a request joins it.
        var runningRead = false
        /// The requests for the write after it.
        var next: [Waiter] = []
        /// Whether the stop asked for the write after it.
        var nextIsFinal = false
        /// Writes started so far.
        var started = 0
    }

    /// One write: its number, and whether it was abandoned for the stop's write.
    private final class Round: Sendable {
        let number: Int
        /// The stop's write: at full speed (a snapshot's threads yield to the event loops).
        let isFinal: Bool
        let abandoned = Locked(false)
        init(number: Int, isFinal: Bool) {
            self.number = number
            self.isFinal = isFinal
        }
        var isAbandoned: Bool { abandoned.withLock { $0 } }
    }

    /// Thrown by a write abandoned for the stop's write; its requests are answered by that one.
    private struct Abandoned: Error {}

    /// Writes the file: a write that starts now, or, when one is underway, the next one, which every request that
    /// comes meanwhile shares. `final` (the stop's write): the write underway is abandoned rather than waited for.
    /// Throws when it cannot be written or the file was never loaded (it would overwrite a file this sandbox did not
    /// read).
    func write(final: Bool = false) async throws -> StateFileSummary {
        let result: Result<StateFileSummary, any Error> = await withCheckedContinuation { (waiter: Waiter) in
            let start = writes.withLock { writes -> Round? in
                guard let running = writes.running else {
                    writes.started += 1
                    let round = Round(number: writes.started, isFinal: final)
                    writes.running = round
                    writes.runningWaiters = [waiter]
                    writes.runningRead = false
                    return round
                }
                // A write that has not read anything yet holds what this request asked for: it joins it (not the
                // stop's, which abandons a snapshot's write: that one yields to the event loops).
                guard writes.runningRead || final else {
                    writes.runningWaiters.append(waiter)
                    return nil
                }
                writes.next.append(waiter)
                if final {
                    writes.nextIsFinal = true
                    if !running.isFinal { running.abandoned.withLock { $0 = true } }
                }
                return nil
            }
            if let start { startWriting(start) }
        }
        lastFailure.withLock { failure in
            if case .failure(let error) = result { failure = "\(error)" } else { failure = nil }
        }
        return try result.get()
    }

    /// Why the last write failed; nil after a good one.
    var lastWriteFailure: String? { lastFailure.withLock { $0 } }

    /// How many requests wait for the write after the one underway (for tests).
    var waitingForNextWrite: Int { writes.withLock { $0.next.count } }
    /// How many requests wait for the write underway (for tests).
    var waitingForRunningWrite: Int { writes.withLock { $0.runningWaiters.count } }

    /// How long a write waits before it reads the state: requests that come meanwhile (a client's two at once) are
    /// answered by it.
    static let gatheringTime = 0.01

    /// Runs `round` and the writes requested meanwhile, one after another, on a thread of its own (a write of a large
    /// sandbox takes seconds: not on the cooperative pool).
    private func startWriting(_ round: Round) {
        let thread = Thread { [self] in
            // A snapshot's threads (this one and the encoding threads it starts, which inherit it) yield to the event
            // loops: requests go on at full speed while it is written. The stop's write runs at full speed.
            if !round.isFinal { SavedStateParallel.yieldToOtherThreads() }
            let result = Result { try self.writeNow(round) }
            let (answered, next) = writes.withLock { writes -> ([Waiter], Round?) in
                var answered = writes.runningWaiters
                if case .failure(let error) = result, error is Abandoned {
                    writes.next = answered + writes.next
                    answered = []
                }
                writes.runningWaiters = []
                guard !writes.next.isEmpty else {
                    writes.running = nil
                    return (answered, nil)
                }
                writes.started += 1
                let next = Round(number: writes.started, isFinal: writes.nextIsFinal)
                writes.running = next
                writes.runningRead = false
                writes.runningWaiters = writes.next
                writes.next = []
                writes.nextIsFinal = false
                return (answered, next)
            }
            for waiter in answered { waiter.resume(returning: result) }
            // The next write on a thread of its own (a thread's priority, once lowered, stays lowered).
            if let next { startWriting(next) }
        }
        thread.name = "payment-sandbox-state-file"
        thread.start()
    }

    /// Between the holds of the stores' locks: the test's hold (``testHoldMidWrite``, once objects were written), then
    /// whether the write was abandoned.
    private func checkpoint(_ output: SavedStateOutput, _ round: Round) throws {
        progress.withLock { $0 = output.objectsWritten }
        if output.objectsWritten > 0, testHoldMidWrite.withLock({ $0 }) {
            writesHeld.withLock { $0 += 1 }
            while testHoldMidWrite.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) }
            writesHeld.withLock { $0 -= 1 }
        }
        if round.isAbandoned { throw SavedStateAbandoned() }
    }

    /// The test pauses (``testPauseVariable``, ``testHold``), then whether the write was abandoned meanwhile.
    private func beforeRename(_ temporary: String, _ round: Round) throws {
        if let testPause {
            FileHandle.standardError.write(Data("payment-sandbox: test pause: \(temporary) written, renaming in \(testPause) s\n".utf8))
            Thread.sleep(forTimeInterval: testPause)
        }
        if testHold.withLock({ $0 }) {
            writesHeld.withLock { $0 += 1 }
            while testHold.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) }
            writesHeld.withLock { $0 -= 1 }
        }
        if round.isAbandoned { throw Abandoned() }
    }

    private func writeNow(_ round: Round) throws -> StateFileSummary {
        guard isLoaded else {
            throw StateFileError(path: url.path, reason: "not written: the sandbox did not load it (it was not started)")
        }
        if !round.isFinal { Thread.sleep(forTimeInterval: Self.gatheringTime) }
        if testHoldBeforeReading.withLock({ $0 }) {
            writesHeld.withLock { $0 += 1 }
            while testHoldBeforeReading.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) }
            writesHeld.withLock { $0 -= 1 }
        }
        writes.withLock { $0.runningRead = true }
        if round.isAbandoned { throw Abandoned() }
        var written: (bytes: Int, namespaces: Int, objects: Int) = (0, 0, 0)
        do {
            try Self.replaceAtomically(url) { write in
                let output = SavedStateOutput(sink: write) { output in try self.checkpoint(output, round) }
                let (namespaces, objects) = try self.writeDocument(to: output)
                try output.flush(all: true)
                written = (output.count, namespaces, objects)
            } beforeRename: { temporary in
                try self.beforeRename(temporary, round)
            }
        } catch is SavedStateAbandoned {
            throw Abandoned()
        }
        let summary = StateFileSummary(path: url.path, bytes: written.bytes, namespaces: written.namespaces, objects: written.objects,
                                       write: round.number)
        logger?.log(.info, "state file \(url.path) written: \(summary.bytes) bytes, \(summary.namespaces) namespaces, \(summary.objects) objects")
        return summary
    }

    /// Writes the document; returns how many namespaces have anything in it and how many objects the stores hold.
    /// The stores' sections go to the file as they are written (``StreamedSavedSection``), a piece at a time.
    private func writeDocument(to output: SavedStateOutput) throws -> (namespaces: Int, objects: Int) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let clocks = Dictionary(uniqueKeysWithValues: registry.allOffsets.map { ($0.key.name, $0.value) })
        let scenarioState = scenarios.savedState
        var namespaceNames = Set(clocks.keys).union(scenarioState.defaults.keys)
        var objects = 0
        output.append("{\"format\":\"\(Self.format)\",\"format_version\":\(Self.formatVersion),")
        output.append("\"sandbox_version\":")
        output.append(try encoder.encode(SandboxVersion.current))
        output.append(",\"written_at\":")
        output.append(try encoder.encode(Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))))
        output.append(",\"clocks\":")
        output.append(try encoder.encode(clocks))
        output.append(",\"scenarios\":")
        output.append(try encoder.encode(scenarioState))
        output.append(",\"ids\":")
        output.append(try encoder.encode(ids.savedPosition()))
        output.append(",\"stores\":{")
        // Each store's section in turn, as jobs: the streamed ones namespace by namespace, another in one piece.
        let tally = SavedSectionTally(copiesObjects: testCopiesObjects.withLock { $0 })
        var remaining = states[...]
        var current: AnyIterator<SavedStateJob>?
        var first = true
        let jobs = AnyIterator<SavedStateJob> {
            while true {
                if let job = current?.next() { return job }
                current = nil
                guard let state = remaining.popFirst() else { return nil }
                let name = SavedStateEncoder()
                name.append(first ? "" : ",")
                name.append(string: state.stateName)
                name.append(":")
                if let streamed = state as? any StreamedSavedSection {
                    first = false
                    current = streamed.savedSectionJobs(tally: tally)
                    return .text(name.bytes)
                }
                do {
                    guard let section = try state.savedSection() else { continue }
                    first = false
                    objects += section.objectCount
                    namespaceNames.formUnion(section.namespaceNames)
                    return .text(name.bytes + section.json)
                } catch {
                    return SavedStateJob.failing(error)
                }
            }
        }
        try output.write(jobs)
        objects += tally.objectCount
        namespaceNames.formUnion(tally.namespaceNames)
        output.append("}}\n")
        return (namespaceNames.count, objects)
    }

    /// A new temporary file beside the file the path leads to, written by `write` (which hands its text to the
    /// function it is given, piece by piece; their disk writes started as they come, ``StateFileWriteback``), fsynced, renamed over it, then its directory fsynced. `beforeRename`
    /// runs with the temporary file written and flushed; a throw leaves the file as it was.
    static func replaceAtomically(_ url: URL, write: (_ sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                                  beforeRename: (String) throws -> Void = { _ in }) throws {
        let path = url.path
        func failure(_ what: String) -> StateFileError {
            StateFileError(path: path, reason: "cannot be written: \(what): \(String(cString: strerror(errno)))")
        }
        // A state file that is a symbolic link stays one: what it leads to is replaced, in its own directory.
        let target = try writeTarget(path)
        let directory = target.lastIndex(of: "/").map { $0 == target.startIndex ? "/" : String(target[..<$0]) } ?? "."
        // Created exclusively and never through a link (a link planted at the name fails, its target untouched);
        // a name of its own for each write, mode 0600 (the file holds every namespace's objects).
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            temporary = target + ".tmp-" + String(UInt64.random(in: .min ... .max) | 1 << 63, radix: 16)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure("open \(temporary)") }
        var renamed = false
        var closed = false
        defer {
            if !closed { close(fd) }
            if !renamed { unlink(temporary) }
        }
        let file = temporary
        var writeback = StateFileWriteback(fd: fd)
        try write { buffer in
            var written = 0
            while written < buffer.count {
                let count = CLibrary.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("write \(file)")
                }
                written += count
            }
            writeback.wrote(written)
        }
        guard fsync(fd) == 0 else { throw failure("fsync \(temporary)") }
        closed = true
        close(fd)
        try beforeRename(temporary)
        guard rename(temporary, target) == 0 else { throw failure("rename \(temporary)") }
        renamed = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// The file a write replaces: `path` with the symbolic links at its end followed (relative ones from the link's
    /// directory), or `path` itself when it is no link (or nothing is there yet).
    static func writeTarget(_ path: String) throws(StateFileError) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, Int(info.st_mode) & Int(S_IFMT) == Int(S_IFLNK) else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else {
                throw StateFileError(path: path, reason: "cannot be written: readlink \(current): \(String(cString: strerror(errno)))")
            }
            let destination = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = destination.hasPrefix("/") ? destination
                : current.lastIndex(of: "/").map { String(current[...$0]) + destination } ?? destination
        }
        throw StateFileError(path: path, reason: "cannot be written: more than 40 symbolic links lead to the file")
    }
}

/// The C library's `write`, named apart from the methods called write here.
private enum CLibrary {
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }
}
