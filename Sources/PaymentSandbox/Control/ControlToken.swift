// SPDX-License-Identifier: MIT
import SandboxHTTP
import SandboxPlugIn

/// The optional control token (`--control-token`, ``SandboxConfiguration/controlToken``). When set, every call under
/// `/__sandbox/` needs `Authorization: Bearer <token>` or `Sandbox-Control-Token: <token>`, except:
/// - `GET /__sandbox/health` (Docker's HEALTHCHECK, `payment-sandbox healthcheck`);
/// - the addresses the sandbox itself sends a consumer's browser to, which cannot add a header: each provider's
///   ``SandboxProvider/browserPrefixes`` (a hosted page's buttons, a `redirect_url`). Like the pages themselves,
///   they act on one session or order whose random id only its link carries.
/// Those two are let through by ``ControlRequestCheck`` before this check. Everything else there (reset, clock,
/// scenarios, journal, state, echo, SDK stand-ins) is refused with a 401 in the control API's error format and
/// `WWW-Authenticate: Bearer` (RFC 6750 §3).
///
/// An `Authorization: Bearer <control token>` is removed once checked: a Bearer token otherwise names the namespace
/// (Swedbank Pay's), and the control token is no namespace. Another Bearer token (a Swedbank Pay merchant's, with the
/// control token in `Sandbox-Control-Token`) stays and names the namespace as before.
struct ControlToken: Sendable {
    static let protectedPrefix = "/__sandbox/"

    private let expected: [UInt8]

    init(_ token: String) { expected = Array(token.utf8) }

    func check(_ request: inout HTTPRequest) throws {
        let tokenHeaders = request.headers.values(for: "Sandbox-Control-Token")
        let bearers = request.headers.values(for: "Authorization").compactMap(Namespace.bearerToken(fromHeader:))
        guard !tokenHeaders.isEmpty || !bearers.isEmpty else {
            throw ControlTokenRefusal(message: "the control API needs the control token: send \"Authorization: Bearer <token>\" "
                                      + "or \"Sandbox-Control-Token: <token>\"", invalid: false)
        }
        let bearerMatches = bearers.contains { matches($0[...]) }
        guard bearerMatches || tokenHeaders.contains(where: { matches($0[...]) }) else {
            throw ControlTokenRefusal(message: "the control token does not match", invalid: true)
        }
        if bearerMatches {
            var kept = HTTPHeaders()
            for field in request.headers where !(field.name.lowercased() == "authorization"
                                                 && Namespace.bearerToken(fromHeader: field.value).map { matches($0[...]) } == true) {
                kept.add(name: field.name, value: field.value)
            }
            request.headers = kept
        }
    }

    /// Compares in time that depends only on the expected token's length, not on where the texts differ.
    private func matches(_ presented: Substring) -> Bool {
        let given = Array(presented.drop { $0 == " " }.utf8)
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}

/// 401 in the control API's error format (DefaultErrorRenderer), with the challenge RFC 6750 §3 asks for.
struct ControlTokenRefusal: HTTPResponseError {
    var message: String
    /// A token was sent but is wrong: `error="invalid_token"`.
    var invalid: Bool

    func response(for request: HTTPRequest) -> HTTPResponse {
        var response = DefaultErrorRenderer().render(HTTPError(.unauthorized, message), for: request)
        response.headers.set(name: "WWW-Authenticate",
                             value: #"Bearer realm="payment-sandbox control""# + (invalid ? #", error="invalid_token""# : ""))
        return response
    }
}
