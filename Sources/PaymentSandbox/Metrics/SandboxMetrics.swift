// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// The request figures of `GET /__sandbox/metrics` (docs/control-api.md, "Metrics"): requests by provider, operation
/// and status class, the scenario outcomes their answers played, and a latency histogram per provider. It sees every
/// answered request on its way to the journal (``HTTPExchangeObserver``).
///
/// Cheap on the request path: every series is a slot of a fixed table made at start (the providers, their
/// operations and outcomes are known then, so the labels are bounded), and a request adds to the table of its
/// thread's shard under that shard's lock alone: event loops do not meet on one lock. A scrape sums the shards.
final class SandboxMetrics: HTTPExchangeObserver {
    /// The next observer (the journal): it sees every exchange as before.
    private let next: any HTTPExchangeObserver
    /// `next` when it is the journal: it is handed the namespace of a scenario's note, cast once here.
    private let journal: Journal?
    let layout: Layout
    private let shards: [CounterShard]

    /// Upper bounds of the latency histogram's buckets, in seconds (+Inf follows).
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
    static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx", "dropped"]
    static let shardCount = 8

    init(providers: [any SandboxProvider], vocabulary: ScenarioVocabulary, next: any HTTPExchangeObserver) {
        self.next = next
        journal = next as? Journal
        let layout = Layout(providers: providers, vocabulary: vocabulary)
        self.layout = layout
        shards = (0..<Self.shardCount).map { _ in CounterShard(count: layout.slotCount) }
    }

    func exchangeCompleted(_ exchange: HTTPExchange, durationSeconds: Double) {
        let note = exchange.note == nil ? nil : exchange.note as? ScenarioNote
        if let note, let journal {
            journal.exchangeCompleted(exchange, durationSeconds: durationSeconds, noteNamespace: note.namespace)
        } else {
            next.exchangeCompleted(exchange, durationSeconds: durationSeconds)
        }
        // Slots are worked out before the lock, from the layout (a class: read, never copied).
        let layout = self.layout
        let row = note.flatMap { layout.operationRows[$0.operation.rawValue] } ?? layout.row(forPath: exchange.request.path)
        let status = exchange.status
        let statusClass = status == HTTPExchange.droppedStatus ? 5 : min(max(status / 100, 1), 5) - 1
        let requestSlot = layout.requestSlot(row: row, statusClass: statusClass)
        let outcomeSlot = note.flatMap { layout.outcomeColumns[$0.decision.outcome.name] }.map { layout.outcomeSlot(row: row, column: $0) }
        let latency = layout.latencySlot(provider: layout.rowProviders[row])
        let bounds = layout.latencyBounds
        var bucket = 0
        while bucket < bounds.count, durationSeconds > bounds[bucket] { bucket += 1 }
        let sumSlot = latency + bounds.count + 1
        let micros = Int(durationSeconds * 1_000_000)
        shards[Self.shardIndex()].add(requestSlot, latency + bucket, sumSlot, micros: micros, outcomeSlot ?? -1)
    }

    /// The calling thread's shard: threads of the event loops spread over the shards.
    private static func shardIndex() -> Int {
        var thread = pthread_self()
        let bits = withUnsafeBytes(of: &thread) { $0.loadUnaligned(as: UInt.self) }
        return Int((bits >> 12) % UInt(shardCount))
    }

    /// Every shard's slots added up.
    func totals() -> [Int] {
        var totals = [Int](repeating: 0, count: layout.slotCount)
        for shard in shards { shard.addUp(into: &totals) }
        return totals
    }

    /// Where each series sits in a shard's table.
    final class Layout: Sendable {
        struct Row: Sendable {
            var provider: String
            var operation: String
            var providerIndex: Int
        }
        /// The providers' names (each the first part of its operations' names), then `sandbox` (the control API)
        /// and `none` (a path no provider answers under).
        let providerNames: [String]
        /// One per operation of the scenario vocabulary, then per provider `other` (its calls no scenario decided),
        /// then `sandbox`/`control` and `none`/`other`.
        let rows: [Row]
        let operationRows: [String: Int]
        let outcomeNames: [String]
        let outcomeColumns: [String: Int]
        /// Path prefixes, longest first, with the row of their provider's `other`: those under `/__sandbox/`
        /// apart, so a control call (health) looks only at the few there.
        let apiPrefixRows: [(prefix: [UInt8], row: Int)]
        let controlPrefixRows: [(prefix: [UInt8], row: Int)]
        let controlRow: Int
        let unknownRow: Int
        /// Each row's provider index (``rows``' `providerIndex`), and the histogram's bounds: read per request.
        let rowProviders: [Int]
        let latencyBounds = SandboxMetrics.latencyBuckets
        let statusClassCount = SandboxMetrics.statusClasses.count
        let requestSlotCount: Int
        let latencyStride = SandboxMetrics.latencyBuckets.count + 2
        let slotCount: Int

