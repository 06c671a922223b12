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
        /// ``library`` as decisions read it (made with it: ``init`` and ``reload()``).
        var index: DecisionIndex
        var defaults: [Namespace: String] = [:]
        var counters: [CounterKey: Int] = [:]
        /// The keys of ``counters`` per namespace and object, so they go with their object (``forget(_:)``). May name
        /// keys a reload or the bound already dropped (removing those again changes nothing).
        var countedObjects: [Namespace: CountedNamespace] = [:]
        /// Sweeps of idle namespaces so far, counters made since the last, and how many make the next due
        /// (``index(_:_:)``).
        var sweeps = 0
        var countersSinceSweep = 0
        var sweepInterval = ScenarioEngine.countersPerSweep
        var lastReloadProblems: [ScenarioProblem] = []
    }

    private struct CountedNamespace {
        var objects: [String: [CounterKey]] = [:]
        /// The sweep count when a call of the namespace last counted.
        var lastUsed: Int
    }

    /// Whether a namespace holds objects now (``ObjectRetention/holdsObjects(_:)``), for the sweep of idle namespaces.
    private let holdsObjects = Locked<ObjectHolder?>(nil)
    /// In a struct, not bare in `Locked` (see ``ObjectRetention``'s observer: a bare closure gains thunks at each access).
    private struct ObjectHolder { let holds: @Sendable (Namespace) -> Bool }
    /// A sweep is due after this many new counters, or twice as many as namespaces holding objects had counters at
    /// the last sweep, whichever is more (so a sweep's cost, which grows with those namespaces, is shared by as many
    /// new counters).
    package static let countersPerSweep = 4096

    /// How many namespaces may have a default scenario at a time: choosing one for one more is refused
    /// (``TooManyDefaults``) until a reset frees one.
    package let maxDefaults: Int
    package static let defaultMaxDefaults = 100_000
    /// How many sequence counters are kept at most. Counters go with their object (evicted, expired, cancelled,
    /// reset) and with their namespace's last object; past this bound (calls that name objects that never existed,
    /// in many namespaces) an arbitrary older counter goes for each new one, and its sequence starts again.
    package let maxCounters: Int
    package static let defaultMaxCounters = 250_000

    private struct CounterKey: Hashable {
        var namespace: Namespace
        var object: String
        var operation: ScenarioOperation
        var scenario: String
        var rule: Int
    }

    package init(library: ScenarioLibrary, directories: [URL] = [], vocabulary: ScenarioVocabulary = ScenarioVocabulary(merging: []),
                contentRuleScenarios: [String] = [], maxDefaults: Int = ScenarioEngine.defaultMaxDefaults,
                maxCounters: Int = ScenarioEngine.defaultMaxCounters) {
        self.maxDefaults = max(1, maxDefaults)
        self.maxCounters = max(1, maxCounters)
        self.directories = directories
        self.vocabulary = vocabulary
        self.contentRuleScenarios = contentRuleScenarios
        state = Locked(State(library: library, index: DecisionIndex(library, contentRuleScenarios: contentRuleScenarios)))
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
                state.index = DecisionIndex(library, contentRuleScenarios: contentRuleScenarios)
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
        package var description: String {
            NearestName.unknown("scenario", name, known: known, listing: "known:",
                                whereListed: "none of the \(known.count) loaded is near it: GET /__sandbox/scenarios lists them")
        }
    }

    /// Choosing a default for one more namespace while ``maxDefaults`` have one.
    package struct TooManyDefaults: Error, Sendable, CustomStringConvertible {
        package var limit: Int
        package var description: String {
            "\(limit) namespaces have a default scenario already (the sandbox's bound): reset one, or clear its default, first"
        }
    }

    /// Sets (or with nil clears) the namespace's default scenario. Throws ``UnknownScenario`` for a name no loaded
    /// scenario has, ``TooManyDefaults`` past ``maxDefaults``.
    package func setDefault(_ name: String?, for namespace: Namespace) throws {
        try state.withLock { (state: inout State) throws in
            if let name, state.library.scenario(named: name) == nil {
                throw UnknownScenario(name: name, known: state.library.scenarios.map(\.name))
            }
            if name != nil, state.defaults[namespace] == nil, state.defaults.count >= maxDefaults {
                throw TooManyDefaults(limit: maxDefaults)
            }
            state.defaults[namespace] = name
        }
    }

    package func defaultScenario(for namespace: Namespace) -> String? { state.withLock { $0.defaults[namespace] } }

    /// The namespaces that have a default scenario (for the control page's list).
    package var namespacesWithDefault: [Namespace] { state.withLock { Array($0.defaults.keys) } }
    /// How many namespaces have a default scenario (at most ``maxDefaults``).
    package var namespacesWithDefaultCount: Int { state.withLock { $0.defaults.count } }

    /// Forgets the namespace's default scenario and sequence counters.
    package func reset(_ namespace: Namespace) {
        state.withLock { state in
            state.defaults[namespace] = nil
            Self.dropCounters(of: namespace, &state)
        }
    }

    // MARK: Counters of objects that went

    /// Sequence counters held now (at most ``maxCounters``).
    package var counterCount: Int { state.withLock { $0.counters.count } }
    /// Namespaces with at least one sequence counter.
    package var namespacesWithCounters: Int { state.withLock { $0.countedObjects.count } }

    /// Objects went (``ObjectRetention/observeRemovals(_:)``): their counters go with them, and when the namespace
    /// holds no object any more, every counter of the namespace (those of creations too, `new-…`): a namespace that
    /// holds nothing and chose nothing costs nothing. Its default scenario stays (it was chosen).
    package func forget(_ removal: ObjectRetention.ObjectRemoval) {
        state.withLock { state in
            guard state.countedObjects[removal.namespace] != nil else { return }
            if removal.namespaceEmptied {
                Self.dropCounters(of: removal.namespace, &state)
                return
            }
            for id in removal.ids {
                guard let keys = state.countedObjects[removal.namespace]?.objects.removeValue(forKey: id) else { continue }
                for key in keys { state.counters[key] = nil }
            }
            if state.countedObjects[removal.namespace]?.objects.isEmpty == true { state.countedObjects[removal.namespace] = nil }
        }
    }

    /// Counters of calls that name no object the stores hold (an unknown id) stay until a sweep: once
    /// ``countersPerSweep`` new counters were made (or twice as many as namespaces that hold objects had counters),
    /// the counters of every namespace that holds no object (`holds`, asked under this engine's lock) and counted
    /// nothing since the sweep before go. A retry sequence in a namespace without objects survives while it is used
    /// between two sweeps; counters of namespaces without objects are at most two sweeps' worth.
    package func sweepIdleNamespaces(holdingObjects holds: @escaping @Sendable (Namespace) -> Bool) {
        holdsObjects.withLock { $0 = ObjectHolder(holds: holds) }
    }

    private static func dropCounters(of namespace: Namespace, _ state: inout State) {
        guard let counted = state.countedObjects.removeValue(forKey: namespace) else { return }
        for keys in counted.objects.values { for key in keys { state.counters[key] = nil } }
    }

    /// Keeps a counter's key findable by its namespace and object, after a sweep if one is due and making room
    /// under ``maxCounters``.
    private func index(_ key: CounterKey, _ state: inout State) {
        state.countersSinceSweep += 1
        if state.countersSinceSweep >= state.sweepInterval, let holds = holdsObjects.withLock({ $0 })?.holds {
            let sweep = state.sweeps
            var idle: [Namespace] = [], holding = 0
            for (namespace, counted) in state.countedObjects {
                if holds(namespace) {
                    holding += 1
                } else if counted.lastUsed < sweep {
                    idle.append(namespace)
                }
            }
            for namespace in idle { Self.dropCounters(of: namespace, &state) }
            state.sweeps += 1
            state.countersSinceSweep = 0
            state.sweepInterval = max(Self.countersPerSweep, 2 * holding)
        }
        while state.counters.count >= maxCounters, let victim = state.counters.first?.key {
            state.counters[victim] = nil
            state.countedObjects[victim.namespace]?.objects[victim.object]?.removeAll { $0 == victim }
            if state.countedObjects[victim.namespace]?.objects[victim.object]?.isEmpty == true {
                state.countedObjects[victim.namespace]?.objects[victim.object] = nil
                if state.countedObjects[victim.namespace]?.objects.isEmpty == true { state.countedObjects[victim.namespace] = nil }
            }
        }
        state.countedObjects[key.namespace, default: CountedNamespace(lastUsed: state.sweeps)].objects[key.object, default: []].append(key)
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
                if state.counters[key] == nil { index(key, &state) }
                state.counters[key] = counter.calls
            }
        }
    }

    // MARK: Deciding

    /// The scenario an object created by this request sticks to: the header's, else the namespace default.
    /// nil when neither names one (the object then follows content rules and later defaults).
    package func scenarioForNewObject(_ request: HTTPRequest, namespace: Namespace) throws(UnknownScenario) -> String? {
        try headerScenario(request.headers)?.name ?? defaultScenario(for: namespace)
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
        try decide(operation, facts: ScenarioRequestFacts(request), namespace: namespace, subject: subject, object: object, sticky: sticky)
    }

    /// ``decide(_:request:namespace:subject:object:sticky:)`` with what it reads of the request (a store's decision within a call).
    package func decide(
        _ operation: ScenarioOperation, facts: ScenarioRequestFacts, namespace: Namespace, subject: JSONNode?, object: String,
        sticky: String?
    ) throws(UnknownScenario) -> (scenario: String?, decision: ScenarioDecision) {
        try decide(operation, facts: facts, namespace: namespace, lazySubject: { subject }, object: object, sticky: sticky)
    }

    /// ``decide(_:facts:namespace:subject:object:sticky:)`` with the subject made only when a condition may look at it:
    /// a content-rule scenario is loaded, or the scenario in force has a rule for `operation` (most calls have none).
    package func decide(
        _ operation: ScenarioOperation, facts: ScenarioRequestFacts, namespace: Namespace, lazySubject subject: () -> JSONNode?,
        object: String, sticky: String?
    ) throws(UnknownScenario) -> (scenario: String?, decision: ScenarioDecision) {
        var made: JSONNode?? = nil
        return try decide(operation, facts: facts, namespace: namespace, object: object, sticky: sticky) { path in
            if made == nil { made = .some(subject()) }
            return path.resolve(in: made ?? nil)
        }
    }

    /// ``decide(_:facts:namespace:lazySubject:object:sticky:)`` with the subject made a top-level member at a time:
    /// `member(key)` is what `subject()?[key]` would be (the last member named `key` when the subject is an object,
    /// else nil); each key is asked once.
    package func decide(
        _ operation: ScenarioOperation, facts: ScenarioRequestFacts, namespace: Namespace, subjectMember member: (String) -> JSONNode?,
        object: String, sticky: String?
    ) throws(UnknownScenario) -> (scenario: String?, decision: ScenarioDecision) {
        var asked: [(key: String, value: JSONNode?)] = []
        // The last path resolved: consecutive rules mostly test one field (a playground's rules, an address's email).
        var lastPath: String?, lastValue: JSONNode?
        return try decide(operation, facts: facts, namespace: namespace, object: object, sticky: sticky) { path in
            if lastPath == path.text { return lastValue }
            let value = path.resolve { key in
                if let known = asked.first(where: { $0.key == key }) { return known.value }
                let value = member(key)
                asked.append((key, value))
                return value
            }
            lastPath = path.text
            lastValue = value
            return value
        }
    }

    /// The decision, with `field` resolving a condition's path in the subject.
    private func decide(
        _ operation: ScenarioOperation, facts: ScenarioRequestFacts, namespace: Namespace, object: String, sticky: String?,
        field: (ScenarioFieldPath) -> JSONNode?
    ) throws(UnknownScenario) -> (scenario: String?, decision: ScenarioDecision) {
        let decisions = state.withLock { $0.index }
        var selected: (scenario: Scenario, rules: [Int])?
        var matched: Int?
        if let fromHeader = try headerScenario(facts.headers, decisions) {
            selected = (fromHeader, decisions.rules(of: fromHeader.name, for: operation))
        } else if let sticky, let scenario = decisions.library.scenario(named: sticky) {
            selected = (scenario, decisions.rules(of: sticky, for: operation))
        } else {
            for candidate in decisions.contentRules[operation] ?? [] {
                if let rule = Self.firstMatchingRule(of: candidate.scenario, among: candidate.rules, requiring: candidate.requiredFields,
                                                     headers: facts.headers, field: field) {
                    selected = (candidate.scenario, candidate.rules)
                    matched = rule
                    break
                }
            }
            if selected == nil, let name = defaultScenario(for: namespace), let scenario = decisions.library.scenario(named: name) {
                selected = (scenario, decisions.rules(of: name, for: operation))
            }
        }
        guard let (scenario, rules) = selected, !rules.isEmpty,
              let ruleIndex = matched ?? Self.firstMatchingRule(of: scenario, among: rules, headers: facts.headers, field: field)
        else { return (selected?.scenario.name, .approve) }
        let key = CounterKey(namespace: namespace, object: object, operation: operation, scenario: scenario.name, rule: ruleIndex)
        let callIndex = state.withLock { state -> Int in
            state.countedObjects[namespace]?.lastUsed = state.sweeps
            guard let calls = state.counters[key] else {
                index(key, &state)
                state.counters[key] = 1
                return 0
            }
            state.counters[key] = calls + 1
            return calls
        }
        return (scenario.name, scenario.rules[ruleIndex].decision(ruleIndex: ruleIndex, callIndex: callIndex))
    }

    /// ``Scenario/firstMatchingRule(among:headers:field:)``, each condition read in place rather than copied (a
    /// content-rule scenario has a score of rules for a call, each tested on every call).
    ///
    /// `requiredFields`, when given, holds for each candidate a field that must be present for it to match
    /// (``DecisionIndex/requiredField(of:)``): a rule whose field is absent is passed over without testing its
    /// conditions one by one (the playground's score of rules on an email that most calls do not send). Consecutive
    /// rules mostly need the same field, whose presence is then asked once.
    private static func firstMatchingRule(of scenario: Scenario, among candidates: [Int], requiring requiredFields: [ScenarioFieldPath?]? = nil,
                                          headers: HTTPHeaders, field: (ScenarioFieldPath) -> JSONNode?) -> Int? {
        var known: (path: String, present: Bool)?
        return scenario.rules.withUnsafeBufferPointer { rules in
            candidates.indices.first { position in
                if let requiredFields, let path = requiredFields[position] {
                    let present = known?.path == path.text ? known?.present == true : field(path) != nil
                    known = (path.text, present)
                    if !present { return false }
                }
                return rules[candidates[position]].conditions.withUnsafeBufferPointer { conditions in
                    !conditions.indices.contains { !conditions[$0].holds(headers: headers, field: field) }
                }
            }.map { candidates[$0] }
        }
    }

    private func headerScenario(_ headers: HTTPHeaders, _ index: DecisionIndex? = nil) throws(UnknownScenario) -> Scenario? {
        guard let name = headers[ScenarioEngine.headerName]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return nil
        }
        let found = index.map { $0.library.scenario(named: name) } ?? scenario(named: name)
        guard let scenario = found else { throw UnknownScenario(name: name, known: scenarios.map(\.name)) }
        return scenario
    }

    /// The request body as JSON for field conditions; nil when empty or not JSON.
    package static func subject(_ body: Data) -> JSONNode? {
        body.isEmpty ? nil : try? JSONDocument.parse(body)
    }
}

