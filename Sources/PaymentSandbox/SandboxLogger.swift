// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// Writes one line per request (and per notable event) to a file descriptor, standard output by default.
///
/// text: `2026-11-21T12:00:00.123Z info 3-1 GET /__sandbox/health 200 0.08ms`
/// json: `{"time":"…","level":"info","request_id":"3-1","method":"GET","path":"/__sandbox/health","status":200,"duration_ms":0.08}`
public final class LineLogger: HTTPServerLogger {
    public let format: LogFormat
    private let fd: Int32
    /// Lines written so far; the lock also keeps lines from different threads from interleaving.
    private let linesWritten = Locked(0)

    public init(format: LogFormat, fileDescriptor: Int32 = 1) {
        self.format = format
        self.fd = fileDescriptor
    }

    public func logRequest(_ entry: RequestLogEntry) {
        let milliseconds = (entry.durationSeconds * 1000 * 1000).rounded() / 1000
        let level = entry.status >= 500 ? LogLevel.error : .info
        switch format {
        case .text:
            emit("\(Self.timestamp()) \(level.rawValue) \(entry.requestID) \(entry.method) \(entry.path) \(entry.status) \(milliseconds)ms")
        case .json:
            emit(String(decoding: JSONText.object([
                ("time", .string(Self.timestamp())),
                ("level", .string(level.rawValue)),
                ("request_id", .string(entry.requestID)),
                ("method", .string(entry.method)),
                ("path", .string(entry.path)),
                ("status", .int(entry.status)),
                ("duration_ms", .double(milliseconds)),
                ("bytes", .int(entry.responseBytes)),
            ]).bytes, as: UTF8.self))
        }
    }

    public func log(_ level: LogLevel, _ message: String) {
        switch format {
        case .text: emit("\(Self.timestamp()) \(level.rawValue) \(message)")
        case .json:
            emit(String(decoding: JSONText.object([
                ("time", .string(Self.timestamp())), ("level", .string(level.rawValue)), ("message", .string(message)),
            ]).bytes, as: UTF8.self))
        }
    }

    private func emit(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        linesWritten.withLock { count in
            count += 1
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                if written <= 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }

    /// RFC 3339 UTC with milliseconds, without a formatter object.
    static func timestamp() -> String {
        var now = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
