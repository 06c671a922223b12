// SPDX-License-Identifier: MIT
import Foundation

/// Decides which scenario applies to a request and what it makes happen. Shared by every provider.
///
/// Selection, first that applies:
/// 1. the `Sandbox-Scenario` request header;
/// 2. the scenario the object (session, token, order) was created under: it sticks;
/// 3. content rules that honour the provider's own test data (its playground customers), when one
///    of their rules matches this call;
/// 4. the namespace's default (`PUT /__sandbox/scenario`);
/// 5. the server's default: approve everything.
package final class ScenarioEngine: Sendable {
    package static let headerName = "Sandbox-Scenario"

    package let directories: [URL]
    /// What the scenario files may name (the registered providers').
    package let vocabulary: ScenarioVocabulary
    /// Scenarios consulted at step 3, in order (a provider's playground scenario).
    package let contentRuleScenarios: [String]
    private let state: Locked<State>
    /// Where the scenario files are read after the start: ``reloadOffLoop()`` and the watcher (``onFileQueue(_:)``),
    /// one at a time. A thread of Dispatch's own, neither an event loop's nor one of the cooperative pool's that run
    /// the async handlers: a slow file system holds up a reload, never the requests.
    private let fileQueue = DispatchQueue(label: "payment-sandbox.scenario-files")

    private struct State {
        var library: ScenarioLibrary
        var defaults: [Namespace: String] = [:]
        var counters: [CounterKey: Int] = [:]
        var lastReloadProblems: [ScenarioProblem] = []
    }

    private struct CounterKey: Hashable {
        var namespace: Namespace
        var object: String
        var operation: ScenarioOperation
        var scenario: String
        var rule: Int
    }

    package init(library: ScenarioLibrary, directories: [URL] = [], vocabulary: ScenarioVocabulary = ScenarioVocabulary(merging: []),
                contentRuleScenarios: [String] = []) {
        self.directories = directories
        self.vocabulary = vocabulary
        self.contentRuleScenarios = contentRuleScenarios
        state = Locked(State(library: library))
    }

    /// Loads every scenario in `directories`; any problem fails the whole load (the server does not start).
    package static func load(directories: [URL], vocabulary: ScenarioVocabulary,
                            contentRuleScenarios: [String] = []) throws(ScenarioLoadFailure) -> ScenarioEngine {
        switch ScenarioLibrary.load(directories: directories, vocabulary: vocabulary) {
        case .success(let library):
            return ScenarioEngine(library: library, directories: directories, vocabulary: vocabulary, contentRuleScenarios: contentRuleScenarios)
        case .failure(let failure):
            throw failure
        }
    }

    package var scenarios: [Scenario] { state.withLock { $0.library.scenarios } }

    /// The loaded scenarios' warnings (see ``Scenario/warnings``).
    package var warnings: [ScenarioProblem] { state.withLock { $0.library.warnings } }

    package func scenario(named name: String) -> Scenario? { state.withLock { $0.library.scenario(named: name) } }

    /// Reads the directories again. A set with problems leaves the last good one in place; the problems are
    /// returned and kept for `GET /__sandbox/scenarios`.
    @discardableResult
    package func reload() -> Result<Int, ScenarioLoadFailure> {
        switch ScenarioLibrary.load(directories: directories, vocabulary: vocabulary) {
        case .success(let library):
            state.withLock { state in
                let old = state.library
                state.library = library
                state.lastReloadProblems = []
                // Counters refer to rules by index: only a scenario whose rules changed (or went away) starts
                // its sequences again, so one suite editing its file does not reset another suite's retries.
                state.counters = state.counters.filter { key, _ in
                    old.scenario(named: key.scenario)?.rules == library.scenario(named: key.scenario)?.rules
                }
                // A namespace default naming a scenario that is gone falls back to approve.
                state.defaults = state.defaults.filter { library.scenario(named: $0.value) != nil }
            }
            return .success(library.scenarios.count)
        case .failure(let failure):
            state.withLock { $0.lastReloadProblems = failure.problems }
            return .failure(failure)
        }
    }

    /// ``reload()`` on the engine's file queue (see ``onFileQueue(_:)``): for `POST /__sandbox/scenarios/reload`.
    package func reloadOffLoop() async -> Result<Int, ScenarioLoadFailure> {
        await onFileQueue { self.reload() }
    }

    /// Runs `work` (file-system work: reading the directories) on the engine's file queue, after any reload
    /// queued before it, and returns what it returns. The caller's thread waits for nothing.
    package func onFileQueue<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            fileQueue.async { continuation.resume(returning: work()) }
        }
    }

    /// Problems of the last reload that failed (empty after a good one).
    package var lastReloadProblems: [ScenarioProblem] { state.withLock { $0.lastReloadProblems } }

    // MARK: Namespace defaults

    package struct UnknownScenario: Error, Sendable, CustomStringConvertible {
        package var name: String
        package var known: [String]
        package var description: String { "unknown scenario \"\(name)\" (known: \(known.joined(separator: ", ")))" }
    }

    /// Sets (or with nil clears) the namespace's default scenario.
    package func setDefault(_ name: String?, for namespace: Namespace) throws(UnknownScenario) {
        try state.withLock { (state: inout State) throws(UnknownScenario) in
            if let name, state.library.scenario(named: name) == nil {
                throw UnknownScenario(name: name, known: state.library.scenarios.map(\.name))
            }
            state.defaults[namespace] = name
        }
    }

    package func defaultScenario(for namespace: Namespace) -> String? { state.withLock { $0.defaults[namespace] } }

    /// The namespaces that have a default scenario (for the control page's list).
    package var namespacesWithDefault: [Namespace] { state.withLock { Array($0.defaults.keys) } }

    /// Forgets the namespace's default scenario and sequence counters.
    package func reset(_ namespace: Namespace) {
        state.withLock { state in
            state.defaults[namespace] = nil
            state.counters = state.counters.filter { $0.key.namespace != namespace }
        }
    }

    // MARK: The state file

    /// The namespaces' default scenarios and the sequence counters of their rules, as the state file keeps them.
    package struct SavedState: Codable, Sendable {
        package var defaults: [String: String]
        package var counters: [Counter]

        package struct Counter: Codable, Sendable {
            var namespace: String
            var object: String
            var operation: String
            var scenario: String
            var rule: Int
            var calls: Int
        }
    }

    package var savedState: SavedState {
        state.withLock { state in
            SavedState(
                defaults: Dictionary(uniqueKeysWithValues: state.defaults.map { ($0.key.name, $0.value) }),
                counters: state.counters.map { key, calls in
                    SavedState.Counter(namespace: key.namespace.name, object: key.object, operation: key.operation.rawValue,
                                       scenario: key.scenario, rule: key.rule, calls: calls)
                })
        }
    }

    /// Takes the defaults and counters a state file kept. A default naming a scenario that is no longer loaded
    /// is dropped (as a reload drops it); so are the counters of its rules.
    package func restore(_ saved: SavedState) {
        state.withLock { state in
            for (namespace, name) in saved.defaults where state.library.scenario(named: name) != nil {
                state.defaults[Namespace(namespace)] = name
            }
            for counter in saved.counters {
                guard let scenario = state.library.scenario(named: counter.scenario), scenario.rules.indices.contains(counter.rule) else {
                    continue
                }
                let key = CounterKey(namespace: Namespace(counter.namespace), object: counter.object,
                                     operation: ScenarioOperation(counter.operation), scenario: counter.scenario, rule: counter.rule)
                state.counters[key] = counter.calls
            }
        }
    }

    // MARK: Deciding

    /// The scenario an object created by this request sticks to: the header's, else the namespace default.
    /// nil when neither names one (the object then follows content rules and later defaults).
    package func scenarioForNewObject(_ request: HTTPRequest, namespace: Namespace) throws(UnknownScenario) -> String? {
        try headerScenario(request)?.name ?? defaultScenario(for: namespace)
    }

    /// The decision for one call.
    /// - Parameters:
    ///   - subject: the JSON the scenario's field conditions look at (usually the request body; for the SDK's
    ///     authorize, the session as the customer authorizes it).
    ///   - object: what sequences count per (a session id, a token); calls on different objects count apart.
    ///   - sticky: the scenario the object was created under, if any.
    package func decide(
        _ operation: ScenarioOperation, request: HTTPRequest, namespace: Namespace, subject: JSONNode?, object: String,
        sticky: String?
    ) throws(UnknownScenario) -> (scenario: String?, decision: ScenarioDecision) {
        let selected: Scenario?
        if let fromHeader = try headerScenario(request) {
            selected = fromHeader
        } else if let sticky, let scenario = scenario(named: sticky) {
            selected = scenario
        } else if let content = contentRuleScenarios.lazy.compactMap({ self.scenario(named: $0) })
            .first(where: { $0.firstMatchingRule(for: operation, body: subject, headers: request.headers) != nil }) {
            selected = content
        } else {
            selected = defaultScenario(for: namespace).flatMap { scenario(named: $0) }
        }
        guard let scenario = selected,
              let ruleIndex = scenario.firstMatchingRule(for: operation, body: subject, headers: request.headers)
        else { return (selected?.name, .approve) }
        let key = CounterKey(namespace: namespace, object: object, operation: operation, scenario: scenario.name, rule: ruleIndex)
        let callIndex = state.withLock { state -> Int in
            let index = state.counters[key, default: 0]
            state.counters[key] = index + 1
            return index
        }
        return (scenario.name, scenario.rules[ruleIndex].decision(ruleIndex: ruleIndex, callIndex: callIndex))
    }

    private func headerScenario(_ request: HTTPRequest) throws(UnknownScenario) -> Scenario? {
        guard let name = request.headers[ScenarioEngine.headerName]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return nil
        }
        guard let scenario = scenario(named: name) else { throw UnknownScenario(name: name, known: scenarios.map(\.name)) }
        return scenario
    }

    /// The request body as JSON for field conditions; nil when empty or not JSON.
    package static func subject(_ body: Data) -> JSONNode? {
        body.isEmpty ? nil : try? JSONDocument.parse(body)
    }
}
