/* platform/linux/backend.h - the layers of the Linux backend, one file each:
 * rlimits.c, landlock.c, seccomp.c (table: seccomp_rules.c, compiled at build
 * time by seccomp_gen.c), orchestrated by
 * platform_linux.c. Internal: only platform/linux and its unit tests include
 * it. Every function that can fail returns 0 or -1 with err naming the step. */
#ifndef PALDRON_PLATFORM_LINUX_BACKEND_H
#define PALDRON_PLATFORM_LINUX_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"
#include "platform/linux/raw_syscall.h"

/* Namespaces made by a task of the launcher's own (ns_early.c, ns_stock.c):
 * raw system calls, so not under AddressSanitizer (its allocator and thread
 * registry are not made for a second task on the same memory) nor where
 * raw_syscall.h has none. */
#if defined(__SANITIZE_ADDRESS__)
#define PD_EARLY 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PD_EARLY 0
#endif
#endif
#ifndef PD_EARLY
#define PD_EARLY PD_RAW_SYSCALL
#endif

/* The newest Landlock ABI this backend knows; a newer kernel is used at
 * this level. */
#define PD_LANDLOCK_ABI_KNOWN 7

/* snprintf into err (nothing when errlen is 0). */
void pd_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* rlimits.c: lower cpu, as, nproc, fsize, nofile to min(requested, inherited
 * hard), soft = hard; 0 leaves a limit alone. RLIMIT_CORE always 0. */
int pd_rlimits_apply(const struct pd_limits *lim, char *err, size_t errlen);
/* The same in two steps: every limit but RLIMIT_DATA (and core 0) ... */
int pd_rlimits_apply_early(const struct pd_limits *lim, char *err, size_t errlen);
/* ... and RLIMIT_DATA alone, applied last (after the seccomp filter is
 * loaded): until execve the memory is the launcher's, which under a
 * sanitizer holds terabytes of writable shadow, so that no step before may
 * need to grow it. */
int pd_rlimits_apply_mem(const struct pd_limits *lim, char *err, size_t errlen);

/* landlock.c: the kernel's ABI (> 0), or 0 with reason filled. */
int pd_landlock_abi(char *reason, size_t reasonlen);

/* landlock.c: what a ruleset on this ABI handles. */
uint64_t pd_landlock_handled_fs(int abi);
uint64_t pd_landlock_handled_net(int abi);
uint64_t pd_landlock_handled_scopes(int abi);

/* landlock.c: build the ruleset from spec's path lists, set no_new_privs and
 * restrict the calling thread. abi must be >= 1. ns: what the namespace
 * step did (NULL: nothing): a private /tmp is writable, and a network
 * namespace replaces the TCP rules (loopback servers keep working). */
int pd_landlock_apply(const struct pd_sandbox_spec *spec, const struct pd_ns_report *ns, int abi,
                      char *err, size_t errlen);

/* ---- namespaces (ns_*.c) -------------------------------------------------
 * Each returns 0 when done, PD_NS_REFUSE when the kernel refused in a way
 * that means "no namespaces here" (cause in err), or -1 on any other
 * failure (err names the step). */
#define PD_NS_REFUSE 1

/* ns_user.c: the identity map of one id ("1000 1000 1\n"): uid_map and
 * gid_map of the run's user namespace, made here and in ns_early.c. */
void pd_ns_id_map(char *out, size_t len, unsigned long id);

#if PD_EARLY
/* The steps of pd_ns_enter for the user (when user), IPC and (when net)
 * network namespaces of the calling task, in raw system calls; *admitted,
 * when not NULL, is set (1 made, -1 refused) and woken (futex) once the
 * first two are. 0 or a negative errno. */
long pd_ns_make_raw(bool user, bool net, const char *uid_map, const char *gid_map, int *admitted);
#endif

/* ns_user.c: unshare user (unless real root), mount, IPC and (net) network
 * namespaces; identity uid/gid maps. *user_ns: a user namespace was made.
 * join (may be NULL or off): the user, IPC and network namespaces made
 * ahead (ns_early.c) are joined instead, when they are the ones asked for. */
int pd_ns_enter(bool net, const struct pd_ns_join *join, bool *user_ns, char *err, size_t errlen);

/* ns_net.c: bring lo up in the new network namespace. */
int pd_ns_loopback_up(char *err, size_t errlen);

/* ns_listen.c: make the listeners of l in the network namespace, send them
 * over l->chan, close them; bind l->resolv_conf over /etc/resolv.conf
 * (after the private /tmp: the mount namespace is ours then). */
int pd_ns_listen_send(const struct pd_ns_listen *l, char *err, size_t errlen);
int pd_ns_resolv_conf(const struct pd_ns_listen *l, char *err, size_t errlen);

/* ns_mount.c: mount propagation private, a new tmpfs on /tmp and /dev/shm,
 * the spec's keep entries bound back (with their modes). */
int pd_ns_private_tmp(const struct pd_ns_spec *ns, char *err, size_t errlen);

/* ns_mask.c: protected paths read-only, secrets and host sockets masked;
 * counts into report. Needs the private /tmp (the masks' source lives
 * there until they are mounted). */
int pd_ns_masks(const struct pd_ns_spec *ns, struct pd_ns_report *report, char *err, size_t errlen);

/* ns_mount.c: bind src onto dst, then remount it with extra flags (MS_RDONLY,
 * MS_NOEXEC, ...) added to those the mount already has (a user namespace may
 * not drop them). extra 0: no remount. rec: MS_REC. */
int pd_ns_bind(const char *src, const char *dst, unsigned long extra, bool rec, char *err,
               size_t errlen);

/* ns.c: the whole namespace step, as pd_platform_apply calls it. Fills
 * report (state, counts, cause). Returns 0 (entered, or refused and not
 * required), or -1 with err. */
int pd_ns_apply(const struct pd_sandbox_spec *spec, struct pd_ns_report *report, char *err,
                size_t errlen);

/* seccomp.c: can this kernel load filters that kill the process? The
 * launcher asks once (pd_platform_probe); the child does not ask again. */
bool pd_seccomp_available(void);

/* seccomp.c: memfd_create accepts MFD_NOEXEC_SEAL, so the exec floor's
 * rule (only sealed, never-executable memfds) breaks no caller. */
bool pd_memfd_noexec_available(void);

/* seccomp.c: load the filter compiled at build time (seccomp_prog.h) with
 * one seccomp(2) call. any_socket: every socket family may be created (the
 * network is on, or a network namespace holds it); false: only AF_UNIX and
 * AF_NETLINK. exec_floor (allow_binaries): no executable memfd either.
 * no_new_privs must already be set (pd_landlock_apply does). */
int pd_seccomp_load(bool any_socket, bool exec_floor, char *err, size_t errlen);

/* seccomp.c: set no_new_privs, then pd_seccomp_load (the layer alone). */
int pd_seccomp_apply(bool any_socket, char *err, size_t errlen);

#endif
