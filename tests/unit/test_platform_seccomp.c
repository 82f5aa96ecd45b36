/* tests/unit/test_platform_seccomp.c - the seccomp layer, proved with real
 * system calls. Most tests load the filter alone (pd_seccomp_apply), so that
 * an EPERM cannot come from Landlock; a few go through pd_platform_apply to
 * show the layers together. Criterion runs each test in its own process. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <seccomp.h>

#include <linux/netlink.h>
#include <linux/seccomp.h>

#include "platform/linux/backend.h"
#include "platform/linux/seccomp_build.h"
#include "platform/linux/seccomp_prog.h"
#include "platform/linux/seccomp_rules.h"
#include "platform/platform.h"

#define PROBE_DIR    PALDRON_BINARY_DIR "/tests/probe"
#define PROBE_STATIC PROBE_DIR "/probe_static"

extern char **environ;

static int try(long rc)
{
    return rc < 0 ? errno : 0;
}

/* Exit status, or 128 + the signal that ended the process. */
static int status(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void filter(bool allow_network)
{
    struct pd_platform_info info;
    pd_platform_probe(&info);
    if (!info.seccomp)
        cr_skip_test("kernel without seccomp filters");
    char err[PD_PLATFORM_ERR_MAX];
    int rc = pd_seccomp_apply(allow_network, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
}

static void no_core_dumps(void)
{
    const struct rlimit zero = {0, 0};
    cr_assert(eq(int, setrlimit(RLIMIT_CORE, &zero), 0));
}

/* Fork-like raw calls: a child that got through exits at once. */
static int try_fork_like(long rc)
{
    int err = errno;
    if (rc == 0)
        _exit(0);
    if (rc > 0)
        waitpid((pid_t)rc, NULL, __WALL);
    return rc < 0 ? err : 0;
}

/* ---- netlink: only NETLINK_ROUTE, whatever the network ---------------- */

static void netlink_case(bool any_socket)
{
    no_core_dumps();
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        filter(any_socket);
        int route = try(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
        int user = try(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_USERSOCK));
        int inet = try(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        _exit(route == 0 && user == EPERM && inet == (any_socket ? 0 : EPERM) ? 0 : 1);
    }
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_assert(eq(int, status(st), 0));
}

Test(seccomp_netlink, only_route_with_any_socket)
{
    netlink_case(true);
}

Test(seccomp_netlink, only_route_with_restricted_sockets)
{
    netlink_case(false);
}

/* ---- the exec floor: no memfd that could be executed -------------------- */

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

Test(seccomp_exec_floor, only_sealed_noexec_memfds)
{
    int probe = (int)syscall(SYS_memfd_create, "probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
    if (probe < 0)
        cr_skip_test("SKIP kernel without MFD_NOEXEC_SEAL (Linux 6.3): %s", strerror(errno));
    close(probe);
    no_core_dumps();
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        char err[PD_PLATFORM_ERR_MAX];
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            pd_seccomp_load(false, true, err, sizeof err) != 0)
            _exit(10);
        int plain = try(syscall(SYS_memfd_create, "plain", MFD_CLOEXEC));
        int exec = try(syscall(SYS_memfd_create, "exec", MFD_CLOEXEC | MFD_EXEC));
        int sealed = try(syscall(SYS_memfd_create, "sealed", MFD_CLOEXEC | MFD_NOEXEC_SEAL));
        _exit(plain == EPERM && exec == EPERM && sealed == 0 ? 0 : 1);
    }
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_assert(eq(int, status(st), 0));
}

Test(seccomp_exec_floor, plain_memfds_without_the_floor)
{
    no_core_dumps();
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        char err[PD_PLATFORM_ERR_MAX];
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            pd_seccomp_load(false, false, err, sizeof err) != 0)
            _exit(10);
        _exit(try(syscall(SYS_memfd_create, "plain", MFD_CLOEXEC)) == 0 ? 0 : 1);
    }
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_assert(eq(int, status(st), 0));
}

/* ---- the table -------------------------------------------------------- */

Test(seccomp_table, every_name_is_known_on_x86_64)
{
#if defined(__x86_64__)
    for (size_t i = 0; i < pd_seccomp_rules_n; i++)
        cr_expect(ge(int, seccomp_syscall_resolve_name(pd_seccomp_rules[i].name), 0),
                  "%s is unknown: the rule would be skipped", pd_seccomp_rules[i].name);
#else
    cr_skip_test("the rule names are checked on x86_64");
#endif
}

