/* tests/unit/test_platform_rlimits.c - the resource-limit layer: limits
 * are lowered (soft = hard), never raised, 0 leaves a limit alone, core
 * dumps are always off, and the limits bite. Criterion runs each test in
 * its own process, so limits set here end with the test. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "platform/linux/backend.h"
#include "platform/platform.h"

static void lower(const struct pd_limits *lim)
{
    char err[PD_PLATFORM_ERR_MAX];
    int rc = pd_rlimits_apply(lim, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
}

static struct rlimit get(int resource)
{
    struct rlimit r;
    cr_assert(eq(int, getrlimit((__rlimit_resource_t)resource, &r), 0));
    return r;
}

static void set(int resource, rlim_t soft, rlim_t hard)
{
    const struct rlimit r = {soft, hard};
    cr_assert(eq(int, setrlimit((__rlimit_resource_t)resource, &r), 0), "setrlimit: %s",
              strerror(errno));
}

Test(rlimits, requested_limits_become_soft_and_hard)
{
    const struct pd_limits lim = {
        .cpu_sec = 100,
        .mem_bytes = 1ULL << 34,
        .nproc = 500,
        .fsize_bytes = 1 << 20,
        .nofile = 64,
    };
    lower(&lim);
    const struct {
        int resource;
        unsigned long long want;
    } cases[] = {
        {RLIMIT_CPU, 100},       {RLIMIT_DATA, 1ULL << 34}, {RLIMIT_NPROC, 500},
        {RLIMIT_FSIZE, 1 << 20}, {RLIMIT_NOFILE, 64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rlimit r = get(cases[i].resource);
        cr_expect(eq(u64, r.rlim_cur, cases[i].want), "resource %d soft", cases[i].resource);
        cr_expect(eq(u64, r.rlim_max, cases[i].want), "resource %d hard", cases[i].resource);
    }
}

Test(rlimits, limits_are_never_raised)
{
    set(RLIMIT_NOFILE, 32, 32);
    set(RLIMIT_CPU, 50, 60);
    const struct pd_limits lim = {.cpu_sec = 1000, .nofile = 1000};
    lower(&lim);
    cr_assert(eq(u64, get(RLIMIT_NOFILE).rlim_cur, 32));
    cr_assert(eq(u64, get(RLIMIT_NOFILE).rlim_max, 32));
    /* Clamped to the hard limit; the soft limit follows. */
    cr_assert(eq(u64, get(RLIMIT_CPU).rlim_cur, 60));
    cr_assert(eq(u64, get(RLIMIT_CPU).rlim_max, 60));
}

Test(rlimits, zero_leaves_a_limit_alone_and_core_is_always_off)
{
    set(RLIMIT_NOFILE, 100, 200);
    struct rlimit core = get(RLIMIT_CORE);
    set(RLIMIT_CORE, core.rlim_max, core.rlim_max); /* as open as we may */
    const struct pd_limits none = {0};
    lower(&none);
    cr_assert(eq(u64, get(RLIMIT_NOFILE).rlim_cur, 100));
    cr_assert(eq(u64, get(RLIMIT_NOFILE).rlim_max, 200));
    cr_assert(eq(u64, get(RLIMIT_CORE).rlim_cur, 0));
    cr_assert(eq(u64, get(RLIMIT_CORE).rlim_max, 0));
}

Test(rlimits, file_size_limit_stops_writes)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    int fd = fileno(f);
    signal(SIGXFSZ, SIG_IGN); /* else the process dies at the limit */
    const struct pd_limits lim = {.fsize_bytes = 4096};
    lower(&lim);
    static char buf[8192];
    cr_assert(eq(long, (long)write(fd, buf, sizeof buf), 4096)); /* short write */
    errno = 0;
    cr_assert(eq(long, (long)write(fd, buf, 1), -1));
    cr_assert(eq(int, errno, EFBIG));
    cr_assert(eq(long, (long)lseek(fd, 0, SEEK_END), 4096));
}

Test(rlimits, open_file_limit_stops_opens)
{
    const struct pd_limits lim = {.nofile = 16};
    lower(&lim);
    int last = -1, n = 0;
    for (int i = 0; i < 64; i++) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            cr_assert(eq(int, errno, EMFILE));
            break;
        }
        last = fd;
        n++;
    }
    cr_assert(lt(int, last, 16));
    cr_assert(lt(int, n, 16));
}

