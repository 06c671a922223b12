// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// The control API's OpenAPI 3.1 document, served at `GET /__sandbox/openapi.json` and kept in the repository as
/// docs/control-api.openapi.json (`payment-sandbox openapi` writes it): the sandbox's own routes (``core``) and each
/// provider's (``SandboxProvider/controlAPIPaths``).
enum ControlAPIDocument {
    /// ``json(providers:)``, made once per set of providers (on first use: most sandboxes are never asked).
    static func cached(providers: [any SandboxProvider.Type]) -> Data {
        let key = providers.map { ObjectIdentifier($0) }
        if let made = made.withLock({ $0[key] }) { return made }
        let document = json(providers: providers)
        made.withLock { $0[key] = document }
        return document
    }

    private static let made = Locked<[[ObjectIdentifier]: Data]>([:])

    /// The document for `providers`, keys sorted, pretty-printed.
    static func json(providers: [any SandboxProvider.Type]) -> Data {
        guard var document = object(core) else { preconditionFailure("ControlAPIDocument.core is not an OpenAPI document") }
        for provider in providers {
            guard let own = object(provider.controlAPIPaths) else {
                preconditionFailure("\(provider).controlAPIPaths is not a JSON object")
            }
            merge(own, into: &document)
        }
        do {
            return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            preconditionFailure("the control API document cannot be written: \(error)")
        }
    }

    /// A provider's `paths` added to the document's, and each section of its `components` (schemas, ...) to the same
    /// section of the document's.
    private static func merge(_ part: [String: Any], into document: inout [String: Any]) {
        let paths = part["paths"] as? [String: Any] ?? [:]
        document["paths"] = (document["paths"] as? [String: Any] ?? [:]).merging(paths) { _, theirs in theirs }
        var components = document["components"] as? [String: Any] ?? [:]
        for (section, entries) in part["components"] as? [String: Any] ?? [:] {
            let own = entries as? [String: Any] ?? [:]
            components[section] = (components[section] as? [String: Any] ?? [:]).merging(own) { _, theirs in theirs }
        }
        document["components"] = components
    }

    private static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}

extension PaymentSandbox {
    /// The control API's OpenAPI document for the default providers (``plugIns``): `payment-sandbox openapi`.
    package static var controlAPIDocument: Data { ControlAPIDocument.cached(providers: plugIns.map(\.kind)) }
}
