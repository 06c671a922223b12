// SPDX-License-Identifier: MIT
// Heap statistics of the C library for memory-per-flow (glibc's <malloc.h> is not in Swift's Glibc module).
#pragma once
#include <stddef.h>

/// Bytes malloc has handed out and not got back (glibc: mallinfo2 uordblks + hblkhd), or -1 when not known.
long heap_statistics_in_use(void);

/// Makes every thread allocate from one arena, so that heap_statistics_in_use (which reads the main arena) counts
/// them all; call before any thread starts. No-op where not glibc.
void heap_statistics_use_one_arena(void);
