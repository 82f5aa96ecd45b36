/* platform/linux/seccomp_rules.c - what the seccomp layer refuses, and why.
 * Everything not listed is allowed: Landlock confines files, signals and
 * TCP; this list removes kernel interfaces that would bypass or widen it.
 * Deliberately absent (the original blocked them and broke touch, cp -p,
 * tar -x, chmod +x, git checkout, timeout, pip install): kill, tkill,
 * tgkill, pidfd_send_signal (Landlock's signal scope confines them), the
 * chmod and chown families, utime*, futimesat, the xattr calls, setsid,
 * setpgid. */
#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/netlink.h>

#include "platform/linux/seccomp_rules.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* clone's flags are its first argument everywhere but on s390, where the
 * stack pointer comes first (CONFIG_CLONE_BACKWARDS2). */
#if defined(__s390__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* ioctl's request is an unsigned int in the kernel: compare the low 32 bits
 * only, or a caller could set the high bits to slip past an equality test. */
#define LOW32 0xffffffffULL

/* clang-format off */
#define DENY(sys, e) \
    { .name = (sys), .err = (e), .when = PD_SECCOMP_ALWAYS, .ncmp = 0, .cmp = { { 0 } } }
#define DENY_IF(sys, e, argn, cmpop, a, b) \
    { .name = (sys), .err = (e), .when = PD_SECCOMP_ALWAYS, .ncmp = 1, \
      .cmp = { { .arg = (argn), .op = (cmpop), .datum_a = (a), .datum_b = (b) } } }
#define DENY_NET_IF(sys, e, argn, cmpop, a, b) \
    { .name = (sys), .err = (e), .when = PD_SECCOMP_NET_OFF, .ncmp = 1, \
      .cmp = { { .arg = (argn), .op = (cmpop), .datum_a = (a), .datum_b = (b) } } }
/* socket(AF_NETLINK, *, protocol) for every protocol but proto. */
#define DENY_NETLINK_BUT(proto) \
    { .name = "socket", .err = EPERM, .when = PD_SECCOMP_ALWAYS, .ncmp = 2, \
      .cmp = { { .arg = 0, .op = SCMP_CMP_EQ, .datum_a = AF_NETLINK, .datum_b = 0 }, \
               { .arg = 2, .op = SCMP_CMP_NE, .datum_a = (proto), .datum_b = 0 } } }
#define DENY_EXEC_IF(sys, e, argn, cmpop, a, b) \
    { .name = (sys), .err = (e), .when = PD_SECCOMP_EXEC_FLOOR, .ncmp = 1, \
      .cmp = { { .arg = (argn), .op = (cmpop), .datum_a = (a), .datum_b = (b) } } }
#define DENY_CLONE_FLAG(flag) \
    DENY_IF("clone", EPERM, CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, (flag), (flag))
#define DENY_FAMILY(af) DENY_NET_IF("socket", EPERM, 0, SCMP_CMP_EQ, (af), 0)

