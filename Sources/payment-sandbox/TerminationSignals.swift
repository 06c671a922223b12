// SPDX-License-Identifier: MIT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT, taken synchronously: blocked in every thread, received with sigwait(2).
enum TerminationSignals {
    private static func set() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }

    /// Call first thing in main, before any thread is created. Also ignores SIGPIPE: a client that
    /// disappears must not kill the process (the server uses MSG_NOSIGNAL too).
    static func block() {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Blocks the calling thread until SIGTERM or SIGINT arrives (or is already pending); returns its name.
    /// Called on the main thread, which must never run `dispatchMain()`: that waits in sigsuspend with
    /// every signal unblocked, and a SIGTERM would then kill the process without a graceful stop.
    static func wait() -> String {
        var signals = set()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received == SIGINT ? "SIGINT" : "SIGTERM"
    }
}
