// SPDX-License-Identifier: MIT
// Process-wide descriptor and thread counts, and the open-file limit.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum ProcessResources {
    /// Entries in /proc/self/fd (the listing's own descriptor is closed again before counting ends).
    static func openDescriptorCount() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
    }

    /// Entries in /proc/self/task: the process's threads.
    static func threadCount() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.count
    }

    /// Thread names (/proc/self/task/N/comm), for failure messages.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.sorted()
    }

    /// What each descriptor points at, for failure messages.
    static func descriptorTargets() -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .map { $0.hasPrefix("socket:") ? "socket" : $0.hasPrefix("pipe:") ? "pipe" : $0 }.sorted()
    }

    /// Raises the soft open-file limit to at least `wanted` (up to the hard limit). Returns the soft limit now in force.
    @discardableResult
    static func raiseOpenFileLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
            _ = setrlimit(resource, &limit)
            _ = getrlimit(resource, &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}
