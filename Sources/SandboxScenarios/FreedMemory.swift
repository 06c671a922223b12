// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// After dropping many expired objects, hands the freed heap back to the system so the process's RSS
/// shrinks too (glibc keeps freed memory otherwise). glibc's `malloc_trim` is looked up at run time: the
/// Glibc module map does not declare it, and other C libraries (musl, Darwin) have no such call.
public enum FreedMemory {
    public static func returnToSystem() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
