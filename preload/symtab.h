/* preload/symtab.h - the real libc functions behind every wrapper, and the
 * hand-written implementations (pdw_<name>) the exported wrappers call.
 * Both are generated from symbols.def. */
#ifndef PALDRON_PRELOAD_SYMTAB_H
#define PALDRON_PRELOAD_SYMTAB_H

#include "preload/libc_decl.h"

/* One pointer per wrapped function, bound with dlsym(RTLD_NEXT) on first use. */
struct pd_real {
/* ret is a type and params a parameter list: neither takes parentheses */
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define PD_SYM(ret, name, params, args, gate) ret(*name) params;
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define PD_SYM_VA(ret, name, params, gate) ret(*name) params;
#include "preload/symbols.def"
};

extern struct pd_real pd_real;

/* Bind every real function (once per process image; cheap afterwards). */
void pd_bind(void);

/* The real function is missing: say so on stderr, set errno to ENOSYS.
 * Wrappers then fail the call (fail closed) instead of crashing. */
void pd_missing(const char *name);

#define PD_SYM(ret, name, params, args, gate) ret pdw_##name params;
#define PD_SYM_VA(ret, name, params, gate)
#include "preload/symbols.def"

#endif
