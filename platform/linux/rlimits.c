/* platform/linux/rlimits.c - the resource-limit layer. A requested limit
 * becomes both soft and hard limit, clamped to the inherited hard limit so
 * that a policy can lower limits but never raise them (raising a hard limit
 * needs CAP_SYS_RESOURCE and would fail anyway for everyone else). Core
 * dumps are always off: a dump could carry secrets the command read out of
 * the sandbox's reach. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "platform/linux/backend.h"

/* glibc's getrlimit takes an enum under _GNU_SOURCE; other libcs an int. */
#if defined(__GLIBC__) && defined(__USE_GNU)
typedef __rlimit_resource_t resource_t;
#else
typedef int resource_t;
#endif

static int lower_limit(resource_t resource, unsigned long long want, const char *what, char *err,
                       size_t errlen)
{
    struct rlimit cur;
    if (getrlimit(resource, &cur) != 0) {
        pd_errf(err, errlen, "rlimit: get %s: %s", what, strerror(errno));
        return -1;
    }
    rlim_t v = cur.rlim_max;
    if (cur.rlim_max == RLIM_INFINITY || want < (unsigned long long)cur.rlim_max)
        v = want >= (unsigned long long)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)want;
    /* already so (inherited, or a policy value the user's limits match) */
    if (cur.rlim_cur == v && cur.rlim_max == v)
        return 0;
    const struct rlimit next = {.rlim_cur = v, .rlim_max = v};
    if (setrlimit(resource, &next) != 0) {
        pd_errf(err, errlen, "rlimit: set %s: %s", what, strerror(errno));
        return -1;
    }
    return 0;
}

/* Memory is limited as data (private writable mappings and the heap), not
 * as address space: a PROT_NONE reservation costs nothing, and runtimes
 * reserve far more than they use (V8 about 10 GiB per wasm memory), so an
 * address-space limit breaks them while limiting nothing real. */
int pd_rlimits_apply_mem(const struct pd_limits *lim, char *err, size_t errlen)
{
    if (lim->mem_bytes == 0)
        return 0;
    return lower_limit(RLIMIT_DATA, lim->mem_bytes, "data size limit", err, errlen);
}

int pd_rlimits_apply_early(const struct pd_limits *lim, char *err, size_t errlen)
{
    const struct {
        resource_t resource;
        unsigned long long want;
        const char *what;
    } limits[] = {
        {RLIMIT_CPU, lim->cpu_sec, "CPU time limit"},
        {RLIMIT_NPROC, lim->nproc, "process limit"},
        {RLIMIT_FSIZE, lim->fsize_bytes, "file size limit"},
        {RLIMIT_NOFILE, lim->nofile, "open file limit"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        if (limits[i].want == 0)
            continue;
        if (lower_limit(limits[i].resource, limits[i].want, limits[i].what, err, errlen) < 0)
            return -1;
    }
    const struct rlimit no_core = {.rlim_cur = 0, .rlim_max = 0};
    if (setrlimit(RLIMIT_CORE, &no_core) != 0) {
        pd_errf(err, errlen, "rlimit: set core dump limit: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int pd_rlimits_apply(const struct pd_limits *lim, char *err, size_t errlen)
{
    if (pd_rlimits_apply_early(lim, err, errlen) < 0)
        return -1;
    return pd_rlimits_apply_mem(lim, err, errlen);
}
