/* preload/loader_env.h - the environment variables through which the
 * dynamic loader or the C library loads code, or opens a file the variable
 * names, with no wrapped call to judge it: LD_AUDIT can refuse
 * libpaldron_preload.so outright, GCONV_PATH and LD_ORIGIN_PATH load a
 * workspace library into an allowed program, LD_DEBUG_OUTPUT and
 * MALLOC_TRACE make ld.so or libc write a file of the program's choosing.
 *
 * The list is glibc's own (sysdeps/generic/unsecvars.h: what the loader
 * strips for a set-uid program, whose caller it does not trust - as we do
 * not trust the sandboxed program), without TMPDIR (the launcher sets it to
 * the private temp home, and the files made there go through gated calls)
 * and LD_PRELOAD / LD_LIBRARY_PATH (filtered entry by entry, envdoc.c),
 * plus LD_PROFILE_OUTPUT and LD_PREFER_MAP_32BIT_EXEC (ignored by glibc in
 * secure mode rather than stripped) and GLIBC_TUNABLES (filtered by glibc in
 * secure mode; its parser in ld.so is attack surface, CVE-2023-4911).
 * docs/preload.md gives the reason for each.
 *
 * Shared by the preload (every doctored environment) and the launcher
 * (launcher/exec/exec_env.c, the command's own environment). Header only: no
 * allocation, safe in any context. */
#ifndef PALDRON_PRELOAD_LOADER_ENV_H
#define PALDRON_PRELOAD_LOADER_ENV_H

#include <stdbool.h>
#include <string.h>

/* Names in place (no pointers: no relocations to load the library). */
static const char pd_loader_hooks[][25] = {"LD_AUDIT",
                                           "LD_DEBUG",
                                           "LD_DEBUG_OUTPUT",
                                           "LD_PROFILE",
                                           "LD_PROFILE_OUTPUT",
                                           "LD_ORIGIN_PATH",
                                           "LD_DYNAMIC_WEAK",
                                           "LD_HWCAP_MASK",
                                           "LD_SHOW_AUXV",
                                           "LD_USE_LOAD_BIAS",
                                           "LD_PREFER_MAP_32BIT_EXEC",
                                           "GLIBC_TUNABLES",
                                           "GCONV_PATH",
                                           "GETCONF_DIR",
                                           "HOSTALIASES",
                                           "LOCALDOMAIN",
                                           "LOCPATH",
                                           "MALLOC_TRACE",
                                           "NIS_PATH",
                                           "NLSPATH",
                                           "RESOLV_HOST_CONF",
                                           "RES_OPTIONS",
                                           "TZDIR",
                                           ""};

/* Search lists filtered entry by entry: an entry in a writable root (or
 * relative, or that cannot be resolved) is dropped. */
#define PD_ENV_LIBPATH "LD_LIBRARY_PATH"

/* Does entry ("NAME=value", or a bare "NAME") set one of the hooks? */
static inline bool pd_loader_hook(const char *entry)
{
    for (size_t k = 0; pd_loader_hooks[k][0]; k++) {
        size_t n = strlen(pd_loader_hooks[k]);
        if (strncmp(entry, pd_loader_hooks[k], n) == 0 && (entry[n] == '=' || entry[n] == '\0'))
            return true;
    }
    return false;
}

#endif
