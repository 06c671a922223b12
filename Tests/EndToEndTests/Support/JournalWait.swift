// SPDX-License-Identifier: MIT
import Foundation
import Testing

/// Waits until the journal holds `count` entries matching `query` (a pattern `GET /__sandbox/journal/wait` reads:
/// `method=CALLBACK`, `path_prefix=…`), sent with `headers` (the namespace's credentials). Nothing polls: each entry
/// is one held wait, `after` the last one found. A wait that times out (408: nothing within 25 s, as when parallel
/// tests keep a callback's task from running) is asked again, four times at most; then the test records an issue
/// with the 408's nearest misses and this returns false.
func waitForJournalEntries(_ server: RunningServer, headers: [(String, String)], _ query: String, count: Int,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bool {
    var after = 0, found = 0, timeouts = 0
    while found < count {
        let target = "/__sandbox/journal/wait?\(query)&after=\(after)&timeout=25"
        let response = try await server.exchange(klarnaRequest("GET", target, port: server.port, headers: headers), timeout: .seconds(40))
        if response.status == 408, timeouts < 4 {
            timeouts += 1
            continue
        }
        guard response.status == 200, let entry = try response.jsonObject()["entry"] as? [String: Any], let sequence = entry["sequence"] as? Int else {
            Issue.record("the journal never had \(count) entries for \(query): \(response)", sourceLocation: sourceLocation)
            return false
        }
        after = sequence
        found += 1
    }
    return true
}
