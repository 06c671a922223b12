// SPDX-License-Identifier: MIT
import Foundation

/// Runs `body` on a thread of its own and waits for it: a test of seconds of synchronous work (thousands of
/// callbacks, a 1 MB document) must not hold a thread of the cooperative pool, which every other test of the
/// process (and the live servers' clients) needs; two such tests once held both for seconds (13 s under
/// ThreadSanitizer) and the servers of other tests closed their idle connections meanwhile.
func onOwnThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = name
        thread.start()
    }
}
