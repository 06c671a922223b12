// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox
@testable import SandboxCore

/// A provider only declares: making it, reading its declarations and adding its routes change no router setting
/// and no journal; what it declares takes effect once applied (as PaymentSandbox applies it).
@Suite struct KlarnaProviderTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    func provider(_ journal: Journal) -> KlarnaProvider {
        KlarnaProvider(context: SandboxProviderContext(registry: registry, ids: SequentialIDGenerator(), journal: journal,
                                                       scenarios: ScenarioEngine(library: ScenarioLibrary(scenarios: []))))
    }

    func notFound(_ router: Router) async throws -> [String: Any] {
        let request = try HTTPRequest(method: .get, target: "/payments/v1/nothing-here", headers: ["Host": "sandbox.test"])
        let response = try #require(await router.respond(to: request).response)
        #expect(response.status == .notFound)
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func addingRoutes_SetsNoErrorFormat_TheDeclaredPrefixesDo() async throws {
        let provider = provider(Journal(capacity: 10, registry: registry))
        var router = Router()
        provider.addRoutes(to: &router)
        #expect(try await notFound(router)["error_code"] == nil, "the default renderer's body, not Klarna's envelope")
        for prefix in provider.pathPrefixes { router.setErrorRenderer(prefix.errors, forPathPrefix: prefix.prefix) }
        #expect(try await notFound(router)["error_code"] as? String == "NOT_FOUND")
    }

    @Test func declaring_LeavesTheJournalAlone_UntilApplied() throws {
        let journal = Journal(capacity: 10, registry: registry)
        let provider = provider(journal)
        var router = Router()
        provider.addRoutes(to: &router)
        _ = (provider.pathPrefixes, provider.states, provider.journaledSandboxPrefixes)
        #expect(!journal.isJournaled("/__sandbox/klarna/hpp/sessions/s/pay"))
        for prefix in provider.journaledSandboxPrefixes { journal.journal(sandboxPathPrefix: prefix) }
        #expect(journal.isJournaled("/__sandbox/klarna/hpp/sessions/s/pay"))
        #expect(!journal.isJournaled("/__sandbox/health"))
        #expect(provider.states.map(\.stateName) == ["klarna_payments", "klarna_hpp", "klarna_ordermanagement"])
    }
}
