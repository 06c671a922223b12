// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 `POST` to an `http://` URL, for the calls the sandbox makes to endpoints it does not control. It can
/// be made to wait or to read only so much:
/// - one deadline covers the whole call: resolving the host, connecting, sending, and the answer;
/// - the answer's head is read up to ``maxHeadBytes``, its body only up to the prefix asked for (chunked framing
///   decoded); then the connection is closed, whatever else was coming (an endless body, a trickle);
/// - a 3xx is the answer: redirects are not followed (RFC 9110 §15.4 leaves following them to the client);
/// - every call has a connection of its own (`Connection: close`), so a slow endpoint holds only its own.
///
/// Waiting for a socket uses Dispatch read and write sources on one serial queue. A host name is resolved with
/// getaddrinfo(3), which blocks, on a thread of its own (as libcurl's threaded resolver does), at most
/// ``maxResolvingThreads`` at once, and is abandoned (not waited for) at the deadline. No TLS: `https` is not its.
///
/// ```swift
/// let result = await BoundedHTTPClient.post(Data("{}".utf8), headers: [("Content-Type", "application/json")],
///                                           to: "http://127.0.0.1:8080/hook", deadline: .now + .seconds(3), bodyPrefix: 4096)
/// ```
package enum BoundedHTTPClient {
    /// An answer: its status and the start of its body.
    package struct Answer: Sendable, Equatable {
        package var status: Int
        /// At most the prefix asked for.
        package var body: Data
        /// More body was coming than `body` holds; it was not read.
        package var truncated: Bool
    }

    /// Why a call got no answer.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not an `http://` URL with a host this client can call.
        case url(String)
        /// The host name did not resolve.
        case resolve(String)
        /// No connection (refused, unreachable).
        case connect(String)
        /// The deadline came first; what the call was doing then.
        case timedOut(String)
        /// The endpoint closed the connection before its answer's head was complete.
        case closed(String)
        /// Not an HTTP/1.x answer, or a head over ``BoundedHTTPClient/maxHeadBytes``.
        case malformed(String)

        package var description: String {
            switch self {
            case .url(let text), .resolve(let text), .connect(let text), .timedOut(let text), .closed(let text), .malformed(let text): text
            }
        }
    }

    /// The longest answer head read (status line and fields), the same bound the sandbox's own parser puts on a
    /// request head (``HTTPParserLimits/maxHeadBytes``).
    package static let maxHeadBytes = 64 * 1024

    /// POSTs `body` with `headers` (plus `Host`, `Content-Length`, `Connection: close`, and `Authorization: Basic`
    /// when the URL carries user information) and reads the answer, all before `deadline`.
    package static func post(_ body: Data, headers: [(name: String, value: String)], to url: String,
                             deadline: ContinuousClock.Instant, bodyPrefix: Int) async -> Result<Answer, Failure> {
        let target: Target
        switch Target.parse(url) {
        case .success(let parsed): target = parsed
        case .failure(let failure): return .failure(failure)
        }
        let addresses: [SocketAddress]
        switch await resolve(target, deadline: deadline) {
        case .success(let resolved): addresses = resolved
        case .failure(let failure): return .failure(failure)
        }
        let fd: Int32
        switch await open(addresses, target: target, deadline: deadline) {
        case .success(let opened): fd = opened
        case .failure(let failure): return .failure(failure)
        }
        defer { _ = Platform.close(fd) }
        var head = "POST \(target.requestTarget) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        if let authorization = target.authorization { head += "Authorization: \(authorization)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var connection = Connection(fd: fd, deadline: deadline)
        let sent = await connection.send(Data(head.utf8) + body)
        if case .failure(let failure) = sent { return .failure(failure) }
        // A peer that closed while the request went out may still have answered (a 413, say): read whatever came.
        let sendProblem = (try? sent.get()) ?? nil
        return await connection.readAnswer(bodyPrefix: max(0, bodyPrefix), sendProblem: sendProblem)
    }

    // MARK: The URL

    /// What the request needs from an `http://` URL (RFC 9110 §4.2.1, RFC 3986 §3).
    struct Target: Equatable {
        /// For getaddrinfo: a reg-name or an IP address without brackets.
        var host: String
        var port: String
        /// `host[:port]` as the URL has it (RFC 9110 §7.2).
        var hostHeader: String
        /// origin-form: the path (at least `/`) and query, no fragment (RFC 9112 §3.2.1).
        var requestTarget: String
        /// `Basic …` from the URL's user information, percent-decoded (RFC 7617).
        var authorization: String?

        static func parse(_ url: String) -> Result<Target, Failure> {
            let bytes = Array(url.utf8)
            guard bytes.count > 7, String(decoding: bytes[0..<7], as: UTF8.self).lowercased() == "http://" else {
                return .failure(.url("not an http:// URL: \(url.prefix(200))"))
            }
            let rest = bytes[7...]
            let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
            var authority = rest[rest.startIndex..<authorityEnd]
            var authorization: String?
            if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
                let userinfo = String(decoding: authority[..<at], as: UTF8.self)
                if !userinfo.isEmpty {
                    let decoded = userinfo.removingPercentEncoding ?? userinfo
                    authorization = "Basic " + Data(decoded.utf8).base64EncodedString()
                }
                authority = authority[(at + 1)...]
            }
            guard let (host, port) = URIAuthority.splitHostAndPort(authority), !host.isEmpty else {
                return .failure(.url("no host in \(url.prefix(200))"))
            }
            if let port, !port.isEmpty, !URIAuthority.isPort(port) { return .failure(.url("bad port in \(url.prefix(200))")) }
            var name = String(decoding: host, as: UTF8.self)
            if name.hasPrefix("[") { name = String(name.dropFirst().dropLast()) }
            var path = rest[authorityEnd...]
            if let fragment = path.firstIndex(of: UInt8(ascii: "#")) { path = path[..<fragment] }
            var requestTarget = String(decoding: path, as: UTF8.self)
            if !requestTarget.hasPrefix("/") { requestTarget = "/" + requestTarget }
            return .success(Target(host: name, port: port.flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) } ?? "80",
                                   hostHeader: String(decoding: authority, as: UTF8.self), requestTarget: requestTarget,
                                   authorization: authorization))
        }
    }

    // MARK: Resolving and connecting

    /// A resolved address, copied out of getaddrinfo's list.
    struct SocketAddress: Sendable {
        var family: Int32
        var bytes: [UInt8]
    }

    /// Host-name lookups running at once, each on a thread; more wait their turn (until their deadline).
    package static let maxResolvingThreads = 16
    private static let resolving = Locked<(running: Int, waiting: [@Sendable () -> Void])>((0, []))
    /// Where the readiness sources and deadline timers run.
    private static let ioQueue = DispatchQueue(label: "sandbox.http-client.io")

    private static func lookUp(_ host: String, _ port: String, numericOnly: Bool) -> Result<[SocketAddress], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.sockStream
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var results: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, port, &hints, &results)
        guard code == 0 else { return .failure(.resolve("cannot resolve \(host.prefix(200)): \(String(cString: gai_strerror(code)))")) }
        defer { freeaddrinfo(results) }
        var addresses: [SocketAddress] = []
        var next = results
        while let info = next {
            if let address = info.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: Int(info.pointee.ai_addrlen))
                addresses.append(SocketAddress(family: info.pointee.ai_family, bytes: Array(bytes)))
            }
            next = info.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(.resolve("no address for \(host.prefix(200))")) : .success(addresses)
    }

    private static func resolve(_ target: Target, deadline: ContinuousClock.Instant) async -> Result<[SocketAddress], Failure> {
        if case .success(let addresses) = lookUp(target.host, target.port, numericOnly: true) { return .success(addresses) }
        let (host, port) = (target.host, target.port)
        let outcome = await firstOf(deadline: deadline) { finish in
            // A lookup whose deadline passed while it waited is skipped.
            resolveOnThread { if ContinuousClock.now < deadline { finish(lookUp(host, port, numericOnly: false)) } }
            return nil
        }
        return outcome ?? .failure(.timedOut("resolving \(host.prefix(200)) took longer than the deadline"))
    }

    /// Runs `lookup` on a thread of its own once fewer than ``maxResolvingThreads`` run (getaddrinfo blocks: not on the
    /// cooperative pool, nor on Dispatch's, whose threads everything else needs).
    private static func resolveOnThread(_ lookup: @escaping @Sendable () -> Void) {
        let startNow = resolving.withLock { state -> Bool in
            guard state.running < maxResolvingThreads else {
                state.waiting.append(lookup)
                return false
            }
            state.running += 1
            return true
        }
        guard startNow else { return }
        let thread = Thread {
            var next: (@Sendable () -> Void)? = lookup
            while let work = next {
                work()
                next = resolving.withLock { state in
                    guard !state.waiting.isEmpty else {
                        state.running -= 1
                        return nil
                    }
                    return state.waiting.removeFirst()
                }
            }
        }
        thread.name = "sandbox-resolve"
        thread.start()
    }

    /// Connects to the first address that takes the connection; the socket is non-blocking.
    private static func open(_ addresses: [SocketAddress], target: Target, deadline: ContinuousClock.Instant) async -> Result<Int32, Failure> {
        var problem = "no address"
        for address in addresses {
            let fd = socket(address.family, Platform.sockStream, 0)
            guard fd >= 0 else {
                problem = "socket: \(String(cString: strerror(errno)))"
                continue
            }
            Socket.setNonBlocking(fd)
            Platform.disableSIGPIPE(fd)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let result = address.bytes.withUnsafeBytes { raw in
                connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            var code = result == 0 ? 0 : errno
            if code == EINPROGRESS || code == EINTR {
                guard await ready(fd, writing: true, until: deadline) else {
                    _ = Platform.close(fd)
                    return .failure(.timedOut("connecting to \(target.hostHeader.prefix(200)) took longer than the deadline"))
                }
                var length = socklen_t(MemoryLayout<Int32>.size)
                code = 0
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
            }
            if code == 0 { return .success(fd) }
            problem = "cannot connect to \(target.hostHeader.prefix(200)): \(String(cString: strerror(code)))"
            _ = Platform.close(fd)
        }
        return .failure(.connect(problem))
    }

    // MARK: Waiting

    /// Until `fd` can be read (or written), or `deadline` comes: true when it can. Returns only once the Dispatch
    /// source is cancelled, so the descriptor may be closed right after.
    static func ready(_ fd: Int32, writing: Bool, until deadline: ContinuousClock.Instant) async -> Bool {
        (await firstOf(deadline: deadline) { finish in
            let source = writing ? DispatchSource.makeWriteSource(fileDescriptor: fd, queue: ioQueue)
                                 : DispatchSource.makeReadSource(fileDescriptor: fd, queue: ioQueue)
            source.setEventHandler { source.cancel() }
            source.setCancelHandler { finish(true) }
            source.resume()
            let reference = SourceReference(source)
            return { reference.cancel() }
        }) ?? false
    }

    /// Starts `work`, which calls `finish` once with its result, and waits for that or for `deadline`, whichever
    /// comes first (nil: the deadline). `work` may return a closure to stop it at the deadline; the wait then ends
    /// when that stopped work calls `finish` (its result dropped), or at once when it returns none.
    private static func firstOf<T: Sendable>(deadline: ContinuousClock.Instant,
                                             _ work: @escaping @Sendable (_ finish: @escaping @Sendable (T) -> Void) -> (@Sendable () -> Void)?) async -> T? {
        let remaining = deadline - .now
        guard remaining > .zero else { return nil }
        let nanoseconds = remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            // Whoever comes first decides: the work's result, or the deadline (nil).
            let state = Locked<(decided: Bool, timedOut: Bool, stop: (@Sendable () -> Void)?, resumed: Bool)>((false, false, nil, false))
            let timer = DispatchSource.makeTimerSource(queue: ioQueue)
            let timerReference = SourceReference(timer)
            let finish: @Sendable (T) -> Void = { value in
                let resume = state.withLock { state -> (Bool, T?) in
                    guard !state.resumed else { return (false, nil) }
                    state.resumed = true
                    let result = state.timedOut ? nil : value
                    state.decided = true
                    return (true, result)
                }
                if resume.0 {
                    timerReference.cancel()
                    continuation.resume(returning: resume.1)
                }
            }
            timer.setEventHandler {
                let stop = state.withLock { state -> (@Sendable () -> Void)?? in
                    guard !state.decided else { return .none }
                    state.decided = true
                    state.timedOut = true
                    return .some(state.stop)
                }
                timer.cancel()
                switch stop {
                case .none: break
                case .some(let stop?): stop()   // the stopped work calls finish, which resumes with nil
                case .some(nil):
                    let resume = state.withLock { state -> Bool in
                        guard !state.resumed else { return false }
                        state.resumed = true
                        return true
                    }
                    if resume { continuation.resume(returning: nil) }
                }
            }
            timer.schedule(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)))
            let stop = work(finish)
            state.withLock { $0.stop = stop }
            // Resumed only now (a cancelled source must still be resumed once), so the deadline cannot find `stop` unset.
            timer.resume()
        }
    }

    /// A Dispatch source handed to the closures of one wait, which only cancel it: dispatch_source_cancel(3) may be
    /// called from any thread, and the reference itself never changes.
    private final class SourceReference: @unchecked Sendable {
        private let source: any DispatchSourceProtocol
        init(_ source: any DispatchSourceProtocol) { self.source = source }
        func cancel() { source.cancel() }
    }

    // MARK: The exchange

    private struct Connection {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        /// Bytes read and not yet consumed.
        var buffer: [UInt8] = []
        var ended = false

        init(fd: Int32, deadline: ContinuousClock.Instant) {
            self.fd = fd
            self.deadline = deadline
        }

        /// Sends all of `data`; a peer that closed meanwhile is not a failure here (its answer may be waiting), only
        /// a problem to tell if no answer comes.
        mutating func send(_ data: Data) async -> Result<String?, Failure> {
            var offset = 0
            while offset < data.count {
                let result = data.withUnsafeBytes { raw in Socket.write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...])) }
                switch result {
                case .bytes(let count): offset += count
                case .wouldBlock:
                    guard await ready(fd, writing: true, until: deadline) else {
                        return .failure(.timedOut("the endpoint took no more of the request before the deadline (\(offset) of \(data.count) bytes sent)"))
                    }
                case .closed: return .success("the connection closed while the request was sent")
                }
            }
            return .success(nil)
        }

        enum Read { case more, ended, timedOut }

        /// Reads what is there (waiting for it until the deadline), at most 16 KiB, onto `buffer`.
        mutating func read() async -> Read {
            if ended { return .ended }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let result = chunk.withUnsafeMutableBytes { Socket.read(fd, into: $0) }
                switch result {
                case .bytes(let count):
                    buffer.append(contentsOf: chunk[0..<count])
                    return .more
                case .closed:
                    ended = true
                    return .ended
                case .wouldBlock:
                    guard await ready(fd, writing: false, until: deadline) else { return .timedOut }
                }
            }
        }

        mutating func readAnswer(bodyPrefix: Int, sendProblem: String?) async -> Result<Answer, Failure> {
            // Heads, skipping interim 1xx answers (RFC 9110 §15.2), until a final one.
            var final: Head?
            while final == nil {
                var end = Self.headEnd(buffer)
                while end == nil {
                    if buffer.count > maxHeadBytes { return .failure(.malformed("the answer's head is longer than \(maxHeadBytes) bytes")) }
                    switch await read() {
                    case .more: end = Self.headEnd(buffer)
                    case .ended:
                        let what = buffer.isEmpty ? "with no answer" : "before its answer's head was complete"
                        return .failure(.closed("the endpoint closed the connection \(what)" + (sendProblem.map { " (\($0))" } ?? "")))
                    case .timedOut:
                        return .failure(.timedOut(buffer.isEmpty ? "no answer before the deadline"
                                                                 : "the answer's head was not complete before the deadline (\(buffer.count) bytes in)"))
                    }
                }
                guard let parsed = Head(buffer[0..<end!]) else {
                    return .failure(.malformed("not an HTTP/1.x answer: \(String(decoding: buffer.prefix(80), as: UTF8.self).debugDescription)"))
                }
                buffer.removeFirst(end!)
                if !(100..<200).contains(parsed.status) || parsed.status == 101 { final = parsed }
            }
            let head = final!
            if (100..<200).contains(head.status) || head.status == 204 || head.status == 304 {
                return .success(Answer(status: head.status, body: Data(), truncated: false))
            }
            if head.chunked { return await readChunked(head, bodyPrefix: bodyPrefix) }
            let wanted = head.contentLength.map { min($0, bodyPrefix) } ?? bodyPrefix
            while buffer.count < wanted {
                switch await read() {
                case .more: continue
                case .ended:
                    // A body cut short (or ended by the close, without Content-Length): the answer is what came.
                    return .success(Answer(status: head.status, body: Data(buffer), truncated: false))
                case .timedOut:
                    return .failure(.timedOut("the answer (status \(head.status)) was not complete before the deadline (\(buffer.count) bytes of its body in)"))
                }
            }
            // More was coming: a longer Content-Length, or (without one) more bytes or no end yet.
            let truncated: Bool
            if let length = head.contentLength { truncated = length > wanted } else { truncated = buffer.count > wanted || !ended }
            return .success(Answer(status: head.status, body: Data(buffer.prefix(wanted)), truncated: truncated))
        }

        /// A chunked body (RFC 9112 §7.1), decoded up to `bodyPrefix` bytes.
        mutating func readChunked(_ head: Head, bodyPrefix: Int) async -> Result<Answer, Failure> {
            var body: [UInt8] = []
            while body.count < bodyPrefix {
                // chunk-size [ chunk-ext ] CRLF
                var lineEnd = buffer.firstIndex(of: UInt8(ascii: "\n"))
                while lineEnd == nil {
                    if buffer.count > 1024 { return .failure(.malformed("a chunk-size line of the answer is longer than 1024 bytes")) }
                    switch await read() {
                    case .more: lineEnd = buffer.firstIndex(of: UInt8(ascii: "\n"))
                    case .ended: return .success(Answer(status: head.status, body: Data(body), truncated: false))
                    case .timedOut:
                        return .failure(.timedOut("the answer (status \(head.status)) was not complete before the deadline (\(body.count) bytes of its body in)"))
                    }
                }
                let digits = buffer[0..<lineEnd!].prefix { URIAuthority.isHexDigit($0) }
                guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                    return .failure(.malformed("a chunk size of the answer is not a hex number"))
                }
                buffer.removeFirst(lineEnd! + 1)
                if size == 0 { return .success(Answer(status: head.status, body: Data(body), truncated: false)) }
                let take = min(size, bodyPrefix - body.count)
                while buffer.count < take {
                    switch await read() {
                    case .more: continue
                    case .ended:
                        body.append(contentsOf: buffer)
                        return .success(Answer(status: head.status, body: Data(body), truncated: false))
                    case .timedOut:
                        return .failure(.timedOut("the answer (status \(head.status)) was not complete before the deadline (\(body.count + buffer.count) bytes of its body in)"))
                    }
                }
                body.append(contentsOf: buffer[0..<take])
                if take < size { return .success(Answer(status: head.status, body: Data(body), truncated: true)) }
                buffer.removeFirst(take)
                // The CRLF after the chunk's data.
                while buffer.count < 2 {
                    switch await read() {
                    case .more: continue
                    case .ended: return .success(Answer(status: head.status, body: Data(body), truncated: false))
                    case .timedOut:
                        return .failure(.timedOut("the answer (status \(head.status)) was not complete before the deadline (\(body.count) bytes of its body in)"))
                    }
                }
                buffer.removeFirst(buffer[0] == UInt8(ascii: "\r") ? 2 : 1)
            }
            return .success(Answer(status: head.status, body: Data(body), truncated: true))
        }

        /// Just past the blank line that ends a head (CRLF CRLF; a bare LF LF is taken too, RFC 9112 §2.2).
        static func headEnd(_ bytes: [UInt8]) -> Int? {
            var index = 0
            while let lf = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
                let next = lf + 1
                if next < bytes.count, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
                if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") { return next + 2 }
                index = next
            }
            return nil
        }
    }

    /// An answer's status line and the fields that frame its body.
    struct Head {
        var status: Int
        var contentLength: Int?
        var chunked = false

        /// nil unless `HTTP/1.x SP 3DIGIT` starts it (RFC 9112 §4).
        init?(_ bytes: ArraySlice<UInt8>) {
            let lines = bytes.split(separator: UInt8(ascii: "\n")).map { line in line.last == UInt8(ascii: "\r") ? line.dropLast() : line }
            guard let statusLine = lines.first, statusLine.count >= 12, statusLine.starts(with: "HTTP/1.".utf8),
                  statusLine[statusLine.startIndex + 8] == UInt8(ascii: " "),
                  let status = Int(String(decoding: statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)], as: UTF8.self)),
                  (100...999).contains(status)
            else { return nil }
            self.status = status
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
                let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
                let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if name == "content-length", let length = Int(value), length >= 0 {
                    contentLength = contentLength.map { min($0, length) } ?? length
                } else if name == "transfer-encoding" {
                    // chunked must be the last coding (RFC 9112 §6.1); it then frames the body, whatever Content-Length says.
                    chunked = value.lowercased().split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "chunked"
                }
            }
        }
    }
}
