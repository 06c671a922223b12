// SPDX-License-Identifier: MIT
//
// kpflow - load generator for full Klarna Payments flows against payment-sandbox.
//
// Each of C keep-alive connections runs, in a loop, the flow a shop runs per purchase:
//   1. POST /payments/v1/sessions                                  -> session_id
//   2. POST /__sandbox/klarna/payments/sessions/{id}/authorize     -> authorization_token (the SDK's part)
//   3. POST /payments/v1/authorizations/{token}/order (same cart)  -> order_id
// Connection i uses the HTTP Basic user "<prefix><i mod N>", so the load spreads over N namespaces.
// Non-blocking sockets and poll(2), one loop per thread (default 1: it shares the CPU with the server).
//
// Build:  swiftc -O -parse-as-library scripts/bench/kpflow.swift -o .build/kpflow
// Run:    kpflow --port 8080 [--connections 32] [--namespaces 32] [--duration 10] [--flows N] [--threads 1]
//         kpflow --port 8080 --namespaces 32 --advance-clock 176400     (POST /__sandbox/clock per namespace)
//
// Prints one line (flow counts, request counts, rates, latency per request in ms):
//   flows=... partial=... requests=... seconds=... flows_per_s=... requests_per_s=... errors=... non2xx=...
//   reconnects=... p50_ms=... p90_ms=... p99_ms=... max_ms=... p99_session_ms=... p99_authorize_ms=... p99_order_ms=...
// Exit status 0 when every request got a 2xx and no error happened, 1 otherwise, 2 on bad usage.
// The first few non-2xx answers and errors are described on stderr.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Options

struct Options {
    var port: UInt16 = 8080
    var connections = 32
    var namespaces = 32
    var duration = 10.0
    var flows = Int.max
    var threads = 1
    var prefix = "kp-bench-"
    var advanceClock: Int?
    var timeout = 10.0

    static let usage = """
        usage: kpflow --port P [--connections C=32] [--namespaces N=32] [--duration S=10] [--flows F]
                      [--threads T=1] [--prefix kp-bench-] [--timeout S=10]
               kpflow --port P [--namespaces N=32] [--prefix kp-bench-] --advance-clock SECONDS
        """

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < args.count else { fail("missing value for \(args[i - 1])") }
            return args[i]
        }
        func int(_ s: String, min: Int = 1) -> Int {
            guard let v = Int(s), v >= min else { fail("bad number: \(s)") }
            return v
        }
        while i < args.count {
            switch args[i] {
            case "--port": o.port = UInt16(int(value()))
            case "--connections", "-c": o.connections = int(value())
            case "--namespaces": o.namespaces = int(value())
            case "--duration", "-d":
                // Plain seconds or wrk's forms: 10s, 2m, 1h.
                var s = value(), unit = 1.0
                if let last = s.last, let u = ["s": 1.0, "m": 60.0, "h": 3600.0][String(last)] { unit = u; s.removeLast() }
                guard let v = Double(s), v > 0 else { fail("bad duration: \(s)") }
                o.duration = v * unit
            case "--flows": o.flows = int(value())
            case "--threads", "-t": o.threads = int(value())
            case "--prefix": o.prefix = value()
            case "--advance-clock": o.advanceClock = int(value(), min: 0)
            case "--timeout":
                guard let v = Double(value()), v > 0 else { fail("bad timeout") }
                o.timeout = v
            case "--help", "-h": print(usage); exit(0)
            default: fail("unknown argument \(args[i])")
            }
            i += 1
        }
        o.threads = min(o.threads, o.connections)
        return o
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kpflow: \(message)\n\(Options.usage)\n".utf8))
    exit(2)
}

@inline(__always) func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

// MARK: - Request bodies (the cart of docs/klarna.md's Klarna Payments section)

