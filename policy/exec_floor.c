/* policy/exec_floor.c - the files the kernel may execute when
 * allow_binaries is set: the launcher grants Landlock's EXECUTE right on
 * these alone, so that a program the live gate cannot see (a static
 * binary, a raw execve) cannot start anything outside the list either.
 * What the gate allows (policy/gate_exec.h) and what this grants are the
 * same rules: the allowed programs, the interpreters of allowed scripts,
 * the helper trees and companions of allowed drivers, and the dynamic
 * loader, which the kernel opens for execution with every dynamic program.
 * Runs in the launcher only (glob(3) allocates). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gate_exec.h"
#include "policy/policy.h"

/* Where the dynamic loader of each supported architecture lives; a missing
 * path grants nothing. */
static const char *const loaders[] = {
    "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-riscv64-lp64d.so.1",
    "/lib/ld-linux.so.2",          "/lib/ld-linux-armhf.so.3",   NULL};

static const char *const companions[] = {"as", "ld", "ld.bfd", "ld.gold", "ld.lld", NULL};

#define FLOOR_SCRIPT_DEPTH 4

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Every directory a tree pattern (llvm-*) matches. */
static int add_tree(const char *pattern, int (*add)(void *, const char *), void *arg)
{
    glob_t g;
    int rc = glob(pattern, GLOB_NOSORT | GLOB_ONLYDIR, NULL, &g);
    if (rc == GLOB_NOMATCH)
        return 0;
    if (rc != 0)
        return -1;
    for (size_t k = 0; k < g.gl_pathc && rc == 0; k++)
        rc = add(arg, g.gl_pathv[k]);
    globfree(&g);
    return rc;
}

/* The trees and companions of a driver named name, if it is one. */
static int add_driven(const struct pd_ctx *c, const char *name, int (*add)(void *, const char *),
                      void *arg)
{
    const char *const *trees = pd_exec_helper_trees(name);
    for (size_t k = 0; trees && trees[k]; k++)
        if (add_tree(trees[k], add, arg) != 0)
            return -1;
    /* rule g: what go test and go run build in the work directory. The
     * kernel cannot tell who starts it, so any program of the run may
     * (the live gate narrows this for dynamic callers). */
    if (strcmp(name, "go") == 0 && c->go_tmp[0] && add(arg, c->go_tmp) != 0)
        return -1;
    if (!pd_exec_is_driver(name))
        return 0;
    char path[PD_PATH_MAX];
    for (size_t k = 0; companions[k]; k++) {
        if (pd_resolve_program(c, companions[k], NULL, path, sizeof path) == 0 &&
            add(arg, path) != 0)
            return -1;
        snprintf(path, sizeof path, "/usr/bin/%s", companions[k]);
        if (add(arg, path) != 0)
            return -1;
    }
    return 0;
}

/* One allowed file: itself, its interpreters (a script's, env's), and
 * what it drives (by its invoked and its real name: gcc -> gcc-12). */
static int add_program(const struct pd_ctx *c, const char *file, int (*add)(void *, const char *),
                       void *arg)
{
    char cur[PD_PATH_MAX], interp[PD_PATH_MAX], env[PD_PATH_MAX], real[PD_PATH_MAX];
    snprintf(cur, sizeof cur, "%s", file);
    for (int depth = 0; depth < FLOOR_SCRIPT_DEPTH; depth++) {
        if (add(arg, cur) != 0 || add_driven(c, base_name(cur), add, arg) != 0)
            return -1;
        if (pd_realpath(cur, real) && add_driven(c, base_name(real), add, arg) != 0)
            return -1;
        if (pd_exec_interpreter(c, cur, c->workspace, interp, sizeof interp, env, sizeof env) != 0)
            return 0;
        if (env[0] && add(arg, env) != 0)
            return -1;
        snprintf(cur, sizeof cur, "%s", interp);
    }
    return 0;
}

/* The programs a bare entry that PATH does not find may still name: every
 * executable entry* in the PATH directories (pd_binary_versioned_alias). */
static int add_versions(const struct pd_ctx *c, const char *entry, int (*add)(void *, const char *),
                        void *arg)
{
    char pattern[PD_PATH_MAX], real[PD_PATH_MAX];
    for (const char *p = c->path_env; *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        glob_t g;
        if (len > 0 && p[0] == '/' &&
            (size_t)snprintf(pattern, sizeof pattern, "%.*s/%s*", (int)len, p, entry) <
                sizeof pattern &&
            glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
            int rc = 0;
            for (size_t k = 0; k < g.gl_pathc && rc == 0; k++)
                if (pd_realpath(g.gl_pathv[k], real) &&
                    pd_binary_versioned_alias(c, entry, entry, real))
                    rc = add(arg, real);
            globfree(&g);
            if (rc != 0)
                return -1;
        }
        p += len + (e ? 1 : 0);
    }
    return 0;
}

int pd_exec_floor(const struct pd_ctx *c, int (*add)(void *arg, const char *path), void *arg)
{
    const struct pd_strv *ab = &c->policy->allow_binaries;
    char file[PD_PATH_MAX];
    if (ab->n == 0)
        return 0;
    for (size_t k = 0; k < ab->n; k++) {
        if (pd_binary_entry_file(c, ab->v[k], file, sizeof file) == 0) {
            if (add_program(c, file, add, arg) != 0)
                return -1;
        } else if (!strchr(ab->v[k], '/')) {
            /* pd_binary_versioned_alias: python -> python3.11 */
            if (add_versions(c, ab->v[k], add, arg) != 0)
                return -1;
        } else if (strchr(ab->v[k], '/') &&
                   pd_path_normalize(c->workspace, c->home, ab->v[k], file, sizeof file) == 0) {
            /* not there yet (a program the run builds): its place still
             * tells which writable root may hold it */
            if (add(arg, file) != 0)
                return -1;
        }
    }
    for (size_t k = 0; loaders[k]; k++)
        if (add(arg, loaders[k]) != 0)
            return -1;
    return 0;
}