static char *pfc(unsigned variant)
{
    static char buf[1 << 16];
    char err[PD_PLATFORM_ERR_MAX];
    scmp_filter_ctx ctx = pd_seccomp_build(variant, err, sizeof err);
    cr_assert_not_null(ctx, "%s", err);
    int fd = memfd_create("pfc", MFD_CLOEXEC);
    cr_assert(ge(int, fd, 0));
    cr_assert(eq(int, seccomp_export_pfc(ctx, fd), 0));
    seccomp_release(ctx);
    memset(buf, 0, sizeof buf);
    cr_assert(ge(long, (long)pread(fd, buf, sizeof buf - 1, 0), 1));
    close(fd);
    return buf;
}

/* Number of times needle occurs in hay. */
static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

Test(seccomp_table, family_rules_only_when_sockets_are_restricted)
{
    cr_assert(not(eq(str, pfc(PD_SECCOMP_ANY_SOCKET), "")));
    /* any_socket: the netlink rule alone (one comparison on the family) */
    size_t open_net = count(pfc(PD_SECCOMP_ANY_SOCKET), "\"socket\"");
    size_t closed_net = count(pfc(0), "\"socket\"");
    cr_assert(eq(sz, open_net, 1), "%s", pfc(PD_SECCOMP_ANY_SOCKET));
    cr_assert(gt(sz, closed_net, open_net));
    cr_assert_not_null(strstr(pfc(PD_SECCOMP_ANY_SOCKET), "\"process_vm_readv\""));
    cr_assert_not_null(
        strstr(pfc(PD_SECCOMP_ANY_SOCKET), "invalid architecture action\naction KILL_PROCESS"));
}

Test(seccomp_table, memfd_rule_only_with_the_exec_floor)
{
    for (unsigned v = 0; v < PD_SECCOMP_VARIANTS; v++) {
        const bool floor = v & PD_SECCOMP_EXEC;
        cr_assert(eq(int, strstr(pfc(v), "\"memfd_create\"") != NULL, floor), "variant %u", v);
    }
}

/* ---- the programs compiled at build time -------------------------------- */

/* What libseccomp builds now from the table, exported as BPF into buf; its
 * length in instructions. */
static size_t exported(unsigned variant, struct sock_filter *buf, size_t cap)
{
    char err[PD_PLATFORM_ERR_MAX];
    scmp_filter_ctx ctx = pd_seccomp_build(variant, err, sizeof err);
    cr_assert_not_null(ctx, "%s", err);
    int fd = memfd_create("bpf", MFD_CLOEXEC);
    cr_assert(ge(int, fd, 0));
    cr_assert(eq(int, seccomp_export_bpf(ctx, fd), 0));
    seccomp_release(ctx);
    ssize_t n = pread(fd, buf, cap * sizeof *buf, 0);
    close(fd);
    cr_assert(gt(long, (long)n, 0L));
    cr_assert(eq(long, (long)((size_t)n % sizeof *buf), 0L));
    cr_assert(lt(long, (long)n, (long)(cap * sizeof *buf)));
    return (size_t)n / sizeof *buf;
}

/* The generated file (seccomp_prog.c) is what the table says: the build
 * regenerates it when seccomp_rules.c changes, and this catches any other
 * way the two could part (a stale file, another libseccomp). */
Test(seccomp_prog, generated_programs_equal_the_table)
{
    static struct sock_filter want[BPF_MAXINSNS + 1];
    for (unsigned v = 0; v < PD_SECCOMP_VARIANTS; v++) {
        size_t n = exported(v, want, BPF_MAXINSNS + 1);
        const struct pd_seccomp_prog *got = &pd_seccomp_progs[v];
        cr_assert(eq(sz, (size_t)got->len, n), "variant %u: %u instructions, table %zu", v,
                  got->len, n);
        for (size_t i = 0; i < n; i++) {
            const struct sock_filter *g = &got->filter[i], *w = &want[i];
            cr_assert(g->code == w->code && g->jt == w->jt && g->jf == w->jf && g->k == w->k,
                      "variant %u: instruction %zu differs", v, i);
        }
    }
}

/* The programs are for this machine: the first instructions check the
 * audit architecture libseccomp calls native, and kill on any other. */
