/* preload/guard.h - the recursion guard. While Paldron's own code runs in a
 * thread (resolving a path, judging, reporting), every wrapper called from
 * it goes straight to the real function. Thread-local, initial-exec (the
 * library is loaded at start-up; no allocation on first use). */
#ifndef PALDRON_PRELOAD_GUARD_H
#define PALDRON_PRELOAD_GUARD_H

#include <stdbool.h>

extern __thread int pd_guard_depth __attribute__((tls_model("initial-exec")));

/* True when Paldron code is already running in this thread. */
static inline bool pd_guard_busy(void)
{
    return pd_guard_depth != 0;
}

/* Enter Paldron code; returns the previous depth for pd_guard_leave. */
static inline int pd_guard_enter(void)
{
    return pd_guard_depth++;
}

static inline void pd_guard_leave(int previous)
{
    pd_guard_depth = previous;
}

#endif
