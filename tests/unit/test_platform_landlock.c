/* tests/unit/test_platform_landlock.c - the Landlock layer and the
 * platform check, proved with real system calls. Criterion runs every test
 * in its own process, so a test sandboxes itself and then asserts what it
 * can and cannot do; each check is first shown to work unsandboxed where
 * that is not obvious. Helpers return errno (0 on success), so assertions
 * read "expected errno, then the call". */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/linux/backend.h"
#include "platform/linux/landlock_compat.h"
#include "platform/platform.h"

#define PROBE_DIR    PALDRON_BINARY_DIR "/tests/probe"
#define PROBE_STATIC PROBE_DIR "/probe_static"

/* ---- fixture: a private tree, removed however the test ends ----------- */

/*
 * dir/
 * ├── rw/        write_paths
 * │   └── f      "rw"
 * ├── ro/        read_paths
 * │   └── f      "ro"
 * └── out/       in no list
 *     └── f      "out"
 */
static char dir[] = "/tmp/paldron-landlock-XXXXXX";
static char rw[64], ro[64], out[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* The sandboxed test cannot remove its own tree (its parent is not
 * writable), so a process forked before the sandbox waits for the test
 * process's end of a pipe to close, however the test ends, and removes it. */
static void start_janitor(void)
{
    int p[2];
    cr_assert(eq(int, pipe2(p, O_CLOEXEC), 0));
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        char c;
        dup2(p[0], 0);
        close_range(1, ~0U, 0);
        while (read(0, &c, 1) != 0 && errno == EINTR)
            ;
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        _exit(0);
    }
    close(p[0]); /* p[1] stays open until this process ends */
}

static void put(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
    fputs(content, f);
    cr_assert(eq(int, fclose(f), 0));
}

