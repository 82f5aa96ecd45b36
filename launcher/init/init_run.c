/* launcher/init/init_run.c - run a program for init and doctor: `claude
 * --version`, the configured hook command under `sh -c` with a sample
 * payload on stdin, `codex app-server` answering JSON-RPC. Its output is
 * captured, and a deadline ends it (and every process it started: it runs
 * in a process group of its own) so that a client that hangs cannot hang
 * doctor. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/init/init.h"

#define CAPTURE_MAX (4u << 20)
#define GRACE_MS    3000 /* after stdin is closed or the deadline passed */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void child(const struct pd_run_opts *o, int in, int out, int err)
{
    setpgid(0, 0);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(127);
    if (o->cwd && chdir(o->cwd) != 0) {
        dprintf(2, "cannot enter %s: %s\n", o->cwd, strerror(errno));
        _exit(127);
    }
    for (const char *const *e = o->env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        char name[256];
        if (!eq || (size_t)(eq - *e) >= sizeof name)
            continue;
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = '\0';
        setenv(name, eq + 1, 1);
    }
    signal(SIGPIPE, SIG_DFL);
    size_t n = 0;
    while (o->argv[n])
        n++;
    char **argv = calloc(n + 1, sizeof *argv); /* execvp wants them writable */
    for (size_t k = 0; argv && k < n; k++)
        if (!(argv[k] = strdup(o->argv[k])))
            _exit(127);
    if (!argv || n == 0)
        _exit(127);
    execvp(argv[0], argv);
    dprintf(2, "%s: %s\n", o->argv[0], strerror(errno));
    _exit(127);
}

static void append(char **buf, size_t *len, const char *s, size_t n)
{
    if (*len + n > CAPTURE_MAX)
        n = CAPTURE_MAX - *len;
    char *nb = realloc(*buf, *len + n + 1);
    if (!nb)
        return;
    memcpy(nb + *len, s, n);
    *len += n;
    nb[*len] = '\0';
    *buf = nb;
}

static int exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Wait for pid until deadline; then TERM its group, then KILL it. */
static int reap(pid_t pid, long long deadline, bool *killed)
{
    static const int sigs[] = {0, SIGTERM, SIGKILL};
    int status;
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        if (sigs[k]) {
            kill(-pid, sigs[k]);
            *killed = true;
            deadline = now_ms() + GRACE_MS;
        }
        while (now_ms() < deadline) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid)
                return exit_code(status);
            if (r < 0 && errno != EINTR)
                return -1;
            struct timespec ts = {0, 20 * 1000000};
            nanosleep(&ts, NULL);
        }
    }
    return waitpid(pid, &status, 0) == pid ? exit_code(status) : -1;
}

int pd_run(const struct pd_run_opts *o, struct pd_run_result *r, char *why, size_t whylen)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        goto fail;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        child(o, in[0], out[1], err[1]);
    setpgid(pid, pid); /* also here: no race with a kill of the group */
    close(in[0]);
    close(out[1]);
    close(err[1]);
    in[0] = out[1] = err[1] = -1;
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    long long deadline = now_ms() + o->timeout_ms;
    size_t sent = 0;
    bool out_open = true, err_open = true;
    if (!o->input || o->inputlen == 0) {
        if (!o->keep_stdin_open) {
            close(in[1]);
            in[1] = -1;
        }
    }
    while ((out_open || err_open) && !r->stopped) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            r->timed_out = true;
            break;
        }
        struct pollfd p[3] = {{out_open ? out[0] : -1, POLLIN, 0},
                              {err_open ? err[0] : -1, POLLIN, 0},
                              {in[1] >= 0 && sent < o->inputlen ? in[1] : -1, POLLOUT, 0}};
        int pr = poll(p, 3, left > 200 ? 200 : (int)left);
        if (pr < 0 && errno != EINTR)
            break;
        char buf[65536];
        for (int k = 0; k < 2; k++) {
            if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(p[k].fd, buf, sizeof buf);
            if (n > 0 && k == 0)
                append(&r->out, &r->outlen, buf, (size_t)n);
            else if (n > 0)
                append(&r->err, &r->errlen, buf, (size_t)n);
            else if (n == 0 || errno != EINTR)
                *(k == 0 ? &out_open : &err_open) = false;
        }
        if (p[2].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t w = write(in[1], o->input + sent, o->inputlen - sent);
            if (w > 0)
                sent += (size_t)w;
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                sent = o->inputlen; /* it stopped reading: give up the rest */
            if (sent == o->inputlen && !o->keep_stdin_open) {
                close(in[1]);
                in[1] = -1;
            }
        }
        if (o->done && r->outlen && o->done(r->out, r->outlen, o->arg))
            r->stopped = true;
    }
    if (in[1] >= 0)
        close(in[1]);
    in[1] = -1;
    bool killed = false;
    r->status = reap(pid, r->timed_out ? now_ms() : now_ms() + GRACE_MS, &killed);
    r->timed_out |= killed && !r->stopped;
    signal(SIGPIPE, old_pipe);
    if (!r->out)
        append(&r->out, &r->outlen, "", 0);
    if (!r->err)
        append(&r->err, &r->errlen, "", 0);
    close(out[0]);
    close(err[0]);
    return 0;
fail:
    for (int k = 0; k < 2; k++) {
        if (in[k] >= 0)
            close(in[k]);
        if (out[k] >= 0)
            close(out[k]);
        if (err[k] >= 0)
            close(err[k]);
    }
    return -1;
}

void pd_run_result_free(struct pd_run_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}
