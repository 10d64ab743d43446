#ifndef FUNNEL_CDEFLATE_SHIM_H
#define FUNNEL_CDEFLATE_SHIM_H
// libdeflate: whole-buffer DEFLATE/gzip decompression, about twice as fast as zlib's
// streaming inflate. ByteStream uses it for each gzip member that fits its buffers.
#include <libdeflate.h>
#endif
