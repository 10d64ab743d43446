#ifndef FUNNEL_CSQLITE_SHIM_H
#define FUNNEL_CSQLITE_SHIM_H
#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call: these are the two calls funnel makes,
// each returning SQLite's result code (SQLITE_OK is 0).
static inline int funnel_sqlite3_config_uri(int on) {
    return sqlite3_config(SQLITE_CONFIG_URI, on);
}
static inline int funnel_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
#endif
