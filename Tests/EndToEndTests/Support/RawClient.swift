// SPDX-License-Identifier: MIT
// A raw-socket HTTP/1.1 client for end-to-end tests: blocking sockets with receive/send timeouts so a
// test can never hang, run on their own threads so the Swift concurrency pool (which runs the server's
// async handlers and swift-testing itself) is never blocked.
import Foundation
import SandboxHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Running blocking code off the cooperative pool

/// Runs `body` on a fresh thread and returns its result. Blocking socket calls go through this so the
/// cooperative thread pool (two threads on a two-core machine) stays free for the server's async handlers.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = "e2e-client"
        thread.start()
    }
}

/// Monotonic nanoseconds.
func monotonicNow() -> UInt64 {
    var ts = timespec()
    _ = clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

extension Duration {
    var totalNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
    var totalSeconds: Double { Double(totalNanoseconds) / 1e9 }
}

/// Measures how long `body` takes.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    return (result, clock.now - start)
}

// MARK: Responses

struct RawResponse: Sendable, CustomStringConvertible {
    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    var version: String
    var status: Int
    var reason: String
    var headers: [Field]
    var body: [UInt8]
    /// True when the body was not read because the request was HEAD (Content-Length describes the GET's body).
    var bodyOmittedForHEAD: Bool
    /// The head exactly as received, for failure messages.
    var rawHead: String

    /// The first value of `name` (case-insensitive), or nil.
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    func headerValues(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
    var closesConnection: Bool { header("Connection")?.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "close" } ?? false }

    /// The body as a JSON object.
    func jsonObject() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw RawClientError.malformedResponse("body is not a JSON object: \(bodyText)")
        }
        return object
    }

    var description: String { rawHead + (body.isEmpty ? "" : String(decoding: body.prefix(600), as: UTF8.self)) }
}

enum RawClientError: Error, CustomStringConvertible, Equatable {
    case connectFailed(errno: Int32)
    case timedOut(String)
    case closedBeforeResponse(partial: String)
    case connectionReset(partial: String)
    case malformedResponse(String)
    case sendFailed(errno: Int32)

    var description: String {
        switch self {
        case let .connectFailed(code): "connect failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .timedOut(what): "timed out: \(what)"
        case let .closedBeforeResponse(partial): "connection closed before a full response; received: \(partial.debugDescription)"
        case let .connectionReset(partial): "connection reset before a full response; received: \(partial.debugDescription)"
        case let .malformedResponse(why): "malformed response: \(why)"
        case let .sendFailed(code): "send failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    var isConnectionRefused: Bool { self == .connectFailed(errno: ECONNREFUSED) }
}

/// Parses HTTP/1.1 responses out of a byte buffer (RFC 9112 §6.3 message length rules for responses).
enum ResponseParser {
    /// One response from the start of `bytes`, or nil when more bytes are needed. `atEOF` says the peer
    /// closed, which ends a body that has neither Content-Length nor chunked framing.
    static func parse(_ bytes: ArraySlice<UInt8>, requestWasHEAD: Bool, atEOF: Bool) throws(RawClientError) -> (RawResponse, consumed: Int)? {
        guard let headEnd = findHeadEnd(bytes) else {
            if bytes.count > 1 << 20 { throw .malformedResponse("no end of head within 1 MiB") }
            return nil
        }
        let headBytes = bytes[bytes.startIndex..<headEnd]
        let rawHead = String(decoding: headBytes, as: UTF8.self)
        var lines = rawHead.components(separatedBy: "\r\n")
        lines.removeLast(2)  // the empty line and what follows the final CRLF
        guard let statusLine = lines.first else { throw .malformedResponse("no status line") }
        // status-line = HTTP-version SP status-code SP [ reason-phrase ]
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            throw .malformedResponse("bad status line \(statusLine.debugDescription)")
        }
        var headers: [RawResponse.Field] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedResponse("header line without colon: \(line.debugDescription)") }
            let name = String(line[..<colon])
            guard !name.isEmpty, !name.contains(" "), !line.contains("\n"), !line.contains("\r") else {
                throw .malformedResponse("bad header line \(line.debugDescription)")
            }
            headers.append(.init(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))))
        }
        var response = RawResponse(version: String(parts[0]), status: status, reason: parts.count > 2 ? String(parts[2]) : "",
                                   headers: headers, body: [], bodyOmittedForHEAD: false, rawHead: rawHead)
        let bodyStart = headEnd
        let available = bytes.endIndex - bodyStart
        if (100..<200).contains(status) || status == 204 || status == 304 {
            return (response, headEnd - bytes.startIndex)
        }
        if requestWasHEAD {
            response.bodyOmittedForHEAD = true
            return (response, headEnd - bytes.startIndex)
        }
        if let te = response.header("Transfer-Encoding") {
            throw .malformedResponse("unexpected Transfer-Encoding \(te) in a response from this server")
        }
        let lengths = response.headerValues("Content-Length")
        if let lengthText = lengths.first {
            guard lengths.count == 1, let length = Int(lengthText), length >= 0 else {
                throw .malformedResponse("bad Content-Length \(lengths)")
            }
            guard available >= length else {
                if atEOF { throw .closedBeforeResponse(partial: String(decoding: bytes, as: UTF8.self)) }
                return nil
            }
            response.body = Array(bytes[bodyStart..<(bodyStart + length)])
            return (response, headEnd - bytes.startIndex + length)
        }
        // No framing: the body runs to the end of the connection.
        guard atEOF else { return nil }
        response.body = Array(bytes[bodyStart...])
        return (response, bytes.count)
    }

    private static func findHeadEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        while i + 3 < bytes.endIndex {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i + 4 }
            i += 1
        }
        return nil
    }
}

