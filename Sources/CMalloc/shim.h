#ifndef FUNNEL_CMALLOC_SHIM_H
#define FUNNEL_CMALLOC_SHIM_H
// glibc's allocator knobs (malloc.h is not part of Swift's Glibc module). Linux only: the
// Swift code imports this module behind #if os(Linux).
#include <malloc.h>
#endif
