#ifndef FUNNEL_CDEFLATE_SHIM_H
#define FUNNEL_CDEFLATE_SHIM_H
// libdeflate: whole-buffer gzip decompression and compression. ByteStream decompresses each
// gzip member that fits its buffers with it; LineWriter compresses each member it writes.
#include <libdeflate.h>
#endif