// MARK: The client

// Free functions so the C calls are not shadowed by the client's own methods.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int { send(fd, buffer, count, flags) }

/// One TCP connection to 127.0.0.1:port. Every call is bounded by a timeout. The socket is closed by
/// ``close()`` or when the client is released.
final class RawClient: Sendable {
    let port: Int
    private let fd: Int32
    private let state = Locked(State())

    private struct State {
        var buffer: [UInt8] = []
        var eof = false
        var reset = false
        var closed = false
    }

    enum CloseObservation: Sendable, Equatable {
        /// The peer closed (FIN); what arrived before that.
        case closed(received: [UInt8])
        /// The peer reset the connection.
        case reset(received: [UInt8])
    }

    private init(port: Int, connectTimeout: Duration) throws(RawClientError) {
        self.port = port
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(errno: errno) }
        self.fd = fd
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        RawClient.setTimeout(fd, SO_SNDTIMEO, connectTimeout)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            _ = systemClose(fd)
            state.withLock { $0.closed = true }
            throw .connectFailed(errno: code)
        }
        RawClient.setTimeout(fd, SO_SNDTIMEO, .seconds(5))
    }

    deinit { closeSocket() }

    /// Connects to 127.0.0.1:`port`.
    static func connect(port: Int, timeout: Duration = .seconds(3)) async throws -> RawClient {
        try await onThread { try RawClient(port: port, connectTimeout: timeout) }
    }

    /// Connects and sends `request` in one step, so a short head timeout cannot expire in between even
    /// when the machine is busy.
    static func connect(port: Int, sending request: String, timeout: Duration = .seconds(3)) async throws -> RawClient {
        try await onThread {
            let client = try RawClient(port: port, connectTimeout: timeout)
            try client.sendBlocking(Array(request.utf8))
            return client
        }
    }

    /// Connects without a thread hop, for code already running off the pool.
    static func connectBlocking(port: Int, timeout: Duration = .seconds(3)) throws -> RawClient {
        try RawClient(port: port, connectTimeout: timeout)
    }

    private static func setTimeout(_ fd: Int32, _ option: Int32, _ duration: Duration) {
        let ns = max(duration.totalNanoseconds, 1_000_000)
        var value = timeval(tv_sec: Int(ns / 1_000_000_000), tv_usec: Int((ns % 1_000_000_000) / 1000))
        _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    // MARK: Sending

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) async throws {
        try await onThread { [self] in try sendBlocking(bytes) }
    }

    func sendBlocking(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { systemSend(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RawClientError.sendFailed(errno: errno)
            }
            offset += n
        }
    }

    /// Sends `bytes` one at a time with `interval` between them (slowloris), until done, the task is
    /// cancelled, or a send fails. Returns how many bytes went out.
    @discardableResult
    func trickle(_ bytes: [UInt8], interval: Duration) async -> Int {
        var sent = 0
        for byte in bytes {
            if Task.isCancelled { break }
            do { try await send([byte]) } catch { break }
            sent += 1
            do { try await Task.sleep(for: interval) } catch { break }
        }
        return sent
    }

    /// Half-closes the connection: the server reads end-of-file.
    func shutdownWrite() { _ = shutdown(fd, Int32(SHUT_WR)) }

    // MARK: Receiving

    private enum Fill { case data, eof, reset }

    /// One recv into the buffer, waiting at most until `deadline`.
    private func fill(deadline: UInt64, what: @autoclosure () -> String) throws(RawClientError) -> Fill {
        if let done = state.withLock({ s -> Fill? in s.reset ? .reset : s.eof ? .eof : nil }) { return done }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let now = monotonicNow()
            guard now < deadline else { throw .timedOut(what()) }
            RawClient.setTimeout(fd, SO_RCVTIMEO, .nanoseconds(Int64(deadline - now)))
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                state.withLock { $0.buffer.append(contentsOf: chunk[0..<n]) }
                return .data
            }
            if n == 0 {
                state.withLock { $0.eof = true }
                return .eof
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: continue  // the loop re-checks the deadline
            case ECONNRESET, EPIPE:
                state.withLock { $0.reset = true }
                return .reset
            default:
                state.withLock { $0.reset = true }
                return .reset
            }
        }
    }

    /// Reads one response. 1xx interim responses are returned like any other; call again for the final one.
    func readResponse(toHEAD: Bool = false, timeout: Duration = .seconds(30)) async throws -> RawResponse {
        try await onThread { [self] in try readResponseBlocking(toHEAD: toHEAD, timeout: timeout) }
    }

    func readResponseBlocking(toHEAD: Bool = false, timeout: Duration = .seconds(30)) throws -> RawResponse {
        let deadline = monotonicNow() + timeout.totalNanoseconds
        while true {
            let (snapshot, eof, reset) = state.withLock { ($0.buffer, $0.eof, $0.reset) }
            if let (response, consumed) = try ResponseParser.parse(snapshot[...], requestWasHEAD: toHEAD, atEOF: eof || reset) {
                state.withLock { $0.buffer.removeFirst(consumed) }
                return response
            }
            let partial = String(decoding: snapshot.prefix(2000), as: UTF8.self)
            if reset { throw RawClientError.connectionReset(partial: partial) }
            if eof { throw RawClientError.closedBeforeResponse(partial: partial) }
            _ = try fill(deadline: deadline, what: "waiting for a response on port \(port); received so far: \(partial.debugDescription)")
        }
    }

    /// Reads until the server closes the connection; throws ``RawClientError/timedOut(_:)`` if it stays open.
    func readUntilClose(timeout: Duration = .seconds(5)) async throws -> CloseObservation {
        try await onThread { [self] in
            let deadline = monotonicNow() + timeout.totalNanoseconds
            while true {
                switch try fill(deadline: deadline, what: "waiting for the server to close the connection") {
                case .data: continue
                case .eof: return .closed(received: takeBuffer())
                case .reset: return .reset(received: takeBuffer())
                }
            }
        }
    }

    /// Waits `duration` and reports whether the connection is still open with nothing received.
    func staysSilentAndOpen(for duration: Duration) async throws -> Bool {
        try await onThread { [self] in
            let deadline = monotonicNow() + duration.totalNanoseconds
            do {
                _ = try fill(deadline: deadline, what: "")
                return false
            } catch {
                guard let clientError = error as? RawClientError, case .timedOut = clientError else { throw error }
                return state.withLock { $0.buffer.isEmpty && !$0.eof && !$0.reset }
            }
        }
    }

    /// Bytes received but not yet returned as a response.
    var unreadBytes: [UInt8] { state.withLock { $0.buffer } }

    private func takeBuffer() -> [UInt8] {
        state.withLock { s in
            defer { s.buffer = [] }
            return s.buffer
        }
    }

    func close() { closeSocket() }

    private func closeSocket() {
        let shouldClose = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        if shouldClose { _ = systemClose(fd) }
    }

    // MARK: Conveniences

    /// Connects, sends `request`, reads one response and closes.
    static func exchange(port: Int, _ request: String, toHEAD: Bool = false, timeout: Duration = .seconds(30)) async throws -> RawResponse {
        let client = try await connect(port: port)
        defer { client.close() }
        try await client.send(request)
        return try await client.readResponse(toHEAD: toHEAD, timeout: timeout)
    }
}

/// A minimal HTTP/1.1 request.
func rawRequest(_ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: String? = nil,
                version: String = "HTTP/1.1") -> String {
    var text = "\(method) \(target) \(version)\r\nHost: 127.0.0.1\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
    text += "\r\n"
    if let body { text += body }
    return text
}
