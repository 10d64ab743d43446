#ifndef FUNNEL_CZLIB_SHIM_H
#define FUNNEL_CZLIB_SHIM_H
#include <zlib.h>

// Swift cannot call the inflateInit2/deflateInit2 macros; these wrap them.
static inline int funnel_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
static inline int funnel_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
