// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// `POST /__sandbox/snapshot`: writes the state file now (``SandboxStateFile``) and answers what it wrote:
/// `{"path": …, "bytes": N, "namespaces": N, "objects": N, "write": N}`. Requests that come while a write is underway
/// share the next one (the same `write`). 409 when no state file is configured (or it was not loaded), 500 when it
/// cannot be written. The write runs off the event loop.
struct SnapshotRoutes: Sendable {
    let stateFile: SandboxStateFile?

    func add(to router: inout Router) {
        let stateFile = self.stateFile
        router.add("POST /__sandbox/snapshot") { _ in
            guard let stateFile, stateFile.isLoaded else {
                throw HTTPError(.conflict, stateFile == nil
                    ? "no state file is configured: start the sandbox with --state-file PATH (PAYMENT_SANDBOX_STATE_FILE)"
                    : "the state file is not loaded yet: the sandbox has not started")
            }
            do {
                return .json(try await stateFile.write().json.data)
            } catch {
                throw HTTPError(.internalServerError, "\(error)")
            }
        }
    }
}
