// SPDX-License-Identifier: MIT
// Thin wrappers over BSD sockets shared by every platform; the platform files hold what differs.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case addressInUse(host: String, port: Int)
    case cannotResolve(host: String)
    case system(call: String, errno: Int32)
    case alreadyStarted
    case stopped

    public var description: String {
        switch self {
        case let .addressInUse(host, port): "address \(host):\(port) is already in use"
        case let .cannotResolve(host): "cannot resolve host \(host)"
        case let .system(call, code): "\(call) failed: \(String(cString: strerror(code)))"
        case .alreadyStarted: "the server is already running"
        case .stopped: "a stopped server cannot be started again; create a new one"
        }
    }
}

enum Socket {
    /// Creates a non-blocking listening socket bound to host:port. Returns the descriptor and the bound port.
    static func listen(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Platform.sockStream
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let lookupHost = host.isEmpty ? nil : host
        guard getaddrinfo(lookupHost, String(port), &hints, &results) == 0, let first = results else {
            throw .cannotResolve(host: host)
        }
        defer { freeaddrinfo(results) }

        let fd = socket(first.pointee.ai_family, Platform.sockStream, 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        var one: Int32 = 1
        // SO_REUSEADDR lets a restart bind over TIME_WAIT; a live listener still makes bind fail (EADDRINUSE).
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            _ = Platform.close(fd)
            if code == EADDRINUSE { throw .addressInUse(host: host, port: port) }
            throw .system(call: "bind", errno: code)
        }
        guard Platform.listen(fd, backlog) == 0 else {
            let code = errno
            _ = Platform.close(fd)
            throw .system(call: "listen", errno: code)
        }
        setNonBlocking(fd)
        return (fd, boundPort(fd) ?? port)
    }

    static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> Int? in
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default:
                return nil
            }
        }
    }

    enum AcceptResult { case accepted(Int32), wouldBlock, outOfDescriptors, failed }

    static func accept(_ listener: Int32) -> AcceptResult {
        while true {
            let fd = Platform.accept(listener)
            if fd >= 0 {
                setNonBlocking(fd)
                var one: Int32 = 1
                // Responses go out in one write; don't let Nagle hold them back.
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                Platform.disableSIGPIPE(fd)
                return .accepted(fd)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            default: return .failed
            }
        }
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    enum IOResult { case bytes(Int), wouldBlock, closed }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = Platform.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = Platform.send(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return .bytes(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// Monotonic time in nanoseconds.
    static func now() -> UInt64 {
        var ts = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
