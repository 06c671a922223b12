// SPDX-License-Identifier: MIT
import Foundation

/// Everything about the server that a user may want to tune. Defaults follow nginx and SwiftNIO practice.
public struct HTTPServerConfiguration: Sendable {
    public var host: String
    /// 0 binds any free port; read the bound one from ``HTTPServer/start()``.
    public var port: Int
    public var limits: HTTPParserLimits
    /// The whole request head must arrive within this (slowloris); 408 then close. A connection that sends
    /// nothing at all within it is closed without an answer.
    public var headTimeout: Duration
    /// A body that stops arriving for this long gets 408 and the connection is closed.
    public var bodyIdleTimeout: Duration
    /// A keep-alive connection with no request for this long is closed.
    public var idleTimeout: Duration
    /// A client that reads none of its response for this long is dropped.
    public var writeTimeout: Duration
    /// A handler that has not answered within this gets a 503 in its API's format; its task is cancelled.
    public var handlerTimeout: Duration
    /// After an answer that closes the connection, unread input is drained for up to this long so the
    /// client sees the answer rather than a reset (nginx's lingering close).
    public var lingerTimeout: Duration
    /// Connections beyond this are answered 503 and closed at once.
    public var maxConnections: Int
    /// Threads polling sockets; one per core by default.
    public var eventLoopCount: Int
    /// On stop, every request received before it (in flight, pipelined, or still in the socket) gets this long
    /// to be answered; those still unanswered then get 503 with `Retry-After`, the connection's last answer
    /// `Connection: close`.
    public var shutdownGracePeriod: Duration
    /// After the grace period, the last answers get this long to reach their clients (lingering close)
    /// before every connection is closed: ``HTTPServer/stop()`` returns within the two added up.
    public var shutdownLingerPeriod: Duration
    public var listenBacklog: Int32
    /// Which of `Forwarded` / `X-Forwarded-Proto` + `X-Forwarded-Host` count when building hrefs
    /// (``HTTPRequest/publicOrigin``): name only those a proxy in front sets. None by default, because any client
    /// can send them (some payment SDKs send `Forwarded: for=<payer ip>; proto=https`).
    public var trustedForwardedHeaders: TrustedForwardedHeaders = []
    /// The base of every link the sandbox hands out (hrefs, `Location`, redirect URLs), e.g. `https://localhost:8443`,
    /// whatever the request's `Host` or forwarded headers say (``HTTPRequest/publicOrigin``). nil: built from them.
    public var publicBaseURL: String?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, limits: HTTPParserLimits = HTTPParserLimits(),
        headTimeout: Duration = .seconds(10), bodyIdleTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30), handlerTimeout: Duration = .seconds(120), lingerTimeout: Duration = .seconds(2),
        maxConnections: Int = 1024, eventLoopCount: Int = ProcessInfo.processInfo.activeProcessorCount,
        shutdownGracePeriod: Duration = .milliseconds(800), shutdownLingerPeriod: Duration = .milliseconds(100),
        listenBacklog: Int32 = 1024
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.headTimeout = headTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.handlerTimeout = handlerTimeout
        self.lingerTimeout = lingerTimeout
        self.maxConnections = maxConnections
        self.eventLoopCount = max(1, eventLoopCount)
        self.shutdownGracePeriod = shutdownGracePeriod
        self.shutdownLingerPeriod = shutdownLingerPeriod
        self.listenBacklog = listenBacklog
    }
}

