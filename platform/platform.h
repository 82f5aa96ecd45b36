/* platform/platform.h - kernel isolation behind one interface.
 *
 * Life cycle (launcher):
 *   pd_platform_probe(&info)                 in the parent, before fork: what the kernel offers
 *   pd_platform_check(&spec, &info, ...)     in the parent: can the spec be enforced? else refuse
 *   fork(); in the child, single-threaded, right before execve:
 *   pd_platform_apply(&spec, &info, ...)     namespaces -> rlimits -> Landlock ->
 *                                            no_new_privs -> seccomp
 *
 * Linux backend: user, mount, IPC and network namespaces (the kernel floor
 * for what Landlock cannot say; a reported fallback where they are
 * refused), Landlock (ABI negotiated up to 7), seccomp (a program built
 * with libseccomp at build time), rlimits. Other systems: a stub whose
 * probe reports no isolation and whose apply fails (fail closed). No
 * function here exits or prints. */
#ifndef PALDRON_PLATFORM_H
#define PALDRON_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PD_PLATFORM_ERR_MAX 512

/* What the kernel offers. */
struct pd_platform_info {
    int landlock_abi;         /* 0: no Landlock (see landlock_error) */
    bool seccomp;             /* seccomp filters available */
    bool memfd_noexec;        /* memfd_create knows MFD_NOEXEC_SEAL (Linux 6.3) */
    char landlock_error[128]; /* why landlock_abi is 0, e.g. "Landlock disabled at boot" */
};