Test(seccomp_prog, programs_check_the_native_architecture)
{
    for (unsigned v = 0; v < PD_SECCOMP_VARIANTS; v++) {
        const struct pd_seccomp_prog *p = &pd_seccomp_progs[v];
        cr_assert(gt(int, p->len, 3));
        cr_assert(eq(u32, p->filter[0].code, (uint32_t)(BPF_LD | BPF_W | BPF_ABS)));
        cr_assert(eq(u32, p->filter[0].k, 4u)); /* offsetof(struct seccomp_data, arch) */
        cr_assert(eq(u32, p->filter[1].code, (uint32_t)(BPF_JMP | BPF_JEQ | BPF_K)));
        cr_assert(eq(u32, p->filter[1].k, seccomp_arch_native()));
        /* the mismatch branch ends in KILL_PROCESS */
        const struct sock_filter *kill = &p->filter[2 + p->filter[1].jf];
        cr_assert(eq(u32, kill->code, (uint32_t)(BPF_RET | BPF_K)));
        cr_assert(eq(u32, kill->k, (uint32_t)SECCOMP_RET_KILL_PROCESS));
    }
}

/* Every unconditional rule, called with arguments that make the call fail
 * harmlessly (and distinguishably) if the filter let it through. */
static const struct {
    const char *name;
    int want;
} unconditional[] = {
    {"process_vm_readv", EPERM},
    {"process_vm_writev", EPERM},
    {"bpf", EPERM},
    {"perf_event_open", EPERM},
    {"userfaultfd", EPERM},
    {"io_uring_setup", EPERM},
    {"io_uring_enter", EPERM},
    {"io_uring_register", EPERM},
    {"keyctl", EPERM},
    {"add_key", EPERM},
    {"request_key", EPERM},
    {"mount", EPERM},
    {"umount2", EPERM},
    {"mount_setattr", EPERM},
    {"move_mount", EPERM},
    {"open_tree", EPERM},
    {"fsopen", EPERM},
    {"fsconfig", EPERM},
    {"fsmount", EPERM},
    {"fspick", EPERM},
    {"pivot_root", EPERM},
    {"chroot", EPERM},
    {"unshare", EPERM},
    {"setns", EPERM},
    {"clone3", ENOSYS},
    {"kexec_load", EPERM},
    {"kexec_file_load", EPERM},
    {"init_module", EPERM},
    {"finit_module", EPERM},
    {"delete_module", EPERM},
    {"acct", EPERM},
    {"swapon", EPERM},
    {"swapoff", EPERM},
    {"reboot", EPERM},
    {"settimeofday", EPERM},
    {"clock_settime", EPERM},
    {"open_by_handle_at", EPERM},
};
#define N_UNCONDITIONAL (sizeof unconditional / sizeof unconditional[0])

static long call_invalid(const char *name)
{
    int nr = seccomp_syscall_resolve_name(name);
    cr_assert(ge(int, nr, 0), "%s unknown", name);
    errno = 0;
    return syscall(nr, -1L, -1L, -1L, -1L, -1L, -1L);
}

Test(seccomp_table, the_test_covers_every_unconditional_rule)
{
    for (size_t i = 0; i < pd_seccomp_rules_n; i++) {
        const struct pd_seccomp_rule *r = &pd_seccomp_rules[i];
        if (r->when != PD_SECCOMP_ALWAYS || r->ncmp != 0)
            continue;
        bool found = false;
        for (size_t j = 0; j < N_UNCONDITIONAL; j++)
            if (strcmp(unconditional[j].name, r->name) == 0) {
                found = true;
                cr_expect(eq(int, unconditional[j].want, r->err), "%s", r->name);
            }
        cr_expect(found, "rule %s has no test", r->name);
    }
}