static void make_tree(void)
{
    cr_assert_not_null(mkdtemp(dir));
    start_janitor();
    snprintf(rw, sizeof rw, "%s/rw", dir);
    snprintf(ro, sizeof ro, "%s/ro", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    const char *const dirs[] = {rw, ro, out};
    char f[96];
    for (size_t i = 0; i < 3; i++) {
        cr_assert(eq(int, mkdir(dirs[i], 0755), 0));
        snprintf(f, sizeof f, "%s/f", dirs[i]);
        put(f, dirs[i] + strlen(dir) + 1);
    }
}

TestSuite(landlock, .init = make_tree);
TestSuite(check);

/* ---- helpers ---------------------------------------------------------- */

static char *path(const char *d, const char *name)
{
    static char buf[4][128];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", d, name);
    return p;
}

static int try_open(const char *p, int flags)
{
    int fd = open(p, flags | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

static int try(int rc)
{
    return rc < 0 ? errno : 0;
}

/* Exit status, or 128 + the signal that ended the process. */
static int status(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static char *content(const char *p)
{
    static char buf[64];
    memset(buf, 0, sizeof buf);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    cr_assert(ge(int, fd, 0), "open %s: %s", p, strerror(errno));
    cr_assert(ge(long, (long)read(fd, buf, sizeof buf - 1), 0));
    close(fd);
    return buf;
}

/* Run argv in a child; return its exit status, or 128 + signal. */
static int run(char *const argv[])
{
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    return status(st);
}

struct lists {
    const char *exec[8], *read[8], *write[8], *dev[8];
};

static size_t count(const char *const *v)
{
    size_t n = 0;
    while (n < 8 && v[n] != NULL)
        n++;
    return n;
}

static struct pd_sandbox_spec spec_of(const struct lists *l, bool net)
{
    struct pd_sandbox_spec s = {
        .exec_paths = {l->exec, count(l->exec)},
        .read_paths = {l->read, count(l->read)},
        .write_paths = {l->write, count(l->write)},
        .dev_paths = {l->dev, count(l->dev)},
        .allow_network = net,
    };
    return s;
}

static struct pd_platform_info probe_or_skip(int min_abi)
{
    struct pd_platform_info info;
    pd_platform_probe(&info);
    if (info.landlock_abi < min_abi)
        cr_skip_test("needs Landlock ABI %d, kernel has %d (%s)", min_abi, info.landlock_abi,
                     info.landlock_error);
    if (!info.seccomp)
        cr_skip_test("kernel without seccomp filters");
    return info;
}

static void apply_with(const struct pd_sandbox_spec *s, const struct pd_platform_info *info)
{
    char err[PD_PLATFORM_ERR_MAX];
    int rc = pd_platform_apply(s, info, err, sizeof err);
    cr_assert(eq(int, rc, 0), "apply: %s", err);
}

/* The standard sandbox of these tests: system dirs and the probes
 * executable, rw writable, ro readable, /dev/null a device. */
static void sandbox(bool net, int min_abi)
{
    struct pd_platform_info info = probe_or_skip(min_abi);
    struct lists l = {
        .exec = {"/usr", "/lib", "/lib64", "/bin", PROBE_DIR},
        .read = {ro},
        .write = {rw},
        .dev = {"/dev/null"},
    };
    struct pd_sandbox_spec s = spec_of(&l, net);
    apply_with(&s, &info);
}

/* ---- files ------------------------------------------------------------ */

Test(landlock, write_path_allows_create_write_remove)
{
    sandbox(false, 3);
    cr_assert(eq(int, try_open(path(rw, "new"), O_WRONLY | O_CREAT | O_TRUNC), 0));
    cr_assert(exists(path(rw, "new")));
    cr_assert(eq(int, try_open(path(rw, "f"), O_WRONLY | O_TRUNC), 0));
    cr_assert(eq(int, try(truncate(path(rw, "new"), 10)), 0));
    cr_assert(eq(int, try(mkdir(path(rw, "d"), 0755)), 0));
    cr_assert(eq(int, try(rename(path(rw, "new"), path(rw, "d/moved"))), 0)); /* REFER */
    cr_assert(eq(int, try(symlink("x", path(rw, "sym"))), 0));
    cr_assert(eq(int, try(mkfifo(path(rw, "fifo"), 0600)), 0));
    cr_assert(eq(int, try(unlink(path(rw, "d/moved"))), 0));
    cr_assert(eq(int, try(rmdir(path(rw, "d"))), 0));
    cr_assert(eq(int, try(chmod(path(rw, "f"), 0600)), 0));
}

Test(landlock, outside_write_paths_nothing_is_created_or_changed)
{
    /* Unsandboxed, the same calls would succeed (root or owner). */
    cr_assert(eq(int, access(ro, W_OK), 0));
    sandbox(false, 3);
    cr_assert(eq(int, try_open(path(ro, "new"), O_WRONLY | O_CREAT), EACCES));
    cr_assert(not(exists(path(ro, "new"))));
    cr_assert(eq(int, try_open(path(out, "new"), O_WRONLY | O_CREAT), EACCES));
    cr_assert(not(exists(path(out, "new"))));
    cr_assert(eq(int, try_open(path(ro, "f"), O_WRONLY), EACCES));
    cr_assert(eq(int, try_open(path(ro, "f"), O_RDONLY | O_TRUNC), EACCES));
    cr_assert(eq(int, try(truncate(path(ro, "f"), 0)), EACCES)); /* ABI 3 */
    cr_assert(eq(int, try(unlink(path(ro, "f"))), EACCES));
    cr_assert(eq(int, try(mkdir(path(ro, "d"), 0755)), EACCES));
    cr_assert(eq(int, try(symlink("x", path(ro, "sym"))), EACCES));
    cr_assert(eq(str, content(path(ro, "f")), "ro"));
    /* Moving a writable file out of the write path, or linking it there. */
    cr_assert(eq(int, try(rename(path(rw, "f"), path(ro, "g"))), EACCES));
    cr_assert(eq(int, try(link(path(rw, "f"), path(out, "g"))), EACCES));
    cr_assert(not(exists(path(ro, "g"))));
    cr_assert(not(exists(path(out, "g"))));
    cr_assert(exists(path(rw, "f")));
}

/* spec.shm_private: where the host's /dev/shm holds the run directory, it
 * is writable only as the run's private one; without the namespaces (this
 * test enters none) nothing in it is, but a write path beneath it is. */
static void shm_sandbox(bool shm_private, const char *beneath)
{
    struct pd_platform_info info = probe_or_skip(3);
    struct lists l = {
        .exec = {"/usr", "/lib", "/lib64", "/bin", PROBE_DIR},
        .write = {rw, beneath, shm_private ? NULL : "/dev/shm"},
        .dev = {"/dev/null"},
    };
    struct pd_sandbox_spec s = spec_of(&l, false);
    s.shm_private = shm_private;
    apply_with(&s, &info);
}

Test(landlock, shm_private_keeps_the_hosts_dev_shm_out_of_reach)
{
    char mine[64], x[96], y[96];
    snprintf(mine, sizeof mine, "/dev/shm/paldron-landlock-%d", (int)getpid());
    if (mkdir(mine, 0700) != 0)
        cr_skip_test("SKIP: no /dev/shm to test in: %s", strerror(errno));
    snprintf(x, sizeof x, "/dev/shm/paldron-landlock-%d.x", (int)getpid());
    snprintf(y, sizeof y, "%s/y", mine);
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        shm_sandbox(true, mine);
        int refused = try_open(x, O_WRONLY | O_CREAT);
        int beneath = try_open(y, O_WRONLY | O_CREAT);
        _exit(refused == EACCES && beneath == 0 ? 0 : 1);
    }
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_expect(eq(int, status(st), 0),
              "shm_private: /dev/shm writable or the write path beneath it refused");
    cr_expect(not(exists(x)));
    unlink(y);
    /* the same without shm_private: /dev/shm is a write path as before */
    pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        shm_sandbox(false, mine);
        int rc = try_open(x, O_WRONLY | O_CREAT);
        unlink(x);
        _exit(rc == 0 ? 0 : 1);
    }
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    cr_expect(eq(int, status(st), 0), "/dev/shm refused without shm_private");
    unlink(x);
    rmdir(mine);
}

Test(landlock, read_path_is_readable_and_the_rest_is_not)
{
    sandbox(false, 3);
    cr_assert(eq(str, content(path(ro, "f")), "ro"));
    cr_assert(eq(int, try_open(ro, O_RDONLY | O_DIRECTORY), 0));
    cr_assert(eq(int, try_open(path(out, "f"), O_RDONLY), EACCES));
    cr_assert(eq(int, try_open(out, O_RDONLY | O_DIRECTORY), EACCES));
    cr_assert(eq(int, try_open("/root", O_RDONLY | O_DIRECTORY), EACCES));
    cr_assert(eq(int, try_open("/etc/hostname", O_RDONLY), EACCES));
}

Test(landlock, exec_only_from_exec_paths)
{
    /* A copy of the probe in the read path may be read but not executed. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp %s %s/probe", PROBE_STATIC, ro);
    cr_assert(eq(int, system(cmd), 0));
    sandbox(false, 3);
    char *ok[] = {PROBE_STATIC, "setsid", NULL};
    cr_assert(eq(int, run(ok), 0));
    char *dynamic[] = {PROBE_DIR "/probe", "setsid", NULL};
    cr_assert(eq(int, run(dynamic), 0));
    char *in_ro[] = {path(ro, "probe"), "setsid", NULL};
    cr_assert(eq(int, run(in_ro), 127));
    cr_assert(eq(int, try(execv(in_ro[0], in_ro)), EACCES));
    cr_assert(eq(int, try_open(path(ro, "probe"), O_RDONLY), 0));
}

Test(landlock, file_rules_get_file_rights_only)
{
    /* A regular file in exec_paths and write_paths and a device directory
     * in dev_paths: directory rights must be masked off or the kernel
     * refuses the rule with EINVAL. */
    struct pd_platform_info info = probe_or_skip(3);
    struct lists l = {
        .exec = {"/usr", "/lib", "/lib64", PROBE_STATIC},
        .write = {path(rw, "f")},
        .dev = {"/dev/null", "/dev/pts"},
    };
    struct pd_sandbox_spec s = spec_of(&l, false);
    apply_with(&s, &info);
    char *argv[] = {PROBE_STATIC, "setsid", NULL};
    cr_assert(eq(int, run(argv), 0));
    cr_assert(eq(int, try_open(path(rw, "f"), O_WRONLY | O_TRUNC), 0));
    cr_assert(eq(int, try_open(path(rw, "g"), O_WRONLY | O_CREAT), EACCES));
}

Test(landlock, dev_paths)
{
    sandbox(false, 3);
    /* What a shell does for >/dev/null. */
    cr_assert(eq(int, try_open("/dev/null", O_WRONLY | O_CREAT | O_TRUNC), 0));
    cr_assert(eq(int, try_open("/dev/null", O_RDONLY), 0));
    cr_assert(eq(int, try_open("/dev/zero", O_RDONLY), EACCES));
}

Test(landlock, missing_paths_are_skipped)
{
    struct pd_platform_info info = probe_or_skip(3);
    struct lists l = {
        .read = {"/nonexistent/paldron", "/etc/hostname/below-a-file", ro},
    };
    struct pd_sandbox_spec s = spec_of(&l, false);
    apply_with(&s, &info);
    cr_assert(eq(str, content(path(ro, "f")), "ro"));
}

Test(landlock, a_failing_step_is_named)
{
    struct pd_platform_info info = probe_or_skip(3);
    char loop[128];
    snprintf(loop, sizeof loop, "%s/loop", out);
    cr_assert(eq(int, symlink(loop, loop), 0));
    struct lists l = {.read = {ro, loop}};
    struct pd_sandbox_spec s = spec_of(&l, false);
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_platform_apply(&s, &info, err, sizeof err), -1));
    char want[256];
    snprintf(want, sizeof want, "landlock: open %s: %s", loop, strerror(ELOOP));
    cr_assert(eq(str, err, want));
    /* Nothing was restricted: the step failed before restrict_self. */
    cr_assert(eq(int, try_open(path(out, "f"), O_RDONLY), 0));
}

