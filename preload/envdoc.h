/* preload/envdoc.h - "doctoring" the environment of every program the
 * sandboxed tree starts: whatever the caller passes (an empty envp, env -i,
 * env -u LD_PRELOAD, a forged PALDRON_RUN or PALDRON_AUDIT), the child gets
 * this library first in LD_PRELOAD and the settings this process started
 * with, and without the loader's hooks (loader_env.h). Built without
 * malloc: a bounded array on the stack, or an anonymous mapping for a very
 * large environment, so that it is safe in any context. */
#ifndef PALDRON_PRELOAD_ENVDOC_H
#define PALDRON_PRELOAD_ENVDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

#define PD_ENV_STACK 256        /* entries held on the stack */
#define PD_ENV_LIMIT (1u << 20) /* more entries than this: E2BIG */
#define PD_LD_MAX    (2 * PD_PATH_MAX)

struct pd_envbuf {
    char **v; /* the new envp (NULL-terminated) */
    void *map;
    size_t maplen;
    char *small[PD_ENV_STACK];
    char ld[PD_LD_MAX];      /* "LD_PRELOAD=<us>[:<others>]" */
    char libpath[PD_LD_MAX]; /* "LD_LIBRARY_PATH=<kept entries>" */
};

/* Build b->v from envp (NULL: empty). 0, or -1 with errno (E2BIG, ENOMEM). */
int pd_envbuf_build(struct pd_envbuf *b, char *const envp[]);
void pd_envbuf_release(struct pd_envbuf *b);

/* system() and popen() take the environment from `environ`: put our
 * settings there (setenv; not for use in a vfork child). */
void pd_environ_fix(void);

/* "<us>[:<others>]": our library first, then the other entries of the
 * caller's LD_PRELOAD value (may be NULL), without our own and without
 * those in a writable root (loader_env.h). */
void pd_ld_preload_value(const char *callers, char *out, size_t len);

/* The entries of the caller's LD_LIBRARY_PATH value (may be NULL) that lie
 * outside every writable root, ':'-joined. false (and "") when none. */
bool pd_ld_library_path_value(const char *callers, char *out, size_t len);

#endif
