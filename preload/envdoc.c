/* preload/envdoc.c - the child environment (see envdoc.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/envdoc.h"
#include "preload/loader_env.h"
#include "preload/state.h"
#include "preload/vfork.h"

static char audit_kv[] = PD_ENV_AUDIT "=1";
static char debug_kv[] = PD_ENV_DEBUG "=1";

static const char ours[][16] = {PD_ENV_LD,    PD_ENV_PRELOAD, PD_ENV_RUN,
                                PD_ENV_AUDIT, PD_ENV_DEBUG,   ""};

static bool is_ours(const char *entry)
{
    for (size_t k = 0; ours[k][0]; k++) {
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

/* May the loader take code from this search-list entry? Only when it is an
 * absolute path whose real location lies outside every writable root: a
 * library the sandboxed program could have written would otherwise run
 * inside an allowed program (and under its name). Relative and empty
 * entries name the working directory, "$ORIGIN" forms do not resolve:
 * dropped too. A bare library name (bare_ok, LD_PRELOAD) is looked up in
 * the system's directories and the filtered LD_LIBRARY_PATH: kept. Without
 * a loaded policy nothing is known to be safe. */
static bool outside_roots(const char *entry, size_t n, bool bare_ok)
{
    struct pd_state s;
    pd_state_load(&s);
    char raw[PD_PATH_MAX], real[PD_PATH_MAX];
    if (s.mode != PD_MODE_ACTIVE || n == 0 || n >= sizeof raw)
        return false;
    if (bare_ok && !memchr(entry, '/', n))
        return true;
    if (entry[0] != '/')
        return false;
    memcpy(raw, entry, n);
    raw[n] = '\0';
    if (!realpath(raw, real))
        return false;
    size_t nroots;
    const uint32_t *roots = pd_image_list(s.img, PD_IL_ROOTS, &nroots);
    for (size_t k = 0; k < nroots; k++)
        if (pd_path_under(real, pd_image_str(s.img, roots[k])))
            return false;
    return true;
}

/* Append to out (holding n bytes) the entries of list (separated by any of
 * seps) that outside_roots keeps, except skip (then bare names are kept:
 * LD_PRELOAD); joined with ':'. */
static size_t keep_entries(const char *list, const char *seps, const char *skip, char *out,
                           size_t n, size_t len)
{
    for (const char *p = list; p && *p;) {
        size_t l = strcspn(p, seps);
        bool self = skip && l == strlen(skip) && strncmp(p, skip, l) == 0;
        if (!self && n + 1 + l < len && outside_roots(p, l, skip != NULL)) {
            if (n > 0)
                out[n++] = ':';
            memcpy(out + n, p, l);
            n += l;
            out[n] = '\0';
        }
        p += l;
        if (*p)
            p++;
    }
    return n;
}

void pd_ld_preload_value(const char *callers, char *out, size_t len)
{
    const char *lib = pd_env()->lib;
    size_t n = (size_t)snprintf(out, len, "%s", lib);
    if (n >= len)
        return;
    keep_entries(callers, ": ", lib, out, n, len);
}

bool pd_ld_library_path_value(const char *callers, char *out, size_t len)
{
    if (len == 0)
        return false;
    out[0] = '\0';
    return keep_entries(callers, ":;", NULL, out, 0, len) > 0;
}

int pd_envbuf_build(struct pd_envbuf *b, char *const envp[])
{
    const struct pd_env *e = pd_env();
    const char *callers_ld = NULL, *callers_lib = NULL;
    size_t count = 0;
    b->map = NULL;
    b->maplen = 0;
    for (char *const *p = envp; p && *p; p++) {
        if (strncmp(*p, PD_ENV_LD "=", sizeof PD_ENV_LD) == 0)
            callers_ld = *p + sizeof PD_ENV_LD;
        if (strncmp(*p, PD_ENV_LIBPATH "=", sizeof PD_ENV_LIBPATH) == 0)
            callers_lib = *p + sizeof PD_ENV_LIBPATH;
        if (++count > PD_ENV_LIMIT) {
            errno = E2BIG;
            return -1;
        }
    }
    size_t need = count + 7; /* ours, LD_LIBRARY_PATH + NULL */
    b->v = b->small;
    if (need > PD_ENV_STACK) {
        b->maplen = need * sizeof(char *);
        void *m = pd_scratch_map(b->maplen);
        if (!m)
            return -1;
        b->map = m;
        b->v = m;
    }
    size_t n = 0;
    for (char *const *p = envp; p && *p; p++)
        if (!is_ours(*p) && !pd_loader_hook(*p) &&
            strncmp(*p, PD_ENV_LIBPATH "=", sizeof PD_ENV_LIBPATH) != 0)
            b->v[n++] = *p;
    int k = snprintf(b->ld, sizeof b->ld, "%s=", PD_ENV_LD);
    pd_ld_preload_value(callers_ld, b->ld + k, sizeof b->ld - (size_t)k);
    b->v[n++] = b->ld;
    k = snprintf(b->libpath, sizeof b->libpath, "%s=", PD_ENV_LIBPATH);
    if (pd_ld_library_path_value(callers_lib, b->libpath + k, sizeof b->libpath - (size_t)k))
        b->v[n++] = b->libpath;
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
        pd_scratch_unmap(b->map, b->maplen);
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
    bool lib = pd_ld_library_path_value(getenv(PD_ENV_LIBPATH), ld, sizeof ld);
    put(PD_ENV_LIBPATH, lib ? ld : NULL);
    for (size_t k = 0; pd_loader_hooks[k][0]; k++)
        put(pd_loader_hooks[k], NULL);
    put(PD_ENV_PRELOAD, e->lib);
    put(PD_ENV_RUN, e->run);
    put(PD_ENV_AUDIT, e->audit ? "1" : NULL);
    put(PD_ENV_DEBUG, e->debug ? "1" : NULL);
}