/* max_memory_mb is a data limit: a writable private mapping beyond it
 * fails, a PROT_NONE reservation of any size does not count (V8's wasm
 * memories, ASan-style reservations), and the address space is left alone. */
Test(rlimits, data_limit_stops_writable_mappings_not_reservations)
{
    struct rlimit data = get(RLIMIT_DATA);
    if (data.rlim_max != RLIM_INFINITY && data.rlim_max < (1ULL << 33))
        cr_skip_test("inherited data limit %llu is already small",
                     (unsigned long long)data.rlim_max);
    struct rlimit as_before = get(RLIMIT_AS);
    const struct pd_limits lim = {.mem_bytes = 1ULL << 33};
    lower(&lim);
    cr_assert(eq(u64, get(RLIMIT_DATA).rlim_max, 1ULL << 33));
    cr_assert(eq(u64, get(RLIMIT_AS).rlim_max, as_before.rlim_max), "RLIMIT_AS untouched");
    void *p = mmap(NULL, 1ULL << 34, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(eq(ptr, p, MAP_FAILED));
    cr_assert(eq(int, errno, ENOMEM));
    p = mmap(NULL, 1ULL << 34, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    cr_assert(ne(ptr, p, MAP_FAILED), "a 16 GiB PROT_NONE reservation: %s", strerror(errno));
    munmap(p, 1ULL << 34);
}

/* At soft == hard the kernel's hard-limit rule wins: SIGKILL, not SIGXCPU. */
Test(rlimits, cpu_limit_kills, .signal = SIGKILL, .timeout = 30)
{
    const struct pd_limits lim = {.cpu_sec = 1};
    lower(&lim);
    for (volatile unsigned long i = 0;; i++)
        ;
}

Test(rlimits, process_limit_stops_forks)
{
    /* RLIMIT_NPROC does not bind root (CAP_SYS_RESOURCE): become nobody. */
    if (geteuid() == 0) {
        cr_assert(eq(int, setgid(65534), 0));
        cr_assert(eq(int, setuid(65534), 0));
    }
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0), "fork before the limit: %s", strerror(errno));
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    const struct pd_limits lim = {.nproc = 1};
    lower(&lim);
    pid = fork();
    if (pid == 0)
        _exit(0);
    cr_assert(eq(int, pid, -1));
    cr_assert(eq(int, errno, EAGAIN));
}

static struct pd_platform_info probe_or_skip(void)
{
    struct pd_platform_info info;
    pd_platform_probe(&info);
    if (info.landlock_abi < 4 || !info.seccomp)
        cr_skip_test("needs Landlock ABI 4 and seccomp (ABI %d: %s)", info.landlock_abi,
                     info.landlock_error);
    return info;
}

Test(rlimits, apply_sets_the_limits)
{
    struct pd_platform_info info = probe_or_skip();
    const char *read[] = {"/usr"};
    struct pd_sandbox_spec spec = {
        .read_paths = {read, 1},
        .limits = {.nofile = 48, .fsize_bytes = 1 << 20},
    };
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_platform_apply(&spec, &info, err, sizeof err), 0), "%s", err);
    cr_assert(eq(u64, get(RLIMIT_NOFILE).rlim_max, 48));
    cr_assert(eq(u64, get(RLIMIT_FSIZE).rlim_cur, 1 << 20));
    cr_assert(eq(u64, get(RLIMIT_CORE).rlim_max, 0));
}

Test(rlimits, apply_names_the_failing_step)
{
    struct pd_platform_info info = probe_or_skip();
    /* Make every setrlimit (prlimit64 with a new limit) fail the way an
     * unprivileged raise would; getrlimit keeps working. */
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    cr_assert_not_null(ctx);
    cr_assert(eq(int,
                 seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 1,
                                  SCMP_A2(SCMP_CMP_NE, 0, 0)),
                 0));
    cr_assert(eq(int, seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setrlimit), 0), 0));
    cr_assert(eq(int, seccomp_load(ctx), 0));
    seccomp_release(ctx);
    const char *read[] = {"/usr"};
    struct pd_sandbox_spec spec = {
        .read_paths = {read, 1},
        .limits = {.mem_bytes = 1ULL << 34},
    };
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_platform_apply(&spec, &info, err, sizeof err), -1));
    /* the address-space limit comes last (after the filter is built), so the
     * first limit step to fail is the core dump limit */
    cr_assert(eq(str, err, "rlimit: set core dump limit: Operation not permitted"));
}
