/* launcher/exec/exec_keeper.c - keep_background = true. The launcher must
 * return when the command exits, but background processes it left are
 * still to be ended at the deadline, and only an ancestor that is a
 * subreaper keeps them in reach (orphans go to the nearest one). So the
 * launcher forks this keeper, which starts the command, reports its exit
 * status to the launcher, and stays until the last descendant is gone or
 * the deadline ends them. It runs in its own session (a Ctrl-C meant for
 * the caller's terminal does not reach it) with /dev/null for stdio (it
 * must not hold the caller's pipes open). Once the launcher has exited it
 * reads and drops what the background processes still write, so that they
 * do not die of SIGPIPE, and last it removes the run directory, which they
 * may still use as their home. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/exec/exec.h"

struct keeper {
    int sfd, statusfd;
    int launcher;  /* pidfd of the launcher until it exits, -1 after */
    int stream[2]; /* the command's stdout and stderr, drained once the launcher is gone */
    pid_t child;
    bool reported;
    bool timed_out; /* the deadline passed while the command ran */
    /* Without pidfds (ENOSYS: Linux < 5.3, valgrind 3.19 running the
     * launcher) the launcher is watched as the keeper's parent instead: its
     * pid until getppid() says it exited (the keeper was reparented), 0 after. */
    pid_t launcher_pid;
};

static void report(struct keeper *k, int status)
{
    if (k->reported)
        return;
    struct pd_keeper_msg m = {.timed_out = k->timed_out, .status = status};
    ssize_t w;
    do
        w = write(k->statusfd, &m, sizeof m);
    while (w < 0 && errno == EINTR);
    close(k->statusfd);
    k->statusfd = -1;
    k->reported = true;
}

static void reap(struct keeper *k)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
        if (pid == k->child)
            report(k, st);
}

static void drop(struct keeper *k, int i)
{
    char buf[65536];
    ssize_t r = read(k->stream[i], buf, sizeof buf);
    if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
        close(k->stream[i]);
        k->stream[i] = -1;
    }
}

static void idle(void *arg, int ms)
{
    struct keeper *k = arg;
    struct pollfd pf[4];
    int who[4];
    nfds_t n = 0;
    pf[n] = (struct pollfd){.fd = k->sfd, .events = POLLIN};
    who[n++] = 0;
    if (k->launcher >= 0) {
        pf[n] = (struct pollfd){.fd = k->launcher, .events = POLLIN};
        who[n++] = 1;
    } else if (k->launcher_pid > 0) {
        if (ms > 100)
            ms = 100; /* getppid() is asked at least ten times a second */
    } else {
        for (int i = 0; i < 2; i++) {
            if (k->stream[i] >= 0) {
                pf[n] = (struct pollfd){.fd = k->stream[i], .events = POLLIN};
                who[n++] = 2 + i;
            }
        }
    }
    if (poll(pf, n, ms < 0 ? 0 : ms) > 0) {
        for (nfds_t i = 0; i < n; i++) {
            if (!pf[i].revents)
                continue;
            if (who[i] == 0) {
                struct signalfd_siginfo si;
                while (read(k->sfd, &si, sizeof si) == (ssize_t)sizeof si)
                    ;
            } else if (who[i] == 1) {
                close(k->launcher); /* the launcher exited: its reading is over */
                k->launcher = -1;
            } else {
                drop(k, who[i] - 2);
            }
        }
    }
    if (k->launcher_pid > 0 && getppid() != k->launcher_pid)
        k->launcher_pid = 0; /* the launcher exited: its reading is over */
    reap(k);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Close every descriptor above 2 that is not in keep[0..n). */
static void close_others(int *keep, size_t n)
{
    qsort(keep, n, sizeof *keep, cmp_int);
    unsigned int from = 3;
    for (size_t i = 0; i <= n; i++) {
        unsigned int to = i < n ? (unsigned int)keep[i] : ~0U;
        if (i < n && (keep[i] < 3 || (unsigned int)keep[i] < from))
            continue;
        if (to > from) {
            unsigned int last = i < n ? to - 1 : to;
            if (syscall(SYS_close_range, from, last, 0U) != 0) {
                for (unsigned int fd = from; fd <= last && fd < 65536; fd++)
                    close((int)fd);
            }
        }
        if (i < n)
            from = to + 1;
    }
}

static __attribute__((noreturn)) void give_up(int errfd, const char *msg)
{
    ssize_t w = write(errfd, msg, strlen(msg));
    (void)w;
    _exit(127);
}

void pd_exec_keeper(const struct pd_exec_plan *p, const struct pd_keeper_fds *fds,
                    long long deadline_ms)
{
    struct keeper k = {
        .sfd = -1, .statusfd = fds->statusfd, .launcher = -1, .stream = {fds->out_r, fds->err_r}};
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (setsid() < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 ||
        (k.sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
        give_up(fds->errfd, "keep_background: cannot set up the keeper process");
    const pid_t launcher = getppid();
    errno = ENOSYS;
#ifdef SYS_pidfd_open
    k.launcher = (int)syscall(SYS_pidfd_open, launcher, 0);
#endif
    if (k.launcher < 0 && errno == ENOSYS)
        k.launcher_pid = launcher;
    k.child = pd_exec_spawn(p, fds->out_w, fds->err_w, fds->errfd);
    if (k.child < 0)
        give_up(fds->errfd, "keep_background: cannot start the command");

    /* Hold nothing of the caller's, nor the command's write ends. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    if (k.launcher < 0 && k.launcher_pid == 0) {
        /* Cannot tell when the launcher is done: do not compete with it for
         * the output; background writers then get EPIPE. */
        close(k.stream[0]);
        close(k.stream[1]);
        k.stream[0] = k.stream[1] = -1;
    }
    int keep[] = {k.sfd, k.statusfd, k.launcher, k.stream[0], k.stream[1]};
    size_t nkeep = 0;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (keep[i] >= 0)
            keep[nkeep++] = keep[i];
    close_others(keep, nkeep);
    for (int i = 0; i < 2; i++)
        if (k.stream[i] >= 0)
            fcntl(k.stream[i], F_SETFL, fcntl(k.stream[i], F_GETFL) | O_NONBLOCK);

    while (pd_now_ms() < deadline_ms) {
        long long left = deadline_ms - pd_now_ms();
        idle(&k, left > 1000 ? 1000 : (int)left);
        if (!k.reported)
            continue;
        struct pd_pids l = {0};
        int rc = pd_tree_list(&l);
        size_t n = l.n;
        pd_pids_free(&l);
        if (rc == 0 && n == 0)
            break;
    }
    struct pd_pids l = {0};
    if (pd_tree_list(&l) != 0 || l.n > 0) {
        k.timed_out = !k.reported;
        pd_tree_end(PD_GRACE_MS, idle, &k);
        if (!k.reported) {
            int st = 0;
            while (waitpid(k.child, &st, 0) < 0 && errno == EINTR)
                ;
            report(&k, st);
        }
    }
    pd_pids_free(&l);
    struct pd_rundir rd = p->rundir;
    char err[PD_MSG_MAX];
    pd_rundir_remove(&rd, err, sizeof err);
    _exit(0);
}
