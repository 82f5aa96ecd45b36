/* tests/unit/test_platform_ns.c - the namespace step of platform/linux
 * (pd_ns_apply), each case in a forked child that enters the namespaces and
 * reports what it sees through its exit status. As root the child first
 * becomes nobody, so that the user-namespace path (what a developer's run
 * takes) is the one tested; a second case keeps root (no user namespace).
 * The fallback is tested with a seccomp filter that refuses unshare, as
 * Docker's default profile does. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/magic.h>
#include <seccomp.h>

#include "platform/linux/backend.h"
#include "platform/platform.h"
#include "test_platform_fixture.h"

static char base[] = "/var/tmp/pd-ns-unit-XXXXXX";
static char secret[256], protected_file[256], plain[256];

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    cr_assert(ge(int, fd, 0), "%s: %s", path, strerror(errno));
    cr_assert(eq(long, (long)write(fd, text, strlen(text)), (long)strlen(text)));
    close(fd);
    cr_assert(eq(int, chmod(path, mode), 0));
}

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    cr_assert(eq(int, chmod(base, 0777), 0));
    snprintf(secret, sizeof secret, "%s/.env", base);
    snprintf(protected_file, sizeof protected_file, "%s/config", base);
    snprintf(plain, sizeof plain, "%s/plain.txt", base);
    write_file(secret, "SECRET=1\n", 0666);
    write_file(protected_file, "[core]\n", 0666);
    write_file(plain, "plain\n", 0666);
}

static void teardown(void)
{
    unlink(secret);
    unlink(protected_file);
    unlink(plain);
    rmdir(base);
}

/* Set by a case whose spec has protected paths only (no secret to mask). */
static bool readonly_only;

/* The spec of every case: network off, the three files, a shared report. */
static struct pd_sandbox_spec spec_for(bool require, struct pd_ns_report *report)
{
    static const char *hide[1], *ro[1];
    hide[0] = secret;
    ro[0] = protected_file;
    struct pd_sandbox_spec s;
    memset(&s, 0, sizeof s);
    s.allow_network = false;
    s.ns.enable = true;
    s.ns.require = require;
    s.ns.workdir = base;
    s.ns.hide = (struct pd_path_list){hide, readonly_only ? 0 : 1};
    s.ns.readonly = (struct pd_path_list){ro, 1};
    s.ns.report = report;
    return s;
}

static struct pd_ns_report *shared_report(void)
{
    void *p = mmap(NULL, sizeof(struct pd_ns_report), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(ne(ptr, p, MAP_FAILED));
    memset(p, 0, sizeof(struct pd_ns_report));
    return p;
}

/* Run check() in a child after pd_ns_apply; the child's exit status is the
 * number of the first failed check (0: all held). refuse_nr: a system call
 * a seccomp filter fails with refuse_err first, as a container's profile
 * does (0: none). */
static int in_child(bool as_nobody, bool require, int refuse_nr, int refuse_err,
                    struct pd_ns_report *r, int (*check)(void), char *err, size_t errlen)
{
    int pipefd[2];
    cr_assert(eq(int, pipe(pipefd), 0));
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        close(pipefd[0]);
        if (as_nobody)
            become_nobody();
        if (refuse_nr != 0) {
            scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
            if (!f ||
                seccomp_rule_add(f, SCMP_ACT_ERRNO((unsigned)refuse_err), refuse_nr, 0) != 0 ||
                seccomp_load(f) != 0)
                _exit(91);
            seccomp_release(f);
        }
        struct pd_sandbox_spec s = spec_for(require, r);
        char e[PD_PLATFORM_ERR_MAX] = "";
        if (pd_ns_apply(&s, r, e, sizeof e) != 0) {
            (void)!write(pipefd[1], e, strlen(e));
            _exit(92);
        }
        _exit(check ? check() : 0);
    }
    close(pipefd[1]);
    memset(err, 0, errlen);
    (void)!read(pipefd[0], err, errlen - 1);
    close(pipefd[0]);
    int st;
    cr_assert(eq(int, waitpid(pid, &st, 0), pid));
    bool exited = WIFEXITED(st);
    cr_assert(exited, "child killed by signal %d", WTERMSIG(st));
    return WEXITSTATUS(st);
}

static int errno_of_open(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    return errno;
}

/* execve drops the user namespace's capabilities (the uid is not 0); the
 * checks run without execve, so they drop them by hand. */
static int drop_capabilities(void)
{
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &hdr, data);
}

/* What every run must see. */
static int floor_holds(void)
{
    if (geteuid() != 0 && drop_capabilities() != 0)
        return 9;
    struct statfs fs;
    if (statfs("/tmp", &fs) != 0 || fs.f_type != TMPFS_MAGIC)
        return 10; /* /tmp is a fresh tmpfs */
    if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC)
        return 11;
    if (errno_of_open("/tmp/pd-ns-unit-x", O_WRONLY | O_CREAT) != 0)
        return 12; /* ... and writable */
    if (geteuid() != 0 && errno_of_open(secret, O_RDONLY) != EACCES)
        return 13; /* the secret is masked */
    char buf[16];
    int fd = open(secret, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && read(fd, buf, sizeof buf) != 0)
        return 14; /* root reads the mask: empty */
    if (fd >= 0)
        close(fd);
    int w = errno_of_open(secret, O_WRONLY | O_APPEND);
    if (w != EROFS && w != EACCES)
        return 15;
    if (errno_of_open(protected_file, O_WRONLY | O_APPEND) != EROFS)
        return 16; /* protected: read-only ... */
    if (errno_of_open(protected_file, O_RDONLY) != 0)
        return 17; /* ... but readable */
    if (errno_of_open(plain, O_RDWR) != 0)
        return 18; /* the rest is untouched */
    if (unlink(secret) == 0 || errno != EBUSY)
        return 19; /* a mount point cannot be removed */
    /* network: lo is up and the only interface */
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) != 0)
        return 20;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next)
        if (strcmp(i->ifa_name, "lo") != 0)
            return 21;
    freeifaddrs(ifa);
    int sfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (sfd < 0 || bind(sfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(sfd, 1) != 0)
        return 22;
    close(sfd);
    char cwd[256];
    if (!getcwd(cwd, sizeof cwd) || strcmp(cwd, base) != 0)
        return 23; /* the working directory entered again */
    return 0;
}

