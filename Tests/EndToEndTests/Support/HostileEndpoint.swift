// SPDX-License-Identifier: MIT
// A merchant callback endpoint that misbehaves on purpose, on real sockets, for the bounds of the sandbox's callback
// calls: an endless body, a trickle, redirects. Blocking sockets on threads of its own (never the cooperative pool).
import Foundation
import SandboxHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Listens on 127.0.0.1 port 0; each connection gets one answer, chosen by the request's path:
/// - `/endless`: 200 with `Content-Length: 8000000000`, then zeros as fast as the peer takes them, until it goes;
/// - `/trickle`: 200 with `Content-Length: 100`, then one byte a second; `/trickle-head`: the head itself a byte a second;
/// - `/redirect/<status>`: that status with `Location: /target` (and a body);
/// - `/chunked`: 200, chunked, "hello" in two chunks, after a `100 Continue`;
/// - anything else: 200 "ok".
/// Records every request (path, headers, when it came) and the bytes written per path.
final class HostileEndpoint: Sendable {
    struct Request: Sendable {
        var target: String
        var head: String
        var body: Data
        var received: ContinuousClock.Instant
    }

    private struct State {
        var requests: [Request] = []
        var bytesWritten: [String: Int] = [:]
        var connectionsEnded: [String: Int] = [:]
        var stopped = false
        var threads = 0
    }

    let port: Int
    private let listener: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let state = Locked(State())

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw RawClientError.malformedResponse("socket failed") }
        self.listener = listener
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else { throw RawClientError.malformedResponse("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RawClientError.malformedResponse("pipe failed") }
        stopPipe = (fds[0], fds[1])
        spawn(named: "hostile-accept") { [self] in acceptLoop() }
    }

    var requests: [Request] { state.withLock { $0.requests } }
    func requests(to path: String) -> [Request] { requests.filter { $0.target.hasPrefix(path) } }
    func bytesWritten(_ path: String) -> Int { state.withLock { $0.bytesWritten[path] ?? 0 } }
    /// Connections to `path` whose answer is over (written, or the peer gone).
    func connectionsEnded(_ path: String) -> Int { state.withLock { $0.connectionsEnded[path] ?? 0 } }
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting and ends every connection's loop; returns once all its threads are gone (10 s at most).
    func stop() async {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while state.withLock({ $0.threads }) > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        // Closed only once no thread can use them: a descriptor number closed under a running thread could be another
        // test's socket by the time it is used.
        if first, state.withLock({ $0.threads }) == 0 {
            _ = close(listener)
            _ = close(stopPipe.read)
            _ = close(stopPipe.write)
        }
    }

    private func spawn(named name: String, _ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.threads += 1 }
        let thread = Thread { [self] in
            body()
            state.withLock { $0.threads -= 1 }
        }
        thread.name = name
        thread.start()
    }

    /// Waits until `fd` is readable or the endpoint stops (or `milliseconds` pass): true when readable.
    private func readable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, milliseconds)
        return fds[1].revents == 0 && fds[0].revents != 0
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !stopped {
            guard readable(listener, milliseconds: 1000) else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            spawn(named: "hostile-conn") { [self] in serve(fd) }
        }
    }

    /// Writes all of `bytes`; false once the peer is gone.
    private func push(_ fd: Int32, _ bytes: [UInt8], path: String) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
            state.withLock { $0.bytesWritten[path, default: 0] += n }
        }
        return true
    }

    private func serve(_ fd: Int32) {
        defer { _ = close(fd) }
        // Long enough for a test machine that stalls the client for seconds between connecting and sending.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The request: head, then Content-Length bytes of body.
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer += chunk[0..<n]
            if let range = buffer.firstRange(of: Array("\r\n\r\n".utf8)) { headEnd = range.upperBound }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count - headEnd! < length {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer += chunk[0..<n]
        }
        let target = String(head.split(separator: " ").dropFirst().first ?? "")
        state.withLock {
            $0.requests.append(Request(target: target, head: head, body: Data(buffer[headEnd!...]), received: .now))
        }
        let path = String(target.prefix { $0 != "?" })
        defer { state.withLock { $0.connectionsEnded[path, default: 0] += 1 } }
        switch path {
        case "/endless":
            guard push(fd, Array("HTTP/1.1 200 OK\r\nContent-Length: 8000000000\r\n\r\n".utf8), path: path) else { return }
            let zeros = [UInt8](repeating: 0, count: 64 * 1024)
            while !stopped, push(fd, zeros, path: path) {}
        case "/trickle", "/trickle-head":
            var bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8)
            if path == "/trickle" {
                guard push(fd, bytes, path: path) else { return }
                bytes = Array(repeating: UInt8(ascii: "x"), count: 100)
            }
            for byte in bytes {
                guard push(fd, [byte], path: path) else { return }
                // A second between bytes, or less when the endpoint stops or the peer goes.
                if readable(fd, milliseconds: 1000) || stopped { return }
            }
        case let redirect where redirect.hasPrefix("/redirect/"):
            let status = redirect.dropFirst("/redirect/".count)
            let body = "see /target"
            _ = push(fd, Array("HTTP/1.1 \(status) Moved\r\nLocation: /target\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8), path: path)
        case "/chunked":
            _ = push(fd, Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n".utf8), path: path)
        default:
            _ = push(fd, Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), path: path)
        }
    }
}

/// Runs `body` with a ``HostileEndpoint`` and stops it, whether `body` succeeds or throws.
func withHostileEndpoint<T>(_ body: (HostileEndpoint) async throws -> T) async throws -> T {
    let endpoint = try HostileEndpoint()
    do {
        let result = try await body(endpoint)
        await endpoint.stop()
        return result
    } catch {
        await endpoint.stop()
        throw error
    }
}
