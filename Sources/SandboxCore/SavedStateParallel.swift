// SPDX-License-Identifier: MIT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the state file's jobs (a few hundred objects to encode or decode each) on a few threads and hands their
/// results over in the jobs' order, on the calling thread: a large sandbox's file is written and read at the speed of
/// the cores, in the order the file has, holding only a bounded window of results. The calling thread works too; the
/// others are threads of their own for the duration of one call (a write, a load), joined before it returns.
package enum SavedStateParallel {
    /// The threads a call uses: the cores, at most four (the work is memory-bound beyond that).
    package static var threads: Int { max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Lowers the calling thread's priority (nice 10; threads it starts inherit it): the state file's snapshot
    /// threads yield to the event loops. A thread cannot raise it again. (On Linux the nice value is the thread's:
    /// `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's only.)
    package static func yieldToOtherThreads() {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }

    /// Takes jobs from `next` (called under the runner's lock, one at a time, until it returns nil), runs each with
    /// `work` on any of `threads` threads, and calls `consume` with the results in the jobs' order on the calling
    /// thread. At most `window` results wait to be consumed. The first error (of `next`, `work` or `consume`, in the
    /// jobs' order where it can tell) stops the run: no job is started after it, and it is thrown once the running
    /// jobs ended.
    package static func run<Job, Output>(threads: Int = SavedStateParallel.threads, window: Int = 16,
                                         next: () throws -> Job?, work: (Job) throws -> Output,
                                         consume: (Output) throws -> Void) throws {
        try withoutActuallyEscaping(next) { next in
            try withoutActuallyEscaping(work) { work in
                let run = Run(next: next, work: work, window: max(1, window))
                var helpers: [pthread_t] = []
                for _ in 1..<max(1, threads) {
                    let box = Unmanaged.passRetained(HelperStart { run.helperLoop() })
                    var thread = pthread_t()
                    guard pthread_create(&thread, nil, { context in
                        let start = Unmanaged<HelperStart>.fromOpaque(context!).takeRetainedValue()
                        start.body()
                        return nil
                    }, box.toOpaque()) == 0 else {
                        box.release()
                        break  // fewer threads: the caller still works
                    }
                    helpers.append(thread)
                }
                defer { for thread in helpers { pthread_join(thread, nil) } }
                try run.callerLoop(consume)
            }
        }
    }

    private final class HelperStart {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// The shared state of one run, behind a mutex with a condition variable (every change broadcasts).
    /// `@unchecked Sendable`: every field is read and written under `mutex` only; the jobs and outputs it hands
    /// between threads are each touched by one thread at a time.
    private final class Run<Job, Output>: @unchecked Sendable {
        let next: () throws -> Job?
        let work: (Job) throws -> Output
        let window: Int
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var issued = 0
        var consumed = 0
        /// Jobs taken whose result is not stored yet.
        var running = 0
        var exhausted = false
        var failure: (index: Int, error: any Error)?
        var results: [Int: Result<Output, any Error>] = [:]

        init(next: @escaping () throws -> Job?, work: @escaping (Job) throws -> Output, window: Int) {
            self.next = next
            self.work = work
            self.window = window
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(changed, nil)
        }

        deinit {
            pthread_cond_destroy(changed)
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
            changed.deallocate()
        }

        /// Under the mutex: a job to run when the window has room, with its index; nil when there is none now.
        func take() -> (Int, Job)? {
            guard failure == nil, !exhausted, issued - consumed < window else { return nil }
            do {
                guard let job = try next() else {
                    exhausted = true
                    pthread_cond_broadcast(changed)
                    return nil
                }
                issued += 1
                running += 1
                return (issued - 1, job)
            } catch {
                fail(issued, error)
                return nil
            }
        }

        func fail(_ index: Int, _ error: any Error) {
            if failure == nil || index < failure!.index { failure = (index, error) }
            exhausted = true
            pthread_cond_broadcast(changed)
        }

        /// Runs a job outside the mutex (it is held on entry and on return).
        func perform(_ index: Int, _ job: Job) {
            pthread_mutex_unlock(mutex)
            let result = Result { try work(job) }
            pthread_mutex_lock(mutex)
            results[index] = result
            running -= 1
            pthread_cond_broadcast(changed)
        }

        func helperLoop() {
            pthread_mutex_lock(mutex)
            while true {
                if let (index, job) = take() {
                    perform(index, job)
                } else if exhausted || failure != nil {
                    break
                } else {
                    pthread_cond_wait(changed, mutex)
                }
            }
            pthread_mutex_unlock(mutex)
        }

        func callerLoop(_ consume: (Output) throws -> Void) throws {
            pthread_mutex_lock(mutex)
            while failure == nil {
                if let result = results.removeValue(forKey: consumed) {
                    let index = consumed
                    pthread_mutex_unlock(mutex)
                    var error: (any Error)?
                    do { try consume(try result.get()) } catch let thrown { error = thrown }
                    pthread_mutex_lock(mutex)
                    if let error {
                        fail(index, error)
                        break
                    }
                    consumed += 1
                    pthread_cond_broadcast(changed)
                } else if let (index, job) = take() {
                    perform(index, job)
                } else if exhausted && consumed == issued {
                    break
                } else {
                    pthread_cond_wait(changed, mutex)
                }
            }
            // Wait for the jobs still running (their results are dropped) before the caller's closures go away.
            while running > 0 { pthread_cond_wait(changed, mutex) }
            let failure = self.failure
            pthread_mutex_unlock(mutex)
            if let failure { throw failure.error }
        }
    }
}