TestSuite(ns, .init = setup, .fini = teardown);

Test(ns, user_namespace_floor)
{
    struct pd_ns_report *r = shared_report();
    char err[PD_PLATFORM_ERR_MAX];
    int rc = in_child(true, false, 0, 0, r, floor_holds, err, sizeof err);
    cr_assert(eq(int, rc, 0), "check %d failed (%s; state %d, %s)", rc, err, r->state, r->cause);
    cr_expect(eq(int, r->state, PD_NS_ACTIVE));
    cr_expect(eq(int, r->user_ns, 1));
    cr_expect(eq(int, r->net_ns, 1));
    cr_expect(eq(u32, r->hidden, 1));
    cr_expect(eq(u32, r->readonly, 1));
    /* nothing leaked to the host */
    cr_expect(eq(int, access("/tmp/pd-ns-unit-x", F_OK), -1));
    struct stat st;
    cr_expect(eq(int, stat(secret, &st), 0));
    cr_expect(eq(long, (long)st.st_size, 9), "the secret itself is untouched");
}

Test(ns, real_root_needs_no_user_namespace)
{
    if (geteuid() != 0)
        cr_skip_test("needs root");
    struct pd_ns_report *r = shared_report();
    char err[PD_PLATFORM_ERR_MAX];
    int rc = in_child(false, false, 0, 0, r, floor_holds, err, sizeof err);
    cr_assert(eq(int, rc, 0), "check %d failed (%s)", rc, err);
    cr_expect(eq(int, r->state, PD_NS_ACTIVE));
    cr_expect(eq(int, r->user_ns, 0));
}

Test(ns, refused_falls_back_and_says_why)
{
    struct pd_ns_report *r = shared_report();
    char err[PD_PLATFORM_ERR_MAX];
    int rc = in_child(true, false, SCMP_SYS(unshare), EPERM, r, NULL, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
    cr_expect(eq(int, r->state, PD_NS_REFUSED));
    cr_expect(eq(int, r->net_ns, 0));
    cr_expect_not_null(strstr(r->cause, "Operation not permitted"), "%s", r->cause);
}

Test(ns, refused_and_required_fails)
{
    struct pd_ns_report *r = shared_report();
    char err[PD_PLATFORM_ERR_MAX];
    int rc = in_child(true, true, SCMP_SYS(unshare), EPERM, r, NULL, err, sizeof err);
    cr_assert(eq(int, rc, 92));
    cr_expect_not_null(strstr(err, "namespaces unavailable"), "%s", err);
    cr_expect_not_null(strstr(err, "require_namespaces = true"), "%s", err);
}

Test(ns, disabled_does_nothing)
{
    struct pd_ns_report *r = shared_report();
    struct pd_sandbox_spec s = spec_for(false, r);
    s.ns.enable = false;
    char err[PD_PLATFORM_ERR_MAX];
    cr_assert(eq(int, pd_ns_apply(&s, r, err, sizeof err), 0));
    cr_expect(eq(int, r->state, PD_NS_NOT_TRIED));
}

/* Read-only binds take one mount_setattr call; where it is refused (a
 * kernel before 5.12: ENOSYS; a container's profile: EPERM) the remount
 * that repeats the mount's locked flags does the same. */
Test(ns, read_only_binds_without_mount_setattr)
{
    const int errs[] = {ENOSYS, EPERM};
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
        struct pd_ns_report *r = shared_report();
        char err[PD_PLATFORM_ERR_MAX];
        int rc = in_child(true, false, SCMP_SYS(mount_setattr), errs[k], r, floor_holds, err,
                          sizeof err);
        cr_assert(eq(int, rc, 0), "%s: check %d failed (%s; state %d, %s)", strerror(errs[k]), rc,
                  err, r->state, r->cause);
        cr_expect(eq(int, r->state, PD_NS_ACTIVE));
        cr_expect(eq(u32, r->readonly, 1));
        cr_expect(eq(u32, r->hidden, 1));
    }
}

/* Protected paths alone: bound read-only onto themselves, no mask made. */
static int readonly_holds(void)
{
    if (geteuid() != 0 && drop_capabilities() != 0)
        return 9;
    if (errno_of_open(protected_file, O_WRONLY | O_APPEND) != EROFS)
        return 10;
    if (errno_of_open(protected_file, O_RDONLY) != 0)
        return 11;
    if (errno_of_open(secret, O_RDWR) != 0)
        return 12; /* not listed: untouched */
    if (access("/tmp/.paldron-mask-file", F_OK) == 0 || access("/tmp/.paldron-mask-dir", F_OK) == 0)
        return 13;
    return 0;
}

Test(ns, protected_paths_alone)
{
    readonly_only = true;
    struct pd_ns_report *r = shared_report();
    char err[PD_PLATFORM_ERR_MAX];
    int rc = in_child(true, false, 0, 0, r, readonly_holds, err, sizeof err);
    cr_assert(eq(int, rc, 0), "check %d failed (%s; state %d, %s)", rc, err, r->state, r->cause);
    cr_expect(eq(int, r->state, PD_NS_ACTIVE));
    cr_expect(eq(u32, r->readonly, 1));
    cr_expect(eq(u32, r->hidden, 0));
}
