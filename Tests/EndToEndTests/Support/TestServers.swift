// SPDX-License-Identifier: MIT
// Starting and always stopping servers, and the gate that keeps process-wide measurements honest.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxScenarios
import SwedbankPaySandbox
import SandboxHTTP
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: Process-wide gate

/// Tests run in parallel, but some measure the whole process (descriptor and thread counts) or time
/// (timeouts of a few hundred ms, "exits within a second"), which a burst of parallel tests on two cores
/// would skew. Every test that opens sockets, servers or processes holds the gate shared; those that
/// measure hold it exclusively (``alone(_:)``), so nothing else runs meanwhile. Writers are preferred so
/// they are not starved.
actor ResourceGate {
    static let instance = ResourceGate()

    /// Set inside a shared section, so nested helpers do not queue behind a waiting writer (deadlock).
    @TaskLocal static var holdsShared = false
    @TaskLocal static var holdsExclusive = false

    private var readers = 0
    private var writer = false
    private var waitingReaders: [CheckedContinuation<Void, Never>] = []
    private var waitingWriters: [CheckedContinuation<Void, Never>] = []

    private func acquireShared() async {
        if !writer && waitingWriters.isEmpty {
            readers += 1
            return
        }
        await withCheckedContinuation { waitingReaders.append($0) }  // the releaser counted us in
    }

    private func releaseShared() {
        readers -= 1
        if readers == 0, !waitingWriters.isEmpty {
            writer = true
            waitingWriters.removeFirst().resume()
        }
    }

    private func acquireExclusive() async {
        if !writer && readers == 0 {
            writer = true
            return
        }
        await withCheckedContinuation { waitingWriters.append($0) }  // the releaser made us the writer
    }

    private func releaseExclusive() {
        if !waitingWriters.isEmpty {
            waitingWriters.removeFirst().resume()
            return
        }
        writer = false
        readers += waitingReaders.count
        let resumed = waitingReaders
        waitingReaders = []
        resumed.forEach { $0.resume() }
    }

    static func shared<T>(_ body: () async throws -> T) async throws -> T {
        if holdsShared || holdsExclusive { return try await body() }
        await instance.acquireShared()
        do {
            let result = try await $holdsShared.withValue(true) { try await body() }
            await instance.releaseShared()
            return result
        } catch {
            await instance.releaseShared()
            throw error
        }
    }

    static func exclusive<T>(_ body: () async throws -> T) async throws -> T {
        if holdsExclusive { return try await body() }
        precondition(!holdsShared, "exclusive section inside a shared one would deadlock")
        await instance.acquireExclusive()
        do {
            let result = try await $holdsExclusive.withValue(true) { try await body() }
            await instance.releaseExclusive()
            return result
        } catch {
            await instance.releaseExclusive()
            throw error
        }
    }
}

/// Runs `body` while no other end-to-end test runs: for tests that measure time (timeouts, exit within a
/// second) or process-wide resources, which a burst of parallel tests on two cores would skew.
func alone<T>(_ body: () async throws -> T) async throws -> T {
    try await ResourceGate.exclusive(body)
}

private func gated<T>(alone: Bool, _ body: () async throws -> T) async throws -> T {
    alone ? try await ResourceGate.exclusive(body) : try await ResourceGate.shared(body)
}

// MARK: Servers

