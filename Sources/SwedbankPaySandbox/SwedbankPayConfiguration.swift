// SPDX-License-Identifier: MIT
import Foundation

/// Settings of the faked Swedbank Pay APIs.
public struct SwedbankPayConfiguration: Sendable {
    /// Which Bearer tokens the merchant API accepts: any non-empty one by default (swedbankpay-api.md §1.1).
    public var acceptedTokens: Set<String>?
    /// The base of Swedbank Pay's hrefs only (operations, the session API, pages), e.g. `https://sandbox.test:8443`,
    /// kept for compatibility: prefer `SandboxConfiguration.publicBaseURL` (`--public-url`), which every link of
    /// every provider follows and which wins over this one, as does the URL of a request sent in-process through
    /// `SandboxURLProtocol`. Used only when neither is set; nil: ``HTTPRequest/publicOrigin`` (a trusted proxy's
    /// forwarded headers, else `Host`).
    public var publicBaseURL: String?
    /// Currencies a payment order may use (inferred).
    public var currencies: Set<String> = ["SEK", "NOK", "DKK", "EUR", "USD"]
    /// The instruments a payment order offers, in this order, before `restrictedToInstruments` and the
    /// currency filter (Swish only for SEK) (inferred: the list of swedbankpay-api.md §1.3 plus the wallets).
    public var instruments: [String] = ["CreditCard", "Swish", "ApplePay", "GooglePay", "Invoice-PayExFinancingSe", "Trustly"]
    /// Callback retries, in seconds of the namespace's sandbox clock after the first call (swedbankpay-api.md
    /// §1.8: 30, 60, 360, 432, 864, 1265 s). The reference also says "up to 8 attempts in total" but lists only
    /// these six retries (7 calls): add an offset here for an 8th.
    public var callbackRetryOffsets: [TimeInterval] = [30, 60, 360, 432, 864, 1265]
    /// How long one callback call may take, in real seconds (inferred).
    public var callbackTimeout: TimeInterval = 5
    /// How often (real time) waiting callbacks look at a base clock other than the system's (a test's `ManualClock`);
    /// a move of a namespace's clock wakes them at once.
    public var callbackClockPollInterval: Duration = .milliseconds(50)
    /// Orders are forgotten this long after their last change on the namespace clock, so memory stays bounded.
    public var retentionAfterLastChange: TimeInterval = 48 * 3600

    public init() {}
}
