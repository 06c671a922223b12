// SPDX-License-Identifier: MIT
import Foundation

/// Limits the parser enforces while bytes arrive, before anything is buffered past them.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Request line plus header fields, and separately the trailer section (431 past it).
    public var maxHeadBytes: Int
    /// Decoded body bytes (413 past it, sent as soon as the head or a chunk size shows it).
    public var maxBodyBytes: Int
    /// Header field lines (431 past it).
    public var maxHeaderCount: Int

    public init(maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 8 * 1024 * 1024, maxHeaderCount: Int = 256) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderCount = maxHeaderCount
    }
}

/// Why a request could not be read. The connection is closed after the error is answered.
package struct HTTPParseError: Error, Sendable, CustomStringConvertible {
    package var status: HTTPStatus
    package var reason: String
    /// The request head when the error came after it (413 on a body, bad chunk framing), so the error
    /// can be rendered in the format of the API the request was for, and logged with its path.
    package var head: HTTPRequest?
    /// Without a head (431, a malformed header): the request line's path, when it had arrived; for the same purpose.
    package var path: String?

    package init(_ status: HTTPStatus, _ reason: String, head: HTTPRequest? = nil) {
        self.status = status
        self.reason = reason
        self.head = head
    }
    package var description: String { "\(status.code) \(reason)" }
}

package enum HTTPParserEvent: Sendable {
    /// The head asked for `Expect: 100-continue` and the body has not arrived yet: send `100 Continue`.
    case continueExpected
    /// A whole request, body and trailers included.
    case request(HTTPRequest)
}

