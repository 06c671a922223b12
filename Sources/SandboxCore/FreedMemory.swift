// SPDX-License-Identifier: MIT
import Dispatch
import SandboxHTTP
#if canImport(Glibc)
import Glibc
#endif

/// After dropping many expired objects, hands the freed heap back to the system so the process's RSS
/// shrinks too (glibc keeps freed memory otherwise). glibc's `malloc_trim` is looked up at run time: the
/// Glibc module map does not declare it, and other C libraries (musl, Darwin) have no such call.
///
/// Trimming a heap of gigabytes takes a while and holds glibc's arena locks, so it never runs on the
/// caller's thread (an event loop, inside a store's lock): it runs on a background queue, at most once
/// every ``minimumInterval``. A request while one is scheduled is covered by it; a request during the
/// pause after a trim schedules one for the end of the pause. The heap is the process's, so the
/// schedule is too.
package enum FreedMemory {
    package static let minimumInterval: Duration = .seconds(2)

    /// Whether a trim is scheduled and has not started yet.
    private static let scheduled = Locked<Bool>(false)
    /// Uptime nanoseconds at which the last trim finished; 0 before the first.
    private static let lastTrim = Locked<UInt64>(0)
    /// Serial: a trim never overlaps another.
    private static let queue = DispatchQueue(label: "payment-sandbox.freed-memory", qos: .utility)

    package static func returnToSystem() {
        #if canImport(Glibc)
        guard scheduled.withLock({ scheduled in defer { scheduled = true }; return !scheduled }) else { return }
        let interval = UInt64(minimumInterval.components.seconds) * 1_000_000_000
        let last = lastTrim.withLock { $0 }
        let earliest = last == 0 ? 0 : last &+ interval
        let now = DispatchTime.now().uptimeNanoseconds
        let start = earliest > now ? DispatchTime(uptimeNanoseconds: earliest) : DispatchTime.now()
        queue.asyncAfter(deadline: start) {
            scheduled.withLock { $0 = false }  // later requests schedule the next trim
            typealias Trim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                _ = unsafeBitCast(symbol, to: Trim.self)(0)
            }
            lastTrim.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        }
        #endif
    }
}
