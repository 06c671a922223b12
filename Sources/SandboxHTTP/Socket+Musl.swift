// SPDX-License-Identifier: MIT
#if canImport(Musl)
import Musl

/// Musl spellings of the calls the server makes (static Linux SDK).
enum Platform {
    static let sockStream = Int32(SOCK_STREAM)
    static func close(_ fd: Int32) -> Int32 { Musl.close(fd) }
    static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 { Musl.listen(fd, backlog) }
    static func accept(_ fd: Int32) -> Int32 { Musl.accept(fd, nil, nil) }
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Musl.read(fd, buffer, count) }
    static func send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Musl.send(fd, buffer, count, Int32(MSG_NOSIGNAL)) }
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Musl.write(fd, buffer, count) }
    static func shutdownWrite(_ fd: Int32) { _ = Musl.shutdown(fd, Int32(SHUT_WR)) }
    static func disableSIGPIPE(_ fd: Int32) {}
    static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: Int32) -> Int32 {
        Musl.poll(fds, nfds_t(count), timeoutMilliseconds)
    }
    static func pipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [0, 0]
        guard Musl.pipe(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }
}
#endif
