/* tests/unit/test_platform_ns_early.c - the run's user, IPC and network namespaces
 * made ahead by a helper task (platform/linux/ns_early.c) and joined by the
 * child (pd_ns_enter), and the early answer (pd_ns_early_admitted). Each case runs in a forked
 * child that reports through its exit status: as root, and as nobody (the user-namespace path, what
 * a developer's run takes); the refusal with a seccomp filter that refuses unshare, as Docker's
 * default profile does. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "platform/linux/backend.h"
#include "platform/platform.h"
#include "test_platform_ahead.h"
#include "test_platform_fixture.h"

static ino_t ns_ino(const char *which)
{
    char p[64];
    struct stat st;
    snprintf(p, sizeof p, "/proc/self/ns/%s", which);
    return stat(p, &st) == 0 ? st.st_ino : 0;
}

static ino_t fd_ino(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* made ahead, then joined by a grandchild: the namespaces it ends in are
 * the helper's, not new ones and not ours */
static int made_and_joined(bool as_nobody)
{
    if (as_nobody)
        become_nobody();
    const ino_t net0 = ns_ino("net"), ipc0 = ns_ino("ipc"), user0 = ns_ino("user");
    struct pd_ns_early e;
    struct pd_ns_join j;
    pd_ns_early_start(&e, true);
    /* the early answer, before the helper has finished */
    if (!pd_ns_early_admitted(&e))
        return 7;
    pd_ns_early_finish(&e, &j);
    if (!j.on)
        return 1;
    if (j.user != as_nobody || !j.net)
        return 2;
    if (fd_ino(j.net_fd) == net0 || fd_ino(j.ipc_fd) == ipc0 || fd_ino(j.net_fd) == 0)
        return 3;
    if (as_nobody && (j.user_fd < 0 || fd_ino(j.user_fd) == user0))
        return 4;
    pid_t pid = fork();
    if (pid == 0) {
        bool user_ns = false;
        char err[256];
        if (pd_ns_enter(true, &j, &user_ns, err, sizeof err) != 0)
            _exit(10);
        if (ns_ino("net") != fd_ino(j.net_fd) || ns_ino("ipc") != fd_ino(j.ipc_fd))
            _exit(11);
        if (user_ns != as_nobody || (as_nobody && ns_ino("user") != fd_ino(j.user_fd)))
            _exit(12);
        /* the identity map: the same uid inside */
        if (geteuid() != (as_nobody ? NOBODY : 0))
            _exit(13);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 5;
    pd_ns_early_close(&e);
    if (fcntl(j.net_fd, F_GETFD) != -1)
        return 6; /* closed by pd_ns_early_close */
    return WEXITSTATUS(st);
}

AHEAD_AS_ROOT_AND_NOBODY(ns_early, made_ahead_and_joined, made_and_joined)

/* unshare refused: no join, nothing left open, and the child's own attempt
 * is refused the same way (the run falls back, as without the helper) */
static int refused(bool unused)
{
    (void)unused;
    become_nobody();
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f || seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) != 0 ||
        seccomp_load(f) != 0)
        return 91;
    seccomp_release(f);
    int before = open_fds();
    struct pd_ns_early e;
    struct pd_ns_join j;
    pd_ns_early_start(&e, true);
    if (pd_ns_early_admitted(&e))
        return 4; /* the refusal is the early answer too */
    pd_ns_early_finish(&e, &j);
    if (j.on)
        return 1;
    pd_ns_early_close(&e);
    if (open_fds() != before)
        return 2;
    bool user_ns;
    char err[256];
    if (pd_ns_enter(true, &j, &user_ns, err, sizeof err) != PD_NS_REFUSE)
        return 3;
    return 0;
}

Test(ns_early, refused_namespaces_leave_no_join_and_no_descriptor)
{
    int rc = in_child(refused, false);
    cr_assert_eq(rc, 0, "failed check %d", rc);
}

/* A plan that never started the helper (calloc'd, not isolated) must not
 * close descriptor 0, 1 or 2 when it is cleaned up. */
Test(ns_early, a_zeroed_struct_closes_nothing)
{
    struct pd_ns_early e;
    memset(&e, 0, sizeof e);
    struct pd_ns_join j;
    cr_assert_not(pd_ns_early_admitted(&e), "no helper ran: no namespaces promised");
    pd_ns_early_finish(&e, &j);
    cr_assert_not(j.on);
    pd_ns_early_close(&e);
    cr_assert_neq(fcntl(0, F_GETFD), -1, "descriptor 0 was closed");
    cr_assert_neq(fcntl(1, F_GETFD), -1, "descriptor 1 was closed");
    cr_assert_neq(fcntl(2, F_GETFD), -1, "descriptor 2 was closed");
}
