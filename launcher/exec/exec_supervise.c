/* launcher/exec/exec_supervise.c - start the command and watch it: read both
 * streams as they come and hand them to their flows (exec_flow.c: output
 * scan, capture of head and tail, --stream; everything is read, so the
 * command never blocks on a full pipe), enforce the deadline, end the whole
 * tree (SIGTERM, grace, SIGKILL) on timeout, on a signal to paldron, and
 * when the command exits with descendants still running (unless
 * keep_background), and reap everything. One poll loop over the two pipes,
 * a signalfd (SIGCHLD and the signals that stop paldron) and, with
 * keep_background, the keeper's status pipe. Reading after the command
 * exited is bounded: a pipe held by something out of reach cannot hang the
 * launcher. Interactive runs (--interactive) have no pipes: the command
 * uses paldron's stdin, stdout and stderr and stays in its process group;
 * the live gate's records are printed as they come. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/exec/live.h"
#include "launcher/outscan/outscan.h"

/* How long the pipes are read after the command's tree is gone (or, with
 * keep_background, after the command itself exited). */
#define DRAIN_MS      500
#define DRAIN_KEEP_MS 200

struct sup {
    struct pd_exec_outcome *o;
    int fd[2];    /* stdout, stderr read ends; -1 once closed */
    int sfd;      /* signalfd */
    int statusfd; /* keeper's report, -1 without keeper or once read */
    pid_t child;  /* the command, or the keeper */
    bool keeper;
    bool interactive;
    bool main_done;       /* the command's status is known */
    bool reported;        /* the keeper reported it (and so owns the run directory) */
    bool flows;           /* the flows are open (exec_flow.c) */
    struct pd_live *live; /* the live gate's report socket, NULL without preload */
};

/* Close stream k; its end releases what the output scan still held. */
static void close_stream(struct sup *s, int k)
{
    if (s->fd[k] >= 0)
        close(s->fd[k]);
    s->fd[k] = -1;
    if (s->flows)
        pd_exec_flow_end(s->o, k);
}

static void read_stream(struct sup *s, int k)
{
    static char buf[65536];
    /* A bounded number of reads, so that a command writing without pause
     * cannot keep the loop from its deadline. */
    for (int i = 0; i < 64; i++) {
        ssize_t r = read(s->fd[k], buf, sizeof buf);
        if (r > 0) {
            pd_exec_flow_feed(s->o, k, buf, (size_t)r);
            /* --stream: the reader of paldron's output went away. A bare
             * command would die of SIGPIPE at its next write: the run ends. */
            const struct pd_exec_flow *f = &s->o->flow[k];
            if (f->gone && f->gone_errno == EPIPE && !s->main_done && !s->o->interrupted)
                s->o->interrupted = SIGPIPE;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return;
        close_stream(s, k); /* EOF or error */
        return;
    }
}

static void reap(struct sup *s)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        if (pid != s->child || s->keeper)
            continue;
        s->main_done = true;
        s->o->exited = true;
        s->o->status = st;
    }
}

static void read_signals(struct sup *s)
{
    struct signalfd_siginfo si;
    while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        /* Interactive: the terminal sent Ctrl-C or Ctrl-\ to the whole
         * foreground group, the command included; what happens next is the
         * command's decision (an agent may just cancel a step). The same
         * signal sent to paldron by kill(2) still stops the run. */
        if (s->interactive && (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT) &&
            si.ssi_code == SI_KERNEL)
            continue;
        if (si.ssi_signo != SIGCHLD && !s->main_done && !s->o->interrupted)
            s->o->interrupted = (int)si.ssi_signo;
    }
}

static void read_status(struct sup *s)
{
    struct pd_keeper_msg m;
    ssize_t r = read(s->statusfd, &m, sizeof m);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r == (ssize_t)sizeof m) {
        s->reported = true;
        s->o->exited = true;
        s->o->status = m.status;
        if (m.timed_out)
            s->o->timed_out = true;
    } else if (!s->o->sandbox_error[0]) {
        snprintf(s->o->sandbox_error, sizeof s->o->sandbox_error,
                 "keep_background: the keeper process ended without reporting the command's "
                 "status");
    }
    s->main_done = true;
    close(s->statusfd);
    s->statusfd = -1;
}

