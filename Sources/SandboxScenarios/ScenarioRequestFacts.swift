// SPDX-License-Identifier: MIT

/// What a scenario decision reads of its request besides the subject: the headers (the `Sandbox-Scenario` header,
/// header conditions), and the path a journaled decision names. A store that decides within a call takes these
/// rather than the request (``ScenarioEngine/decide(_:facts:namespace:subject:object:sticky:)``).
package struct ScenarioRequestFacts: Sendable {
    package let headers: HTTPHeaders
    package let path: String

    package init(headers: HTTPHeaders, path: String) {
        self.headers = headers
        self.path = path
    }

    package init(_ request: HTTPRequest) { self.init(headers: request.headers, path: request.path) }
}
