#ifndef FUNNEL_CISAL_SHIM_H
#define FUNNEL_CISAL_SHIM_H
// Intel ISA-L's igzip: streaming gzip inflate. ByteStream checks and streams each gzip member
// too large to decompress whole with it (zlib names the fault of a member it rejects).
#include <isa-l/igzip_lib.h>
#endif
