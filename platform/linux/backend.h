/* platform/linux/backend.h - the layers of the Linux backend, one file each:
 * rlimits.c, landlock.c, seccomp.c (table: seccomp_rules.c), orchestrated by
 * platform_linux.c. Internal: only platform/linux and its unit tests include
 * it. Every function that can fail returns 0 or -1 with err naming the step. */
#ifndef PALDRON_PLATFORM_LINUX_BACKEND_H
#define PALDRON_PLATFORM_LINUX_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

#include "platform/platform.h"

/* The newest Landlock ABI this backend knows; a newer kernel is used at
 * this level. */
#define PD_LANDLOCK_ABI_KNOWN 7

/* snprintf into err (nothing when errlen is 0). */
void pd_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* rlimits.c: lower cpu, as, nproc, fsize, nofile to min(requested, inherited
 * hard), soft = hard; 0 leaves a limit alone. RLIMIT_CORE always 0. */
int pd_rlimits_apply(const struct pd_limits *lim, char *err, size_t errlen);
/* The same in two steps: every limit but RLIMIT_AS (and core 0) ... */
int pd_rlimits_apply_early(const struct pd_limits *lim, char *err, size_t errlen);
/* ... and RLIMIT_AS alone, applied last (after the seccomp filter is built): until
 * execve the address space is the launcher's, which under a sanitizer is
 * terabytes of reservations, and building the filter allocates. */
int pd_rlimits_apply_as(const struct pd_limits *lim, char *err, size_t errlen);

/* landlock.c: the kernel's ABI (> 0), or 0 with reason filled. */
int pd_landlock_abi(char *reason, size_t reasonlen);

/* landlock.c: what a ruleset on this ABI handles. */
uint64_t pd_landlock_handled_fs(int abi);
uint64_t pd_landlock_handled_net(int abi);
uint64_t pd_landlock_handled_scopes(int abi);

/* landlock.c: build the ruleset from spec's path lists, set no_new_privs and
 * restrict the calling thread. abi must be >= 1. */
int pd_landlock_apply(const struct pd_sandbox_spec *spec, int abi, char *err, size_t errlen);

/* seccomp.c: can this kernel load filters that kill the process? */
bool pd_seccomp_available(void);

/* seccomp.c: the filter for allow_network, not loaded (tests export it).
 * NULL with err on failure; the caller releases it with seccomp_release. */
scmp_filter_ctx pd_seccomp_build(bool allow_network, char *err, size_t errlen);

/* seccomp.c: build and load the filter. */
int pd_seccomp_apply(bool allow_network, char *err, size_t errlen);

#endif
