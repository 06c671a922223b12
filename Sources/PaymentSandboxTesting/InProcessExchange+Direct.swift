// SPDX-License-Identifier: MIT
import Foundation

extension InProcessExchange.Request {
    /// The request `method path` with `fields` (and `Host`: `authority`), built without `URLRequest`, `URL` parsing
    /// or `URLComponents`, which cost an in-process call more than the sandbox's own work; or nil when the request
    /// could differ from the one the `URLRequest` route gives, which the caller then takes. Built only when:
    /// - `path` is a path from the root with an optional query, of characters RFC 3986 allows unencoded (a `%` only
    ///   in the query, before two hex digits), with no `//`, no `.` or `..` segment and no fragment;
    /// - `method` is upper-case letters (`URLRequest` upper-cases some others);
    /// - every field name is letters, digits and `-`, written as swift-corelibs-foundation's `URLRequest` writes it
    ///   (a letter after a non-letter upper-case, the others lower-case: `Content-Type`, `X-B3-Traceid`), and every
    ///   value is printable ASCII (`URLRequest` drops some others).
    ///
    /// - Parameter origin: the `scheme://authority` that `path` is resolved on (the answer's URL is `origin + path`).
    init?(method: String, path: String, fields: [String: String], authority: String, origin: String) {
        guard Self.isUpperCaseToken(method), Self.isPlainTarget(path), let url = URL(string: origin + path) else { return nil }
        var headerFields = [(name: String, value: String)(name: "Host", value: authority)]
        headerFields.reserveCapacity(fields.count + 1)
        for (name, value) in fields where name != "Host" {
            guard Self.isWrittenAsURLRequestWritesIt(name), Self.isPrintableASCII(value) else { return nil }
            headerFields.append((name, value))
        }
        self.init(method: method, target: path, headerFields: headerFields, url: url)
    }

    /// What `URL.path` gives for a ``isPlainTarget(_:)`` target: its path without the query and without a trailing
    /// `/` (unless it is `/`).
    static func urlPath(of target: String) -> Substring {
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        return path.utf8.count > 1 && path.utf8.last == UInt8(ascii: "/") ? path.dropLast() : path
    }

    private static func isUpperCaseToken(_ method: String) -> Bool {
        !method.isEmpty && method.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// See ``init(method:path:fields:authority:origin:)``.
    static func isPlainTarget(_ target: String) -> Bool {
        let bytes = Array(target.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        let queryStart = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        var segmentStart = 1
        for index in 1...queryStart {
            guard index == queryStart || bytes[index] == UInt8(ascii: "/") else {
                guard isPathCharacter(bytes[index]) else { return false }
                continue
            }
            // A segment ends: empty (`//`) only as the path's last, `.` and `..` never.
            let segment = bytes[segmentStart..<index]
            if segment.isEmpty && index != queryStart || segment.elementsEqual([0x2E]) || segment.elementsEqual([0x2E, 0x2E]) { return false }
            segmentStart = index + 1
        }
        var index = queryStart + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else { return false }
                index += 3
                continue
            }
            guard isPathCharacter(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") else { return false }
            index += 1
        }
        return true
    }

    /// RFC 3986 `pchar` without `pct-encoded`: unreserved, sub-delims, `:` and `@`.
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
             UInt8(ascii: "@"): true
        default: false
        }
    }

    /// Letters, digits and `-`, each letter upper-case after a non-letter (or at the start) and lower-case after a letter.
    static func isWrittenAsURLRequestWritesIt(_ name: String) -> Bool {
        var afterLetter = false
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                guard !afterLetter else { return false }
                afterLetter = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                guard afterLetter else { return false }
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                afterLetter = false
            default:
                return false
            }
        }
        return !name.isEmpty
    }

    private static func isPrintableASCII(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