Test(landlock, relative_path_is_refused)
{
    struct pd_platform_info info = probe_or_skip(3);
    struct lists l = {.write = {"relative/dir"}};
    struct pd_sandbox_spec s = spec_of(&l, true);
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_platform_apply(&s, &info, err, sizeof err), -1));
    cr_assert(eq(str, err, "sandbox path is not absolute: relative/dir"));
}

/* ---- network ---------------------------------------------------------- */

/* A nonblocking listener on 127.0.0.1: accept tells at once whether a
 * connection arrived. */
static int listener(struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    cr_assert(ge(int, fd, 0));
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof *addr;
    cr_assert(eq(int, bind(fd, (struct sockaddr *)addr, len), 0));
    cr_assert(eq(int, listen(fd, 4), 0));
    cr_assert(eq(int, getsockname(fd, (struct sockaddr *)addr, &len), 0));
    return fd;
}

Test(landlock, network_off_denies_tcp_connect_and_bind)
{
    struct sockaddr_in addr;
    int lfd = listener(&addr);
    /* Created before the sandbox: seccomp would refuse the socket itself,
     * and this test is about Landlock refusing the connect. */
    int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int bfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(ge(int, cfd, 0));
    cr_assert(ge(int, bfd, 0));
    sandbox(false, 4);
    cr_assert(eq(int, try(connect(cfd, (struct sockaddr *)&addr, sizeof addr)), EACCES));
    cr_assert(eq(int, try(accept4(lfd, NULL, NULL, SOCK_CLOEXEC)), EAGAIN));
    struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert(eq(int, try(bind(bfd, (struct sockaddr *)&any, sizeof any)), EACCES));
}

