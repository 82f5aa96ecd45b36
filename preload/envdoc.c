/* preload/envdoc.c - the child environment (see envdoc.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/envdoc.h"
#include "preload/state.h"

static char audit_kv[] = PD_ENV_AUDIT "=1";
static char debug_kv[] = PD_ENV_DEBUG "=1";

static const char *const ours[] = {PD_ENV_LD,    PD_ENV_PRELOAD, PD_ENV_RUN,
                                   PD_ENV_AUDIT, PD_ENV_DEBUG,   NULL};

static bool is_ours(const char *entry)
{
    for (size_t k = 0; ours[k]; k++) {
        size_t n = strlen(ours[k]);
        if (strncmp(entry, ours[k], n) == 0 && entry[n] == '=')
            return true;
    }
    return false;
}

static char *unconst(const char *s)
{
    return (char *)(uintptr_t)s;
}

void pd_ld_preload_value(const char *callers, char *out, size_t len)
{
    const char *lib = pd_env()->lib;
    size_t n = (size_t)snprintf(out, len, "%s", lib);
    if (n >= len)
        return;
    for (const char *p = callers; p && *p;) {
        size_t l = strcspn(p, ": ");
        bool self = l == strlen(lib) && strncmp(p, lib, l) == 0;
        if (l > 0 && !self && n + 1 + l < len) {
            out[n++] = ':';
            memcpy(out + n, p, l);
            n += l;
            out[n] = '\0';
        }
        p += l;
        if (*p)
            p++;
    }
}

int pd_envbuf_build(struct pd_envbuf *b, char *const envp[])
{
    const struct pd_env *e = pd_env();
    const char *callers_ld = NULL;
    size_t count = 0;
    b->map = NULL;
    b->maplen = 0;
    for (char *const *p = envp; p && *p; p++) {
        if (strncmp(*p, PD_ENV_LD "=", sizeof PD_ENV_LD) == 0)
            callers_ld = *p + sizeof PD_ENV_LD;
        if (++count > PD_ENV_LIMIT) {
            errno = E2BIG;
            return -1;
        }
    }
    size_t need = count + 6; /* ours + NULL */
    b->v = b->small;
    if (need > PD_ENV_STACK) {
        b->maplen = need * sizeof(char *);
        void *m = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            errno = ENOMEM;
            return -1;
        }
        b->map = m;
        b->v = m;
    }
    size_t n = 0;
    for (char *const *p = envp; p && *p; p++)
        if (!is_ours(*p))
            b->v[n++] = *p;
    int k = snprintf(b->ld, sizeof b->ld, "%s=", PD_ENV_LD);
    pd_ld_preload_value(callers_ld, b->ld + k, sizeof b->ld - (size_t)k);
    b->v[n++] = b->ld;
    b->v[n++] = unconst(e->lib_kv);
    b->v[n++] = unconst(e->run_kv);
    if (e->audit)
        b->v[n++] = audit_kv;
    if (e->debug)
        b->v[n++] = debug_kv;
    b->v[n] = NULL;
    return 0;
}

void pd_envbuf_release(struct pd_envbuf *b)
{
    if (b->map)
        munmap(b->map, b->maplen);
    b->map = NULL;
}

static void put(const char *name, const char *value)
{
    const char *now = getenv(name);
    if (!value) {
        if (now)
            unsetenv(name);
    } else if (!now || strcmp(now, value) != 0) {
        setenv(name, value, 1);
    }
}

void pd_environ_fix(void)
{
    const struct pd_env *e = pd_env();
    char ld[PD_LD_MAX];
    pd_ld_preload_value(getenv(PD_ENV_LD), ld, sizeof ld);
    put(PD_ENV_LD, ld);
    put(PD_ENV_PRELOAD, e->lib);
    put(PD_ENV_RUN, e->run);
    put(PD_ENV_AUDIT, e->audit ? "1" : NULL);
    put(PD_ENV_DEBUG, e->debug ? "1" : NULL);
}