Test(seccomp, unconditional_rules_return_their_errno)
{
    /* Unfiltered, the same calls fail with something else (EINVAL, EFAULT,
     * EBADF...) when run as root, which shows the errno below is the
     * filter's; other users get EPERM from the kernel for some. */
    int before[N_UNCONDITIONAL];
    for (size_t i = 0; i < N_UNCONDITIONAL; i++) {
        long rc = call_invalid(unconditional[i].name);
        cr_assert(eq(long, rc, -1), "%s succeeded with invalid arguments", unconditional[i].name);
        before[i] = errno;
        if (geteuid() == 0)
            cr_expect(ne(int, before[i], unconditional[i].want), "%s: already %s unfiltered",
                      unconditional[i].name, strerror(before[i]));
    }
    filter(true);
    for (size_t i = 0; i < N_UNCONDITIONAL; i++) {
        cr_assert(eq(long, call_invalid(unconditional[i].name), -1));
        cr_expect(eq(int, errno, unconditional[i].want), "%s: %s", unconditional[i].name,
                  strerror(errno));
    }
}

/* ---- processes and namespaces ----------------------------------------- */

Test(seccomp, namespace_flags_in_clone_are_refused)
{
    const unsigned long flags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWUSER,
                                   CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP, CLONE_NEWTIME};
    filter(true);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        long rc = syscall(SYS_clone, flags[i] | SIGCHLD, NULL, NULL, NULL, NULL);
        cr_expect(eq(int, try_fork_like(rc), EPERM), "clone flag %#lx", flags[i]);
    }
    cr_assert(eq(int, try(syscall(SYS_unshare, CLONE_NEWUSER)), EPERM));
}

static void *thread_main(void *arg)
{
    return arg;
}

Test(seccomp, clone3_is_enosys_and_libc_falls_back)
{
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    filter(true);
    cr_assert(eq(int, try_fork_like(syscall(SYS_clone3, &args, sizeof args)), ENOSYS));
    /* glibc's fork, posix_spawn and pthread_create still work. */
    pid_t pid = fork();
    if (pid == 0)
        _exit(7);
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_assert(eq(int, status(st), 7));
    char *argv[] = {"/bin/true", NULL};
    cr_assert(eq(int, posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0));
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_assert(eq(int, status(st), 0));
    pthread_t t;
    cr_assert(eq(int, pthread_create(&t, NULL, thread_main, NULL), 0));
    cr_assert(eq(int, pthread_join(t, NULL), 0));
}

Test(seccomp, ptrace_of_own_child_is_left_to_landlock)
{
    /* A tracer inside the sandbox (LeakSanitizer stopping its own threads,
     * a test's strace) is allowed by the filter; Landlock keeps ptrace
     * inside the sandbox (seccomp_full below: the parent is refused). */
    filter(true);
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed test */
        pause();
        _exit(0);
    }
    cr_expect(eq(int, try(ptrace(PTRACE_ATTACH, child, NULL, NULL)), 0));
    kill(child, SIGKILL);
    waitpid(child, NULL, __WALL);
}

Test(seccomp, prlimit_on_other_processes_is_refused)
{
    struct rlimit r;
    cr_assert(eq(int, try(prlimit(getppid(), RLIMIT_NOFILE, NULL, &r)), 0));
    filter(true);
    cr_assert(eq(int, try(prlimit(getppid(), RLIMIT_NOFILE, NULL, &r)), EPERM));
    cr_assert(eq(int, try(prlimit(0, RLIMIT_NOFILE, NULL, &r)), 0));
    cr_assert(eq(int, try(getrlimit(RLIMIT_NOFILE, &r)), 0));
    cr_assert(eq(int, try(setrlimit(RLIMIT_NOFILE, &r)), 0));
}

/* ---- foreign architectures -------------------------------------------- */

Test(seccomp, x32_system_call_kills_the_process, .signal = SIGSYS)
{
#if defined(__x86_64__)
    no_core_dumps();
    filter(true);
    syscall(0x40000000 | SYS_getpid);
    cr_fatal("x32 getpid returned: %s", strerror(errno));
#else
    cr_skip_test("x32 exists only on x86_64");
#endif
}

#if defined(__x86_64__)
static long int80_getpid(void)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "r8", "r9", "r10", "r11");
    return ret;
}
#endif

/* Forked here rather than .signal: the test must be able to skip. */
Test(seccomp, i386_system_call_kills_the_process)
{
#if defined(__x86_64__)
    no_core_dumps();
    pid_t pid = fork();
    if (pid == 0)
        _exit(int80_getpid() > 0 ? 0 : 1);
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    if (status(st) != 0)
        cr_skip_test("int 0x80 does not work on this kernel (no IA32 emulation): status %d",
                     status(st));
    pid = fork();
    if (pid == 0) {
        char err[PD_PLATFORM_ERR_MAX];
        if (pd_seccomp_apply(true, err, sizeof err) != 0)
            _exit(2);
        int80_getpid();
        _exit(3);
    }
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_assert(eq(int, status(st), 128 + SIGSYS));
#else
    cr_skip_test("i386 system calls from a 64-bit process exist on x86_64 only");
#endif
}

