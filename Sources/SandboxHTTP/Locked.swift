// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: the lock box for state shared between threads.
///
/// Not `Synchronization.Mutex`: on Linux that is built on raw futexes, which ThreadSanitizer cannot see,
/// so every access under it is reported as a race; CI runs the tests under TSan and must stay quiet.
///
/// `@usableFromInline`: only so are a `package` type's `@inlinable` members inlined into other modules; without it they
/// call `withLock` unspecialized, looking its generic types up at run time on every call.
@usableFromInline
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // Visible to inlined code: `withLock` is inlined (and specialized) into its callers in other modules.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        #if canImport(Glibc)
        // Adaptive: a waiter spins briefly before sleeping in the kernel. Critical sections here last
        // microseconds, so two event loops meeting on one lock mostly never reach futex(2).
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        #else
        pthread_mutex_init(mutex, nil)
        #endif
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Keep it short; never await or block inside.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
