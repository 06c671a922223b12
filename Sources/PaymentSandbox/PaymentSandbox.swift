// SPDX-License-Identifier: MIT
import BundledScenarios
import Foundation
import KlarnaSandbox
import SandboxHTTP
import SandboxPlugIn
import SwedbankPaySandbox

/// The sandbox, in-process: start it on port 0, read ``baseURL``, send requests, stop it.
///
/// ```swift
/// import PaymentSandbox
/// import Testing
///
/// @Test func sandboxAnswersHealth() async throws {
///     try await PaymentSandbox.withRunning(SandboxConfiguration(port: 0)) { baseURL in
///         let (_, response) = try await URLSession.shared.data(from: baseURL.appending(path: "__sandbox/health"))
///         #expect((response as? HTTPURLResponse)?.statusCode == 200)
///     }
/// }
/// ```
public final class PaymentSandbox: Sendable {
    public let configuration: SandboxConfiguration
    private let server: HTTPServer
    /// The routes the server dispatches to.
    private let router: Router
    /// The same routes for ``respond(to:)`` (no socket), whose control API checks no `Host`: such a request comes
    /// from no browser, and names the host its URL used (`SandboxURLProtocol`'s registered hosts).
    private let inProcessRouter: Router
    /// Every route this sandbox answers, as "METHOD /path/:name" (for the tests that hold documents to them).
    package var routes: [String] { router.routes }
    private let started = Locked<URL?>(nil)
    /// Problems found loading the scenario files: ``start()`` refuses to start with them.
    private let loadFailure: ScenarioLoadFailure?
    private let watcher = Locked<Task<Void, Never>?>(nil)
    /// The state file, when configured; the task that writes it every ``SandboxConfiguration/snapshotInterval``.
    let stateFile: SandboxStateFile?
    private let snapshotter = Locked<Task<Void, Never>?>(nil)

    /// Per-namespace clock offsets; the providers' state is in their stores.
    package let registry: NamespaceRegistry
    /// The providers plugged in (``plugIns``), each owning its stores.
    package let providers: [any SandboxProvider]
    /// The provider of type `kind`, when this sandbox plugs one in.
    package func provider<Provider: SandboxProvider>(_ kind: Provider.Type) -> Provider? {
        providers.lazy.compactMap { $0 as? Provider }.first
    }
    package var klarna: KlarnaProvider { provider(KlarnaProvider.self)! }
    package var swedbankPay: SwedbankPayProvider { provider(SwedbankPayProvider.self)! }
    package var klarnaPayments: KlarnaPaymentsStore { klarna.payments }
    package var klarnaHPP: KlarnaHPPStore { klarna.hpp }
    package var klarnaOrderManagement: KlarnaOrderManagementStore { klarna.orderManagement }
    package var swedbankPayOrders: SwedbankPayOrderStore { swedbankPay.orders }
    package var swedbankPaySessions: SwedbankPayPaymentSessionStore { swedbankPay.sessions }
    /// Every call to a faked API, bounded (``SandboxConfiguration/journalCapacity``).
    package let journal: Journal
    /// The loaded scenarios and who uses which.
    package let scenarios: ScenarioEngine
    /// Every provider's objects in creation order and the bound on them (``SandboxConfiguration/maxObjects``).
    package let retention: ObjectRetention
    /// Every callback the providers send, bounded (``SandboxConfiguration/callbackOutboxCapacity``).
    package let outbox: CallbackOutbox
    /// Counts every answered request, then hands it to the journal (`GET /__sandbox/metrics`).
    let metrics: SandboxMetrics

    /// Content rules that honour the providers' own test data, in the providers' order.
    public static let contentRuleScenarios = plugIns.flatMap { $0.kind.contentRuleScenarios }

    public convenience init(configuration: SandboxConfiguration = SandboxConfiguration(port: 0)) {
        self.init(configuration: configuration, plugIns: PaymentSandbox.plugIns)
    }

