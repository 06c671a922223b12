// SPDX-License-Identifier: MIT
import Foundation

/// Settings of the faked Swedbank Pay APIs.
public struct SwedbankPayConfiguration: Sendable {
    /// Which Bearer tokens the merchant API accepts: any non-empty one by default (swedbankpay-api.md §1.1).
    public var acceptedTokens: Set<String>?
    /// The base of every href the sandbox hands out (operations, the session API, pages), e.g.
    /// `https://sandbox.test:8443`. nil: from `X-Forwarded-Proto` / `X-Forwarded-Host`, else `Host`.
    public var publicBaseURL: String?

    public init() {}
}
