// SPDX-License-Identifier: MIT
#if canImport(Darwin)
import Darwin

/// Darwin spellings of the calls the server makes (macOS, and iOS for in-process use in app tests).
enum Platform {
    static let sockStream = SOCK_STREAM
    static func close(_ fd: Int32) -> Int32 { Darwin.close(fd) }
    static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
    static func accept(_ fd: Int32) -> Int32 { Darwin.accept(fd, nil, nil) }
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
    static func send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.send(fd, buffer, count, 0) }
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(fd, buffer, count) }
    static func shutdownWrite(_ fd: Int32) { _ = Darwin.shutdown(fd, SHUT_WR) }
    /// Darwin has no MSG_NOSIGNAL; SO_NOSIGPIPE keeps a vanished peer from raising SIGPIPE.
    static func disableSIGPIPE(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: Int32) -> Int32 {
        Darwin.poll(fds, nfds_t(count), timeoutMilliseconds)
    }
    static func pipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [0, 0]
        guard Darwin.pipe(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }
}
#endif