Test(landlock, network_on_allows_tcp)
{
    struct sockaddr_in addr;
    int lfd = listener(&addr);
    sandbox(true, 4);
    int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(ge(int, cfd, 0), "socket: %s", strerror(errno));
    cr_assert(eq(int, try(connect(cfd, (struct sockaddr *)&addr, sizeof addr)), 0));
    int afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    cr_assert(ge(int, afd, 0), "accept: %s", strerror(errno));
}

/* ---- scopes (ABI 6) --------------------------------------------------- */

Test(landlock, signals_stay_inside_the_sandbox)
{
    cr_assert(eq(int, try(kill(getppid(), 0)), 0));
    sandbox(false, 6);
    cr_assert(eq(int, try(kill(getppid(), 0)), EPERM));
    cr_assert(eq(int, try(kill(getpid(), 0)), 0));
    pid_t child = fork();
    cr_assert(ge(int, child, 0));
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed test */
        pause();
        _exit(0);
    }
    cr_assert(eq(int, try(kill(child, SIGKILL)), 0));
    int st;
    cr_assert(eq(int, waitpid(child, &st, 0), child));
    cr_assert(eq(int, status(st), 128 + SIGKILL));
}

Test(landlock, older_abi_is_applied_best_effort)
{
    /* On ABI 5 there is no signal scope: the parent stays reachable. */
    struct pd_platform_info info = probe_or_skip(6);
    info.landlock_abi = 5;
    struct lists l = {.read = {ro}};
    struct pd_sandbox_spec s = spec_of(&l, false);
    apply_with(&s, &info);
    cr_assert(eq(int, try(kill(getppid(), 0)), 0));
    cr_assert(eq(int, try_open(path(out, "f"), O_RDONLY), EACCES));
}

