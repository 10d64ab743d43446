#ifndef FUNNEL_CZSTD_SHIM_H
#define FUNNEL_CZSTD_SHIM_H
#include <zstd.h>
#endif
