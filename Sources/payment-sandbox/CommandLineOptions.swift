// SPDX-License-Identifier: MIT
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxPlugIn
import SwedbankPaySandbox

/// What the command line asked for, after flags and `PAYMENT_SANDBOX_*` variables (flags win).
struct CommandLineOptions: Equatable {
    enum Command: Equatable { case serve, healthcheck, validate, schema, openapi, help, version }

    var command: Command = .serve
    var host = "127.0.0.1"
    var port = 8080
    var scenarioDirectories: [String] = []
    var logFormat: LogFormat = .text
    var quiet = false
    var maxBodyBytes = HTTPParserLimits().maxBodyBytes
    var maxHeadBytes = HTTPParserLimits().maxHeadBytes
    var maxConnections = HTTPServerConfiguration().maxConnections
    var headTimeoutSeconds = 10.0
    var idleTimeoutSeconds = 60.0
    var handlerTimeoutSeconds = 120.0
    var healthcheckTimeoutSeconds = 2.0
    /// The base of the hrefs Swedbank Pay answers carry (else, behind a trusted proxy, its forwarded headers, else Host).
    var publicURL: String?
    /// Which forwarded headers count for hrefs: only those a proxy in front sets.
    var trustProxy: TrustedForwardedHeaders = []
    /// When set, `/__sandbox/` calls but health need it (`Authorization: Bearer` or `Sandbox-Control-Token`).
    var controlToken: String?
    /// Host names `/__sandbox/` answers to besides IP addresses, localhost, *.localhost, names without a dot and the
    /// `--public-url` host; `*`: any.
    var allowedHosts: [String] = []
    /// Objects held across all namespaces before the oldest are evicted; nil (`0`): no bound.
    var maxObjects: Int? = SandboxConfiguration.defaultMaxObjects
    /// Callbacks the outbox keeps across all namespaces, and per namespace, before the oldest go.
    var callbackOutbox = SandboxConfiguration.defaultCallbackOutboxCapacity
    var callbackOutboxPerNamespace = SandboxConfiguration.defaultCallbackOutboxCapacityPerNamespace
    /// Where state is kept across a restart (loaded on start, written on SIGTERM, on request and every interval).
    var stateFile: String?
    /// How often the state file is also written while running.
    var snapshotIntervalSeconds: Double?
    /// `validate`'s directories or files.
    var validatePaths: [String] = []

    struct UsageError: Error, Equatable { var message: String }

