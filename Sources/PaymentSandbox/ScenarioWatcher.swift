// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Polls the scenario directories and reloads when a file was added, removed or changed (size or
/// modification time). Polling works the same in containers with bind mounts, where file events often
/// do not arrive. A set that became invalid leaves the last good one in place; the log says why.
/// The walk and the reload run on the engine's file queue (``ScenarioEngine/onFileQueue(_:)``), not on the
/// cooperative pool that runs the async handlers; the task only waits.
enum ScenarioWatcher {
    static func start(_ engine: ScenarioEngine, every interval: Duration, logger: (any HTTPServerLogger)?) -> Task<Void, Never> {
        // Taken now, not in the task: a file changed right after start() must differ from it.
        let initial = fingerprint(engine.directories)
        return Task.detached(priority: .background) {
            var last = initial
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                let seen = last
                let (current, outcome) = await engine.onFileQueue { () -> ([String], Result<Int, ScenarioLoadFailure>?) in
                    let current = fingerprint(engine.directories)
                    return (current, current == seen ? nil : engine.reload())
                }
                last = current
                switch outcome {
                case nil:
                    continue
                case .success(let count):
                    logger?.log(.info, "scenario files changed: \(count) scenarios loaded")
                case .failure(let failure):
                    logger?.log(.error, "scenario files changed but are invalid; keeping the previous set:\n\(failure)")
                }
            }
        }
    }

    /// Path, size and modification time of every scenario file, and the problems of the walk (a missing
    /// directory, a symbolic-link loop, a FIFO or device named `*.json`), so either appearing or going away
    /// triggers a reload. The walk enters each directory once (``ScenarioLibrary/scan(_:)``): links cannot make
    /// it explode, and opens nothing but directories. Never inlined: scripts/bench/instructions.py finds the scans by
    /// this function's name and subtracts them (they run by the clock, not per request).
    @inline(never)
    static func fingerprint(_ directories: [URL]) -> [String] {
        let (files, problems) = ScenarioLibrary.scan(directories)
        return problems.map { "problem:\($0)" } + files.map { "\($0.url.path)|\(statFingerprint($0.url.path))" }
    }

    /// Size and modification time from stat(2). Not FileManager.attributesOfItem (nor URL resource values,
    /// built on it in swift-corelibs-foundation): it also resolves the owner's user and group names,
    /// reading /etc/passwd and /etc/group for every file, every second.
    static func statFingerprint(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "missing" }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return "\(info.st_size)|\(modified.tv_sec).\(modified.tv_nsec)"
    }
}
