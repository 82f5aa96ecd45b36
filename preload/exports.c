/* preload/exports.c - the exported symbols: one line each, generated from
 * symbols.def, calling the implementation in wrap_<gate>.c. The variadic
 * ones (open, openat, execl ...) are written in their wrap_ file. Nothing
 * else in this library is visible (exports.map, -fvisibility=hidden). */
#include "preload/symtab.h"

#define PD_EXPORT __attribute__((visibility("default")))

#define PD_SYM(ret, name, params, args, gate)                                                      \
    PD_EXPORT ret name params                                                                      \
    {                                                                                              \
        return pdw_##name args;                                                                    \
    }
#define PD_SYM_VA(ret, name, params, gate)
#include "preload/symbols.def"