        init(providers: [any SandboxProvider], vocabulary: ScenarioVocabulary) {
            var names: [String] = []
            for provider in providers {
                let operations = type(of: provider).scenarioVocabulary.operations
                names.append(operations.first.map { String($0.name.rawValue.prefix { $0 != "." }) } ?? "provider\(names.count)")
            }
            providerNames = names + ["sandbox", "none"]
            var rows: [Row] = [], operationRows: [String: Int] = [:]
            for operation in vocabulary.operations where operationRows[operation.name.rawValue] == nil {
                let provider = String(operation.name.rawValue.prefix { $0 != "." })
                operationRows[operation.name.rawValue] = rows.count
                rows.append(Row(provider: provider, operation: operation.name.rawValue,
                                providerIndex: names.firstIndex(of: provider) ?? names.count + 1))
            }
            var prefixRows: [(prefix: String, row: Int)] = []
            for (index, provider) in providers.enumerated() {
                for prefix in provider.pathPrefixes.map(\.prefix) + provider.journaledSandboxPrefixes + provider.browserPrefixes {
                    prefixRows.append((prefix, rows.count))
                }
                rows.append(Row(provider: names[index], operation: "other", providerIndex: index))
            }
            controlRow = rows.count
            rows.append(Row(provider: "sandbox", operation: "control", providerIndex: names.count))
            unknownRow = rows.count
            rows.append(Row(provider: "none", operation: "other", providerIndex: names.count + 1))
            self.rows = rows
            self.operationRows = operationRows
            let sorted = prefixRows.sorted { $0.prefix.count > $1.prefix.count }
            apiPrefixRows = sorted.filter { !$0.prefix.hasPrefix(ControlToken.protectedPrefix) }.map { (Array($0.prefix.utf8), $0.row) }
            controlPrefixRows = sorted.filter { $0.prefix.hasPrefix(ControlToken.protectedPrefix) }.map { (Array($0.prefix.utf8), $0.row) }
            outcomeNames = Array(Set(ScenarioOutcome.universal + vocabulary.outcomeNames)).sorted()
            outcomeColumns = Dictionary(uniqueKeysWithValues: outcomeNames.enumerated().map { ($1, $0) })
            rowProviders = rows.map(\.providerIndex)
            requestSlotCount = rows.count * statusClassCount
            slotCount = requestSlotCount + providerNames.count * latencyStride + rows.count * outcomeNames.count
        }

        /// The row of a call no scenario decided: its provider's `other`, the control API, or `none`.
        /// Compares the path's UTF-8 bytes with memcmp: `String.hasPrefix` compares characters, and a generic
        /// `starts(with:)` steps byte by byte, each costing a request far more.
        func row(forPath path: String) -> Int {
            path.utf8.withContiguousStorageIfAvailable { bytes -> Int in
                let isControl = Self.starts(bytes, with: Self.controlPrefix)
                for (prefix, row) in isControl ? controlPrefixRows : apiPrefixRows where Self.starts(bytes, with: prefix) { return row }
                return isControl ? controlRow : unknownRow
            } ?? row(forPath: String(decoding: Array(path.utf8), as: UTF8.self))
        }

        static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
            guard bytes.count >= prefix.count, let base = bytes.baseAddress else { return prefix.isEmpty }
            return prefix.withUnsafeBufferPointer { memcmp(base, $0.baseAddress!, prefix.count) == 0 }
        }

        static let controlPrefix = Array(ControlToken.protectedPrefix.utf8)

        /// Per provider (``latencyStride`` slots): a count per bucket, then +Inf, then the sum in microseconds.
        func requestSlot(row: Int, statusClass: Int) -> Int { row * statusClassCount + statusClass }
        func latencySlot(provider: Int) -> Int { requestSlotCount + provider * latencyStride }
        func outcomeSlot(row: Int, column: Int) -> Int {
            requestSlotCount + providerNames.count * latencyStride + row * outcomeNames.count + column
        }
    }
}

/// One shard's counters behind its own pthread mutex (as ``Locked`` is, which ThreadSanitizer sees): a request's
/// additions are a lock, four stores and an unlock, without the generic closure of `Locked.withLock`.
final class CounterShard: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let slots: UnsafeMutablePointer<Int>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: 0, count: count)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        slots.deallocate()
    }

    /// One request: its series, its latency bucket, the latency sum, and its outcome's slot (-1: none).
    func add(_ request: Int, _ bucket: Int, _ sum: Int, micros: Int, _ outcome: Int) {
        // In range by the layout's construction; were one not, the figure is dropped, never the server.
        guard (0..<count).contains(request), (0..<count).contains(bucket), (0..<count).contains(sum), outcome < count else {
            assertionFailure("a metrics slot out of the table: \(request) \(bucket) \(sum) \(outcome) of \(count)")
            return
        }
        pthread_mutex_lock(mutex)
        slots[request] += 1
        slots[bucket] += 1
        slots[sum] += micros
        if outcome >= 0 { slots[outcome] += 1 }
        pthread_mutex_unlock(mutex)
    }

    func addUp(into totals: inout [Int]) {
        pthread_mutex_lock(mutex)
        for index in 0..<min(count, totals.count) { totals[index] += slots[index] }
        pthread_mutex_unlock(mutex)
    }
}
