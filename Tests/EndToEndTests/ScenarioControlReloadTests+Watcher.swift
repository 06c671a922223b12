// SPDX-License-Identifier: MIT
// The scenario file watcher, which PaymentSandbox.start() starts: on a listening sandbox; the reload tests run in-process.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

extension ScenarioControlReloadTests {
    @Test("with scenarioWatchInterval 100 ms a changed file is picked up without calling reload; an invalid one is not")
    func watch() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("flip.json", Self.rejecting)
            try await withScenarioSandbox(bundled: false, extra: [directory.url], watch: .milliseconds(100)) { _, server in
                let client = KlarnaClient(server, namespace: uniqueNamespace("watch"))
                expectKlarnaError(try await Self.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])

                /// Polls GET /__sandbox/scenarios for up to 30 s (a loaded machine delays the watcher) until `done` holds.
                func eventually(_ what: String, _ done: ([String: Any]) -> Bool) async throws {
                    let deadline = ContinuousClock.now + .seconds(30)
                    var last: [String: Any] = [:]
                    while ContinuousClock.now < deadline {
                        last = try await client.scenarioList()
                        if done(last) { return }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    Issue.record("not within 30 s: \(what); last listing: \(last)")
                }
                func description(_ list: [String: Any]) -> String? {
                    (list["scenarios"] as? [[String: Any]])?.first?["description"] as? String
                }

                // Let the watcher poll a few times before the files change (it fingerprints them in start()).
                try await Task.sleep(for: .milliseconds(300))
                try directory.write("flip.json", Self.pending)
                try await eventually("the changed description") { description($0) == "Create order is pending, after the change." }
                ScenarioExpect.order(try await Self.orderUnder("e2e-flip", client), id: sequentialID(5),
                                     origin: server.baseURL.absoluteString, fraudStatus: "PENDING")

                try directory.write("flip.json", Self.typo)
                let problem = try Self.problem(directory, "flip.json", Self.typo, at: "\"rejekt\"", Self.typoMessage)
                try await eventually("the problem of the invalid file") { ($0["reload_problems"] as? [String]) == [problem] }
                #expect(description(try await client.scenarioList()) == "Create order is pending, after the change.")
                ScenarioExpect.order(try await Self.orderUnder("e2e-flip", client), id: sequentialID(8),
                                     origin: server.baseURL.absoluteString, fraudStatus: "PENDING")

                try directory.write("flip.json", Self.rejecting)
                try await eventually("the fixed file") { ($0["reload_problems"] as? [String]) == [] && description($0) == "Create order is rejected." }
                expectKlarnaError(try await Self.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])
            }
        }
    }

    /// Three links to `.` appearing in a watched directory made the old watcher walk 3^16 directories every
    /// second (a core busy, reload stalled). Now each link is a loop problem: the watcher reports it, POST reload
    /// answers at once with 422 and the problems, the previous set keeps playing, and removing the links fixes it.
    @Test("links to `.` appearing in a watched directory: the watcher and POST reload report each loop at once", .timeLimit(.minutes(5)))
    func linkLoopsInAWatchedDirectory() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("flip.json", Self.rejecting)
            try await withScenarioSandbox(bundled: false, extra: [directory.url], watch: .milliseconds(100)) { _, server in
                let client = KlarnaClient(server, namespace: uniqueNamespace("watch-links"))
                let names = ["l1", "l2", "l3"]
                for name in names {
                    try FileManager.default.createSymbolicLink(atPath: directory.url.appendingPathComponent(name).path, withDestinationPath: ".")
                }
                let problems = names.map { "\(directory.shown($0)): symbolic link loop: leads back to \(directory.url.path); not followed" }
                let deadline = ContinuousClock.now + .seconds(30)
                var reported: [String]? = nil
                while ContinuousClock.now < deadline {
                    reported = try await client.scenarioList()["reload_problems"] as? [String]
                    if reported == problems { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(reported == problems, "the watcher did not report the loops")
                expectJSON(try await client.reloadScenarios(), status: 422, """
                    {"error": "Unprocessable Content", "status": 422,
                     "message": "the scenario files have problems; the previous set stays loaded",
                     "problems": \(KlarnaExamples.jsonText(problems))}
                    """)
                expectKlarnaError(try await Self.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])

                for name in names { try directory.remove(name) }
                #expect(try await client.reloadScenarios().status == 200)
                #expect(try await client.scenarioList()["reload_problems"] as? [String] == [])
            }
        }
    }
}