let cart = #"""
{"purchase_country":"GB","purchase_currency":"GBP","locale":"en-GB","order_amount":62400,"order_tax_amount":10400,\#
"order_lines":[{"type":"physical","name":"Battery Power Pack","quantity":1,"unit_price":59500,"tax_rate":2000,\#
"total_amount":59500,"total_tax_amount":9917},{"type":"shipping_fee","name":"Shipping","quantity":1,"unit_price":2900,\#
"tax_rate":2000,"total_amount":2900,"total_tax_amount":483}]}
"""#
let billing = #"{"postal_code":"W1S 3BE"}"#
let authorizeBody = #"{"jsonData":{"billing_address":\#(billing)}}"#
let orderBody = String(cart.dropLast()) + #","billing_address":\#(billing)}"#

// MARK: - Latency histogram: 1 µs bins to 100 ms, then 1 ms bins to ~10 s, then one overflow bin

struct Histogram {
    static let fine = 100_000, coarse = 10_000
    var bins = [UInt32](repeating: 0, count: fine + coarse + 1)
    var count = 0
    var maxNanos: UInt64 = 0

    mutating func record(_ nanos: UInt64) {
        let us = Int(nanos / 1000)
        let index = us < Self.fine ? us : min(Self.fine + (us - Self.fine) / 1000, Self.fine + Self.coarse)
        bins[index] &+= 1
        count += 1
        if nanos > maxNanos { maxNanos = nanos }
    }

    mutating func merge(_ other: Histogram) {
        for i in bins.indices { bins[i] &+= other.bins[i] }
        count += other.count
        maxNanos = max(maxNanos, other.maxNanos)
    }

    /// Upper edge of the bin holding the q-quantile, in ms.
    func quantileMs(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((Double(count) * q).rounded(.up)))
        var seen = 0
        for (i, n) in bins.enumerated() {
            seen += Int(n)
            if seen >= rank {
                return i < Self.fine ? Double(i + 1) / 1000 : Double(Self.fine / 1000 + (i - Self.fine + 1))
            }
        }
        return Double(maxNanos) / 1e6
    }
}

// MARK: - Statistics of one worker

struct Stats {
    var flows = 0, partial = 0, requests = 0, errors = 0, non2xx = 0, reconnects = 0
    var all = Histogram()
    var steps = [Histogram(), Histogram(), Histogram()]
    var samples: [String] = []

    mutating func note(_ text: String) {
        if samples.count < 5 { samples.append(text) }
    }

    mutating func merge(_ o: Stats) {
        flows += o.flows; partial += o.partial; requests += o.requests; errors += o.errors
        non2xx += o.non2xx; reconnects += o.reconnects
        all.merge(o.all)
        for i in 0..<3 { steps[i].merge(o.steps[i]) }
        for s in o.samples { note(s) }
    }
}

// MARK: - Sockets

func connectTo(port: UInt16) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    // A blocking connect on loopback completes at once; then the socket goes non-blocking.
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else { close(fd); return nil }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return fd
}

/// A parsed response head plus body, when complete in `buffer`.
struct Response {
    var status: Int
    var bodyStart: Int
    var bodyEnd: Int
    var close: Bool
}

enum ParseResult { case incomplete, done(Response), bad(String) }

@inline(__always) func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }

func hasPrefixCI(_ buf: UnsafeBufferPointer<UInt8>, _ at: Int, _ end: Int, _ lit: [UInt8]) -> Bool {
    guard end - at >= lit.count else { return false }
    for k in 0..<lit.count where lower(buf[at + k]) != lit[k] { return false }
    return true
}

let contentLengthName = Array("content-length:".utf8)
let connectionName = Array("connection:".utf8)
let transferEncodingName = Array("transfer-encoding:".utf8)

func parseResponse(_ buffer: [UInt8]) -> ParseResult {
    buffer.withUnsafeBufferPointer { buf -> ParseResult in
        let n = buf.count
        guard n >= 4 else { return .incomplete }
        var headEnd = -1
        var i = 0
        while i + 3 < n {
            if buf[i] == 13 && buf[i + 1] == 10 && buf[i + 2] == 13 && buf[i + 3] == 10 { headEnd = i; break }
            i += 1
        }
        guard headEnd >= 0 else { return n > 65536 ? .bad("response head over 64 KiB") : .incomplete }
        // "HTTP/1.1 200 OK"
        guard headEnd >= 12, buf[0] == 72, buf[8] == 32 else { return .bad("bad status line") }
        var status = 0
        for k in 9..<12 {
            let d = Int(buf[k]) - 48
            guard d >= 0 && d <= 9 else { return .bad("bad status code") }
            status = status * 10 + d
        }
        var contentLength = -1
        var closes = false
        var line = 0
        while line < headEnd && buf[line] != 10 { line += 1 }
        line += 1
        while line < headEnd {
            var eol = line
            while eol < headEnd && buf[eol] != 13 { eol += 1 }
            if hasPrefixCI(buf, line, eol, contentLengthName) {
                var k = line + contentLengthName.count
                while k < eol && buf[k] == 32 { k += 1 }
                var v = 0
                while k < eol, buf[k] >= 48 && buf[k] <= 57 { v = v * 10 + Int(buf[k]) - 48; k += 1 }
                contentLength = v
            } else if hasPrefixCI(buf, line, eol, connectionName) {
                var k = line + connectionName.count
                while k < eol && buf[k] == 32 { k += 1 }
                closes = hasPrefixCI(buf, k, eol, Array("close".utf8))
            } else if hasPrefixCI(buf, line, eol, transferEncodingName) {
                return .bad("Transfer-Encoding in a response (not supported by kpflow)")
            }
            line = eol + 2
        }
        if contentLength < 0 {
            // 204 and 304 have no body; anything else here must say its length (the sandbox always does).
            if status == 204 || status == 304 || status < 200 { contentLength = 0 } else { return .bad("no Content-Length") }
        }
        let bodyStart = headEnd + 4
        guard n >= bodyStart + contentLength else { return .incomplete }
        guard n == bodyStart + contentLength else { return .bad("bytes after the response (nothing was pipelined)") }
        return .done(Response(status: status, bodyStart: bodyStart, bodyEnd: bodyStart + contentLength, close: closes))
    }
}

/// The string value of `"key"` in a flat JSON object, without a full parse.
func jsonString(_ buffer: [UInt8], _ from: Int, _ to: Int, key: [UInt8]) -> ArraySlice<UInt8>? {
    buffer.withUnsafeBufferPointer { buf -> ArraySlice<UInt8>? in
        var i = from
        outer: while i + key.count <= to {
            for k in 0..<key.count where buf[i + k] != key[k] { i += 1; continue outer }
            var j = i + key.count
            while j < to && (buf[j] == 32 || buf[j] == 58 || buf[j] == 10 || buf[j] == 13 || buf[j] == 9) { j += 1 }
            guard j < to, buf[j] == 34 else { return nil }
            let start = j + 1
            var end = start
            while end < to && buf[end] != 34 { end += 1 }
            guard end < to, end > start else { return nil }
            return buffer[start..<end]
        }
        return nil
    }
}

let sessionIDKey = Array(#""session_id""#.utf8)
let tokenKey = Array(#""authorization_token""#.utf8)
let orderIDKey = Array(#""order_id""#.utf8)

// MARK: - One connection's flow

final class Connection {
    let index: Int
    let commonHeaders: [UInt8]   // Host, Authorization, Content-Type
    var fd: Int32 = -1
    var step = 0                 // 0 create session, 1 authorize, 2 create order
    var inFlight = false
    var finished = false
    var retryAt: UInt64 = 0
    var output: [UInt8] = []
    var outputSent = 0
    var input: [UInt8] = []
    var sentAt: UInt64 = 0
    var sessionID: ArraySlice<UInt8> = []
    var token: ArraySlice<UInt8> = []

    init(index: Int, options: Options) {
        self.index = index
        let user = "\(options.prefix)\(index % options.namespaces)"
        let credentials = Data("\(user):secret".utf8).base64EncodedString()
        commonHeaders = Array("Host: 127.0.0.1:\(options.port)\r\nAuthorization: Basic \(credentials)\r\nContent-Type: application/json\r\n".utf8)
        input.reserveCapacity(4096)
        output.reserveCapacity(1024)
    }

    func buildRequest() {
        output.removeAll(keepingCapacity: true)
        outputSent = 0
        let body: String
        switch step {
        case 0:
            output += "POST /payments/v1/sessions HTTP/1.1\r\n".utf8
            body = cart
        case 1:
            output += "POST /__sandbox/klarna/payments/sessions/".utf8
            output += sessionID
            output += "/authorize HTTP/1.1\r\n".utf8
            body = authorizeBody
        default:
            output += "POST /payments/v1/authorizations/".utf8
            output += token
            output += "/order HTTP/1.1\r\n".utf8
            body = orderBody
        }
        output += commonHeaders
        output += "Content-Length: \(body.utf8.count)\r\n\r\n".utf8
        output += body.utf8
    }
}

// MARK: - Worker: one poll(2) loop over its connections

final class Worker: @unchecked Sendable {
    let options: Options
    let connections: [Connection]
    let deadline: UInt64
    let shared: SharedCounter
    var stats = Stats()
    var lastResponse: UInt64 = 0
    var thread: pthread_t?

    init(options: Options, indices: [Int], deadline: UInt64, shared: SharedCounter) {
        self.options = options
        self.connections = indices.map { Connection(index: $0, options: options) }
        self.deadline = deadline
        self.shared = shared
    }

    func drop(_ c: Connection, error: String?) {
        if let error {
            stats.errors += 1
            stats.note("connection \(c.index) step \(c.step): \(error)")
            if c.step > 0 { stats.partial += 1 }
            c.step = 0
        }
        if c.fd >= 0 { close(c.fd); c.fd = -1 }
        c.inFlight = false
        c.input.removeAll(keepingCapacity: true)
    }

    /// Starts the connection's next request, or marks it finished when the run is over.
    func startNext(_ c: Connection, now: UInt64) {
        if now >= deadline || (c.step == 0 && !shared.claimFlow(limit: options.flows)) {
            if c.step > 0 { stats.partial += 1 }
            c.finished = true
            drop(c, error: nil)
            return
        }
        if c.fd < 0 {
            guard now >= c.retryAt else { return }
            guard let fd = connectTo(port: options.port) else {
                stats.errors += 1
                stats.note("connection \(c.index): connect failed: \(String(cString: strerror(errno)))")
                c.retryAt = now + 100_000_000
                if c.step == 0 { shared.unclaimFlow() }
                return
            }
            c.fd = fd
            stats.reconnects += 1
        }
        c.buildRequest()
        c.sentAt = now
        c.inFlight = true
        flush(c)
    }

    func flush(_ c: Connection) {
        while c.outputSent < c.output.count {
            let n = c.output.withUnsafeBytes { raw in
                send(c.fd, raw.baseAddress! + c.outputSent, raw.count - c.outputSent, Int32(MSG_NOSIGNAL))
            }
            if n > 0 { c.outputSent += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if n < 0 && errno == EINTR { continue }
            drop(c, error: "send: \(String(cString: strerror(errno)))")
            return
        }
    }

    func readable(_ c: Connection, buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let n = recv(c.fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 {
                c.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                if n < buffer.count { break }
                continue
            }
            if n == 0 {
                drop(c, error: c.inFlight ? "server closed the connection before answering" : "server closed an idle connection")
                return
            }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            if errno == EINTR { continue }
            drop(c, error: "recv: \(String(cString: strerror(errno)))")
            return
        }
        guard c.inFlight else {
            drop(c, error: "unexpected bytes while idle")
            return
        }
        switch parseResponse(c.input) {
        case .incomplete:
            return
        case .bad(let why):
            drop(c, error: why)
        case .done(let r):
            let now = nowNanos()
            lastResponse = now
            let latency = now - c.sentAt
            stats.requests += 1
            stats.all.record(latency)
            stats.steps[c.step].record(latency)
            c.inFlight = false
            if (200..<300).contains(r.status) {
                switch c.step {
                case 0:
                    if let id = jsonString(c.input, r.bodyStart, r.bodyEnd, key: sessionIDKey) {
                        c.sessionID = ArraySlice(Array(id)); c.step = 1
                    } else {
                        stats.errors += 1; stats.note("no session_id in: \(text(c.input[r.bodyStart..<r.bodyEnd]))")
                    }
                case 1:
                    if let t = jsonString(c.input, r.bodyStart, r.bodyEnd, key: tokenKey) {
                        c.token = ArraySlice(Array(t)); c.step = 2
                    } else {
                        stats.errors += 1; stats.partial += 1; c.step = 0
                        stats.note("no authorization_token in: \(text(c.input[r.bodyStart..<r.bodyEnd]))")
                    }
                default:
                    if jsonString(c.input, r.bodyStart, r.bodyEnd, key: orderIDKey) != nil {
                        stats.flows += 1
                    } else {
                        stats.errors += 1; stats.partial += 1
                        stats.note("no order_id in: \(text(c.input[r.bodyStart..<r.bodyEnd]))")
                    }
                    c.step = 0
                }
            } else {
                stats.non2xx += 1
                if c.step > 0 { stats.partial += 1 }
                let path = ["POST /payments/v1/sessions", "POST .../authorize", "POST .../order"][c.step]
                stats.note("\(path) -> \(r.status): \(text(c.input[r.bodyStart..<r.bodyEnd]))")
                c.step = 0
            }
            c.input.removeAll(keepingCapacity: true)
            if r.close { drop(c, error: nil) }
            startNext(c, now: now)
        }
    }

    func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(300), as: UTF8.self)
    }

    func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { buffer.deallocate() }
        let timeoutNanos = UInt64(options.timeout * 1e9)
        let graceEnd = deadline &+ timeoutNanos
        var fds = [pollfd](repeating: pollfd(), count: connections.count)
        var owners = [Connection?](repeating: nil, count: connections.count)
        let start = nowNanos()
        for c in connections { startNext(c, now: start) }
        while true {
            var count = 0
            var now = nowNanos()
            var waitingToRetry = false
            for c in connections where !c.finished {
                if c.fd < 0 {
                    // Lost connection (error) or failed connect: start again (after retryAt).
                    startNext(c, now: now)
                    if c.fd < 0 { if !c.finished { waitingToRetry = true }; continue }
                }
                if c.inFlight && now - c.sentAt > timeoutNanos {
                    drop(c, error: "no answer within \(options.timeout) s")
                    startNext(c, now: now)
                    if c.fd < 0 { if !c.finished { waitingToRetry = true }; continue }
                }
                let wantsWrite = c.outputSent < c.output.count
                fds[count] = pollfd(fd: c.fd, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
                owners[count] = c
                count += 1
            }
            if count == 0 && !waitingToRetry { break }
            if now > graceEnd {
                for i in 0..<count { if let c = owners[i] { drop(c, error: "no answer by the end of the run"); c.finished = true } }
                break
            }
            var timeoutMs: Int32 = 100
            if now < deadline { timeoutMs = Int32(min(100, (deadline - now) / 1_000_000 + 1)) }
            let ready = poll(&fds, nfds_t(count), timeoutMs)
            if ready < 0 {
                if errno == EINTR { continue }
                perror("poll"); exit(2)
            }
            now = nowNanos()
            for i in 0..<count where fds[i].revents != 0 {
                guard let c = owners[i], c.fd == fds[i].fd else { continue }
                let ev = Int32(fds[i].revents)
                if ev & Int32(POLLOUT) != 0 { flush(c) }
                if c.fd >= 0 && ev & (Int32(POLLIN) | Int32(POLLHUP) | Int32(POLLERR)) != 0 { readable(c, buffer: buffer) }
            }
            // Connections whose run ended while idle (deadline passed between requests).
            if now >= deadline {
                for c in connections where !c.finished && !c.inFlight { startNext(c, now: now) }
            }
        }
        for c in connections where c.fd >= 0 { close(c.fd); c.fd = -1 }
    }
}

/// Flow budget shared by the workers (--flows).
final class SharedCounter: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var started = 0
    init() { pthread_mutex_init(&mutex, nil) }
    func claimFlow(limit: Int) -> Bool {
        pthread_mutex_lock(&mutex); defer { pthread_mutex_unlock(&mutex) }
        guard started < limit else { return false }
        started += 1
        return true
    }
    func unclaimFlow() {
        pthread_mutex_lock(&mutex); started -= 1; pthread_mutex_unlock(&mutex)
    }
}

// MARK: - Clock advance (blocking, one request per namespace)

func advanceClocks(_ o: Options, seconds: Int) -> Int32 {
    var errors = 0
    for n in 0..<o.namespaces {
        let body = #"{"advance_seconds": \#(seconds)}"#
        let request = "POST /__sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1:\(o.port)\r\nSandbox-Namespace: \(o.prefix)\(n)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        guard let fd = connectTo(port: o.port) else { errors += 1; continue }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let k = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if k <= 0 { break }
            sent += k
        }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let k = recv(fd, &chunk, chunk.count, 0)
            if k <= 0 { break }
            answer += chunk[0..<k]
        }
        close(fd)
        if case .done(let r) = parseResponse(answer), r.status == 200 { continue }
        errors += 1
        FileHandle.standardError.write(Data("kpflow: clock of \(o.prefix)\(n): \(String(decoding: answer.prefix(300), as: UTF8.self))\n".utf8))
    }
    print("advanced=\(o.namespaces - errors) errors=\(errors) advance_seconds=\(seconds)")
    return errors == 0 ? 0 : 1
}

// MARK: - Main

@main
struct KPFlow {
    static func main() {
        signal(SIGPIPE, SIG_IGN)
        let o = Options.parse(Array(CommandLine.arguments.dropFirst()))
        if let seconds = o.advanceClock { exit(advanceClocks(o, seconds: seconds)) }

        let start = nowNanos()
        let deadline = start + UInt64(o.duration * 1e9)
        let shared = SharedCounter()
        let workers = (0..<o.threads).map { t in
            Worker(options: o, indices: Array(stride(from: t, to: o.connections, by: o.threads)), deadline: deadline, shared: shared)
        }
        if workers.count == 1 {
            workers[0].run()
        } else {
            for w in workers {
                let box = Unmanaged.passRetained(w).toOpaque()
                var tid = pthread_t()
                let rc = pthread_create(&tid, nil, { raw in
                    let w = Unmanaged<Worker>.fromOpaque(raw!).takeRetainedValue()
                    w.run()
                    return nil
                }, box)
                guard rc == 0 else { fail("pthread_create failed") }
                w.thread = tid
            }
            for w in workers { pthread_join(w.thread!, nil) }
        }

        var total = Stats()
        var end = start
        for w in workers { total.merge(w.stats); end = max(end, w.lastResponse) }
        if total.requests == 0 { end = nowNanos() }
        // Seconds: from the start to the last answer (at least the requested duration when it ran out).
        let seconds = max(Double(end - start) / 1e9, 1e-9)
        for s in total.samples { FileHandle.standardError.write(Data("kpflow: \(s)\n".utf8)) }
        func f(_ x: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", x) }
        print([
            "flows=\(total.flows)", "partial=\(total.partial)", "requests=\(total.requests)", "seconds=\(f(seconds))",
            "flows_per_s=\(f(Double(total.flows) / seconds, 1))", "requests_per_s=\(f(Double(total.requests) / seconds, 1))",
            "errors=\(total.errors)", "non2xx=\(total.non2xx)", "reconnects=\(max(0, total.reconnects - o.connections))",
            "p50_ms=\(f(total.all.quantileMs(0.5)))", "p90_ms=\(f(total.all.quantileMs(0.9)))",
            "p99_ms=\(f(total.all.quantileMs(0.99)))", "max_ms=\(f(Double(total.all.maxNanos) / 1e6))",
            "p99_session_ms=\(f(total.steps[0].quantileMs(0.99)))", "p99_authorize_ms=\(f(total.steps[1].quantileMs(0.99)))",
            "p99_order_ms=\(f(total.steps[2].quantileMs(0.99)))",
        ].joined(separator: " "))
        exit(total.errors == 0 && total.non2xx == 0 ? 0 : 1)
    }
}