/// A scenario library as decisions read it, made once per load: which rules of each scenario name each operation,
/// and the content-rule scenarios (in their order) that have rules for it.
private final class DecisionIndex: Sendable {
    let library: ScenarioLibrary
    /// Scenario name, then operation: the indices of its rules for that operation, in file order.
    let rulesByScenario: [String: [ScenarioOperation: [Int]]]
    /// Per operation, the content-rule scenarios with rules for it: those rules, and for each the field it needs.
    let contentRules: [ScenarioOperation: [(scenario: Scenario, rules: [Int], requiredFields: [ScenarioFieldPath?])]]

    init(_ library: ScenarioLibrary, contentRuleScenarios: [String]) {
        self.library = library
        var rulesByScenario: [String: [ScenarioOperation: [Int]]] = [:]
        for scenario in library.scenarios {
            var byOperation: [ScenarioOperation: [Int]] = [:]
            for (offset, rule) in scenario.rules.enumerated() { byOperation[rule.operation, default: []].append(offset) }
            rulesByScenario[scenario.name] = byOperation
        }
        var contentRules: [ScenarioOperation: [(scenario: Scenario, rules: [Int], requiredFields: [ScenarioFieldPath?])]] = [:]
        for name in contentRuleScenarios {
            guard let scenario = library.scenario(named: name) else { continue }
            for (operation, rules) in rulesByScenario[name] ?? [:] {
                let required = rules.map { Self.requiredField(of: scenario.rules[$0]) }
                contentRules[operation, default: []].append((scenario, rules, required))
            }
        }
        self.rulesByScenario = rulesByScenario
        self.contentRules = contentRules
    }

    /// A field the rule cannot match without: one that a condition tests with `equals`, `contains`, `matches` or
    /// `exists: true`, each of which fails on an absent field.
    static func requiredField(of rule: ScenarioRule) -> ScenarioFieldPath? {
        for condition in rule.conditions {
            guard case .field(let path) = condition.subject else { continue }
            if case .exists(false) = condition.test { continue }
            return path
        }
        return nil
    }

    func rules(of scenario: String, for operation: ScenarioOperation) -> [Int] { rulesByScenario[scenario]?[operation] ?? [] }
}