const struct pd_seccomp_rule pd_seccomp_rules[] = {
    /* Reading or writing another process's memory. ptrace itself is left to
     * Landlock, which confines it to the sandbox's own processes: a tracer
     * inside the run (LeakSanitizer stopping its own threads, gdb, strace
     * of a test) gains nothing the traced process did not have. */
    DENY("process_vm_readv", EPERM),
    DENY("process_vm_writev", EPERM),

    /* Large kernel attack surfaces an agent's command does not need. io_uring
     * also performs file and socket operations that seccomp never sees. */
    DENY("bpf", EPERM),
    DENY("perf_event_open", EPERM),
    DENY("userfaultfd", EPERM),
    DENY("io_uring_setup", EPERM),
    DENY("io_uring_enter", EPERM),
    DENY("io_uring_register", EPERM),

    /* Kernel keyrings outlive the command and are shared with the user's
     * other sessions (credentials live there). */
    DENY("keyctl", EPERM),
    DENY("add_key", EPERM),
    DENY("request_key", EPERM),

    /* Changing the mount tree or the root would change what Landlock's
     * path rules refer to. */
    DENY("mount", EPERM),
    DENY("umount2", EPERM),
    DENY("mount_setattr", EPERM),
    DENY("move_mount", EPERM),
    DENY("open_tree", EPERM),
    DENY("fsopen", EPERM),
    DENY("fsconfig", EPERM),
    DENY("fsmount", EPERM),
    DENY("fspick", EPERM),
    DENY("pivot_root", EPERM),
    DENY("chroot", EPERM),

    /* New namespaces: a user namespace hands out capabilities and a large
     * kernel surface. clone3 keeps its flags in memory seccomp cannot read,
     * so it answers ENOSYS and glibc falls back to clone, whose flags are
     * checked one namespace bit at a time. */
    DENY("unshare", EPERM),
    DENY("setns", EPERM),
    DENY_CLONE_FLAG(CLONE_NEWNS),
    DENY_CLONE_FLAG(CLONE_NEWUTS),
    DENY_CLONE_FLAG(CLONE_NEWIPC),
    DENY_CLONE_FLAG(CLONE_NEWUSER),
    DENY_CLONE_FLAG(CLONE_NEWPID),
    DENY_CLONE_FLAG(CLONE_NEWNET),
    DENY_CLONE_FLAG(CLONE_NEWCGROUP),
    /* 0x80 lies in clone's exit-signal byte, so no valid clone call sets it
     * (unshare and clone3, refused whole, are where it matters); listed so
     * that every namespace flag is. */
    DENY_CLONE_FLAG(CLONE_NEWTIME),
    DENY("clone3", ENOSYS),

    /* Loading kernels and modules. */
    DENY("kexec_load", EPERM),
    DENY("kexec_file_load", EPERM),
    DENY("init_module", EPERM),
    DENY("finit_module", EPERM),
    DENY("delete_module", EPERM),

    /* System-wide state. Root only anyway, but the command may run as
     * root. open_by_handle_at opens files without a path walk. */
    DENY("acct", EPERM),
    DENY("swapon", EPERM),
    DENY("swapoff", EPERM),
    DENY("reboot", EPERM),
    DENY("settimeofday", EPERM),
    DENY("clock_settime", EPERM),
    DENY("open_by_handle_at", EPERM),

    /* Limits of other processes (the launcher's, for one): prlimit64 with a
     * pid other than 0 (self). setrlimit and getrlimit use pid 0. */
    DENY_IF("prlimit64", EPERM, 0, SCMP_CMP_NE, 0, 0),

    /* allow_binaries: a memfd that may be executed. Its file lies on no
     * path Landlock judges (an internal mount), so execveat(fd, "",
     * AT_EMPTY_PATH) or execve("/proc/self/fd/N") of a copied program would
     * run it past the exec floor. A memfd made with MFD_NOEXEC_SEAL
     * (Linux 6.3) can never be executed: only those are allowed (the
     * preload adds the flag for every dynamic caller). */
    DENY_EXEC_IF("memfd_create", EPERM, 1, SCMP_CMP_MASKED_EQ, PD_MFD_NOEXEC_SEAL, 0),

    /* Typing into the controlling terminal: input the user's shell would
     * run after the command exits. */
    DENY_IF("ioctl", EPERM, 1, SCMP_CMP_MASKED_EQ, LOW32, TIOCSTI),
    DENY_IF("ioctl", EPERM, 1, SCMP_CMP_MASKED_EQ, LOW32, TIOCLINUX),

    /* Netlink: only NETLINK_ROUTE, which ip, glibc's getifaddrs and Node's
     * os.networkInterfaces need. The others reach kernel subsystems and, for
     * NETLINK_USERSOCK, processes outside the sandbox (where there is no
     * network namespace, in the host's). */
    DENY_NETLINK_BUT(NETLINK_ROUTE),

    /* Network off and no network namespace (the fallback): only AF_UNIX (1)
     * and AF_NETLINK (16) sockets. The
     * comparisons are on all 64 bits, so a domain with high bits set is
     * above AF_NETLINK and refused. socketpair is AF_UNIX only. */
    DENY_NET_IF("socket", EPERM, 0, SCMP_CMP_LT, AF_UNIX, 0),
    DENY_FAMILY(AF_INET),      /* 2 */
    DENY_FAMILY(AF_AX25),      /* 3 */
    DENY_FAMILY(AF_IPX),       /* 4 */
    DENY_FAMILY(AF_APPLETALK), /* 5 */
    DENY_FAMILY(AF_NETROM),    /* 6 */
    DENY_FAMILY(AF_BRIDGE),    /* 7 */
    DENY_FAMILY(AF_ATMPVC),    /* 8 */
    DENY_FAMILY(AF_X25),       /* 9 */
    DENY_FAMILY(AF_INET6),     /* 10 */
    DENY_FAMILY(AF_ROSE),      /* 11 */
    DENY_FAMILY(AF_DECnet),    /* 12 */
    DENY_FAMILY(AF_NETBEUI),   /* 13 */
    DENY_FAMILY(AF_SECURITY),  /* 14 */
    DENY_FAMILY(AF_KEY),       /* 15 */
    DENY_NET_IF("socket", EPERM, 0, SCMP_CMP_GT, AF_NETLINK, 0),
};
/* clang-format on */

const size_t pd_seccomp_rules_n = sizeof pd_seccomp_rules / sizeof pd_seccomp_rules[0];

/* The family rules above must cover every value between the two ranges. */
_Static_assert(AF_UNIX == 1 && AF_INET == 2 && AF_KEY == 15 && AF_NETLINK == 16,
               "socket family rules assume Linux's numbering");
