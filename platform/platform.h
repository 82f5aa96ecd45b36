/* platform/platform.h - kernel isolation behind one interface.
 *
 * Life cycle (launcher):
 *   pd_platform_probe(&info)                 in the parent, before fork: what the kernel offers
 *   pd_platform_check(&spec, &info, ...)     in the parent: can the spec be enforced? else refuse
 *   fork(); in the child, single-threaded, right before execve:
 *   pd_platform_apply(&spec, &info, ...)     rlimits -> Landlock -> no_new_privs -> seccomp
 *
 * Linux backend: Landlock (ABI negotiated up to 7), seccomp via libseccomp,
 * rlimits. Other systems: a stub whose probe reports no isolation and whose
 * apply fails (fail closed). No function here exits or prints. */
#ifndef PALDRON_PLATFORM_H
#define PALDRON_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#define PD_PLATFORM_ERR_MAX 512

/* What the kernel offers. */
struct pd_platform_info {
    int landlock_abi;         /* 0: no Landlock (see landlock_error) */
    bool seccomp;             /* seccomp filters available */
    char landlock_error[128]; /* why landlock_abi is 0, e.g. "Landlock disabled at boot" */
};

/* Resource limits; 0 = leave the inherited limit. Lowered, never raised. */
struct pd_limits {
    unsigned long long cpu_sec;
    unsigned long long mem_bytes; /* RLIMIT_AS */
    unsigned long long nproc;
    unsigned long long fsize_bytes;
    unsigned long long nofile;
};

/* What the sandboxed command may touch. Paths are absolute; a path that does
 * not exist is skipped (there is nothing to grant). */
struct pd_path_list {
    const char *const *v;
    size_t n;
};

struct pd_sandbox_spec {
    struct pd_path_list exec_paths;  /* read + execute (system dirs, the program) */
    struct pd_path_list read_paths;  /* read only (workspace, /proc, policy file) */
    struct pd_path_list write_paths; /* every right (writable roots, temp home, /dev/shm) */
    struct pd_path_list dev_paths;   /* read + write + ioctl on device files (/dev/null, tty...) */
    bool allow_network;              /* false: no TCP (Landlock), only AF_UNIX and AF_NETLINK
                                        sockets (seccomp) */
    struct pd_limits limits;
};

/* Fill *info. Never fails; absent features are reported as such. */
void pd_platform_probe(struct pd_platform_info *info);

/* Can spec be enforced on this kernel? Returns 0, or -1 with err naming the
 * missing feature (e.g. "Landlock ABI 3 cannot enforce TCP network denial;
 * ABI 4 or newer is required"). warn receives what will not be enforced but is
 * not required (e.g. signal scoping on ABI < 6), "" if nothing. */
int pd_platform_check(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen, char *warn, size_t warnlen);

/* Apply every layer to the calling thread (and what it execs), in order:
 * rlimits (RLIMIT_CORE 0), Landlock (fs + net + scopes, as far as info->abi
 * allows), PR_SET_NO_NEW_PRIVS, seccomp. It first repeats pd_platform_check
 * (same messages), so nothing runs with less than the check requires. Every
 * return value checked; returns 0, or -1 with err naming the failing step
 * ("landlock: add rule /usr: ...", "seccomp: load filter: ...",
 * "rlimit: set address space limit: ..."). A step that fails may leave the
 * earlier ones applied: the caller must not execve then. Must be called
 * single-threaded, after fork, right before execve; it allocates (libseccomp). */
int pd_platform_apply(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen);

#endif
