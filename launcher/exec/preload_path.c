/* launcher/exec/preload_path.c - where libpaldron_preload.so is: next to the
 * paldron binary in the build tree, under the library directory in the
 * install tree; PALDRON_PRELOAD_LIB overrides both. No configuration.
 * A copy of the binary without its library must say where it looked, so
 * the search and the message share one walk over the same folders. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec/preload_path.h"

#ifndef PALDRON_BIN_TO_PRELOAD_DIR
#define PALDRON_BIN_TO_PRELOAD_DIR "../lib/paldron"
#endif
#define PRELOAD_NAME "libpaldron_preload.so"
#define OVERRIDE_VAR "PALDRON_PRELOAD_LIB"

/* Append rel to the absolute folder dir (in place, size len), resolving its
 * "." and ".." so that the message names /x/lib/paldron, not /x/bin/../lib/paldron.
 * Lexical on purpose: the folder may not exist. */
static void join_normalised(char *dir, size_t len, const char *rel)
{
    while (*rel) {
        const char *end = strchr(rel, '/');
        size_t n = end ? (size_t)(end - rel) : strlen(rel);
        if (n == 2 && rel[0] == '.' && rel[1] == '.') {
            char *slash = strrchr(dir, '/');
            if (slash)
                slash[slash == dir ? 1 : 0] = '\0';
        } else if (n > 0 && !(n == 1 && rel[0] == '.')) {
            size_t used = strlen(dir);
            snprintf(dir + used, len - used, "%s%.*s", used && dir[used - 1] == '/' ? "" : "/",
                     (int)n, rel);
        }
        rel += n + (end ? 1 : 0);
    }
}

/* The loader splits LD_PRELOAD at spaces and colons: a library whose path
 * holds one would not be loaded, and the run would go on without its live
 * gate. Such a path is not usable, and the message says so. */
#define LD_PRELOAD_SEPARATORS " :\t\n"
#define UNUSABLE_HINT                                                                              \
    "LD_PRELOAD cannot name a path with a space or a colon; move it, or set " OVERRIDE_VAR         \
    "=/abs/path without them"

static int take(char *out, size_t len, const char *path)
{
    return (size_t)snprintf(out, len, "%s", path) < len ? 0 : -1;
}

/* The search. On failure, when msg is given, says why into it. */
static int find_preload(char *out, size_t len, char *msg, size_t msglen)
{
    const char *env = getenv(OVERRIDE_VAR);
    if (env && env[0]) {
        if (env[0] != '/') {
            if (msg)
                snprintf(msg, msglen, OVERRIDE_VAR "=%s is not an absolute path", env);
            return -1;
        }
        if (access(env, R_OK) != 0) {
            if (msg)
                snprintf(msg, msglen, "cannot read " OVERRIDE_VAR "=%s: %s", env, strerror(errno));
            return -1;
        }
        if (strpbrk(env, LD_PRELOAD_SEPARATORS)) {
            if (msg)
                snprintf(msg, msglen, OVERRIDE_VAR "=%s: " UNUSABLE_HINT, env);
            return -1;
        }
        return take(out, len, env);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !memchr(exe, '/', (size_t)n)) {
        if (msg)
            snprintf(msg, msglen,
                     "cannot find " PRELOAD_NAME " (the paldron binary's folder is unknown: "
                     "/proc/self/exe: %s; set " OVERRIDE_VAR "=/abs/path)",
                     n < 0 ? strerror(errno) : "not a path");
        return -1;
    }
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    if (!exe[0])
        snprintf(exe, sizeof exe, "/");
    const char *const rels[] = {"", PALDRON_BIN_TO_PRELOAD_DIR};
    char looked[2 * PATH_MAX] = "", unusable[PATH_MAX] = "";
    for (size_t k = 0; k < sizeof rels / sizeof rels[0]; k++) {
        char dir[PATH_MAX], cand[PATH_MAX], real[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", exe);
        join_normalised(dir, sizeof dir, rels[k]);
        size_t used = strlen(looked);
        snprintf(looked + used, sizeof looked - used, "%s%s", used ? ", " : "", dir);
        if ((size_t)snprintf(cand, sizeof cand, "%s%s%s", dir,
                             dir[strlen(dir) - 1] == '/' ? "" : "/", PRELOAD_NAME) >= sizeof cand)
            continue;
        if (access(cand, R_OK) == 0 && realpath(cand, real)) {
            if (!strpbrk(real, LD_PRELOAD_SEPARATORS))
                return take(out, len, real);
            if (!unusable[0])
                snprintf(unusable, sizeof unusable, "%s", real);
        }
    }
    if (msg && unusable[0])
        snprintf(msg, msglen, PRELOAD_NAME " is at %s, but " UNUSABLE_HINT, unusable);
    else if (msg)
        snprintf(msg, msglen,
                 "cannot find " PRELOAD_NAME " (looked in %s; set " OVERRIDE_VAR "=/abs/path)",
                 looked);
    return -1;
}

int pd_preload_path(char *out, size_t len)
{
    return find_preload(out, len, NULL, 0);
}

void pd_preload_missing_msg(char *out, size_t len)
{
    char lib[PATH_MAX];
    snprintf(out, len, "cannot use " PRELOAD_NAME ": its path is too long");
    if (find_preload(lib, sizeof lib, out, len) == 0)
        snprintf(out, len, "%s is there now (it was not a moment ago)", lib);
}
