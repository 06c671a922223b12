// SPDX-License-Identifier: MIT
import Foundation

/// card.authenticate's 3-D Secure variants on a card attempt (SwedbankPayThreeDSVariants in the vocabulary): a
/// challenge as `challenge` is (swedbankpay-api.md §3.6 C), with one step done another way.
/// Codable: a card attempt keeps its variant in the state file (`--state-file`).
enum ThreeDSVariant: Sendable, Equatable, Codable {
    /// The 3DS method step's task href is "" (swedbankpay-api.md §3.8 sample 7 allows it).
    case emptyMethodURL
    /// The ACS page's first load answers after this long.
    case slowACS(Duration)
    /// The challenge answer is POSTed on instead of redirected with a GET.
    case cresPosted
    /// The payer closes the challenge; the ACS gives up this long (namespace clock) after its page was shown.
    case abandoned(after: Duration)

    init?(_ outcome: SwedbankPayOutcome) {
        switch outcome {
        case .challengeEmptyMethodURL: self = .emptyMethodURL
        case .challengeSlowACS(let delay): self = .slowACS(delay)
        case .challengeCresPosted: self = .cresPosted
        case .challengeAbandoned(let after): self = .abandoned(after: after)
        default: return nil
        }
    }
}

extension SwedbankPayPaymentSessionStore {
    /// The ACS page's load of a challenge: its session and card attempt, and how long a slow ACS takes (first load
    /// only, so the retry Android offers after its 10 s timeout answers at once). The first load also starts an
    /// abandoned challenge's time. nil when no session waits for this challenge.
    func showChallenge(_ acsTransID: String, _ call: Call) -> (token: String, attempt: CardAttempt, delay: Duration?)? {
        guard let token = token(ofChallenge: acsTransID) else { return nil }
        var shown: (attempt: CardAttempt, delay: Duration?)?
        _ = try? transition(token, rel: "sca-redirect", call, { step in
            guard case .threeDSChallenge(var card) = step.record.phase, card.acsTransID == acsTransID else { return }
            var delay: Duration?
            if !card.acsPageShown {
                card.acsPageShown = true
                switch card.variant {
                case .slowACS(let slow)?: delay = slow
                case .abandoned(let after)?: card.abandonAt = step.now.addingTimeInterval(Self.seconds(after))
                default: break
                }
                step.record.phase = .threeDSChallenge(card)
            }
            shown = (card, delay)
        }, render: { _ in () })
        if let shown { return (token, shown.attempt, shown.delay) }
        // An order that ended while its challenge was open: the page as before, without the variants' effects.
        return challenge(acsTransID).map { ($0.token, $0.attempt, nil) }
    }

    /// `challenge_cres_posted`: the session waits for a challenge whose answer is POSTed on.
    func postsChallengeAnswer(_ token: String, _ call: Call) -> Bool {
        var posted = false
        _ = try? transition(token, rel: "sca-redirect", call, { step in
            if case .threeDSChallenge(let card) = step.record.phase, card.variant == .cresPosted { posted = true }
        }, render: { _ in () })
        return posted
    }

    /// An abandoned challenge whose time has come: the attempt fails and the session is idle with the problem, so a
    /// new attempt may start (swedbankpay-api.md §3.6 H). Answers whether the order changed.
    func settleAbandonedChallenge(_ record: inout PaymentSessionRecord, view: SwedbankPayOrderView, now: Date) -> Bool {
        guard view.status == .initialized, case .threeDSChallenge(let card) = record.phase, let abandonAt = card.abandonAt,
              now >= abandonAt else { return false }
        fail(&record, card.attempt, Self.challengeAbandoned)
        return true
    }

    /// The payer left the challenge: `3dsecureusercancelled` 403 (swedbankpay-api.md §2.2 card types), the attempt
    /// Aborted like the ACS's Cancel; the ACS's reason is EMV 3-D Secure's challengeCancel 04, timed out at the ACS (inferred).
    static let challengeAbandoned = AttemptFailure(
        problem: SwedbankPayProblem("creditcard/3dsecureusercancelled", status: .forbidden, title: "Operation failed", detail: authenticationDetail),
        originalDetail: "CHALLENGE_ABANDONED-challengeCancel 04, timed out at the ACS", status: .aborted)
}

extension PaymentSessionDocument {
    /// Where an ended payment goes on the top-level page: completeUrl when paid, cancelUrl when aborted (as
    /// SwedbankPayCheckoutRoutes.outcome redirects).
    var merchantRedirect: String? {
        switch view.status {
        case .paid, .cancelled, .reversed: view.urls.completeUrl
        case .aborted: nonEmpty(view.urls.cancelUrl)
        case .initialized, .failed: nil
        }
    }
}
