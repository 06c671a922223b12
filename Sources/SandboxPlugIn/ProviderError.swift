// SPDX-License-Identifier: MIT

/// A provider's error (an error envelope, an RFC 7807 problem): its answer carries ids (a correlation id, a problem
/// instance) from the sandbox's injected ``IDGenerator``. The providers' error formats (``ProviderErrorFormat``)
/// hold that generator and render errors through ``IDGenerator/answer(_:for:)``.
package protocol ProviderError: HTTPResponseError {
    func response(for request: HTTPRequest, ids: any IDGenerator) -> HTTPResponse
}

extension ProviderError {
    /// Outside a sandbox's routes (an error rendered on its own): random ids.
    package func response(for request: HTTPRequest) -> HTTPResponse { response(for: request, ids: RandomIDGenerator.shared) }
}

extension IDGenerator {
    /// The answer to `error`: a ``ProviderError``'s with ids from this generator, any other error's own.
    package func answer(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse {
        (error as? any ProviderError)?.response(for: request, ids: self) ?? error.response(for: request)
    }
}