static socklen_t abstract_addr(struct sockaddr_un *sa, const char *name)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(sa->sun_path + 1, name, n);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

Test(landlock, abstract_unix_sockets_stay_inside_the_sandbox)
{
    char name[64];
    snprintf(name, sizeof name, "paldron-test-%d", (int)getpid());
    struct sockaddr_un sa;
    socklen_t len = abstract_addr(&sa, name);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(eq(int, bind(lfd, (struct sockaddr *)&sa, len), 0));
    cr_assert(eq(int, listen(lfd, 4), 0));
    sandbox(false, 6);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(ge(int, fd, 0));
    cr_assert(eq(int, try(connect(fd, (struct sockaddr *)&sa, len)), EPERM));
    /* A named socket in a write path (how the preload reaches the
     * launcher) still works. */
    struct sockaddr_un named = {.sun_family = AF_UNIX};
    snprintf(named.sun_path, sizeof named.sun_path, "%s/sock", rw);
    int nl = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(eq(int, try(bind(nl, (struct sockaddr *)&named, sizeof named)), 0));
    cr_assert(eq(int, listen(nl, 1), 0));
    int nc = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(eq(int, try(connect(nc, (struct sockaddr *)&named, sizeof named)), 0));
}

/* ---- ABI tables ------------------------------------------------------- */

Test(check, handled_rights_follow_the_abi)
{
    cr_assert(eq(u64, pd_landlock_handled_fs(1), (1ULL << 13) - 1));
    cr_assert(eq(u64, pd_landlock_handled_fs(2), (1ULL << 14) - 1));
    cr_assert(eq(u64, pd_landlock_handled_fs(3), (1ULL << 15) - 1));
    cr_assert(eq(u64, pd_landlock_handled_fs(4), (1ULL << 15) - 1));
    cr_assert(eq(u64, pd_landlock_handled_fs(5), (1ULL << 16) - 1));
    cr_assert(eq(u64, pd_landlock_handled_fs(7), (1ULL << 16) - 1));
    cr_assert(eq(u64, pd_landlock_handled_net(3), 0));
    cr_assert(eq(u64, pd_landlock_handled_net(4), 3));
    cr_assert(eq(u64, pd_landlock_handled_scopes(5), 0));
    cr_assert(eq(u64, pd_landlock_handled_scopes(6), 3));
}

