/* launcher/preload_path.c - where libpaldron_preload.so is: next to the
 * paldron binary in the build tree, under the library directory in the
 * install tree; PALDRON_PRELOAD_LIB overrides both. No configuration. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"

#ifndef PALDRON_BIN_TO_PRELOAD_DIR
#define PALDRON_BIN_TO_PRELOAD_DIR "../lib/paldron"
#endif
#define PRELOAD_NAME "libpaldron_preload.so"

int pd_preload_path(char *out, size_t len)
{
    const char *env = getenv("PALDRON_PRELOAD_LIB");
    if (env && env[0]) {
        if (env[0] != '/' || access(env, R_OK) != 0)
            return -1;
        snprintf(out, len, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    const char *const dirs[] = {"", "/" PALDRON_BIN_TO_PRELOAD_DIR};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        char cand[PATH_MAX], real[PATH_MAX];
        if ((size_t)snprintf(cand, sizeof cand, "%s%s/%s", exe, dirs[k], PRELOAD_NAME) >=
            sizeof cand)
            continue;
        if (access(cand, R_OK) == 0 && realpath(cand, real)) {
            snprintf(out, len, "%s", real);
            return 0;
        }
    }
    return -1;
}