    static let usage = """
        usage: payment-sandbox [serve] [options]
               payment-sandbox healthcheck [--host HOST] [--port PORT] [--timeout SECONDS]
               payment-sandbox validate [DIR|FILE]...   (default: the bundled scenarios/)
               payment-sandbox schema                   (the scenario files' JSON Schema, to stdout)
               payment-sandbox openapi                  (the control API's OpenAPI document, to stdout)
               payment-sandbox --help | --version

        Serves fakes of the Klarna and Swedbank Pay APIs that play scenarios from JSON files.

        options (each also as an environment variable; the flag wins):
          --host HOST              address to listen on (PAYMENT_SANDBOX_HOST, default 127.0.0.1)
          --port PORT              port, 0 = any free port (PAYMENT_SANDBOX_PORT, default 8080)
          --scenarios DIR          extra scenario directory, repeatable; the bundled scenarios/ is always
                                   loaded (PAYMENT_SANDBOX_SCENARIOS, directories separated by ':')
          --log-format text|json   request log format (PAYMENT_SANDBOX_LOG_FORMAT, default text)
          --quiet                  no request log (PAYMENT_SANDBOX_QUIET=1)
          --max-body-bytes N       largest request body, 413 past it (PAYMENT_SANDBOX_MAX_BODY_BYTES, default 8388608)
          --max-head-bytes N       largest request head, 431 past it (PAYMENT_SANDBOX_MAX_HEAD_BYTES, default 65536)
          --max-connections N      open connections, 503 past it (PAYMENT_SANDBOX_MAX_CONNECTIONS, default 1024)
          --head-timeout SECONDS   time to send a request head, 408 past it (PAYMENT_SANDBOX_HEAD_TIMEOUT, default 10)
          --idle-timeout SECONDS   keep-alive idle time (PAYMENT_SANDBOX_IDLE_TIMEOUT, default 60)
          --handler-timeout SECONDS  slowest answer before a 503 (PAYMENT_SANDBOX_HANDLER_TIMEOUT, default 120)
          --public-url URL         base of every link the sandbox hands out (Swedbank Pay hrefs, Klarna redirect_url
                                   and session_url, Location headers), e.g. https://localhost:8443 behind a TLS
                                   proxy (PAYMENT_SANDBOX_PUBLIC_URL; default: with --trust-proxy the proxy's
                                   Forwarded / X-Forwarded-Proto/-Host, else http:// and the Host header)
          --trust-proxy[=WHICH]    a proxy in front sets forwarded headers: build hrefs on them (its value is the
                                   last in each list). WHICH: all (the default), x-forwarded (X-Forwarded-Proto/-Host
                                   only) or forwarded (RFC 7239 only). Without it they are ignored, as any client
                                   can send them (PAYMENT_SANDBOX_TRUST_PROXY=1|0|all|x-forwarded|forwarded)
          --control-token TOKEN    every /__sandbox/ call but health needs "Authorization: Bearer TOKEN" or
                                   "Sandbox-Control-Token: TOKEN" (PAYMENT_SANDBOX_CONTROL_TOKEN; default: none)
          --allowed-host NAME      a Host name /__sandbox/ answers to, repeatable; * = any. Always: IP addresses,
                                   localhost, *.localhost, names without a dot and the --public-url host; others get
                                   403 (PAYMENT_SANDBOX_ALLOWED_HOSTS, names separated by ',')
          --max-objects N          sessions, tokens and orders held across all namespaces; past it the oldest of the
                                   server are evicted and answer as unknown ones, 0 = no bound
                                   (PAYMENT_SANDBOX_MAX_OBJECTS, default \(SandboxConfiguration.defaultMaxObjects))
          --callback-outbox N      callbacks kept for GET /__sandbox/callbacks across all namespaces; past it the
                                   oldest go (PAYMENT_SANDBOX_CALLBACK_OUTBOX, default \(SandboxConfiguration.defaultCallbackOutboxCapacity))
          --callback-outbox-per-namespace N  the same in each namespace
                                   (PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE, default \(SandboxConfiguration.defaultCallbackOutboxCapacityPerNamespace))
          --state-file PATH        keep every namespace's objects, clocks, default scenarios and counters across a
                                   restart: loaded on start, written on SIGTERM/SIGINT, on POST /__sandbox/snapshot
                                   and every --snapshot-interval (PAYMENT_SANDBOX_STATE_FILE; default: none)
          --snapshot-interval SECONDS  also write the state file this often (PAYMENT_SANDBOX_SNAPSHOT_INTERVAL)
          -h, --help               this text
          --version                the version
        """

