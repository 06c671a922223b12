// SPDX-License-Identifier: MIT

/// Maps "METHOD /path/:param" patterns to handlers. Build it, then hand it to ``HTTPServer``, which
/// keeps it as an immutable `Sendable` value, or ask it directly with ``respond(to:timeout:)`` (no socket).
///
/// ```swift
/// var router = Router()
/// router.add("GET /payments/v1/sessions/:session_id") { request in
///     let id = try request.parameters.require("session_id")
///     return try .json(await store.session(id))
/// }
/// router.setErrorRenderer(PaymentsErrorRenderer(), forPathPrefix: "/payments/")
/// ```
///
/// Patterns: literal segments, `:name` (one segment, percent-decoded) and a final `*` (the rest of the
/// path, bound as `*`). The method `*` matches any method. HEAD falls back to the GET handler.
package struct Router: Sendable {
    /// A route's handler. `immediate` handlers run on the connection's event-loop thread without a task
    /// hop: use them only for work that never blocks and takes microseconds (health, the fakes' stores
    /// behind short locks). One that decides it must wait (a scenario's delay) returns
    /// ``HTTPReply/later(note:_:)`` and the wait happens in a task. Everything else is `async`.
    package enum Handler: Sendable {
        case immediate(@Sendable (HTTPRequest) throws -> HTTPReply)
        case async(@Sendable (HTTPRequest) async throws -> HTTPReply)
    }

    package enum Resolution: Sendable {
        case handler(Handler)
        case error(HTTPError)
    }

    private var root = Node()
    /// The routes whose segments are all literal, by their path: most requests are found here without splitting
    /// the path (a route of the tree that matches is the most specific candidate, so the answer is the same).
    private var literalRoutes = LiteralRoutes()
    private var renderers: [(prefix: String, renderer: any HTTPErrorRenderer)] = []
    private var fallbackRenderer: any HTTPErrorRenderer = DefaultErrorRenderer()
    private var accessChecks: [(prefix: String, check: @Sendable (inout HTTPRequest) throws -> Void)] = []
    private var requestCheck: (@Sendable (HTTPRequest) throws -> Void)?

    package init() {}

    private struct Node: Sendable {
        /// In the order added; a node has a few, found by comparing (no hashing, no string made from the path).
        var literals: [LiteralChild] = []
        /// Whether a literal has a non-ASCII byte: then a segment is compared as a string (canonical equivalence).
        var hasNonASCIILiteral = false
        var parameter: [ParameterChild] = []  // zero or one; an array keeps the recursive struct finite
        var wildcard: [String: Handler] = [:]
        var handlers: [String: Handler] = [:]

        /// The literal child `segment` (compared as `String`s compare, as a dictionary's key would be).
        func literal(_ segment: String) -> Node? {
            for index in literals.indices where literals[index].segment == segment { return literals[index].node }
            return nil
        }

        /// ``literal(_:)`` for a segment given as bytes: compared byte by byte when it and the literals are ASCII.
        func literal(bytes segment: UnsafeBufferPointer<UInt8>) -> Node? {
            if hasNonASCIILiteral || segment.contains(where: { $0 >= 0x80 }) {
                return literal(String(decoding: segment, as: UTF8.self))
            }
            for index in literals.indices where literals[index].bytes.count == segment.count {
                if literals[index].bytes.withUnsafeBufferPointer({ $0.elementsEqual(segment) }) { return literals[index].node }
            }
            return nil
        }
    }

    private struct LiteralChild: Sendable {
        var segment: String
        var bytes: [UInt8]
        var node: Node
    }

    private struct ParameterChild: Sendable {
        var name: String
        var node: Node
    }

    /// Adds an `async` route. `route` is "METHOD /path".
    package mutating func add(_ route: String, _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        add(route, handler: .async { request in HTTPReply(try await handler(request)) })
    }

    /// Adds an `async` route whose handler decides more than a response (see ``HTTPReply``).
    /// Disfavoured, so a handler that only throws is a plain one.
    @_disfavoredOverload
    package mutating func add(_ route: String, _ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPReply) {
        add(route, handler: .async(handler))
    }

    /// Adds an `immediate` route (see ``Handler/immediate``).
    package mutating func addImmediate(_ route: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        add(route, handler: .immediate { request in HTTPReply(try handler(request)) })
    }

    /// Adds an `immediate` route whose handler decides more than a response (see ``HTTPReply``).
    /// Disfavoured, so a handler that only throws is a plain one.
    @_disfavoredOverload
    package mutating func addImmediate(_ route: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPReply) {
        add(route, handler: .immediate(handler))
    }

    package mutating func add(_ route: String, handler: Handler) {
        let parts = route.split(separator: " ", maxSplits: 1)
        precondition(parts.count == 2 && parts[1].hasPrefix("/"), "route must be \"METHOD /path\": \(route)")
        let method = String(parts[0])
        let segments = parts[1].split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        Router.insert(handler, method: method, segments: segments[...], into: &root)
        if !segments.contains(where: { $0 == "*" || $0.hasPrefix(":") }) {
            literalRoutes.add(path: String(parts[1]), method: method, handler: handler)
        }
    }

    private static func insert(_ handler: Handler, method: String, segments: ArraySlice<String>, into node: inout Node) {
        guard let segment = segments.first else {
            node.handlers[method] = handler
            return
        }
        let rest = segments.dropFirst()
        if segment == "*" {
            precondition(rest.isEmpty, "* must be the last segment of a route")
            node.wildcard[method] = handler
        } else if segment.hasPrefix(":") {
            let name = String(segment.dropFirst())
            if node.parameter.isEmpty { node.parameter = [ParameterChild(name: name, node: Node())] }
            precondition(node.parameter[0].name == name, "conflicting parameter names :\(node.parameter[0].name) and :\(name)")
            insert(handler, method: method, segments: rest, into: &node.parameter[0].node)
        } else {
            let index = node.literals.firstIndex { $0.segment == segment } ?? node.literals.endIndex
            if index == node.literals.endIndex {
                node.literals.append(LiteralChild(segment: segment, bytes: Array(segment.utf8), node: Node()))
                if segment.utf8.contains(where: { $0 >= 0x80 }) { node.hasNonASCIILiteral = true }
            }
            insert(handler, method: method, segments: rest, into: &node.literals[index].node)
        }
    }

    /// Every route added, as "METHOD /path/:name" (sorted): for documents that must list them all.
    package var routes: [String] {
        var found: [String] = []
        Router.collectRoutes(root, path: "", into: &found)
        return found.sorted()
    }

    private static func collectRoutes(_ node: Node, path: String, into found: inout [String]) {
        found += node.handlers.keys.map { "\($0) \(path.isEmpty ? "/" : path)" }
        found += node.wildcard.keys.map { "\($0) \(path)/*" }
        for child in node.literals { collectRoutes(child.node, path: path + "/" + child.segment, into: &found) }
        for child in node.parameter { collectRoutes(child.node, path: path + "/:" + child.name, into: &found) }
    }

    /// Errors for paths under `prefix` (e.g. "/payments/") are rendered by `renderer`; the longest prefix wins.
    package mutating func setErrorRenderer(_ renderer: any HTTPErrorRenderer, forPathPrefix prefix: String) {
        renderers.removeAll { $0.prefix == prefix }
        renderers.append((prefix, renderer))
        renderers.sort { $0.prefix.count > $1.prefix.count }
    }

    /// Runs `check` before the handler of any route under `prefix` (matched on the percent-decoded path); what it
    /// throws answers instead of the handler (e.g. the control token's 401). It may edit the request the handler
    /// sees (e.g. drop the credential it consumed). The longest prefix wins.
    package mutating func setAccessCheck(forPathPrefix prefix: String, _ check: @escaping @Sendable (inout HTTPRequest) throws -> Void) {
        accessChecks.removeAll { $0.prefix == prefix }
        accessChecks.append((prefix, check))
        accessChecks.sort { $0.prefix.count > $1.prefix.count }
    }

    /// Runs `check` before anything else for every request, whatever its path (before the route is looked up, so
    /// an unknown path too): what it throws answers instead, rendered by the path's error renderer. For what no
    /// request may carry (a namespace name past its bound); it must be cheap, it runs for every request.
    package mutating func setRequestCheck(_ check: @escaping @Sendable (HTTPRequest) throws -> Void) {
        requestCheck = check
    }

    /// `handler` when the access check for the request's path (if one applies) passes; what the check edits (a
    /// credential it consumed) is the request everyone after it sees, the journal included. A refusal answers instead.
    private func checked(_ handler: Handler, _ request: inout HTTPRequest) -> Handler {
        let path = request.path
        guard let check = accessChecks.first(where: { path.hasPathPrefix($0.prefix) })?.check else { return handler }
        do {
            try check(&request)
            return handler
        } catch {
            return .immediate { _ in throw error }
        }
    }

    /// The renderer used where no prefix matches.
    package mutating func setFallbackErrorRenderer(_ renderer: any HTTPErrorRenderer) { fallbackRenderer = renderer }

    package func errorRenderer(forPath path: String) -> any HTTPErrorRenderer {
        renderers.first { path.hasPathPrefix($0.prefix) }?.renderer ?? fallbackRenderer
    }

    /// Finds the handler for a request and binds its path parameters; 404 or 405 (with `Allow`) otherwise.
    package func resolve(_ request: inout HTTPRequest) -> Resolution {
        if let requestCheck {
            do {
                try requestCheck(request)
            } catch {
                return .handler(.immediate { _ in throw error })
            }
        }
        guard request.rawPath.utf8.first == UInt8(ascii: "/") else { return .error(.notFound(request.path)) }
        if let handler = literalRoute(request) { return .handler(checked(handler, &request)) }
        let candidates: Candidates
        if let plain = plainPathMatches(request.rawPath) {
            candidates = plain
        } else {
            switch decodedPathMatches(request.rawPath) {
            case .success(let found): candidates = found
            case .failure(let error): return .error(error)
            }
        }
        guard !candidates.isEmpty else { return .error(.notFound(request.path)) }
        return handler(among: candidates, for: &request)
    }

    private typealias Candidates = [(handlers: [String: Handler], parameters: RouteParameters)]

    /// The matches of a path whose segments need decoding (they have a `%`): the segments are decoded first.
    private func decodedPathMatches(_ rawPath: String) -> Result<Candidates, HTTPError> {
        let rawSegments = rawPath.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        var segments: [String] = []
        segments.reserveCapacity(rawSegments.count)
        for raw in rawSegments {
            guard let decoded = RequestTarget.percentDecode(Substring(raw), plusAsSpace: false) else {
                return .failure(HTTPError(.badRequest, "invalid percent-encoding in path", kind: .malformedRequest))
            }
            segments.append(decoded)
        }
        // Every route whose path matches, most specific first (literal, then :param, then *).
        var candidates: Candidates = []
        Router.collectMatches(segments[...], in: root, parameters: RouteParameters(), into: &candidates)
        return .success(candidates)
    }

    /// The first candidate (most specific) that takes the request's method binds its parameters; 405 otherwise.
    private func handler(among candidates: Candidates, for request: inout HTTPRequest) -> Resolution {
        let method = request.method.rawValue
        for candidate in candidates {
            let handlers = candidate.handlers
            if let handler = handlers[method] ?? (request.method == .head ? handlers["GET"] : nil) ?? handlers["*"] {
                request.parameters = candidate.parameters
                return .handler(checked(handler, &request))
            }
        }
        var allowed = Set(candidates.flatMap(\.handlers.keys)).sorted().map(HTTPMethod.init(rawValue:))
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .error(.methodNotAllowed(request.method, allowed: allowed))
    }

    /// The handler of an all-literal route for a path with nothing to decode, when it takes the request's method.
    private func literalRoute(_ request: HTTPRequest) -> Handler? {
        guard let handlers = literalRoutes.handlers(forPlainPath: request.rawPath) else { return nil }
        let method = request.method.rawValue
        let head = request.method == .head
        var fallback: Handler?
        for entry in handlers {
            if entry.method == method { return entry.handler }
            if head && entry.method == "GET" { fallback = entry.handler }
        }
        if let fallback { return fallback }
        return handlers.first { $0.method == "*" }?.handler
    }

    /// Handlers by exact path, in buckets by a hash of the path's bytes (cheaper than `String`'s hash).
    private struct LiteralRoutes: Sendable {
        private struct Entry: Sendable {
            var path: String
            var hash: UInt64
            var handlers: [(method: String, handler: Handler)]
        }
        private var buckets = [[Entry]](repeating: [], count: 256)

        mutating func add(path: String, method: String, handler: Handler) {
            var path = path
            guard let hash = Self.hash(&path) else { return }
            let bucket = Int(hash & 255)
            if let index = buckets[bucket].firstIndex(where: { $0.hash == hash && $0.path == path }) {
                buckets[bucket][index].handlers.removeAll { $0.method == method }
                buckets[bucket][index].handlers.append((method, handler))
            } else {
                buckets[bucket].append(Entry(path: path, hash: hash, handlers: [(method, handler)]))
            }
        }

        /// The handlers of `path`; nil when it has none or has a `%` (its segments decode to something else).
        func handlers(forPlainPath path: String) -> [(method: String, handler: Handler)]? {
            var path = path
            guard let hash = Self.hash(&path) else { return nil }
            for entry in buckets[Int(hash & 255)] where entry.hash == hash && entry.path == path { return entry.handlers }
            return nil
        }

        /// FNV-1a of the path's bytes; nil when it has a `%`.
        private static func hash(_ path: inout String) -> UInt64? {
            path.withUTF8 { bytes -> UInt64? in
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in bytes {
                    if byte == UInt8(ascii: "%") { return nil }
                    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                }
                return hash
            }
        }
    }

    /// The matches of a path without `%` (its segments are their own decoding), walked as byte ranges of the path
    /// with the rules of ``collectMatches(_:in:parameters:into:)``; nil when the path has a `%`.
    private func plainPathMatches(_ rawPath: String) -> Candidates? {
        var rawPath = rawPath
        return rawPath.withUTF8 { bytes -> Candidates? in
            if bytes.contains(UInt8(ascii: "%")) { return nil }
            var candidates: Candidates = []
            Router.collectPlainMatches(bytes, from: 1, in: root, parameters: RouteParameters(), into: &candidates)
            return candidates
        }
    }

    /// `start` is where the next segment begins (after a `/`), nil past the last one.
    private static func collectPlainMatches(
        _ path: UnsafeBufferPointer<UInt8>, from start: Int?, in node: Node, parameters: RouteParameters,
        into candidates: inout Candidates
    ) {
        guard let start else {
            if !node.handlers.isEmpty { candidates.append((node.handlers, parameters)) }
            if !node.wildcard.isEmpty { candidates.append((node.wildcard, parameters.appending(name: "*", value: ""))) }
            return
        }
        var end = start
        while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
        let rest: Int? = end < path.count ? end + 1 : nil
        let bytes = UnsafeBufferPointer(rebasing: path[start..<end])
        if let child = node.literal(bytes: bytes) {
            collectPlainMatches(path, from: rest, in: child, parameters: parameters, into: &candidates)
        }
        if let child = node.parameter.first, start < end {
            let value = String(decoding: bytes, as: UTF8.self)
            collectPlainMatches(
                path, from: rest, in: child.node, parameters: parameters.appending(name: child.name, value: value),
                into: &candidates)
        }
        if !node.wildcard.isEmpty {
            let remainder = String(decoding: UnsafeBufferPointer(rebasing: path[start...]), as: UTF8.self)
            candidates.append((node.wildcard, parameters.appending(name: "*", value: remainder)))
        }
    }

    private static func collectMatches(
        _ segments: ArraySlice<String>, in node: Node, parameters: RouteParameters,
        into candidates: inout Candidates
    ) {
        guard let segment = segments.first else {
            if !node.handlers.isEmpty { candidates.append((node.handlers, parameters)) }
            if !node.wildcard.isEmpty { candidates.append((node.wildcard, parameters.appending(name: "*", value: ""))) }
            return
        }
        let rest = segments.dropFirst()
        if let child = node.literal(segment) {
            collectMatches(rest, in: child, parameters: parameters, into: &candidates)
        }
        if let child = node.parameter.first, !segment.isEmpty {
            collectMatches(rest, in: child.node, parameters: parameters.appending(name: child.name, value: segment), into: &candidates)
        }
        if !node.wildcard.isEmpty {
            candidates.append((node.wildcard, parameters.appending(name: "*", value: segments.joined(separator: "/"))))
        }
    }

    /// The response for anything a handler threw, through the path's renderer: an ``HTTPResponseError`` answers for
    /// itself (the renderer may give it the provider's ids), an ``HTTPError`` in the path's format, anything else is
    /// a 500 in the path's format.
    package func response(for error: any Error, to request: HTTPRequest) -> HTTPResponse {
        switch error {
        case let error as any HTTPResponseError: return errorRenderer(forPath: request.path).render(error, for: request)
        case let error as HTTPError: return errorRenderer(forPath: request.path).render(error, for: request)
        default:
            // The error's text stays in the log (the server logs it); the client gets the request id to find it.
            return errorRenderer(forPath: request.path).render(
                HTTPError(.internalServerError, "Internal error (request \(request.id))", kind: .internalError), for: request)
        }
    }
}