/// A running sandbox as a test sees it.
struct RunningServer: Sendable {
    var port: Int
    /// The sandbox that answers in-process (``RequestTransport/inProcess``); nil when requests go over a socket to `port`.
    var inProcess: PaymentSandbox?
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    func url(_ pathAndQuery: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")! }
}

/// Starts `PaymentSandbox` on 127.0.0.1 port 0 with `configure` applied, runs `body`, and stops it
/// whether `body` succeeds or throws. `alone`: see ``alone(_:)``. `transport` ``RequestTransport/inProcess``: nothing
/// listens; ``RunningServer/exchange(_:toHEAD:timeout:)`` hands requests to the sandbox.
func withSandbox<T>(
    alone: Bool = false,
    transport: RequestTransport = .socket,
    _ configure: (inout SandboxConfiguration) -> Void = { _ in },
    _ body: (RunningServer) async throws -> T
) async throws -> T {
    try await withSandboxInstance(alone: alone, transport: transport, configure) { _, server in try await body(server) }
}

/// Like ``withSandbox(_:_:)``, also handing over the sandbox (for tests that stop it themselves;
/// stopping again afterwards is harmless).
func withSandboxInstance<T>(
    alone: Bool = false,
    transport: RequestTransport = .socket,
    _ configure: (inout SandboxConfiguration) -> Void = { _ in },
    _ body: (PaymentSandbox, RunningServer) async throws -> T
) async throws -> T {
    try await gated(alone: alone) {
        var configuration = SandboxConfiguration(port: 0)
        configuration.http.headTimeout = testHeadTimeout
        configure(&configuration)
        let sandbox = PaymentSandbox(configuration: configuration)
        if case .inProcess = transport {
            // What start() checks before it listens.
            try sandbox.checkScenariosLoaded()
            return try await body(sandbox, RunningServer(port: inProcessPlaceholderPort, inProcess: sandbox))
        }
        let url = try sandbox.start()
        do {
            let port = try #require(url.port, "sandbox base URL \(url) has no port")
            let result = try await body(sandbox, RunningServer(port: port))
            await sandbox.stop()
            return result
        } catch {
            await sandbox.stop()
            throw error
        }
    }
}

/// The test servers' head timeout, unless a test sets its own: a test's client is a task, and on a loaded machine
/// (parallel tests, ThreadSanitizer) it can be kept from writing the request it connected for longer than the
/// default 10 s; the server would then close the connection as a slowloris's. The tests of the timeout set theirs.
let testHeadTimeout: Duration = .seconds(60)

/// Starts an `HTTPServer` with `router` on 127.0.0.1 port 0, runs `body` with the server, and stops it.
func withServer<T>(
    _ router: Router,
    alone: Bool = false,
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    _ body: (HTTPServer, RunningServer) async throws -> T
) async throws -> T {
    try await gated(alone: alone) {
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.headTimeout = testHeadTimeout
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, router: router)
        let port = try server.start()
        do {
            let result = try await body(server, RunningServer(port: port))
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}

/// Routes for tests that need handlers the sandbox does not have.
enum TestRoutes {
    /// GET /fast (immediate) and GET /slow?ms=N (async, sleeps N ms, default 200), both answering with
    /// their request-target so a test can tell responses apart; GET /empty answers 204.
    static func router(onSlowStart: (@Sendable () -> Void)? = nil) -> Router {
        var router = Router()
        router.addImmediate("GET /fast") { request in .text("fast \(request.target)") }
        // Decides on the event loop, answers from a task after ?ms= milliseconds (HTTPReply.later).
        router.addImmediate("GET /later") { request in
            let ms = Int(request.query.first { $0.name == "ms" }?.value ?? "0") ?? 0
            return .later {
                try? await Task.sleep(for: .milliseconds(ms))
                return HTTPReply(.text("later \(ms)"))
            }
        }
        router.add("GET /slow") { request in
            onSlowStart?()
            let ms = Int(request.queryValue("ms") ?? "") ?? 200
            try await Task.sleep(for: .milliseconds(ms))
            return .text("slow \(request.target)")
        }
        router.add("POST /slow") { request in
            onSlowStart?()
            let ms = Int(request.queryValue("ms") ?? "") ?? 200
            try await Task.sleep(for: .milliseconds(ms))
            return .text("slow \(request.target) \(request.body.count)")
        }
        router.addImmediate("GET /empty") { _ in HTTPResponse(status: .noContent) }
        router.addImmediate("* /echo") { request in .text("\(request.method) \(request.target) \(request.body.count)") }
        return router
    }
}

// MARK: Assertions

/// RFC 9110 §5.6.7 IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
func isIMFFixdate(_ text: String) -> Bool {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    guard text.count == 29, let date = formatter.date(from: text) else { return false }
    return abs(date.timeIntervalSinceNow) < 300
}

/// Every final response carries exactly one valid Date, and exactly one Content-Length that matches its
/// body, except 1xx and 204 which carry none (RFC 9110 §6.6.1, §8.6; RFC 9112 §6.3).
func expectWellFramed(_ response: RawResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    let lengths = response.headerValues("Content-Length")
    if (100..<200).contains(response.status) || response.status == 204 {
        #expect(lengths.isEmpty, "\(response.status) must not carry Content-Length: \(response.rawHead)", sourceLocation: sourceLocation)
        if response.status == 204 {
            #expect(response.headerValues("Date").count == 1, "204 without Date: \(response.rawHead)", sourceLocation: sourceLocation)
        }
        return
    }
    let dates = response.headerValues("Date")
    #expect(dates.count == 1, "expected exactly one Date header: \(response.rawHead)", sourceLocation: sourceLocation)
    if let date = dates.first {
        #expect(isIMFFixdate(date), "Date is not a current IMF-fixdate: \(date)", sourceLocation: sourceLocation)
    }
    #expect(lengths.count == 1, "expected exactly one Content-Length header: \(response.rawHead)", sourceLocation: sourceLocation)
    if !response.bodyOmittedForHEAD, let length = lengths.first {
        #expect(Int(length) == response.body.count, "Content-Length \(length) but body has \(response.body.count) bytes",
                sourceLocation: sourceLocation)
    }
    #expect(response.header("Transfer-Encoding") == nil, sourceLocation: sourceLocation)
}

/// Asserts the server closes the connection (FIN, not reset) within `timeout` without sending anything more.
func expectServerCloses(_ client: RawClient, within timeout: Duration = .seconds(3),
                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let observation = try await client.readUntilClose(timeout: timeout)
    #expect(observation == .closed(received: []), "expected a clean close with nothing more, got \(observation)",
            sourceLocation: sourceLocation)
}

// MARK: URLSession

/// A fresh ephemeral session; invalidated by ``withURLSession(_:)`` when done.
func withURLSession<T>(_ body: (URLSession) async throws -> T) async throws -> T {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 5
    configuration.timeoutIntervalForResource = 10
    let session = URLSession(configuration: configuration)
    do {
        let result = try await body(session)
        session.finishTasksAndInvalidate()
        return result
    } catch {
        session.invalidateAndCancel()
        throw error
    }
}

extension URLResponse {
    var httpStatus: Int? { (self as? HTTPURLResponse).map { $0.statusCode } }
}

func jsonObject(_ data: Data) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw RawClientError.malformedResponse("not a JSON object: \(String(decoding: data, as: UTF8.self))")
    }
    return object
}

/// `[["name","value"], ...]` from the echo route as pairs.
func pairs(_ value: Any?) -> [[String]] {
    (value as? [[Any]])?.map { $0.compactMap { $0 as? String } } ?? []
}
