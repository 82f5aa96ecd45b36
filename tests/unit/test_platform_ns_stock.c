/* tests/unit/test_platform_ns_stock.c - the namespaces made after a run for
 * the next (platform/linux/ns_stock.c): the kept process names itself in
 * the file, holds nothing of its maker, has lo up in its new network
 * namespace; pd_ns_stock_adopt takes exactly those namespaces and refuses
 * the caller's own; the file is never written over another's unless asked,
 * and withdrawn at the end of the wait. And pd_proc_same_confinement.
 * Each case runs in a forked child, as root and as nobody. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seccomp.h>

#include "platform/linux/backend.h"
#include "platform/platform.h"
#include "test_platform_ahead.h"
#include "test_platform_fixture.h"

#define NAME "ns.stock"

static ino_t ino_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

static ino_t ns_of(pid_t pid, const char *kind)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/ns/%s", (int)pid, kind);
    return ino_of(p);
}

/* The file's text once it is there (up to 3 s), "" if it never comes. */
static void wait_file(int dirfd, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < 300; k++) {
        int fd = openat(dirfd, NAME, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t n = read(fd, out, len - 1);
            close(fd);
            out[n > 0 ? n : 0] = '\0';
            return;
        }
        usleep(10000);
    }
}

static int count_fds(pid_t pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(p);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void end(pid_t pid)
{
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
        ;
}

static int open_tmpdir(char *dir)
{
    strcpy(dir, "/tmp/pd-ns-stock-XXXXXX");
    return mkdtemp(dir) ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
}

/* made, named, holding nothing of ours, taken whole */
static int made_named_taken(bool as_nobody)
{
    if (as_nobody)
        become_nobody();
    char dir[64];
    int dirfd = open_tmpdir(dir);
    if (dirfd < 0)
        return 20;
    int extra = open("/dev/null", O_RDONLY); /* not for the kept process */
    pid_t pid = pd_ns_stock_make(dirfd, NAME, true, false, 30);
    if (pid <= 0)
        return 1;
    char text[64], want[64];
    wait_file(dirfd, text, sizeof text);
    bool paldron = true;
    snprintf(want, sizeof want, "%d %llu\n", (int)pid, pd_proc_start(pid, &paldron));
    if (strcmp(text, want) != 0)
        return 2;
    /* only the directory's descriptor; its own session; the title */
    if (count_fds(pid) != 1 || getsid(pid) != pid)
        return 3;
    char cmd[128] = "", p[64];
    snprintf(p, sizeof p, "/proc/%d/cmdline", (int)pid);
    int fd = open(p, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
    if (fd >= 0)
        close(fd);
    /* the title, as much of it as the argument area holds */
    const char *title = "paldron: namespaces made for the next run";
    if (n <= 0 || strlen(cmd) < 7 || strncmp(cmd, title, strlen(cmd)) != 0)
        return 4;
    /* new namespaces, not ours */
    if (ns_of(pid, "net") == ns_of(getpid(), "net") || ns_of(pid, "ipc") == ns_of(getpid(), "ipc"))
        return 5;
    if (as_nobody != (ns_of(pid, "user") != ns_of(getpid(), "user")))
        return 6;
    struct pd_ns_early e;
    if (!pd_ns_stock_adopt(&e, pid, true) || !pd_ns_early_admitted(&e))
        return 7;
    struct pd_ns_join j;
    pd_ns_early_finish(&e, &j);
    if (!j.on || !j.net || j.user != as_nobody)
        return 8;
    pid_t c = fork();
    if (c == 0) {
        bool user_ns = false;
        char err[256];
        if (pd_ns_enter(true, &j, &user_ns, err, sizeof err) != 0)
            _exit(10);
        if (ns_of(getpid(), "net") != ns_of(pid, "net") ||
            ns_of(getpid(), "ipc") != ns_of(pid, "ipc"))
            _exit(11);
        /* lo is up already: a socket binds and connects on 127.0.0.1 */
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        memcpy(ifr.ifr_name, "lo", 3);
        int s = socket(AF_INET, SOCK_DGRAM, 0);
        if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0 || !(ifr.ifr_flags & IFF_UP))
            _exit(12);
        _exit(geteuid() == (as_nobody ? NOBODY : 0) ? 0 : 13);
    }
    int st;
    if (waitpid(c, &st, 0) != c || !WIFEXITED(st))
        return 9;
    end(pid);
    pd_ns_early_close(&e);
    close(extra);
    unlinkat(dirfd, NAME, 0);
    rmdir(dir);
    return WEXITSTATUS(st);
}

/* the caller's own namespaces are not a stock; neither is a gone process */
static int refuses_own_and_gone(bool as_nobody)
{
    if (as_nobody)
        become_nobody();
    struct pd_ns_early e;
    memset(&e, 0x5a, sizeof e);
    const struct pd_ns_early before = e;
    if (pd_ns_stock_adopt(&e, getpid(), true) || memcmp(&e, &before, sizeof e) != 0)
        return 1;
    pid_t c = fork();
    if (c == 0)
        _exit(0);
    waitpid(c, NULL, 0);
    if (pd_ns_stock_adopt(&e, c, true))
        return 2;
    return 0;
}

/* never over another's file unless asked; withdrawn at the end of the wait */
static int one_file(bool as_nobody)
{
    if (as_nobody)
        become_nobody();
    char dir[64], first[64], text[64];
    int dirfd = open_tmpdir(dir);
    if (dirfd < 0)
        return 20;
    pid_t a = pd_ns_stock_make(dirfd, NAME, false, false, 2);
    wait_file(dirfd, first, sizeof first);
    if (a <= 0 || atoi(first) != a)
        return 1;
    pid_t b = pd_ns_stock_make(dirfd, NAME, false, false, 30);
    if (b <= 0)
        return 2;
    /* b finds the name taken and exits without a word */
    int st;
    if (waitpid(b, &st, __WALL) != b || !WIFEXITED(st))
        return 3;
    wait_file(dirfd, text, sizeof text);
    if (strcmp(text, first) != 0)
        return 4;
    pid_t c = pd_ns_stock_make(dirfd, NAME, false, true, 30); /* a's taken: c replaces */
    for (int k = 0; k < 300 && (wait_file(dirfd, text, sizeof text), atoi(text) != c); k++)
        usleep(10000);
    if (c <= 0 || atoi(text) != c)
        return 5;
    end(c);
    /* a ends its wait: the file is c's, so it stays */
    if (waitpid(a, &st, __WALL) != a)
        return 6;
    wait_file(dirfd, text, sizeof text);
    if (atoi(text) != c)
        return 7;
    unlinkat(dirfd, NAME, 0);
    /* d's wait ends with the file its own: removed */
    pid_t d = pd_ns_stock_make(dirfd, NAME, false, false, 1);
    wait_file(dirfd, text, sizeof text);
    if (d <= 0 || atoi(text) != d || waitpid(d, &st, __WALL) != d)
        return 8;
    if (faccessat(dirfd, NAME, F_OK, 0) == 0)
        return 9;
    rmdir(dir);
    return 0;
}

AHEAD_AS_ROOT_AND_NOBODY(ns_stock, made_named_and_taken, made_named_taken)

Test(ns_stock, refuses_the_callers_own_and_a_gone_process)
{
    need_namespaces_ahead();
    cr_assert_eq(in_child(refuses_own_and_gone, false), 0);
    cr_assert_eq(in_child(refuses_own_and_gone, geteuid() == 0), 0);
}

Test(ns_stock, one_file_replaced_only_when_asked_and_withdrawn, .timeout = 30)
{
    need_namespaces_ahead();
    int rc = in_child(one_file, geteuid() == 0);
    cr_assert_eq(rc, 0, "failed check %d", rc);
}

/* a process under one more seccomp filter is not confined as we are */
Test(proc_stat, same_confinement)
{
    int go[2];
    cr_assert_eq(pipe(go), 0);
    pid_t same = fork();
    if (same == 0) {
        close(go[1]);
        char c;
        _exit(read(go[0], &c, 1) < 0);
    }
    pid_t more = fork();
    if (more == 0) {
        close(go[1]);
        scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
        if (!f || seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) != 0 ||
            seccomp_load(f) != 0)
            _exit(91);
        char c;
        _exit(read(go[0], &c, 1) < 0);
    }
    usleep(100000); /* the filter is loaded */
    cr_expect(pd_proc_same_confinement(same));
    cr_expect_not(pd_proc_same_confinement(more));
    close(go[1]);
    waitpid(same, NULL, 0);
    waitpid(more, NULL, 0);
    cr_expect_not(pd_proc_same_confinement(more), "a gone process is not");
}
