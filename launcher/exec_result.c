/* launcher/exec_result.c - the result block (stdout) and the verdict lines
 * (stderr) of `paldron exec`, in the original's format. The block is
 * printed only once the verdict is known, then the verdict: any finding
 * denies (exit 2, every finding listed), whatever the command's own status;
 * otherwise a stopped, timed-out or failed command is broken (exit 1) and a
 * clean one allowed (exit 0). An interactive run has no block (its output
 * went to the terminal as it came): a summary line on stderr instead. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "launcher/exec.h"
#include "launcher/launcher.h"

static void put_stream(const char *title, const struct pd_capture *c)
{
    if (c->len == 0 && c->dropped == 0)
        return;
    fputs(title, stdout);
    fputc('\n', stdout);
    fwrite(c->buf, 1, c->len, stdout);
    if (c->dropped)
        fprintf(stdout, "\n\n[TRUNCATED: output exceeded %d bytes]", PD_CAPTURE_MAX);
    fputc('\n', stdout);
}

void pd_exec_print_sandbox_error(const char *msg)
{
    printf("[SANDBOX ERROR] %s\n", msg);
    fflush(stdout);
}

static const char *signame(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    return abbrev ? abbrev : "?";
}

int pd_exec_report(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                   struct pd_findings *deny)
{
    const bool signaled = o->exited && WIFSIGNALED(o->status);
    const int code = o->exited && WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1;
    if (p->interactive) {
        if (!o->sandbox_error[0])
            pd_err("interactive run ended: %zu live denial(s), exit %d",
                   p->live ? pd_live_denials(p->live) : 0, o->timed_out ? -1 : code);
    } else if (o->sandbox_error[0]) {
        pd_exec_print_sandbox_error(o->sandbox_error);
    } else {
        if (o->timed_out)
            fputs("[TIMEOUT] Command killed after exceeding time limit\n", stdout);
        put_stream("[STDOUT]", &o->out);
        put_stream("[STDERR]", &o->err);
        if (!o->timed_out && code == 0)
            fputs("[EXIT CODE] 0 (success)\n", stdout);
        else
            printf("[EXIT CODE] %d\n", o->timed_out ? -1 : code);
        fflush(stdout);
    }

    /* A deny wins over every failure: a run that wrote .env and then
     * failed (or timed out, or lost its keeper) is a deny. */
    if (deny->n || deny->lost) {
        for (size_t k = 0; k < deny->n; k++)
            pd_err("deny: %s", deny->v[k].message);
        if (deny->lost)
            pd_err("deny: some findings could not be recorded (out of memory)");
        return PD_EXIT_DENY;
    }
    if (o->sandbox_error[0]) {
        pd_err("sandbox: %s", o->sandbox_error);
        return PD_EXIT_BROKEN;
    }
    if (o->interrupted) {
        pd_err("interrupted by SIG%s: the command and its processes were stopped",
               signame(o->interrupted));
        return PD_EXIT_BROKEN;
    }
    if (o->timed_out) {
        pd_err("command timed out after %lld s (its processes were stopped)", p->timeout_sec);
        return PD_EXIT_BROKEN;
    }
    if (!o->exited) {
        pd_err("command status unknown (the command was not reaped)");
        return PD_EXIT_BROKEN;
    }
    if (signaled) {
        pd_err("command exited -1 (killed by signal %d, SIG%s)", WTERMSIG(o->status),
               signame(WTERMSIG(o->status)));
        return PD_EXIT_BROKEN;
    }
    if (code != 0) {
        pd_err("command exited %d", code);
        return PD_EXIT_BROKEN;
    }
    return PD_EXIT_ALLOW;
}