/// A non-blocking HTTP/1.1 server: a fixed set of event-loop threads polling their sockets, handlers
/// run inline (``Router/Handler/immediate``) or as tasks (``Router/Handler/async``).
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), router: router)
/// let port = try server.start()
/// // ... send requests to 127.0.0.1:port ...
/// await server.stop()
/// ```
package final class HTTPServer: Sendable {
    package let configuration: HTTPServerConfiguration
    private let router: Router
    private let logger: (any HTTPServerLogger)?
    private let observer: (any HTTPExchangeObserver)?
    private let state = Locked<State>(.idle)

    private enum State {
        case idle
        case running(loops: [EventLoop], exits: LoopExitTracker, port: Int)
        case stopped
    }

    package init(configuration: HTTPServerConfiguration, router: Router, logger: (any HTTPServerLogger)? = nil,
                observer: (any HTTPExchangeObserver)? = nil) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.observer = observer
    }

    /// Binds, starts the event loops and returns the bound port.
    @discardableResult
    package func start() throws(HTTPServerError) -> Int {
        try state.withLock { (state: inout State) throws(HTTPServerError) -> Int in
            switch state {
            case .idle: break
            case .running: throw .alreadyStarted
            case .stopped: throw .stopped
            }
            let (listener, port) = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog)
            let shared = ServerShared(configuration: configuration, router: router, logger: logger, observer: observer)
            let exits = LoopExitTracker(count: configuration.eventLoopCount)
            var loops: [EventLoop] = []
            for index in 0..<configuration.eventLoopCount {
                guard let loop = EventLoop(index: index, shared: shared, exits: exits) else {
                    loops.forEach { $0.discardUnstarted() }
                    _ = Platform.close(listener)
                    throw .system(call: "pipe", errno: errno)
                }
                loops.append(loop)
            }
            loops[0].adoptListener(listener, siblings: loops)
            for loop in loops {
                let thread = Thread { loop.run() }
                thread.name = "sandbox-http-\(loop.index)"
                thread.start()
            }
            state = .running(loops: loops, exits: exits, port: port)
            return port
        }
    }

    /// The bound port while running.
    package var port: Int? {
        state.withLock { state in
            if case let .running(_, _, port) = state { return port }
            return nil
        }
    }

    /// Stops accepting and closes idle connections. Every request received before the call (a handler running,
    /// pipelined behind it, in the socket's buffer, or on a connection still in the listen backlog) is answered
    /// in order: its own answer if it comes within ``HTTPServerConfiguration/shutdownGracePeriod``, else 503 with
    /// `Retry-After`; each connection's last answer says `Connection: close`. Partial requests get no answer.
    /// Returns once every event-loop thread has exited: at most the grace period plus
    /// ``HTTPServerConfiguration/shutdownLingerPeriod`` later.
    package func stop() async {
        let running: ([EventLoop], LoopExitTracker)? = state.withLock { state in
            guard case let .running(loops, exits, _) = state else { return nil }
            state = .stopped
            return (loops, exits)
        }
        guard let (loops, exits) = running else { return }
        let grace = Socket.now() + configuration.shutdownGracePeriod.nanoseconds
        // Loop 0 takes in the listen backlog first, then passes the stop on to the other loops.
        loops[0].requestStop(EventLoop.StopDeadlines(grace: grace, close: grace + configuration.shutdownLingerPeriod.nanoseconds))
        await exits.wait()
    }
}

/// What every event loop of one server reads: configuration, routes, logger and shared counters.
final class ServerShared: Sendable {
    let configuration: HTTPServerConfiguration
    let router: Router
    let logger: (any HTTPServerLogger)?
    let observer: (any HTTPExchangeObserver)?
    let openConnections = Locked<Int>(0)
    let nextConnectionID = Locked<UInt64>(1)

    /// Whether there is a ``logger``, read without copying it out.
    let logs: Bool

    init(configuration: HTTPServerConfiguration, router: Router, logger: (any HTTPServerLogger)?,
         observer: (any HTTPExchangeObserver)?) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.observer = observer
        logs = logger != nil
    }

    /// ``Router/route(_:)`` on the router in place: read through a connection's `loop.shared.router`, the router (a
    /// struct of a dozen references) was copied and released for every request.
    func route(_ request: consuming HTTPRequest) -> Router.Routing { router.route(request) }
}

/// Lets ``HTTPServer/stop()`` wait for every loop thread to finish.
final class LoopExitTracker: Sendable {
    private let state: Locked<Waiters>

    private struct Waiters {
        var remaining: Int
        var continuations: [CheckedContinuation<Void, Never>] = []
    }

    init(count: Int) { state = Locked(Waiters(remaining: count)) }

    func loopExited() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining -= 1
            guard state.remaining == 0 else { return [] }
            defer { state.continuations = [] }
            return state.continuations
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.remaining == 0 { return true }
                state.continuations.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