    /// Parses `arguments` (without the program name) over `environment`.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        try options.apply(environment: environment)
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            options.command = try command(named: first)
            rest = rest.dropFirst()
        }
        var repeated = RepeatedFlags()
        while let argument = rest.popFirst() {
            if options.command == .validate && !argument.hasPrefix("-") {
                options.validatePaths.append(argument)
                continue
            }
            try options.apply(argument, rest: &rest, repeated: &repeated)
        }
        if !repeated.scenarios.isEmpty { options.scenarioDirectories = repeated.scenarios }
        if !repeated.hosts.isEmpty { options.allowedHosts = repeated.hosts }
        if options.host.isEmpty { throw UsageError(message: "--host must not be empty") }
        if options.snapshotIntervalSeconds != nil && options.stateFile == nil {
            throw UsageError(message: "--snapshot-interval needs --state-file")
        }
        return options
    }

    private static func command(named name: String) throws(UsageError) -> Command {
        switch name {
        case "serve": .serve
        case "healthcheck": .healthcheck
        case "validate": .validate
        case "schema": .schema
        case "openapi": .openapi
        default: throw UsageError(message: "unknown command '\(name)'")
        }
    }

    /// Flags that may be given more than once: each adds to a list that replaces the environment's.
    private struct RepeatedFlags {
        var scenarios: [String] = []
        var hosts: [String] = []
    }

    /// Applies one option (`--name value`, `--name=value` or a bare flag), taking its value from `rest` if needed.
    private mutating func apply(_ argument: String, rest: inout ArraySlice<String>, repeated: inout RepeatedFlags) throws(UsageError) {
        var name = argument
        var inlineValue: String?
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        }
        func value() throws(UsageError) -> String {
            if let inlineValue { return inlineValue }
            guard let next = rest.popFirst() else { throw UsageError(message: "\(name) needs a value") }
            return next
        }
        switch name {
        case "-h", "--help": command = .help
        case "--version": command = .version
        case "--host": host = try value()
        case "--port": port = try Self.parsePort(try value(), source: name)
        case "--scenarios": repeated.scenarios.append(try value())
        case "--log-format": logFormat = try Self.parseFormat(try value(), source: name)
        case "--quiet": quiet = true
        case "--timeout": healthcheckTimeoutSeconds = try Self.parseSeconds(try value(), source: name)
        case "--max-body-bytes": maxBodyBytes = try Self.parseCount(try value(), source: name)
        case "--max-head-bytes": maxHeadBytes = try Self.parseCount(try value(), source: name)
        case "--max-connections": maxConnections = try Self.parseCount(try value(), source: name)
        case "--head-timeout": headTimeoutSeconds = try Self.parseSeconds(try value(), source: name)
        case "--idle-timeout": idleTimeoutSeconds = try Self.parseSeconds(try value(), source: name)
        case "--handler-timeout": handlerTimeoutSeconds = try Self.parseSeconds(try value(), source: name)
        case "--public-url": publicURL = try Self.parseBaseURL(try value(), source: name)
        case "--trust-proxy":
            // A bare flag takes no value (the next argument is another flag): only --trust-proxy=WHICH names one.
            trustProxy = .all
            if let inlineValue { trustProxy = try Self.parseTrust(inlineValue, source: name) }
        case "--control-token": controlToken = try Self.parseToken(try value(), source: name)
        case "--allowed-host": repeated.hosts.append(try Self.parseHostName(try value(), source: name))
        case "--max-objects": maxObjects = try Self.parseBound(try value(), source: name)
        case "--callback-outbox": callbackOutbox = try Self.parseCount(try value(), source: name)
        case "--callback-outbox-per-namespace": callbackOutboxPerNamespace = try Self.parseCount(try value(), source: name)
        case "--state-file": stateFile = try Self.parsePath(try value(), source: name)
        case "--snapshot-interval": snapshotIntervalSeconds = try Self.parseSeconds(try value(), source: name)
        default: throw UsageError(message: "unknown option '\(argument)'")
        }
    }

    private mutating func apply(environment: [String: String]) throws(UsageError) {
        func variable(_ suffix: String) -> (name: String, value: String)? {
            let name = "PAYMENT_SANDBOX_" + suffix
            guard let value = environment[name], !value.isEmpty else { return nil }
            return (name, value)
        }
        if let (_, value) = variable("HOST") { host = value }
        if let (name, value) = variable("PORT") { port = try Self.parsePort(value, source: name) }
        if let (_, value) = variable("SCENARIOS") { scenarioDirectories = value.split(separator: ":").map(String.init) }
        if let (name, value) = variable("LOG_FORMAT") { logFormat = try Self.parseFormat(value, source: name) }
        if let (name, value) = variable("QUIET") { quiet = try Self.parseSwitch(value, source: name) }
        if let (name, value) = variable("TRUST_PROXY") { trustProxy = try Self.parseTrust(value, source: name) }
        if let (name, value) = variable("CONTROL_TOKEN") { controlToken = try Self.parseToken(value, source: name) }
        if let (name, value) = variable("ALLOWED_HOSTS") {
            allowedHosts = try value.split(separator: ",", omittingEmptySubsequences: false).map { item throws(UsageError) in
                try Self.parseHostName(item.trimmingCharacters(in: .whitespaces), source: name)
            }
        }
        if let (name, value) = variable("MAX_BODY_BYTES") { maxBodyBytes = try Self.parseCount(value, source: name) }
        if let (name, value) = variable("MAX_HEAD_BYTES") { maxHeadBytes = try Self.parseCount(value, source: name) }
        if let (name, value) = variable("MAX_CONNECTIONS") { maxConnections = try Self.parseCount(value, source: name) }
        if let (name, value) = variable("HEAD_TIMEOUT") { headTimeoutSeconds = try Self.parseSeconds(value, source: name) }
        if let (name, value) = variable("IDLE_TIMEOUT") { idleTimeoutSeconds = try Self.parseSeconds(value, source: name) }
        if let (name, value) = variable("HANDLER_TIMEOUT") { handlerTimeoutSeconds = try Self.parseSeconds(value, source: name) }
        if let (name, value) = variable("PUBLIC_URL") { publicURL = try Self.parseBaseURL(value, source: name) }
        if let (name, value) = variable("MAX_OBJECTS") { maxObjects = try Self.parseBound(value, source: name) }
        if let (name, value) = variable("CALLBACK_OUTBOX") { callbackOutbox = try Self.parseCount(value, source: name) }
        if let (name, value) = variable("CALLBACK_OUTBOX_PER_NAMESPACE") {
            callbackOutboxPerNamespace = try Self.parseCount(value, source: name)
        }
        if let (name, value) = variable("STATE_FILE") { stateFile = try Self.parsePath(value, source: name) }
        if let (name, value) = variable("SNAPSHOT_INTERVAL") { snapshotIntervalSeconds = try Self.parseSeconds(value, source: name) }
    }

    private static func parseSwitch(_ text: String, source: String) throws(UsageError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw UsageError(message: "\(source) must be 1 or 0, not '\(text)'")
        }
    }

    private static func parseTrust(_ text: String, source: String) throws(UsageError) -> TrustedForwardedHeaders {
        switch text.lowercased() {
        case "1", "true", "yes", "all": return .all
        case "0", "false", "no", "none": return []
        case "x-forwarded": return .xForwarded
        case "forwarded": return .forwarded
        default: throw UsageError(message: "\(source) must be all, x-forwarded, forwarded or 0, not '\(text)'")
        }
    }

    /// Visible ASCII without spaces, so it reads the same in either header (RFC 6750 §2.1 b64token is a subset).
    private static func parseToken(_ text: String, source: String) throws(UsageError) -> String {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw UsageError(message: "\(source) must be visible ASCII characters without spaces")
        }
        return text
    }

    /// A DNS name (letters, digits, `-`, `.`, `_`; no port), or `*` for any.
    private static func parseHostName(_ text: String, source: String) throws(UsageError) -> String {
        guard text == "*" || (!text.isEmpty && text.utf8.allSatisfy({ byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        })) else {
            throw UsageError(message: "\(source) must be a host name such as sandbox.example.test (letters, digits, '-', '.', '_'; "
                             + "no port) or *, not '\(text)'")
        }
        return text
    }

    /// `http(s)://host[:port][/path]`, without a query or fragment; a trailing `/` is dropped.
    private static func parseBaseURL(_ text: String, source: String) throws(UsageError) -> String {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil else {
            throw UsageError(message: "\(source) must be an http or https URL such as https://localhost:8443, not '\(text)'")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    private static func parsePath(_ text: String, source: String) throws(UsageError) -> String {
        guard !text.isEmpty, !text.hasSuffix("/") else { throw UsageError(message: "\(source) must be a file path, not '\(text)'") }
        return text
    }

    private static func parsePort(_ text: String, source: String) throws(UsageError) -> Int {
        guard let port = Int(text), (0...65535).contains(port) else {
            throw UsageError(message: "\(source) must be a port number from 0 to 65535, not '\(text)'")
        }
        return port
    }

    private static func parseCount(_ text: String, source: String) throws(UsageError) -> Int {
        guard let count = Int(text), count > 0 else { throw UsageError(message: "\(source) must be a positive whole number, not '\(text)'") }
        return count
    }

    /// A whole number ≥ 0; 0 is no bound (nil).
    private static func parseBound(_ text: String, source: String) throws(UsageError) -> Int? {
        guard let count = Int(text), count >= 0 else { throw UsageError(message: "\(source) must be a whole number ≥ 0 (0: no bound), not '\(text)'") }
        return count == 0 ? nil : count
    }

    private static func parseSeconds(_ text: String, source: String) throws(UsageError) -> Double {
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
            throw UsageError(message: "\(source) must be a positive number of seconds, not '\(text)'")
        }
        return seconds
    }

    private static func parseFormat(_ text: String, source: String) throws(UsageError) -> LogFormat {
        guard let format = LogFormat(rawValue: text) else { throw UsageError(message: "\(source) must be text or json, not '\(text)'") }
        return format
    }
}
