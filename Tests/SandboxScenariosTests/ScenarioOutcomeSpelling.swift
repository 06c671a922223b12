// SPDX-License-Identifier: MIT
import KlarnaSandbox
import PaymentSandbox
import SwedbankPaySandbox
import SandboxScenarios

// The providers' outcomes as these tests spell them: each is the provider's typed value inside the engine's outcome.
extension ScenarioOutcome {
    static func reject(reason: String?) -> ScenarioOutcome { .klarna(.reject(reason: reason)) }
    static let cancel = ScenarioOutcome.klarna(.cancel)
    static let finalizeRequired = ScenarioOutcome.klarna(.finalizeRequired)
    static let showFormFalse = ScenarioOutcome.klarna(.showFormFalse)
    static let invalidClientToken = ScenarioOutcome.klarna(.invalidClientToken)
    static let expireToken = ScenarioOutcome.klarna(.expireToken)
    static func mismatchedFields(_ fields: [String]) -> ScenarioOutcome { .klarna(.mismatchedFields(fields)) }
    static func cartChanged(expected: Int?, actual: Int?) -> ScenarioOutcome { .klarna(.cartChanged(expected: expected, actual: actual)) }
    static let rejected = ScenarioOutcome.klarna(.rejected)
    static let fraudPending = ScenarioOutcome.klarna(.fraudPending)
    static let fraudRejected = ScenarioOutcome.klarna(.fraudRejected)
    static let refused = ScenarioOutcome.klarna(.refused)
    static let swishDeclined = ScenarioOutcome.swedbankPay(.swishDeclined)
    static let swishTimeout = ScenarioOutcome.swedbankPay(.swishTimeout)
    static let bankidCancelled = ScenarioOutcome.swedbankPay(.bankidCancelled)
    static let clientAppLaunchFailed = ScenarioOutcome.swedbankPay(.clientAppLaunchFailed)
    static let frictionless = ScenarioOutcome.swedbankPay(.frictionless)
    static let challenge = ScenarioOutcome.swedbankPay(.challenge)
    static let threeDSDeclined = ScenarioOutcome.swedbankPay(.threeDSDeclined)
    static let cardDeclined = ScenarioOutcome.swedbankPay(.cardDeclined)
    static let insufficientFunds = ScenarioOutcome.swedbankPay(.insufficientFunds)
    static let cardExpired = ScenarioOutcome.swedbankPay(.cardExpired)
    static let sessionEndReached = ScenarioOutcome.swedbankPay(.sessionEndReached)
    static let notAllowed = ScenarioOutcome.swedbankPay(.notAllowed)
    static let payerAborts = ScenarioOutcome.swedbankPay(.payerAborts)
    static func failAttempt(_ failure: SwedbankPayAttemptFailure) -> ScenarioOutcome { .swedbankPay(.failAttempt(failure)) }
}