    /// A sandbox of the providers `plugIns` (tests plug in others: see ``ProviderPlugIn``).
    package init(configuration: SandboxConfiguration, plugIns: [ProviderPlugIn]) {
        self.configuration = configuration
        registry = NamespaceRegistry(clock: configuration.clock)
        journal = Journal(capacity: configuration.journalCapacity, registry: registry)
        (scenarios, loadFailure) = PaymentSandbox.loadScenarios(configuration, plugIns: plugIns)
        retention = ObjectRetention(maxObjects: configuration.maxObjects, journal: journal, clock: configuration.clock)
        // Sequence counters go with their objects, and with a namespace's last object.
        retention.observeRemovals { [scenarios] removal in scenarios.forget(removal) }
        scenarios.sweepIdleNamespaces { [retention] namespace in retention.holdsObjects(namespace) }
        outbox = CallbackOutbox(registry: registry, capacity: configuration.callbackOutboxCapacity,
                                capacityPerNamespace: configuration.callbackOutboxCapacityPerNamespace)
        let context = SandboxProviderContext(registry: registry, ids: configuration.ids, journal: journal, scenarios: scenarios,
                                             retention: retention, outbox: outbox)
        let providers = plugIns.map { $0.make(configuration, context) }
        self.providers = providers

        let metrics = SandboxMetrics(providers: providers, vocabulary: scenarios.vocabulary, next: journal)
        self.metrics = metrics
        let states = providers.flatMap(\.states)
        let (registry, scenarios, outbox, retention) = (self.registry, self.scenarios, self.outbox, self.retention)
        stateFile = configuration.stateFile.map {
            SandboxStateFile(url: $0, registry: registry, scenarios: scenarios, ids: configuration.ids, states: states + [outbox],
                             retention: retention, logger: configuration.logger)
        }
        var router = Router()
        // A Sandbox-Namespace header past Namespace.maxLength is refused before any route, in the path's error format.
        router.setRequestCheck(Namespace.check)
        ControlRoutes(startedAt: .now, registry: registry, journal: journal, scenarios: scenarios, states: states + [outbox],
                      retention: retention, outbox: outbox, controlToken: configuration.controlToken, stateFile: stateFile,
                      providerKinds: plugIns.map(\.kind), metrics: metrics)
            .add(to: &router)
        // Host, the control token (when set) and the writes a web page of another site could make (ControlRequestCheck).
        let controlCheck = ControlRequestCheck(configuration: configuration, openPrefixes: providers.flatMap(\.browserPrefixes))
        router.setAccessCheck(forPathPrefix: ControlToken.protectedPrefix, controlCheck.check)
        for provider in providers { PaymentSandbox.register(provider, on: &router, journal: journal) }
        self.router = router
        var inProcessRouter = router
        inProcessRouter.setAccessCheck(forPathPrefix: ControlToken.protectedPrefix, controlCheck.checkingNoHost().check)
        self.inProcessRouter = inProcessRouter
        self.server = HTTPServer(configuration: configuration.http, router: router, logger: configuration.logger, observer: metrics)
    }

    /// Applies what `provider` declares: its error formats per prefix, what the journal needs, its routes.
    static func register(_ provider: any SandboxProvider, on router: inout Router, journal: Journal) {
        for prefix in provider.pathPrefixes { router.setErrorRenderer(prefix.errors, forPathPrefix: prefix.prefix) }
        for prefix in provider.journaledSandboxPrefixes { journal.journal(sandboxPathPrefix: prefix) }
        provider.addRoutes(to: &router)
    }

    /// Binds and starts serving. Returns the base URL, e.g. `http://127.0.0.1:53187`.
    /// Throws ``ScenarioLoadFailure`` (every problem, as `file:line:column: JSON path: what is wrong`) when
    /// a scenario file is invalid, ``StateFileError`` when the state file cannot be loaded, and
    /// ``HTTPServerError`` when it cannot listen.
    @discardableResult
    public func start() throws -> URL {
        if let loadFailure { throw loadFailure }
        try stateFile?.load()
        let port = try server.start()
        if let stateFile, let interval = configuration.snapshotInterval {
            snapshotter.withLock { $0?.cancel(); $0 = Self.writeEvery(interval, stateFile, logger: configuration.logger) }
        }
        let url = PaymentSandbox.baseURL(host: configuration.http.host, port: port)
        started.withLock { $0 = url }
        if let interval = configuration.scenarioWatchInterval, !configuration.scenarioDirectories.isEmpty {
            watcher.withLock { $0 = ScenarioWatcher.start(scenarios, every: interval, logger: configuration.logger) }
        }
        return url
    }

    /// Loads the configured state file now (once), for a sandbox used in-process without ``start()``, which loads it
    /// itself. Throws ``StateFileError`` when it cannot be loaded; nothing without a state file.
    public func loadStateFile() throws(StateFileError) {
        try stateFile?.load()
    }

    /// Why the last write of the state file failed (on stop, on the interval or on request); nil after a good one.
    package var stateFileWriteFailure: String? { stateFile?.lastWriteFailure }

    /// The base URL while running.
    public var baseURL: URL? { started.withLock { $0 } }

    /// Stops accepting, answers every request already received (`HTTPServer/stop()`: its own answer within the
    /// grace period, else 503) and releases every socket and thread.
    /// With a state file, it is written once the server has stopped (a snapshot underway is abandoned for this write).
    public func stop() async {
        watcher.withLock { $0?.cancel(); $0 = nil }
        snapshotter.withLock { $0?.cancel(); $0 = nil }
        await server.stop()
        started.withLock { $0 = nil }
        if let stateFile, stateFile.isLoaded {
            do {
                _ = try await stateFile.write(final: true)
            } catch {
                configuration.logger?.log(.error, "\(error)")
            }
        }
    }

