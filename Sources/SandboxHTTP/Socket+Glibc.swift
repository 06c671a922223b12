// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc

/// Glibc spellings of the calls the server makes. The module map exposes neither epoll nor eventfd,
/// so readiness comes from poll(2) and wake-ups from a pipe, the same on every platform.
enum Platform {
    static let sockStream = Int32(SOCK_STREAM.rawValue)
    static func close(_ fd: Int32) -> Int32 { Glibc.close(fd) }
    static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
    static func accept(_ fd: Int32) -> Int32 { Glibc.accept(fd, nil, nil) }
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
    /// MSG_NOSIGNAL: a peer that went away must not raise SIGPIPE in a process that embeds the server.
    static func send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.send(fd, buffer, count, Int32(MSG_NOSIGNAL)) }
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(fd, buffer, count) }
    static func shutdownWrite(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
    static func disableSIGPIPE(_ fd: Int32) {}
    static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: Int32) -> Int32 {
        Glibc.poll(fds, nfds_t(count), timeoutMilliseconds)
    }
    static func pipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }
}
#endif
