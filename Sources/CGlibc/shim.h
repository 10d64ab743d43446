#ifndef FUNNEL_CGLIBC_SHIM_H
#define FUNNEL_CGLIBC_SHIM_H
// The glibc calls Swift's Glibc module leaves out: the allocator's knobs (malloc.h) and
// starting a file's write-out. Linux only: the Swift code imports this module behind
// #if os(Linux).
#include <malloc.h>
#include <unistd.h>
#include <sys/syscall.h>

// Starts the write-out of every dirty page of `fd`'s file and returns without waiting for it:
// sync_file_range with SYNC_FILE_RANGE_WRITE (2), which glibc declares only for _GNU_SOURCE.
static inline int funnel_start_writeout(int fd) { return (int)syscall(SYS_sync_file_range, fd, 0L, 0L, 2U); }
#endif