Test(check, probe_matches_the_kernel)
{
    struct pd_platform_info info;
    pd_platform_probe(&info);
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 0) {
        cr_assert(eq(int, info.landlock_abi, 0));
        cr_assert(ne(str, info.landlock_error, ""));
    } else {
        cr_assert(eq(int, info.landlock_abi, (int)abi));
        cr_assert(eq(str, info.landlock_error, ""));
    }
}

/* ---- pd_platform_check ------------------------------------------------ */

static int check(int abi, bool seccomp, bool net, char *err, char *warn)
{
    struct pd_platform_info info = {.landlock_abi = abi, .seccomp = seccomp};
    if (abi == 0)
        snprintf(info.landlock_error, sizeof info.landlock_error, "Landlock disabled at boot");
    struct lists l = {.read = {"/usr"}};
    struct pd_sandbox_spec s = spec_of(&l, net);
    return pd_platform_check(&s, &info, err, PD_PLATFORM_ERR_MAX, warn, PD_PLATFORM_ERR_MAX);
}

Test(check, messages)
{
    char err[PD_PLATFORM_ERR_MAX], warn[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, check(0, true, true, err, warn), -1));
    cr_assert(eq(str, err, "Landlock unavailable: Landlock disabled at boot"));
    cr_assert(eq(int, check(2, true, true, err, warn), -1));
    cr_assert(eq(str, err, "Landlock ABI 2 is too old; ABI 3 or newer is required"));
    cr_assert(eq(int, check(3, true, false, err, warn), -1));
    cr_assert(eq(str, err,
                 "Landlock ABI 3 cannot enforce TCP network denial; ABI 4 or newer is required"));
    cr_assert(eq(int, check(7, false, true, err, warn), -1));
    cr_assert(eq(str, err,
                 "seccomp filters unavailable: the kernel lacks CONFIG_SECCOMP_FILTER or "
                 "SECCOMP_RET_KILL_PROCESS (Linux 4.14)"));
}

Test(check, warnings_list_what_is_not_enforced)
{
    char err[PD_PLATFORM_ERR_MAX], warn[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, check(3, true, true, err, warn), 0));
    cr_assert(eq(str, err, ""));
    cr_assert(eq(str, warn,
                 "Landlock ABI 3 does not enforce: ioctl on device files (ABI 5), signal and "
                 "abstract UNIX socket scoping (ABI 6)"));
    cr_assert(eq(int, check(5, true, false, err, warn), 0));
    cr_assert(eq(str, warn,
                 "Landlock ABI 5 does not enforce: signal and abstract UNIX socket scoping "
                 "(ABI 6)"));
    cr_assert(eq(int, check(6, true, false, err, warn), 0));
    cr_assert(eq(str, warn, ""));
    cr_assert(eq(int, check(9, true, false, err, warn), 0));
    cr_assert(eq(str, warn, ""));
}

Test(check, apply_refuses_what_check_refuses)
{
    /* Apply re-checks: the child never runs with less than check demands. */
    struct pd_platform_info info = {.landlock_abi = 3, .seccomp = true};
    struct lists l = {.read = {"/usr"}};
    struct pd_sandbox_spec s = spec_of(&l, false);
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_platform_apply(&s, &info, err, sizeof err), -1));
    cr_assert(eq(str, err,
                 "Landlock ABI 3 cannot enforce TCP network denial; ABI 4 or newer is required"));
}
