// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes responses as HTTP/1.1 bytes (RFC 9112 §4, §6). The server owns `Date`, `Content-Length`,
/// `Connection` and `Transfer-Encoding`; handlers' values for those are dropped, except that a handler's
/// `Connection: close` closes the connection (the server writes its own `Connection: close`).
enum ResponseSerializer {
    /// Returns whether the connection stays open: `keepAlive`, unless the response asked to close.
    @discardableResult
    static func write(
        _ response: HTTPResponse, requestMethod: HTTPMethod, requestVersion: HTTPVersion, keepAlive: Bool,
        date: [UInt8], into out: inout [UInt8]
    ) -> Bool {
        var keepAlive = keepAlive
        let code = response.status.code
        out.reserveCapacity(out.count + 160 + response.body.count)
        appendStatusLine(response.status, into: &out)
        for field in response.headers.fields {
            if managedHeader(field.name) {
                if field.name.equalsCaseInsensitiveASCII("Connection") && asksToClose(field.value) { keepAlive = false }
                continue
            }
            appendSanitized(field.name, into: &out)
            out.append(contentsOf: colonSpace)
            appendSanitized(field.value, into: &out)
            out.append(contentsOf: crlf)
        }
        out.append(contentsOf: dateName)
        out.append(contentsOf: date)
        // RFC 9110 §8.6: no Content-Length in 1xx or 204 responses.
        let bodyAllowed = code >= 200 && code != 204 && code != 304
        if bodyAllowed || code == 304 {
            out.append(contentsOf: crlfContentLengthName)
            appendDecimal(response.body.count, into: &out)
        }
        if !keepAlive {
            out.append(contentsOf: connectionCloseEnd)
        } else if requestVersion == .http1_0 {
            out.append(contentsOf: connectionKeepAliveEnd)
        } else {
            out.append(contentsOf: headEnd)
        }
        if bodyAllowed && requestMethod != .head && !response.body.isEmpty {
            response.body.withUnsafeBytes { out.append(contentsOf: $0) }
        }
        return keepAlive
    }

    /// `HTTP/1.1 <code> <reason>` CRLF: made once for a code of 100 to 599 with its standard reason phrase.
    private static func appendStatusLine(_ status: HTTPStatus, into out: inout [UInt8]) {
        let index = status.code - 100
        if index >= 0 && index < statusLines.count && statusLines[index].phrase == status.reasonPhrase {
            out.append(contentsOf: statusLines[index].line)
            return
        }
        out.append(contentsOf: statusLinePrefix)
        appendDecimal(status.code, into: &out)
        out.append(.space)
        appendSanitized(status.reasonPhrase, into: &out)
        out.append(contentsOf: crlf)
    }

    private static let statusLines: [(phrase: String, line: [UInt8])] = (100..<600).map { code in
        let phrase = HTTPStatus.standardReasonPhrase(code)
        return (phrase, Array("HTTP/1.1 \(code) \(phrase)\r\n".utf8))
    }

    /// A `Connection` value that lists `close` (RFC 9110 §7.6.1).
    private static func asksToClose(_ value: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingOWS().equalsCaseInsensitiveASCII("close") }
    }

    static let crlf: [UInt8] = [.cr, .lf]
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    private static let statusLinePrefix: [UInt8] = Array("HTTP/1.1 ".utf8)
    private static let colonSpace: [UInt8] = Array(": ".utf8)
    private static let dateName: [UInt8] = Array("Date: ".utf8)
    private static let crlfContentLengthName: [UInt8] = Array("\r\nContent-Length: ".utf8)
    /// What ends the head after the last field's value: the `Connection` field when there is one, and the empty line.
    private static let connectionCloseEnd: [UInt8] = Array("\r\nConnection: close\r\n\r\n".utf8)
    private static let connectionKeepAliveEnd: [UInt8] = Array("\r\nConnection: keep-alive\r\n\r\n".utf8)
    private static let headEnd: [UInt8] = Array("\r\n\r\n".utf8)

    /// `value` in decimal, as `String(value)` writes it, without making the string.
    static func appendDecimal(_ value: Int, into out: inout [UInt8]) { out.appendDecimal(value) }

    /// The names the server writes itself: compared only when the length is one of theirs.
    private static func managedHeader(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsCaseInsensitiveASCII("Date")
        case 10: name.equalsCaseInsensitiveASCII("Connection")
        case 14: name.equalsCaseInsensitiveASCII("Content-Length")
        case 17: name.equalsCaseInsensitiveASCII("Transfer-Encoding")
        default: false
        }
    }

    /// No CR, LF or other controls in what a handler put in a header: response splitting is not possible.
    private static func appendSanitized(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            if !bytes.contains(where: { $0 < 0x20 && $0 != .tab || $0 == 0x7F }) {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes { out.append(byte < 0x20 && byte != .tab || byte == 0x7F ? .space : byte) }
        }
    }
}

/// The IMF-fixdate for `Date` headers (RFC 9110 §5.6.7), formatted once a second per event loop.
struct HTTPDateCache {
    private var second = -1
    private(set) var bytes: [UInt8] = []

    mutating func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            bytes = HTTPDateCache.format(now)
        }
        return bytes
    }

    static func format(_ seconds: time_t) -> [UInt8] {
        var value = seconds
        var parts = tm()
        gmtime_r(&value, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        return Array(text.utf8)
    }
}

extension Array where Element == UInt8 {
    /// `value` in decimal, as `String(value)` writes it, without making the string.
    package mutating func appendDecimal(_ value: Int) {
        guard value >= 0 else {
            append(contentsOf: String(value).utf8)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for Int.max's 19 digits
        var count = 0
        var rest = UInt(value)
        Swift.withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[buffer.count - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - count)...]))
        }
    }
}
