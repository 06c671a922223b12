// SPDX-License-Identifier: MIT
import Foundation
import PaymentSandbox
import Testing
@testable import SandboxScenarios
@testable import SandboxPlugIn

/// The one path from a scenario to an answer (issue 21): ``ScenarioPlayer/decide(_:_:in:subject:object:sticky:)`` gives
/// every decision as a value (outcome, delay, whether the answer is dropped, the journal's note with the namespace),
/// ``ScenarioPlayer/settle(_:_:reply:)`` and ``ScenarioPlayer/answer(_:_:)`` apply it, and the journal files a call
/// under the namespace its note names.
@Suite struct ScenarioPlayerDecisionTests {
    /// Answers as a test sees it: the status is what the format chose.
    struct PlainFormat: ProviderErrorFormat {
        func render(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse { error.response(for: request) }
        func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: error.status) }
        func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: .badRequest) }
        func error(status: Int, for request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: HTTPStatus(code: status)) }
        func internalError(for request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: .internalServerError) }
    }

    static let operation = ScenarioOperation.klarnaPaymentsAuthorize

    static func player() throws -> ScenarioPlayer<PlainFormat> {
        let scenario = try Scenario.parse("""
        {"name": "steps", "description": "t", "rules": [{"operation": "\(operation.rawValue)", "sequence": [
          {"outcome": "commit_then_drop", "delay_ms": 250}, {"outcome": "http_error", "status": 503}, {"outcome": "approve"}]}]}
        """, file: "steps.json", vocabulary: .sandbox).get()
        return ScenarioPlayer(engine: ScenarioEngine(library: ScenarioLibrary(scenarios: [scenario]), vocabulary: .sandbox), format: PlainFormat())
    }

    static func request(scenario: String? = "steps") throws -> HTTPRequest {
        try HTTPRequest(method: .post, target: "/pages/p1/pay", headers: scenario.map { ["Sandbox-Scenario": $0] } ?? [:])
    }

    @Test func decide_GivesOutcomeDelayDropAndNote_AsValues() throws {
        let play = try Self.player(), owner = Namespace("owner")
        let first = try play.decide(Self.operation, Self.request(), in: owner, subject: .some(nil), object: "p1", sticky: nil)
        #expect(first.outcome == .commitThenDrop && first.committed == .approve && first.dropAfterCommit)
        #expect(first.delay == .milliseconds(250) && first.matchedRule && !first.answersCall)
        #expect(first.note.namespace == owner && first.note.scenario == "steps" && first.note.operation == Self.operation)
        let second = try play.decide(Self.operation, Self.request(), in: owner, subject: .some(nil), object: "p1", sticky: nil)
        #expect(second.outcome == .httpError(status: 503, body: nil, headers: [:]) && second.answersCall && !second.dropAfterCommit)
        let other = try play.decide(Self.operation, Self.request(), in: Namespace("other"), subject: .some(nil), object: "p1", sticky: nil)
        #expect(other.dropAfterCommit, "sequences count per namespace")
        #expect(throws: ScenarioEngine.UnknownScenario.self) {
            try play.decide(Self.operation, Self.request(scenario: "nope"), in: owner, subject: .some(nil), object: "p1", sticky: nil)
        }
    }

    @Test func settle_ReplacesDropsAndDelays_TheReplyOfACallThatTookEffect() throws {
        let play = try Self.player(), request = try Self.request()
        let dropping = try play.decide(Self.operation, request, in: .default, subject: .some(nil), object: "p2", sticky: nil)
        let answering = try play.decide(Self.operation, request, in: .default, subject: .some(nil), object: "p2", sticky: nil)
        let approving = try play.decide(Self.operation, request, in: .default, subject: .some(nil), object: "p2", sticky: nil)
        let done = HTTPReply(HTTPResponse(status: .ok), note: "done")
        guard case .later = play.settle(dropping, request, reply: done).answer else { Issue.record("delay_ms: the answer waits"); return }
        let replaced = play.settle(answering, request, reply: done)
        guard case .response(let response) = replaced.answer else { Issue.record("http_error: an answer now"); return }
        #expect(response.status.code == 503 && replaced.note as? String == "done", "the player's answer, the call's note")
        guard case .response(let kept) = play.settle(approving, request, reply: done).answer else { Issue.record("approve: the reply"); return }
        #expect(kept.status.code == 200)
        #expect(play.answer(approving, request) == nil)
        guard case .response(let answer)? = play.answer(answering, request)?.answer else { Issue.record("http_error: answered"); return }
        #expect(answer.status.code == 503)
    }

    @Test func journal_FilesACall_UnderTheNamespaceItsDecisionNames() throws {
        let play = try Self.player(), journal = Journal(capacity: 10, registry: NamespaceRegistry(clock: ManualClock()))
        let request = try Self.request()   // a browser's call: no namespace of its own
        let decided = try play.decide(Self.operation, request, in: Namespace("owner"), subject: .some(nil), object: "p3", sticky: nil)
        journal.exchangeCompleted(request, HTTPResponse(status: .ok), note: decided.note, durationSeconds: 0)
        journal.exchangeCompleted(request, HTTPResponse(status: .ok), note: NamespaceNote(Namespace("owner"), "page opened"), durationSeconds: 0)
        journal.exchangeCompleted(request, HTTPResponse(status: .ok), note: "no namespace named", durationSeconds: 0)
        let owned = journal.entries(Namespace("owner"), .init())
        #expect(owned.map(\.note) == ["scenario=steps \(Self.operation.rawValue): commit_then_drop (rule 0, step 0), delay 0.25 seconds", "page opened"])
        #expect(journal.entries(.default, .init()).map(\.note) == ["no namespace named"])
    }
}
