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

    /// A signal taken by ``wait()``.
    struct Received {
        var number: Int32
        var name: String { number == SIGINT ? "SIGINT" : "SIGTERM" }
        /// What a shell reports for a process the signal ended: 128 + its number (143 for SIGTERM, 130 for SIGINT).
        var exitStatus: Int32 { 128 + number }
    }

    /// Blocks the calling thread until SIGTERM or SIGINT arrives (or is already pending).
    /// Called on the main thread, which must never run `dispatchMain()`: that waits in sigsuspend with
    /// every signal unblocked, and a SIGTERM would then kill the process without a graceful stop.
    static func wait() -> Received {
        var signals = set()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return Received(number: received)
    }

    /// Runs `work` (which exits the process when done) on a thread of its own while the calling thread waits for
    /// SIGTERM or SIGINT: a signal ends the process at once with ``Received/exitStatus``, whatever `work` waits for.
    static func exitOnSignal(during command: String, _ work: @escaping @Sendable () -> Void) -> Never {
        let thread = Thread(block: work)
        thread.name = "payment-sandbox-\(command)"
        thread.start()
        let signal = wait()
        FileHandle.standardError.write(Data("payment-sandbox: \(command): \(signal.name) received, stopping\n".utf8))
        exit(signal.exitStatus)
    }
}