/* Wait up to ms for something to happen and handle it. */
static void pump(struct sup *s, int ms)
{
    struct pollfd pf[5];
    int who[5];
    nfds_t n = 0;
    for (int k = 0; k < 2; k++) {
        if (s->fd[k] >= 0) {
            pf[n] = (struct pollfd){.fd = s->fd[k], .events = POLLIN};
            who[n++] = k;
        }
    }
    pf[n] = (struct pollfd){.fd = s->sfd, .events = POLLIN};
    who[n++] = 2;
    if (s->statusfd >= 0) {
        pf[n] = (struct pollfd){.fd = s->statusfd, .events = POLLIN};
        who[n++] = 3;
    }
    /* records are read as they come: a full socket queue would block the
     * command's senders */
    if (s->live && s->live->fd >= 0) {
        pf[n] = (struct pollfd){.fd = s->live->fd, .events = POLLIN};
        who[n++] = 4;
    }
    int rc = poll(pf, n, ms < 0 ? 0 : ms);
    for (nfds_t i = 0; rc > 0 && i < n; i++) {
        if (!pf[i].revents)
            continue;
        if (who[i] < 2)
            read_stream(s, who[i]);
        else if (who[i] == 2)
            read_signals(s);
        else if (who[i] == 3)
            read_status(s);
        else
            pd_live_drain(s->live);
    }
    reap(s);
}

static void idle(void *arg, int ms)
{
    pump(arg, ms);
}

/* Read from the running command until it exits, the deadline passes or
 * paldron is told to stop. */
static void watch(struct sup *s, long long deadline)
{
    while (!s->main_done && !s->o->interrupted) {
        long long left = deadline - pd_now_ms();
        if (left <= 0) {
            s->o->timed_out = true;
            return;
        }
        pump(s, left > 1000 ? 1000 : (int)left);
    }
}

static void drain(struct sup *s, int ms)
{
    long long until = pd_now_ms() + ms;
    while (s->fd[0] >= 0 || s->fd[1] >= 0) {
        long long left = until - pd_now_ms();
        if (left <= 0)
            break;
        pump(s, (int)left);
    }
    close_stream(s, 0);
    close_stream(s, 1);
}

void pd_exec_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
}

/* Interactive: the terminal's settings before the run, put back if the
 * command did not end by itself (a program killed in raw mode would leave
 * the terminal unusable). Only while paldron is the terminal's foreground
 * job: a background paldron must not touch it. */
struct term {
    bool saved;
    struct termios tio;
};

static void term_save(struct term *t)
{
    t->saved = isatty(0) && tcgetattr(0, &t->tio) == 0;
}

static void term_restore(const struct term *t, const struct pd_exec_outcome *o)
{
    bool clean_end = o->exited && WIFEXITED(o->status) && !o->timed_out && !o->interrupted;
    if (t->saved && !clean_end && tcgetpgrp(0) == getpgrp())
        tcsetattr(0, TCSANOW, &t->tio);
}

static int start_failed(struct pd_exec_outcome *o, const char *what)
{
    snprintf(o->sandbox_error, sizeof o->sandbox_error, "%s: %s", what, strerror(errno));
    return -1;
}