/* ---- terminals -------------------------------------------------------- */

Test(seccomp, tiocsti_and_tioclinux_are_refused)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0)
        cr_skip_test("no pseudo-terminal: posix_openpt: %s", strerror(errno));
    cr_assert(eq(int, grantpt(master), 0));
    cr_assert(eq(int, unlockpt(master), 0));
    int tty = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
    cr_assert(ge(int, tty, 0));
    filter(true);
    char c = 'x';
    cr_assert(eq(int, try(ioctl(tty, TIOCSTI, &c)), EPERM));
    /* High bits set: the kernel ignores them, the filter must too. */
    cr_assert(eq(int, try(syscall(SYS_ioctl, tty, (1UL << 32) | TIOCSTI, &c)), EPERM));
    char sub = 0;
    cr_assert(eq(int, try(ioctl(tty, TIOCLINUX, &sub)), EPERM));
    struct winsize ws;
    cr_assert(eq(int, try(ioctl(tty, TIOCGWINSZ, &ws)), 0));
}

/* ---- sockets ---------------------------------------------------------- */

static int try_socket(long domain, int type)
{
    long fd = syscall(SYS_socket, domain, (long)(type | SOCK_CLOEXEC), 0L);
    if (fd < 0)
        return errno;
    close((int)fd);
    return 0;
}

Test(seccomp, network_off_allows_only_unix_and_netlink_sockets)
{
    cr_assert(eq(int, try_socket(AF_INET, SOCK_DGRAM), 0));
    filter(false);
    cr_assert(eq(int, try_socket(AF_INET, SOCK_DGRAM), EPERM));
    cr_assert(eq(int, try_socket(AF_INET, SOCK_STREAM), EPERM));
    cr_assert(eq(int, try_socket(AF_INET6, SOCK_STREAM), EPERM));
    cr_assert(eq(int, try_socket(AF_PACKET, SOCK_RAW), EPERM));
    cr_assert(eq(int, try_socket(40 /* AF_VSOCK */, SOCK_STREAM), EPERM));
    cr_assert(eq(int, try_socket(AF_UNSPEC, SOCK_STREAM), EPERM));
    cr_assert(eq(int, try_socket((1L << 32) | AF_INET, SOCK_STREAM), EPERM));
    cr_assert(eq(int, try_socket(-1L, SOCK_STREAM), EPERM));
    cr_assert(eq(int, try_socket(AF_UNIX, SOCK_STREAM), 0));
    cr_assert(eq(int, try_socket(AF_UNIX, SOCK_DGRAM), 0));
    cr_assert(eq(int, try_socket(AF_NETLINK, SOCK_RAW), 0));
    int sv[2];
    cr_assert(eq(int, try(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)), 0));
}

Test(seccomp, network_on_allows_inet_sockets)
{
    filter(true);
    cr_assert(eq(int, try_socket(AF_INET, SOCK_DGRAM), 0));
    cr_assert(eq(int, try_socket(AF_INET6, SOCK_STREAM), 0));
}

/* ---- what must keep working ------------------------------------------- */

