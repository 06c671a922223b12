// SPDX-License-Identifier: MIT
#include "HeapStatistics.h"
#if defined(__linux__)
#include <malloc.h>  // defines __GLIBC__ with glibc (musl has no mallinfo2)
#endif

long heap_statistics_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long)(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

void heap_statistics_use_one_arena(void) {
#if defined(__GLIBC__)
    mallopt(M_ARENA_MAX, 1);
#endif
}
