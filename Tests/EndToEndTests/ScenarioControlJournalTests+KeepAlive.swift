// SPDX-License-Identifier: MIT
// The journal's bound, filled over one keep-alive connection: on a socket; the rest of the suite runs in-process.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

extension ScenarioControlJournalTests {
    @Test("without limit the newest 100 are listed; the journal is bounded, counting what it dropped")
    func defaultLimitAndCapacity() async throws {
        try await withSandboxInstance({ configuration in
            deterministic(&configuration)
            configuration.scenarioDirectories = [ScenarioPaths.bundled]
            configuration.scenarioWatchInterval = nil
            configuration.journalCapacity = 150
        }) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("journal-bound"))
            // 160 reads of unknown sessions on one keep-alive connection.
            let raw = try await RawClient.connect(port: server.port)
            defer { raw.close() }
            for index in 0..<160 {
                try await raw.send(klarnaRequest("GET", "/payments/v1/sessions/missing-\(index)", port: server.port, headers: client.headers()))
                #expect(try await raw.readResponse().status == 404)
            }
            let response = try await client.get("/__sandbox/journal")
            let object = try response.jsonObject()
            let entries = try #require(object["entries"] as? [[String: Any]])
            #expect(entries.count == 100)
            #expect(entries.first?["path"] as? String == "/payments/v1/sessions/missing-60")
            #expect(entries.last?["path"] as? String == "/payments/v1/sessions/missing-159")
            #expect(object["capacity"] as? Int == 150)
            #expect(object["dropped"] as? Int == 10, "\(object["dropped"] ?? "nil")")
            let all = try await client.journal("limit=1000")
            #expect(all.count == 150 && all.first?["path"] as? String == "/payments/v1/sessions/missing-10")
        }
    }
}