Test(seccomp, file_metadata_sessions_and_signals_are_not_blocked)
{
    char dir[] = "/tmp/paldron-seccomp-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char file[64];
    snprintf(file, sizeof file, "%s/f", dir);
    int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    cr_assert(ge(int, fd, 0));
    filter(false);
    cr_expect(eq(int, try(chmod(file, 0755)), 0)); /* chmod +x */
    cr_expect(eq(int, try(fchmod(fd, 0644)), 0));  /* cp -p */
    cr_expect(eq(int, try(fchmodat(AT_FDCWD, file, 0600, 0)), 0));
    cr_expect(eq(int, try(chown(file, getuid(), getgid())), 0)); /* tar -x */
    cr_expect(eq(int, try(fchown(fd, getuid(), getgid())), 0));
    cr_expect(eq(int, try(lchown(file, getuid(), getgid())), 0));
    cr_expect(eq(int, try(utimensat(AT_FDCWD, file, NULL, 0)), 0)); /* touch */
    cr_expect(eq(int, try(futimens(fd, NULL)), 0));
    int x = try(setxattr(file, "user.paldron", "1", 1, 0));
    cr_expect(x == 0 || x == ENOTSUP, "setxattr: %s", strerror(x));
    char v[8];
    x = try(getxattr(file, "user.paldron", v, sizeof v));
    cr_expect(x == 0 || x == ENOTSUP || x == ENODATA, "getxattr: %s", strerror(x));
    cr_expect(eq(int, try(kill(getpid(), 0)), 0));
    cr_expect(eq(int, try(syscall(SYS_tgkill, getpid(), gettid(), 0)), 0));
    /* In children: the test process may already lead a session. */
    pid_t pid = fork();
    if (pid == 0)
        _exit(setsid() > 0 ? 0 : errno);
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_expect(eq(int, status(st), 0), "setsid failed in the child");
    pid = fork();
    if (pid == 0)
        _exit(setpgid(0, 0) == 0 ? 0 : errno);
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_expect(eq(int, status(st), 0), "setpgid failed in the child");
    close(fd);
    unlink(file);
    rmdir(dir);
}

/* ---- the whole stack, through the static probe ------------------------ */

/* Run the static probe in the full sandbox; return its exit status (or
 * 128 + signal) and its first output line in line. */
static int probe(char *line, size_t len, char *const args[])
{
    int p[2];
    cr_assert(eq(int, pipe2(p, O_CLOEXEC), 0));
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        dup2(p[1], 1);
        execv(PROBE_STATIC, args);
        _exit(127);
    }
    close(p[1]);
    memset(line, 0, len);
    ssize_t n = 0, r;
    while ((r = read(p[0], line + n, len - 1 - (size_t)n)) > 0)
        n += r;
    close(p[0]);
    char *nl = strchr(line, '\n');
    if (nl != NULL)
        *nl = '\0';
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    return status(st);
}

static void full_sandbox(bool net)
{
    struct pd_platform_info info;
    pd_platform_probe(&info);
    if (info.landlock_abi < 6 || !info.seccomp)
        cr_skip_test("needs Landlock ABI 6 and seccomp (ABI %d: %s)", info.landlock_abi,
                     info.landlock_error);
    const char *exec[] = {PROBE_DIR};
    const char *dev[] = {"/dev/null"};
    struct pd_sandbox_spec s = {
        .exec_paths = {exec, 1},
        .dev_paths = {dev, 1},
        .allow_network = net,
    };
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_platform_apply(&s, &info, err, sizeof err), 0), "%s", err);
}

Test(seccomp_full, static_binaries_are_confined)
{
    char ppid[16], line[128];
    snprintf(ppid, sizeof ppid, "%d", (int)getppid());
    full_sandbox(false);
    cr_assert(eq(int, try(ptrace(PTRACE_ATTACH, getppid(), NULL, NULL)), EPERM));
    const struct {
        const char *op, *arg;
        const char *want;
    } cases[] = {
        {"socket-inet", NULL, "-1 1"},    {"socket-unix", NULL, "0 0"},
        {"socketpair", NULL, "0 0"},      {"clone-newuser", NULL, "-1 1"},
        {"unshare-user", NULL, "-1 1"},   {"clone3", NULL, "-1 38"},
        {"io_uring_setup", NULL, "-1 1"}, {"bpf", NULL, "-1 1"},
        {"mount", NULL, "-1 1"},          {"tiocsti", NULL, "-1 1"},
        {"ptrace-attach", ppid, "-1 1"},  {"setsid", NULL, "0 0"},
        {"kill", ppid, "-1 1"},           {"open-read", "/etc/passwd", "-1 13"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *args[] = {PROBE_STATIC, (char *)cases[i].op, (char *)cases[i].arg,
                        strcmp(cases[i].op, "kill") == 0 ? "0" : NULL, NULL};
        cr_expect(eq(int, probe(line, sizeof line, args), 0), "%s", cases[i].op);
        cr_expect(eq(str, line, (char *)cases[i].want), "%s", cases[i].op);
    }
#if defined(__x86_64__)
    char *x32[] = {PROBE_STATIC, "x32-getpid", NULL};
    cr_assert(eq(int, probe(line, sizeof line, x32), 128 + SIGSYS));
#endif
}