int pd_exec_supervise(struct pd_exec_plan *p, struct pd_exec_outcome *o)
{
    struct sup s = {.o = o,
                    .fd = {-1, -1},
                    .sfd = -1,
                    .statusfd = -1,
                    .keeper = p->keep_background,
                    .interactive = p->interactive,
                    .live = p->live};
    struct term term = {0};
    int out[2] = {-1, -1}, err[2] = {-1, -1}, ep[2] = {-1, -1}, st[2] = {-1, -1};
    int rc = -1;
    sigset_t block, pipe_sig, pipe_saved;
    pd_exec_signals(&block);
    /* --stream writes to paldron's stdout while the run lasts: a reader that
     * went away is an EPIPE to handle, not a death that would leave the
     * command and the run directory behind. The command's own mask is
     * p->child_mask. */
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    if (p->stream)
        sigprocmask(SIG_BLOCK, &pipe_sig, &pipe_saved);
    s.sfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s.sfd < 0) {
        start_failed(o, "signalfd");
        goto out;
    }
    /* Orphaned descendants come to the launcher, not to init. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        start_failed(o, "prctl CHILD_SUBREAPER");
        goto out;
    }
    if ((!s.interactive && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) ||
        pipe2(ep, O_CLOEXEC) != 0 || (s.keeper && pipe2(st, O_CLOEXEC) != 0)) {
        start_failed(o, "pipe");
        goto out;
    }
    /* No timeout (interactive only): a deadline that never comes, with room
     * for the keeper's margin below. */
    const long long deadline =
        p->timeout_sec > 0 ? pd_now_ms() + p->timeout_sec * 1000 : LLONG_MAX / 4;
    /* --stream gives up on a stalled reader once the run is over for sure */
    const long long give_up =
        deadline + PD_GRACE_MS + DRAIN_MS + (s.keeper ? PD_GRACE_MS + 3000 : 0);
    if (!s.interactive) {
        if (pd_exec_flow_open(p, o, give_up) != 0) {
            errno = ENOMEM;
            start_failed(o, "output scan");
            goto out;
        }
        s.flows = true;
    }
    if (s.interactive)
        term_save(&term);
    pd_timing_mark("pipes");
    fflush(NULL); /* nothing buffered may be written twice */
    if (s.keeper) {
        s.child = fork();
        if (s.child == 0) {
            const struct pd_keeper_fds fds = {out[1], err[1], out[0], err[0], ep[1], st[1]};
            pd_exec_keeper(p, &fds, deadline);
        }
    } else {
        s.child = pd_exec_spawn(p, out[1], err[1], ep[1]);
    }
    pd_timing_mark("spawn");
    /* The kept process whose namespaces the run took (exec_ns_stock.c)
     * ends now that the child has started: its exit frees the memory of
     * the launcher it was made by, on this CPU most likely, while the
     * launcher would only wait. It can do nothing in the run's namespaces
     * meanwhile: it only sleeps, and the run's processes cannot signal,
     * trace or join it (Landlock's scopes, seccomp). */
    pd_exec_ns_end_taken();
    if (s.child < 0) {
        start_failed(o, "fork");
        goto out;
    }
    /* allow_hosts: the proxy serves the run's listeners from now on; a
     * proxy that cannot start means a run without its network: ended */
    if (pd_exec_net_start(p) != 0)
        kill(s.child, SIGKILL);
    if (out[1] >= 0)
        close(out[1]);
    if (err[1] >= 0)
        close(err[1]);
    close(ep[1]);
    out[1] = err[1] = ep[1] = -1;
    if (s.keeper) {
        close(st[1]);
        st[1] = -1;
        s.statusfd = st[0];
        st[0] = -1;
    }
    s.fd[0] = out[0];
    s.fd[1] = err[0];
    out[0] = err[0] = -1;

    /* The error pipe closes at execve; anything read is why the child
     * could not get there. */
    size_t got = 0;
    for (;;) {
        ssize_t r = read(ep[0], o->sandbox_error + got, sizeof o->sandbox_error - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got == sizeof o->sandbox_error - 1)
            break;
    }
    o->sandbox_error[got] = '\0';
    for (int k = 0; k < 2; k++)
        if (s.fd[k] >= 0)
            fcntl(s.fd[k], F_SETFL, fcntl(s.fd[k], F_GETFL) | O_NONBLOCK);
    if (s.statusfd >= 0)
        fcntl(s.statusfd, F_SETFL, fcntl(s.statusfd, F_GETFL) | O_NONBLOCK);

    /* The keeper enforces the deadline itself; the launcher only steps in
     * if the keeper fails to. */
    pd_timing_mark("exec'd");
    watch(&s, s.keeper ? deadline + PD_GRACE_MS + 3000 : deadline);
    pd_timing_mark("exited");
    if (o->interrupted || (o->timed_out && !s.main_done) || !s.keeper) {
        /* Timeout, a signal to paldron, or the command's normal end with
         * descendants left: nothing of the tree survives the run. */
        pd_tree_end(PD_GRACE_MS, idle, &s);
        drain(&s, DRAIN_MS);
    } else {
        drain(&s, DRAIN_KEEP_MS);
        struct pd_pids left = {0};
        if (pd_tree_list(&left) == 0)
            o->left_running = left.n;
        for (size_t k = 0; k < left.n; k++)
            if (left.pid[k] == s.child && o->left_running > 0)
                o->left_running--; /* the keeper itself */
        pd_pids_free(&left);
        /* Once it reported, the keeper removes the run directory when its
         * last process is gone; before that it never started one. */
        o->keeper_has_rundir = s.reported;
    }
    pd_timing_mark("tree-end");
    pd_exec_net_stop(p, p->live);
    reap(&s);
    if (s.interactive)
        term_restore(&term, o);
    rc = 0;
out:
    for (int k = 0; k < 2; k++) {
        if (out[k] >= 0)
            close(out[k]);
        if (err[k] >= 0)
            close(err[k]);
        if (ep[k] >= 0)
            close(ep[k]);
        if (st[k] >= 0)
            close(st[k]);
    }
    close_stream(&s, 0);
    close_stream(&s, 1);
    if (s.statusfd >= 0)
        close(s.statusfd);
    if (s.sfd >= 0)
        close(s.sfd);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    if (p->stream) {
        /* a SIGPIPE of a write above is pending: taken here, not delivered */
        const struct timespec now = {0, 0};
        while (sigtimedwait(&pipe_sig, NULL, &now) > 0)
            ;
        sigprocmask(SIG_SETMASK, &pipe_saved, NULL);
    }
    return rc;
}

void pd_exec_outcome_free(struct pd_exec_outcome *o)
{
    pd_capture_free(&o->out);
    pd_capture_free(&o->err);
    for (int k = 0; k < 2; k++) {
        pd_outscan_stream_free(o->flow[k].scan);
        o->flow[k].scan = NULL;
    }
    for (size_t k = 0; k < o->warnings.n; k++)
        free(o->warnings.v[k]);
    free(o->warnings.v);
    o->warnings = (struct pd_strlist){0};
}
