// SPDX-License-Identifier: MIT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file the sandbox is given (a scenario file, the state file) without ever blocking in open(2): opened with
/// `O_NONBLOCK` (a FIFO with no writer would block a plain open for good), then fstat(2) on the opened descriptor, so
/// what is read is what was checked: only a regular file is read, at most `limit` bytes. A FIFO, a device or a
/// socket (or a symbolic link to one) is a ``Failure/notRegular(_:)``, never read.
package enum RegularFile {
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Nothing at the path (ENOENT, a dangling link included).
        case missing
        /// A directory, FIFO, device or socket: what it is, as ``kind(ofMode:)`` names it.
        case notRegular(String)
        /// More than the limit.
        case tooLarge(limit: Int)
        /// open(2), fstat(2) or read(2) failed: the system's reason (`permission denied`).
        case system(String)

        package var description: String {
            switch self {
            case .missing: "no such file"
            case .notRegular(let kind): "not a regular file (\(kind))"
            case .tooLarge(let limit): "larger than \(limit) bytes"
            case .system(let reason): reason
            }
        }
    }

    /// The file's contents; throws when it is missing, not a regular file, larger than `limit` bytes or unreadable.
    package static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw errno == ENOENT ? .missing : .system(reason(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(reason(errno)) }
        guard Int(info.st_mode) & Int(S_IFMT) == Int(S_IFREG) else { throw .notRegular(kind(ofMode: Int(info.st_mode))) }
        guard info.st_size <= limit else { throw .tooLarge(limit: limit) }
        // Up to one byte past the limit: a file that grew after fstat is still caught.
        var data = Data(count: min(Int(info.st_size), limit) + 1)
        var count = 0
        while count < data.count {
            let n = data.withUnsafeMutableBytes { buffer in
                Glue.read(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(reason(errno))
            }
            if n == 0 { break }
            count += n
            if count == data.count && count <= limit { data.count = min(limit + 1, data.count * 2) }
        }
        guard count <= limit else { throw .tooLarge(limit: limit) }
        data.count = count
        return data
    }

    /// What a file of this `st_mode` is, for messages: "a directory", "a FIFO", "a character device", ...
    package static func kind(ofMode mode: Int) -> String {
        switch mode & Int(S_IFMT) {
        case Int(S_IFREG): "a regular file"
        case Int(S_IFDIR): "a directory"
        case Int(S_IFIFO): "a FIFO"
        case Int(S_IFCHR): "a character device"
        case Int(S_IFBLK): "a block device"
        case Int(S_IFSOCK): "a socket"
        case Int(S_IFLNK): "a symbolic link"
        default: "an unknown kind of file"
        }
    }

    /// strerror(3), e.g. "Permission denied" as "permission denied".
    package static func reason(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}

/// The C library's `read`, named apart from ``RegularFile/read(_:limit:)``.
private enum Glue {
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }
}