/// An incremental HTTP/1.1 request parser (RFC 9112). Feed it bytes as they arrive with ``append(_:)``
/// and pull events with ``next()`` until it returns nil (more bytes needed).
///
/// Strict where leniency enables request smuggling: CRLF only (no bare CR or LF), no whitespace before
/// a header colon, no obsolete line folding, Content-Length and Transfer-Encoding never together,
/// `chunked` must be the only transfer coding, Content-Length must be one field with one decimal value.
/// After a request that ends the connection (`Connection: close`, HTTP/1.0 without keep-alive, CONNECT,
/// Upgrade) it reads nothing more, as llhttp does. A method outside llhttp's list gets 501 (RFC 9110 §9.1),
/// an expectation other than 100-continue 417 (RFC 9110 §10.1.1), both right after the head.
package struct HTTPRequestParser: Sendable {
    package let limits: HTTPParserLimits

    private var buffer: [UInt8] = []
    /// Index of the first unconsumed byte.
    private var start = 0
    private var state: State = .head(HeadScan())
    private var requestCounter = 0
    private let idPrefix: String

    private enum State: Sendable {
        case head(HeadScan)
        case body(HTTPRequest, BodyFraming, continueSent: Bool)
        case closed
        case failed
    }

    private enum BodyFraming: Sendable {
        case length(Int)
        case chunked(ChunkedBody)
    }

    private struct ChunkedBody: Sendable {
        enum Step: Sendable { case size, data(Int), dataEnd, trailers(HeadScan) }
        var step: Step = .size
        var body: [UInt8] = []
    }

    /// Where the search for the end of a header section stopped, so bytes are scanned once.
    private struct HeadScan: Sendable {
        var scanOffset = 0
        var lineStartOffset = 0
        var lineCount = 0
    }

    /// - Parameter idPrefix: request ids are `idPrefix` followed by a counter.
    package init(limits: HTTPParserLimits = HTTPParserLimits(), idPrefix: String = "") {
        self.limits = limits
        self.idPrefix = idPrefix
    }

    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .closed, .failed: return
        default: buffer.append(contentsOf: bytes)
        }
    }

    package mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        switch state {
        case .closed, .failed: return
        default: buffer.append(contentsOf: bytes)
        }
    }

    /// True while part of a request has arrived but not all of it (a head or body in progress).
    package var isMidRequest: Bool {
        switch state {
        case .body: return true
        case .head: return buffer.count > start
        case .closed, .failed: return false
        }
    }

    /// True when a head has been read and its body is still arriving.
    package var isAwaitingBody: Bool {
        if case .body = state { return true }
        return false
    }

    /// The head whose body is still arriving, if any.
    package var pendingHead: HTTPRequest? {
        if case .body(let request, _, _) = state { return request }
        return nil
    }

    /// The path of the request line at the start of the unparsed bytes, once it has arrived, even when the rest of
    /// the head is malformed, too large or late: which API's error format a protocol error is answered in.
    package var pathOfPartialHead: String? {
        guard start < buffer.count else { return nil }
        let line = buffer[start..<min(buffer.count, start + limits.maxHeadBytes)]
        guard let space = line.firstIndex(of: .space), space - start <= 20 else { return nil }
        let target = line[(space + 1)...].prefix { $0 != .space && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "?") }
        guard target.first == UInt8(ascii: "/"), target.endIndex < line.endIndex else { return nil }
        return String(decoding: target, as: UTF8.self)
    }

    /// True once a request has ended the connection or an error was thrown: no more events will come.
    package var isFinished: Bool {
        switch state {
        case .closed, .failed: return true
        default: return false
        }
    }

    /// The next event, or nil when more bytes are needed. After a thrown error the parser is finished.
    package mutating func next() throws(HTTPParseError) -> HTTPParserEvent? {
        do {
            return try step()
        } catch {
            var error = error
            if error.head == nil { error.path = pathOfPartialHead }
            state = .failed
            buffer = []
            start = 0
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> HTTPParserEvent? {
        switch state {
        case .closed, .failed:
            return nil
        case .head(var scan):
            skipLeadingEmptyLines(scan: scan)
            // The request line plus at most maxHeaderCount field lines.
            guard let headEnd = try findSectionEnd(&scan, limit: limits.maxHeadBytes, maxLines: limits.maxHeaderCount + 1,
                                                   what: "request head") else {
                state = .head(scan)
                return nil
            }
            var request = try parseHead(upTo: headEnd)
            start = headEnd
            let framing = try bodyFraming(of: request)
            try checkMethod(of: request)
            try checkExpectation(of: request)
            // The whole body is here (the common case): done without parking the request in `state`.
            if case .length(let length) = framing, buffer.count - start >= length {
                takeBody(length, into: &request)
                return finish(request)
            }
            state = .body(request, framing, continueSent: false)
            return try step()
        case .body(var request, let framing, let continueSent):
            switch framing {
            case .length(let length):
                if buffer.count - start >= length {
                    takeBody(length, into: &request)
                    return finish(request)
                }
            case .chunked(var chunked):
                if try readChunks(&chunked, request: &request) {
                    request.body = Data(chunked.body)
                    return finish(request)
                }
                state = .body(request, .chunked(chunked), continueSent: continueSent)
            }
            if !continueSent, expectsContinue(request), case .body(let pending, let progress, _) = state {
                state = .body(pending, progress, continueSent: true)
                return .continueExpected
            }
            return nil
        }
    }

    /// The `length` bytes at `start` become the body.
    private mutating func takeBody(_ length: Int, into request: inout HTTPRequest) {
        guard length > 0 else { return }
        let start = self.start
        request.body = buffer.withUnsafeBytes { Data(bytes: $0.baseAddress! + start, count: length) }
        self.start += length
    }

    private mutating func finish(_ request: consuming HTTPRequest) -> HTTPParserEvent {
        let endsConnection = !request.wantsKeepAlive || request.method == .connect
            || (request.headers.contains("Upgrade") && request.headers.containsToken("upgrade", in: "Connection"))
        if endsConnection {
            state = .closed
            buffer = []
            start = 0
        } else {
            state = .head(HeadScan())
            compact()
        }
        return .request(request)
    }

    private mutating func compact() {
        if start == buffer.count {
            if buffer.capacity > 1 << 20 { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
            start = 0
        } else if start > 1 << 16 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line received before the request-line.
    private mutating func skipLeadingEmptyLines(scan: HeadScan) {
        guard scan.scanOffset == 0 else { return }
        var skipped = false
        while buffer.count - start >= 2, buffer[start] == .cr, buffer[start + 1] == .lf {
            start += 2
            skipped = true
        }
        // Drop them from the buffer too: an endless stream of CRLFs must not grow it without bound.
        if skipped { compact() }
    }

    /// Finds the empty line that ends a header section starting at `start`. Returns the index just past it.
    /// The section, final CRLF included, may be at most `limit` bytes and `maxLines` non-empty lines; the
    /// error comes as soon as the buffered bytes pass the limit, without waiting for the end of the section.
    private func findSectionEnd(_ scan: inout HeadScan, limit: Int, maxLines: Int, what: String) throws(HTTPParseError) -> Int? {
        var result: Int?
        var failure: HTTPParseError?
        buffer.withUnsafeBufferPointer { bytes in
            var i = start + scan.scanOffset
            var lineStart = start + scan.lineStartOffset
            // Only CR and LF need a look; the bytes between them are skipped in a tight loop, up to the limit.
            let skipEnd = min(bytes.count, start + limit)
            while i < bytes.count {
                // Eight bytes at a time while none of them is a control up to CR, then byte by byte.
                while i + 8 <= skipEnd, !Self.hasControlUpToCR(UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)) {
                    i += 8
                }
                while i < skipEnd && bytes[i] > .cr { i += 1 }
                if i == bytes.count { break }
                if i - start >= limit {
                    failure = HTTPParseError(.requestHeaderFieldsTooLarge, "\(what) larger than \(limit) bytes")
                    return
                }
                let byte = bytes[i]
                if byte == .lf {
                    guard i > lineStart, bytes[i - 1] == .cr else {
                        failure = HTTPParseError(.badRequest, "bare LF in \(what)")
                        return
                    }
                    if i - 1 == lineStart {
                        result = i + 1
                        return
                    }
                    lineStart = i + 1
                    scan.lineCount += 1
                    if scan.lineCount > maxLines {
                        failure = HTTPParseError(.requestHeaderFieldsTooLarge, "more than \(limits.maxHeaderCount) fields in \(what)")
                        return
                    }
                } else if byte == .cr {
                    // A CR that is the last byte so far: stop before it, so the next call sees what follows it
                    // (scanning past it would let a bare CR split across two reads go unnoticed).
                    if i + 1 == bytes.count { break }
                    if bytes[i + 1] != .lf {
                        failure = HTTPParseError(.badRequest, "bare CR in \(what)")
                        return
                    }
                }
                i += 1
            }
            scan.scanOffset = i - start
            scan.lineStartOffset = lineStart - start
        }
        if let failure { throw failure }
        return result
    }

    // MARK: Head

    private mutating func parseHead(upTo headEnd: Int) throws(HTTPParseError) -> HTTPRequest {
        // Lines end in CRLF (checked by findSectionEnd); the last line is the empty one.
        let (method, target, version, fieldsStart) = try buffer.withUnsafeBufferPointer { bytes throws(HTTPParseError) in
            guard let lineEnd = Self.lineEnd(bytes, from: start, to: headEnd), lineEnd > start else {
                throw HTTPParseError(.badRequest, "missing request line")
            }
            let (method, target, version) = try Self.parseRequestLine(bytes, start..<lineEnd)
            return (method, target, version, lineEnd + 2)
        }
        let headers = try parseFields(from: fieldsStart, to: headEnd, section: "header")

        // Read before the request is made, thrown after (a bad target is reported first): the request is then
        // returned without a copy kept for the throws.
        let hostProblem = Self.hostProblem(headers, version: version)
        requestCounter += 1
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: method, target: target, version: version, headers: headers,
                                      id: idPrefix + String(requestCounter))
        } catch {
            throw HTTPParseError(.badRequest, error.reason)
        }
        if let hostProblem { throw HTTPParseError(.badRequest, hostProblem, head: request) }
        return request
    }

    /// RFC 9112 §3.2: a server MUST respond 400 to an HTTP/1.1 request without exactly one Host. What is wrong, or nil.
    private static func hostProblem(_ headers: HTTPHeaders, version: HTTPVersion) -> String? {
        var host: String?
        for field in headers.fields where HTTPHeaders.sameName(field.name, "Host") {
            if host != nil { return "more than one Host header" }
            host = field.value
        }
        if version == .http1_1 && host == nil { return "missing Host header" }
        if var host, host.withUTF8({ $0.contains { $0 == .space || $0 == .tab || $0 == UInt8(ascii: "/") } }) {
            return "invalid Host header"
        }
        return nil
    }

    /// The index of the CR that ends the line starting at `from` (before `to`), or nil. The LF is found by memchr.
    private static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let base = bytes.baseAddress, let found = memchr(base + from, Int32(UInt8.lf), to - from) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found)) - 1
    }

    /// Whether a byte of `word` is at most CR (0x0D): the bytes ``findSectionEnd(_:limit:maxLines:what:)`` stops at.
    /// A byte below 0x0E borrows in `word - 0x0E…`; the first one found is exact (a later one may be a false alarm,
    /// which only ends the fast loop early).
    @inline(__always)
    private static func hasControlUpToCR(_ word: UInt64) -> Bool {
        (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0
    }

    private static func parseRequestLine(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(HTTPParseError)
        -> (HTTPMethod, String, HTTPVersion) {
        guard let firstSpace = line.first(where: { bytes[$0] == .space }) else { throw HTTPParseError(.badRequest, "malformed request line") }
        let methodBytes = UnsafeBufferPointer(rebasing: bytes[line.lowerBound..<firstSpace])
        guard !methodBytes.isEmpty, methodBytes.allSatisfy({ $0.isTokenCharacter }) else {
            throw HTTPParseError(.badRequest, "invalid method")
        }
        let afterMethod = (firstSpace + 1)..<line.upperBound
        guard let secondSpace = afterMethod.first(where: { bytes[$0] == .space }) else {
            throw HTTPParseError(.badRequest, "malformed request line")
        }
        let targetBytes = UnsafeBufferPointer(rebasing: bytes[afterMethod.lowerBound..<secondSpace])
        // request-target: visible ASCII only (RFC 9112 §3.2; RFC 3986 has no raw spaces, controls or non-ASCII).
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPParseError(.badRequest, "invalid request-target")
        }
        let versionBytes = UnsafeBufferPointer(rebasing: bytes[(secondSpace + 1)..<line.upperBound])
        let version: HTTPVersion
        // HTTP-version = "HTTP" "/" DIGIT "." DIGIT, case-sensitive (RFC 9112 §2.3).
        if versionBytes.count == 8, versionBytes[0] == UInt8(ascii: "H"), versionBytes[1] == UInt8(ascii: "T"),
           versionBytes[2] == UInt8(ascii: "T"), versionBytes[3] == UInt8(ascii: "P"), versionBytes[4] == UInt8(ascii: "/"),
           versionBytes[6] == UInt8(ascii: "."),
           versionBytes[5].isDigit, versionBytes[7].isDigit {
            let major = Int(versionBytes[5] - UInt8(ascii: "0")), minor = Int(versionBytes[7] - UInt8(ascii: "0"))
            guard major == 1 else { throw HTTPParseError(.httpVersionNotSupported, "HTTP/\(major).\(minor) is not supported") }
            version = minor == 0 ? .http1_0 : .http1_1
        } else {
            throw HTTPParseError(.badRequest, "invalid HTTP version")
        }
        return (method(methodBytes), String(decoding: targetBytes, as: UTF8.self), version)
    }

    /// The method of the request line: the common ones without making a string.
    private static func method(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPMethod {
        switch bytes.count {
        case 3 where bytes[0] == UInt8(ascii: "G") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "T"): .get
        case 4 where bytes[0] == UInt8(ascii: "P") && bytes[1] == UInt8(ascii: "O") && bytes[2] == UInt8(ascii: "S")
            && bytes[3] == UInt8(ascii: "T"): .post
        default: HTTPMethod(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The field lines from `from` up to the empty line that ends the section (`sectionEnd` is just past it).
    private func parseFields(from: Int, to sectionEnd: Int, section: String) throws(HTTPParseError) -> HTTPHeaders {
        try buffer.withUnsafeBufferPointer { bytes throws(HTTPParseError) in
            var headers = HTTPHeaders()
            var lineStart = from
            while let lineEnd = Self.lineEnd(bytes, from: lineStart, to: sectionEnd), lineEnd > lineStart {
                let (name, value) = try Self.parseField(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), section: section)
                headers.add(name: name, value: value)
                lineStart = lineEnd + 2
            }
            return headers
        }
    }

    private static func parseField(_ line: UnsafeBufferPointer<UInt8>, section: String) throws(HTTPParseError) -> (String, String) {
        // RFC 9112 §5.2: obs-fold is rejected with 400.
        if line[0] == .space || line[0] == .tab { throw HTTPParseError(.badRequest, "obsolete line folding in \(section)") }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw HTTPParseError(.badRequest, "\(section) field without a colon")
        }
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        // RFC 9112 §5.1: no whitespace between the field name and the colon.
        guard !name.isEmpty, name.allSatisfy({ $0.isTokenCharacter }) else {
            throw HTTPParseError(.badRequest, "invalid \(section) field name")
        }
        var first = colon + 1, last = line.count
        while first < last, line[first] == .space || line[first] == .tab { first += 1 }
        while last > first, line[last - 1] == .space || line[last - 1] == .tab { last -= 1 }
        let value = UnsafeBufferPointer(rebasing: line[first..<last])
        guard value.allSatisfy({ $0.isFieldValueCharacter }) else {
            throw HTTPParseError(.badRequest, "invalid character in \(section) field value")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    // MARK: Body

    /// RFC 9112 §6.3: how the body's length is determined. As strict as nginx and llhttp, so no proxy in front
    /// can frame a request differently: exactly one `Content-Length` field holding one decimal number (a
    /// second field is a 400 even when equal, as is a list like `5, 5`; a number too large to represent is
    /// a malformed message, 400, not a large body); `Transfer-Encoding` only in HTTP/1.1, never with
    /// `Content-Length`, with `chunked` exactly once and last and no empty list element (400); a coding
    /// before `chunked` is not implemented (501).
    private func bodyFraming(of request: HTTPRequest) throws(HTTPParseError) -> BodyFraming {
        let transferEncodings = request.headers.values(for: "Transfer-Encoding")
        let contentLengths = request.headers.values(for: "Content-Length")
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else {
                throw HTTPParseError(.badRequest, "both Content-Length and Transfer-Encoding", head: request)
            }
            guard request.version == .http1_1 else {
                throw HTTPParseError(.badRequest, "Transfer-Encoding in an HTTP/1.0 request", head: request)
            }
            // Every field, every comma-separated element: `, chunked` or `chunked,` has an empty one.
            var codings: [String] = []
            for value in transferEncodings {
                for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let coding = element.trimmingOWS()
                    guard !coding.isEmpty else {
                        throw HTTPParseError(.badRequest, "empty element in Transfer-Encoding", head: request)
                    }
                    codings.append(coding.lowercasedASCII())
                }
            }
            guard codings.last == "chunked", codings.filter({ $0 == "chunked" }).count == 1 else {
                // §6.3: a final coding other than chunked makes the length undeterminable; §6.1: chunked only once.
                throw HTTPParseError(.badRequest, "chunked must be the final transfer coding, once", head: request)
            }
            guard codings.count == 1 else {
                throw HTTPParseError(.notImplemented, "transfer codings other than chunked are not supported", head: request)
            }
            return .chunked(ChunkedBody())
        }
        guard let value = contentLengths.first else { return .length(0) }
        guard contentLengths.count == 1 else {
            throw HTTPParseError(.badRequest, "more than one Content-Length field", head: request)
        }
        guard let decimal = Self.decimal(value) else {
            throw HTTPParseError(.badRequest, "invalid Content-Length", head: request)
        }
        guard let length = decimal else {
            throw HTTPParseError(.badRequest, "Content-Length overflows", head: request)
        }
        if length > limits.maxBodyBytes {
            throw HTTPParseError(.contentTooLarge, "body larger than \(limits.maxBodyBytes) bytes", head: request)
        }
        return .length(length)
    }

    /// `value` without OWS around it read as a decimal number: nil unless it is one or more digits; `.some(nil)` past
    /// `Int.max`.
    private static func decimal(_ value: String) -> Int?? {
        var value = value
        return value.withUTF8 { bytes -> Int?? in
            var first = 0, last = bytes.count
            while first < last, bytes[first] == .space || bytes[first] == .tab { first += 1 }
            while last > first, bytes[last - 1] == .space || bytes[last - 1] == .tab { last -= 1 }
            guard first < last else { return nil }
            var number = 0, overflow = false
            for index in first..<last {
                guard bytes[index].isDigit else { return nil }
                let (times10, over1) = number.multipliedReportingOverflow(by: 10)
                let (sum, over2) = times10.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
                overflow = overflow || over1 || over2
                number = sum
            }
            return .some(overflow ? nil : number)
        }
    }

    /// The methods this parser recognizes: llhttp's HTTP method list (RFC 9110's, WebDAV, CalDAV, Subversion,
    /// UPnP, PATCH, PURGE, LINK, UNLINK, SOURCE, QUERY, PRI), so the server and Node.js agree on what is a request.
    static let recognizedMethods: Set<String> = [
        "DELETE", "GET", "HEAD", "POST", "PUT", "CONNECT", "OPTIONS", "TRACE",
        "COPY", "LOCK", "MKCOL", "MOVE", "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "BIND", "REBIND", "UNBIND", "ACL",
        "REPORT", "MKACTIVITY", "CHECKOUT", "MERGE", "M-SEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE",
        "PATCH", "PURGE", "MKCALENDAR", "LINK", "UNLINK", "SOURCE", "QUERY", "PRI",
    ]

    /// RFC 9110 §9.1: "An origin server that receives a request method that is unrecognized or not implemented
    /// SHOULD respond with the 501 (Not Implemented) status code." Methods are case-sensitive.
    private func checkMethod(of request: HTTPRequest) throws(HTTPParseError) {
        if request.method == .get || request.method == .post { return }
        guard Self.recognizedMethods.contains(request.method.rawValue) else {
            throw HTTPParseError(.notImplemented, "method \(request.method) is not recognized", head: request)
        }
    }

    /// RFC 9110 §10.1.1: 100-continue is the only expectation defined, and "a server that receives an Expect
    /// field value containing a member other than 100-continue MAY respond with a 417 (Expectation Failed)".
    /// Answering 417 at once, before the body, beats ignoring an expectation the client relies on.
    private func checkExpectation(of request: HTTPRequest) throws(HTTPParseError) {
        if let unknown = request.headers.tokens(for: "Expect").first(where: { $0 != "100-continue" }) {
            throw HTTPParseError(.expectationFailed, "unsupported expectation \"\(unknown)\"", head: request)
        }
    }

    private func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.version == .http1_1 && request.headers.tokens(for: "Expect") == ["100-continue"]
    }

    /// Reads as much of a chunked body as has arrived (RFC 9112 §7.1). True when the body and trailers are complete.
    private mutating func readChunks(_ chunked: inout ChunkedBody, request: inout HTTPRequest) throws(HTTPParseError) -> Bool {
        while true {
            switch chunked.step {
            case .size:
                guard let lineEnd = try findLineEnd(maxLength: 4096, what: "chunk size line", head: request) else { return false }
                let size = try parseChunkSize(buffer[start..<(lineEnd - 2)], head: request)
                start = lineEnd
                if size == 0 {
                    chunked.step = .trailers(HeadScan())
                } else {
                    // Compared without adding: a size near Int.max must not overflow the sum.
                    guard size <= limits.maxBodyBytes - chunked.body.count else {
                        throw HTTPParseError(.contentTooLarge, "body larger than \(limits.maxBodyBytes) bytes", head: request)
                    }
                    chunked.step = .data(size)
                }
            case .data(let remaining):
                let available = min(remaining, buffer.count - start)
                guard available > 0 else { return false }
                chunked.body.append(contentsOf: buffer[start..<(start + available)])
                start += available
                chunked.step = remaining == available ? .dataEnd : .data(remaining - available)
                compact()
            case .dataEnd:
                guard buffer.count - start >= 2 else { return false }
                guard buffer[start] == .cr, buffer[start + 1] == .lf else {
                    throw HTTPParseError(.badRequest, "chunk data not followed by CRLF", head: request)
                }
                start += 2
                chunked.step = .size
            case .trailers(var scan):
                let found: Int?
                do {
                    found = try findSectionEnd(&scan, limit: limits.maxHeadBytes, maxLines: limits.maxHeaderCount,
                                               what: "trailer section")
                } catch {
                    throw HTTPParseError(error.status, error.reason, head: request)
                }
                guard let sectionEnd = found else {
                    chunked.step = .trailers(scan)
                    return false
                }
                do {
                    request.trailers = try parseFields(from: start, to: sectionEnd, section: "trailer")
                } catch {
                    throw HTTPParseError(error.status, error.reason, head: request)
                }
                start = sectionEnd
                return true
            }
        }
    }

    /// The index just past the next CRLF, or nil when it has not arrived.
    private func findLineEnd(maxLength: Int, what: String, head: HTTPRequest) throws(HTTPParseError) -> Int? {
        var i = start
        while i < buffer.count {
            switch buffer[i] {
            case .lf:
                guard i > start, buffer[i - 1] == .cr else { throw HTTPParseError(.badRequest, "bare LF in \(what)", head: head) }
                return i + 1
            case .cr where i + 1 < buffer.count && buffer[i + 1] != .lf:
                throw HTTPParseError(.badRequest, "bare CR in \(what)", head: head)
            default:
                i += 1
                if i - start > maxLength { throw HTTPParseError(.badRequest, "\(what) too long", head: head) }
            }
        }
        return nil
    }

    /// chunk-size [ chunk-ext ] (RFC 9112 §7.1.1): hex digits, then extensions, which are ignored but must
    /// follow the grammar, so that a line another parser would read differently is refused:
    ///
    ///     chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
    ///     chunk-ext-name = token;  chunk-ext-val = token / quoted-string
    private func parseChunkSize(_ line: ArraySlice<UInt8>, head: HTTPRequest) throws(HTTPParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = RequestTarget.hexValue(line[index]) {
            // Past Int.max the size is a malformed line, not a large chunk (400, as nginx and llhttp).
            guard size <= (Int.max >> 4) else { throw HTTPParseError(.badRequest, "chunk size overflows", head: head) }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > line.startIndex else { throw HTTPParseError(.badRequest, "invalid chunk size", head: head) }
        func skipWhitespace() {
            while index < line.endIndex, line[index] == .space || line[index] == .tab { index += 1 }
        }
        func skipToken() -> Bool {
            let tokenStart = index
            while index < line.endIndex, line[index].isTokenCharacter { index += 1 }
            return index > tokenStart
        }
        let invalid = HTTPParseError(.badRequest, "invalid chunk extension", head: head)
        while index < line.endIndex {
            skipWhitespace()
            guard index < line.endIndex, line[index] == UInt8(ascii: ";") else { throw invalid }
            index += 1
            skipWhitespace()
            guard skipToken() else { throw invalid }
            let afterName = index
            skipWhitespace()
            guard index < line.endIndex, line[index] == UInt8(ascii: "=") else {
                index = afterName  // BWS only before "=" or ";", never at the end of the line
                continue
            }
            index += 1
            skipWhitespace()
            if index < line.endIndex, line[index] == UInt8(ascii: "\"") {
                // quoted-string (RFC 9110 §5.6.4): qdtext or quoted-pair up to the closing DQUOTE.
                index += 1
                var closed = false
                while index < line.endIndex {
                    let byte = line[index]
                    if byte == UInt8(ascii: "\"") { closed = true; index += 1; break }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < line.endIndex, line[index].isFieldValueCharacter else { throw invalid }
                    } else if !byte.isFieldValueCharacter {
                        throw invalid
                    }
                    index += 1
                }
                guard closed else { throw invalid }
            } else {
                guard skipToken() else { throw invalid }
            }
        }
        return size
    }
}

extension UInt8 {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09

    var isDigit: Bool { self >= 0x30 && self <= 0x39 }

    /// tchar (RFC 9110 §5.6.2).
    var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// field-vchar, SP or HTAB (RFC 9110 §5.5); obs-text allowed.
    var isFieldValueCharacter: Bool { self == .tab || (self >= 0x20 && self != 0x7F) }
}
