// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Starts the disk writes of a file being written as its pieces come, instead of leaving them all to the fsync at its
/// end: the disk works while the rest is encoded, and little waits in memory. On Linux through `sync_file_range(2)`
/// (its `SYNC_FILE_RANGE_WRITE` starts the writes of a range, `WAIT_BEFORE`/`WAIT_AFTER` wait for them): a piece's
/// writes are started when it is written, and waited for a few MiB later, so a write holds at most a few MiB not yet
/// on the disk (the kernel otherwise holds hundreds of MiB and then slows the writer down). The
/// fsync(2) at the end still makes the file durable; where `sync_file_range` is missing this does nothing.
struct StateFileWriteback {
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    /// glibc declares it only for _GNU_SOURCE, which the Swift module of the C library leaves out: found at run time.
    private static let syncFileRange: SyncFileRange? = {
        #if os(Linux)
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
        #else
        return nil
        #endif
    }()
    private static let write: UInt32 = 2, waitBefore: UInt32 = 1, waitAfter: UInt32 = 4
    /// How much may be on its way to the disk, not waited for: twice this, then waited for down to this.
    static let bytesAhead: Int64 = 4 << 20

    private let fd: Int32
    private var written: Int64 = 0
    /// Where the writes not waited for start.
    private var waited: Int64 = 0

    init(fd: Int32) { self.fd = fd }

    /// After `count` more bytes were written: starts their disk writes, and waits for the older ones once more than
    /// twice ``bytesAhead`` are underway.
    mutating func wrote(_ count: Int) {
        guard let syncFileRange = Self.syncFileRange, count > 0 else { return }
        _ = syncFileRange(fd, written, Int64(count), Self.write)
        written += Int64(count)
        guard written - waited > 2 * Self.bytesAhead else { return }
        let end = written - Self.bytesAhead
        _ = syncFileRange(fd, waited, end - waited, Self.waitBefore | Self.write | Self.waitAfter)
        waited = end
    }
}