    private static func writeEvery(_ interval: Duration, _ stateFile: SandboxStateFile, logger: (any HTTPServerLogger)?) -> Task<Void, Never> {
        Task.detached {
            while true {
                do { try await Task.sleep(for: interval) } catch { return }
                do {
                    _ = try await stateFile.write()
                } catch {
                    logger?.log(.error, "\(error)")
                }
            }
        }
    }

    /// Starts a sandbox, runs `body` with its base URL and stops it, also when `body` throws.
    public static func withRunning<T>(
        _ configuration: SandboxConfiguration = SandboxConfiguration(port: 0),
        _ body: (URL) async throws -> T
    ) async throws -> T {
        let sandbox = PaymentSandbox(configuration: configuration)
        let url = try sandbox.start()
        do {
            let result = try await body(url)
            await sandbox.stop()
            return result
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    /// Problems found loading the scenario files (what ``start()`` throws), for users that never start a server.
    package func checkScenariosLoaded() throws(ScenarioLoadFailure) {
        if let loadFailure { throw loadFailure }
    }

    /// One request answered in-process, without a socket, as the server answers it (``Router/respond(to:timeout:)``
    /// with the server's handler timeout) and journaled as the server journals it. A dropped connection is thrown
    /// as `URLError(.networkConnectionLost)`, as a URLSession client sees it. Links are built on the request's own
    /// ``HTTPRequest/publicOriginOverride`` when the caller set one (the URL an in-process client used), else on
    /// ``SandboxConfiguration/publicBaseURL`` as over a socket.
    package func respond(to request: HTTPRequest) async throws -> HTTPResponse {
        let started = ContinuousClock.now
        var request = request
        request.trustedForwardedHeaders = configuration.http.trustedForwardedHeaders
        if request.publicOriginOverride == nil { request.publicOriginOverride = configuration.http.publicBaseURL }
        let exchange = await inProcessRouter.respond(to: request, timeout: configuration.http.handlerTimeout)
        let elapsed = ContinuousClock.now - started
        metrics.exchangeCompleted(exchange, durationSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        switch exchange.outcome {
        case .response(let response): return response
        case .connectionDropped: throw URLError(.networkConnectionLost)
        }
    }

    /// The bundled scenarios (served from the parsed set of ``BundledScenarioSet``) and then the configuration's
    /// directories, which are read now and watched as before.
    private static func loadScenarios(_ configuration: SandboxConfiguration,
                                      plugIns: [ProviderPlugIn]) -> (ScenarioEngine, ScenarioLoadFailure?) {
        var directories = configuration.scenarioDirectories
        let isDefault = plugIns.map { ObjectIdentifier($0.kind) } == PaymentSandbox.plugIns.map { ObjectIdentifier($0.kind) }
        let vocabulary = isDefault ? ScenarioVocabulary.sandbox : ScenarioVocabulary(merging: plugIns.map { $0.kind.scenarioVocabulary })
        let rules = plugIns.flatMap { $0.kind.contentRuleScenarios }
        if configuration.includesBundledScenarios, let bundled = BundledScenarioSet.folder,
           !directories.contains(where: BundledScenarioFolder.isBundled) {
            // Parsed once per process, with the default providers' vocabulary.
            if directories.isEmpty, isDefault, case .success(let library) = BundledScenarioSet.parsed {
                return (ScenarioEngine(library: library, directories: [bundled], vocabulary: vocabulary, contentRuleScenarios: rules), nil)
            }
            directories.insert(bundled, at: 0)
        }
        do {
            return (try ScenarioEngine.load(directories: directories, vocabulary: vocabulary, contentRuleScenarios: rules), nil)
        } catch {
            return (ScenarioEngine(library: ScenarioLibrary(scenarios: []), directories: directories, vocabulary: vocabulary), error)
        }
    }

    /// A URL clients can use: wildcard binds are reached over loopback; IPv6 literals get brackets.
    static func baseURL(host: String, port: Int) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        switch host {
        case "", "0.0.0.0": components.host = "127.0.0.1"
        case "::": components.host = "[::1]"
        default: components.host = host.contains(":") ? "[\(host)]" : host
        }
        components.port = port
        // The host resolved when the server bound it, so it is a valid URL host; a literal is the fallback.
        return components.url ?? URL(string: "http://127.0.0.1:\(port)")!
    }
}

extension ScenarioVocabulary {
    /// What scenario files may name in this sandbox: every provider's operations and outcomes.
    package static let sandbox = ScenarioVocabulary(merging: PaymentSandbox.plugIns.map { $0.kind.scenarioVocabulary })
}
