// SPDX-License-Identifier: MIT
import Foundation
import KlarnaSandbox
import SandboxHTTP
import SandboxPlugIn
import SwedbankPaySandbox

/// How a sandbox instance listens and what it loads. Each instance owns its state: run as many as you like.
///
/// ```swift
/// var configuration = SandboxConfiguration()   // port 0: any free port
/// configuration.http.limits.maxBodyBytes = 1 << 20
/// ```
public struct SandboxConfiguration: Sendable {
    /// Address, port, limits and timeouts of the HTTP server.
    public var http: HTTPServerConfiguration
    /// Whether the scenarios that ship with the package (`reject`, `expire-token`, ...; its `scenarios/` folder)
    /// are played, loaded before ``scenarioDirectories``. They are parsed once per process. The CLI turns this
    /// off and names its own copy in ``scenarioDirectories``.
    public var includesBundledScenarios = true
    /// Your own scenario directories, in load order, after the bundled scenarios; each name must be new.
    public var scenarioDirectories: [URL]
    /// How often the scenario files are checked for changes (picked up without a restart); nil: never.
    public var scenarioWatchInterval: Duration? = .seconds(1)
    /// Request and event log; nil logs nothing (the default in-process).
    public var logger: (any HTTPServerLogger)?
    /// Where time comes from; every namespace's clock is this plus its own offset. Inject a
    /// ``ManualClock`` to make lifetimes deterministic.
    public var clock: any SandboxClock = SystemClock()
    /// Makes session ids, tokens and order ids; ``SequentialIDGenerator`` gives predictable ones.
    public var ids: any IDGenerator = RandomIDGenerator()
    /// Entries the request journal keeps across all namespaces; the oldest go first.
    public var journalCapacity = 10_000
    /// Objects (sessions, tokens, orders of every provider) the sandbox holds across all namespaces: a creation past
    /// it evicts the oldest of the whole server, which then answer as unknown ones. nil: no bound (objects still go
    /// when they expire). `--max-objects` / `PAYMENT_SANDBOX_MAX_OBJECTS`.
    public var maxObjects: Int? = SandboxConfiguration.defaultMaxObjects
    /// 1,000,000 objects: a full Klarna flow is 4 (session, authorization token, KP order, Order Management order),
    /// so 250,000 flows. Aimed at about 3 KiB per flow (the target in docs/performance.md; the bound's own bookkeeping adds
    /// about 130 bytes, measured with `scripts/bench.sh`'s flows): about 770 MiB of objects, under 1 GiB with the
    /// journal and the rest of the process.
    public static let defaultMaxObjects = 1_000_000
    /// Callbacks the outbox (`/__sandbox/callbacks`) keeps across all namespaces, and per namespace; the oldest go first.
    /// `--callback-outbox` / `PAYMENT_SANDBOX_CALLBACK_OUTBOX`, `--callback-outbox-per-namespace` /
    /// `PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE`.
    public var callbackOutboxCapacity = SandboxConfiguration.defaultCallbackOutboxCapacity
    public var callbackOutboxCapacityPerNamespace = SandboxConfiguration.defaultCallbackOutboxCapacityPerNamespace
    public static let defaultCallbackOutboxCapacity = 10_000
    public static let defaultCallbackOutboxCapacityPerNamespace = 1_000
    /// Lifetimes, offered payment categories and accepted credentials of Klarna Payments.
    public var klarnaPayments = KlarnaPaymentsConfiguration()
    public var klarnaHPP = KlarnaHPPConfiguration()
    public var klarnaOrderManagement = KlarnaOrderManagementConfiguration()
    public var swedbankPay = SwedbankPayConfiguration()
    /// When set, every `/__sandbox/` call but health (and the two addresses a consumer's browser is sent to)
    /// needs `Authorization: Bearer <token>` or `Sandbox-Control-Token: <token>`; see `ControlToken`. nil: open.
    public var controlToken: String?
    /// Host names the control API (`/__sandbox/`) answers to besides IP addresses, `localhost`, `*.localhost`, names
    /// without a dot (`sandbox`) and the host of ``publicBaseURL``; `"*"` allows any. Against DNS rebinding: another
    /// `Host` is refused with a 403 (health, the addresses a consumer's browser is sent to and the faked APIs answer any
    /// Host). `--allowed-host` / `PAYMENT_SANDBOX_ALLOWED_HOSTS`.
    public var allowedHosts: [String] = []
    /// Where the sandbox keeps its state across a restart (every namespace's objects, clocks, default scenarios and
    /// counters): loaded by ``PaymentSandbox/start()``, written by ``PaymentSandbox/stop()``, by
    /// `POST /__sandbox/snapshot` and every ``snapshotInterval``. A file that cannot be read, is not a state file or
    /// is of another format version stops the start (``StateFileError``) and is never overwritten. nil: nothing is kept.
    public var stateFile: URL?
    /// How often the state file is also written while running; nil: only on stop and on request.
    public var snapshotInterval: Duration?
    /// The forwarded headers a proxy in front sets, which then count for the hrefs the sandbox builds
    /// (`HTTPServerConfiguration.trustedForwardedHeaders`); none by default.
    public var trustedForwardedHeaders: TrustedForwardedHeaders {
        get { http.trustedForwardedHeaders }
        set { http.trustedForwardedHeaders = newValue }
    }

    /// The base of every link the sandbox hands out: Swedbank Pay's hrefs, Klarna's `redirect_url` and `session_url`
    /// (Payments, the Hosted Payment Page), Order Management's `Location`, e.g. `https://localhost:8443` behind a TLS
    /// proxy; whatever `Host` and forwarded headers say (`HTTPServerConfiguration.publicBaseURL`). `--public-url` /
    /// `PAYMENT_SANDBOX_PUBLIC_URL`. nil: built from the trusted proxy's headers (`trustedForwardedHeaders`), else
    /// `http://` and `Host`. A request sent in-process through `SandboxURLProtocol` keeps the scheme and host its URL
    /// names instead.
    public var publicBaseURL: String? {
        get { http.publicBaseURL }
        set { http.publicBaseURL = newValue }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 0, scenarioDirectories: [URL] = [],
        logger: (any HTTPServerLogger)? = nil
    ) {
        self.http = HTTPServerConfiguration(host: host, port: port)
        self.scenarioDirectories = scenarioDirectories
        self.logger = logger
    }

    public var host: String {
        get { http.host }
        set { http.host = newValue }
    }

    public var port: Int {
        get { http.port }
        set { http.port = newValue }
    }
}