/* Resource limits; 0 = leave the inherited limit. Lowered, never raised. */
struct pd_limits {
    unsigned long long cpu_sec;
    unsigned long long mem_bytes; /* RLIMIT_DATA (not RLIMIT_AS: reservations are free) */
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

/* What the namespace step did, written by the child for the launcher
 * (memory both can see: a MAP_SHARED page). */
enum pd_ns_state {
    PD_NS_NOT_TRIED = 0, /* namespaces off (policy) or not reached */
    PD_NS_ACTIVE,        /* entered; the mount work below is done */
    PD_NS_REFUSED,       /* the kernel refused them: the run went on without (fallback) */
};
struct pd_ns_report {
    int state;                 /* enum pd_ns_state */
    bool user_ns;              /* a user namespace was entered (false as real root) */
    bool net_ns;               /* a network namespace with only lo */
    unsigned hidden, readonly; /* secrets masked, protected paths made read-only */
    unsigned sockets;          /* host UNIX sockets made unreachable */
    char cause[160];           /* PD_NS_REFUSED: why */
};

/* A path that a private /tmp or /dev/shm would hide and that the command
 * needs: bound back at the same place. */
enum pd_keep_mode {
    PD_KEEP_READ,  /* read-only, no execution */
    PD_KEEP_EXEC,  /* read-only, execution allowed */
    PD_KEEP_WRITE, /* writable */
};
/* At most this many keep entries (the child opens each before the private
 * /tmp hides it, on its stack). */
#define PD_NS_KEEP_MAX 64
struct pd_keep {
    const char *path;
    enum pd_keep_mode mode;
};

/* The namespace floor (platform/linux/ns_*.c). */
/* The listeners of the run's network when the policy names hosts
 * (allow_hosts): made inside the run's network namespace once lo is up,
 * handed to the launcher over chan in one SCM_RIGHTS message, then closed,
 * so that only the launcher holds them (it serves them from the host's
 * network: its proxy and DNS server) and the run has no network at all
 * once the launcher is gone. The message's data is one byte, a mask of
 * PD_LISTEN_* saying which descriptors follow, in that order (a listener
 * that cannot be made, such as ::1 with IPv6 off, is left out). */
#define PD_LISTEN_PROXY4   0x01u /* TCP 127.0.0.1:proxy_port */
#define PD_LISTEN_PROXY6   0x02u /* TCP [::1]:proxy_port */
#define PD_LISTEN_DNS_UDP  0x04u /* UDP 127.0.0.53:53 */
#define PD_LISTEN_DNS_TCP  0x08u /* TCP 127.0.0.53:53 */
#define PD_LISTEN_DNS_UDP1 0x10u /* UDP 127.0.0.1:53 (no resolv.conf: glibc asks there) */
#define PD_LISTEN_DNS_TCP1 0x20u /* TCP 127.0.0.1:53 */
#define PD_LISTEN_MAX      6
struct pd_ns_listen {
    int chan;                /* the child's end of an AF_UNIX socketpair */
    uint16_t proxy_port;     /* the proxy's port on 127.0.0.1 and ::1 */
    const char *resolv_conf; /* bound read-only over /etc/resolv.conf (NULL: none) */
};

/* Namespaces made ahead by pd_ns_early_start, for the child to join instead
 * of making its own (on: every descriptor is valid). */
struct pd_ns_join {
    bool on;
    bool user, net;              /* which of them there are */
    int user_fd, net_fd, ipc_fd; /* /proc/.../ns/{user,net,ipc}; -1 for none */
};

struct pd_ns_spec {
    bool enable;             /* enter namespaces (policy key namespaces) */
    bool require;            /* refused -> apply fails (require_namespaces) */
    const char *require_why; /* what requires them, for that error (NULL: require_namespaces) */
    const struct pd_ns_listen *listen; /* NULL: the network stays loopback only */
    const char *workdir;               /* the working directory, entered again after the mounts */
    const struct pd_keep *keep;        /* sorted parents first; under /tmp or /dev/shm */
    size_t nkeep;
    struct pd_path_list hide;     /* secrets: an empty, unreadable, read-only file or
                                     directory mounted over each */
    struct pd_path_list readonly; /* protected paths: bound read-only onto themselves */
    struct pd_path_list sockets;  /* host UNIX sockets: an unconnectable file over each */
    struct pd_ns_report *report;  /* may be NULL */
    struct pd_ns_join join;       /* made ahead (off: the child makes them) */
};

struct pd_sandbox_spec {
    struct pd_path_list exec_paths;  /* read + execute (system dirs, the program) */
    struct pd_path_list read_paths;  /* read only (workspace, /proc, policy file) */
    struct pd_path_list write_paths; /* every right (writable roots, temp home, /dev/shm) */
    struct pd_path_list dev_paths;   /* read + write + ioctl on device files (/dev/null, tty...) */
    struct pd_path_list list_paths;  /* directory listing only (every directory beneath) */
    bool no_exec_writes;             /* write_paths and the private /tmp grant no execution
                                        (allow_binaries: the kernel floor; a writable root that
                                        holds an allowed program is in exec_paths too) */
    bool allow_network;              /* false: a network namespace with only lo; where there is
                                        none, no TCP (Landlock) and only AF_UNIX and AF_NETLINK
                                        sockets (seccomp) */
    bool shm_private;                /* /dev/shm (not in write_paths) is writable only as the
                                        run's private one: the run directory lies in the host's */
    struct pd_ns_spec ns;
    struct pd_limits limits;
};

/* The run's user (unless root), IPC and (net) network namespaces, made by a
 * helper task while the launcher prepares the run (ns_early.c): start as
 * early as it is known that the run enters namespaces; finish before the
 * child starts (it waits for the helper) and put the join in the spec's
 * ns.join; close once the child has started. Never fails: where the
 * namespaces could not be made ahead, the join is off and the child makes
 * them itself. e must stay where it is from start to finish. */
struct pd_ns_early {
    bool started; /* by pd_ns_early_start (a zeroed struct: never started) */
    pid_t pid;    /* the helper while it may run; 0 after */
    void *stack;
    bool user, net;
    char uid_map[48], gid_map[48];
    int go;       /* 0 until the launcher lets the helper start (futex) */
    int result;   /* the helper's: 1 done, a negative errno failed */
    int admitted; /* 0 until the helper knows: 1 the host gives namespaces, -1 not (futex) */
    int user_fd, net_fd, ipc_fd;
    bool adopted; /* no helper: the fds are a stock's (pd_ns_stock_adopt) */
};
void pd_ns_early_start(struct pd_ns_early *e, bool net);
/* false: this build never makes them ahead (sanitizers, an architecture
 * without raw system calls here) */
bool pd_ns_early_built(void);
/* Does the host give the run its namespaces? The helper's answer after its
 * first, quick step (user and IPC), waited for if need be: a prediction the
 * child's own attempt nearly always bears out, for what must be chosen
 * before (where the run directory goes). false where no helper runs. */
bool pd_ns_early_admitted(struct pd_ns_early *e);
void pd_ns_early_finish(struct pd_ns_early *e, struct pd_ns_join *j);
void pd_ns_early_close(struct pd_ns_early *e);

/* Namespaces made after a run for the next (ns_stock.c): a kept process, a
 * child of the launcher that holds nothing of the run (no descriptor but
 * dirfd, "/" as its directory, a session of its own, default signal
 * dispositions, its command line rewritten to "paldron: namespaces made
 * for the next run"), makes the user (unless root), IPC and, with net,
 * network namespaces with lo up, exactly as the ns_early helper does, then
 * names itself in dirfd's file name ("<pid> <start time>\n", linked there
 * only if no such file is: never two; with replace, over the spent file of
 * a stock the caller took) and waits keep_sec seconds for a
 * launcher to take them; then removes the file if it is still its own and
 * exits. It runs on the launcher's memory (no copy of its page tables):
 * call it last, once nothing the launcher does can depend on its argument
 * area. Returns its pid, or -1 (not made: this build has no raw system
 * calls, or clone failed). */
pid_t pd_ns_stock_make(int dirfd, const char *name, bool net, bool replace, unsigned keep_sec);

/* Take the namespaces of the kept process pid (its identity checked by the
 * caller) into e as pd_ns_early_start would have made them: the user
 * namespace (unless root) a child of the caller's and owned by its euid,
 * the IPC and network ones owned by that user namespace (by the caller's
 * own as root) and not the caller's. false, e untouched, when any of that
 * does not hold. */
bool pd_ns_stock_adopt(struct pd_ns_early *e, pid_t pid, bool net);

/* /proc/<pid>/stat: the count decimal fields from field first on (1-based,
 * as proc(5) counts; the name in parentheses may hold spaces and ')').
 * true when they are all there. */
bool pd_stat_fields(const char *buf, size_t n, int first, int count, unsigned long long *out);
/* The start time of pid (clock ticks since boot) and whether its name is
 * "paldron"; 0 when it is gone. */
unsigned long long pd_proc_start(pid_t pid, bool *paldron);
/* Does pid run under the same no_new_privs flag and seccomp filters (mode
 * and count, /proc/<pid>/status) as the caller? A process made by a
 * launcher confined as this one is. */
bool pd_proc_same_confinement(pid_t pid);
/* Write title over the caller's argument area (what ps and
 * /proc/<pid>/cmdline show) and blank its environment area (what
 * /proc/<pid>/environ shows: the run's, in a process made by the launcher),
 * in raw system calls where there are. */
void pd_proc_retitle(const char *title);

/* Fill *info. Never fails; absent features are reported as such. */
void pd_platform_probe(struct pd_platform_info *info);

/* Does this host give the run its namespaces (user unless root, mount,
 * IPC, and network when net)? A child tries to enter them and exits: about
 * a millisecond, so only for a decision that must be made before the run
 * (allow_hosts_without_namespace). false with why (the refused call). */
bool pd_platform_ns_available(bool net, char *why, size_t whylen);

/* Can spec be enforced on this kernel? Returns 0, or -1 with err naming the
 * missing feature (e.g. "Landlock ABI 3 cannot enforce TCP network denial;
 * ABI 4 or newer is required"). warn receives what will not be enforced but is
 * not required (e.g. signal scoping on ABI < 6), "" if nothing. */
int pd_platform_check(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen, char *warn, size_t warnlen);

/* Apply every layer to the calling thread (and what it execs), in order:
 * namespaces (spec->ns; a refusal is a fallback unless ns.require),
 * rlimits (RLIMIT_CORE 0), Landlock (fs + net + scopes, as far as info->abi
 * allows), PR_SET_NO_NEW_PRIVS, seccomp. It first repeats pd_platform_check
 * (same messages), so nothing runs with less than the check requires. Every
 * return value checked; returns 0, or -1 with err naming the failing step
 * ("landlock: add rule /usr: ...", "seccomp: load filter: ...",
 * "rlimit: set data size limit: ..."). A step that fails may leave the
 * earlier ones applied: the caller must not execve then. Must be called
 * single-threaded, after fork, right before execve; it does not allocate. */
int pd_platform_apply(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen);

#endif
