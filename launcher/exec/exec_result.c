/* launcher/exec/exec_result.c - the result block (stdout) and the verdict lines
 * (stderr) of `paldron exec`, in the original's format. The block is
 * printed only once the verdict is known, then the verdict: any finding
 * denies (exit 2, every finding listed), whatever the command's own status;
 * otherwise a stopped, timed-out or failed command is broken (exit 1) and a
 * clean one allowed (exit 0). An interactive run has no block (its output
 * went to the terminal as it came): a summary line on stderr instead; a
 * --stream run's block has no stream sections (the output went out as it
 * came), and --json prints one object instead (exec_json.c). Every deny ends
 * with one line that says what the command itself did: the exit status is
 * not lost behind the verdict. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

/* The line between a capture's head and its tail. It keeps the original's
 * "[TRUNCATED: ...]" words (seed row X24) after the exact count. */
static void put_cut(FILE *f, const struct pd_capture *c)
{
    fprintf(f, "[... %llu bytes dropped ...] [TRUNCATED: output exceeded %d bytes]\n", c->dropped,
            PD_CAPTURE_MAX);
}

static void put_stream(const char *title, const struct pd_capture *c)
{
    if (c->len == 0 && c->dropped == 0)
        return;
    fputs(title, stdout);
    fputc('\n', stdout);
    if (c->dropped) {
        fwrite(c->buf, 1, c->cut, stdout);
        if (c->cut && c->buf[c->cut - 1] != '\n')
            fputc('\n', stdout);
        put_cut(stdout, c);
        fwrite(c->buf + c->cut, 1, c->len - c->cut, stdout);
    } else if (c->len) {
        fwrite(c->buf, 1, c->len, stdout);
    }
    if (c->lost)
        fputs("\n[INCOMPLETE: memory ran out while capturing]", stdout);
    fputc('\n', stdout);
}

void pd_exec_print_sandbox_error(const struct pd_exec_plan *p, const char *msg)
{
    if (p && p->json) {
        char why[PD_MSG_MAX + 16];
        snprintf(why, sizeof why, "sandbox: %s", msg); /* as the verdict line says it */
        pd_exec_json_not_run(NULL, why);
        return;
    }
    printf("[SANDBOX ERROR] %s\n", msg);
    fflush(stdout);
}

static const char *signame(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    return abbrev ? abbrev : "?";
}

void pd_exec_status_words(const struct pd_exec_plan *p, const struct pd_exec_outcome *o, char *out,
                          size_t len)
{
    if (o->sandbox_error[0])
        snprintf(out, len, "did not start");
    else if (o->interrupted)
        snprintf(out, len, "was stopped (paldron was interrupted by SIG%s)",
                 signame(o->interrupted));
    else if (o->timed_out)
        snprintf(out, len, "timed out after %lld s", p->timeout_sec);
    else if (!o->exited)
        snprintf(out, len, "left no status");
    else if (WIFSIGNALED(o->status))
        snprintf(out, len, "was killed by SIG%s", signame(WTERMSIG(o->status)));
    else
        snprintf(out, len, "exited %d", WEXITSTATUS(o->status));
}

void pd_exec_keep_warnings(struct pd_exec_outcome *o, const struct pd_findings *w)
{
    for (size_t k = 0; k < w->n; k++) {
        char **v = realloc(o->warnings.v, (o->warnings.n + 1) * sizeof *v);
        if (!v)
            return;
        o->warnings.v = v;
        if ((v[o->warnings.n] = strdup(w->v[k].message)) != NULL)
            o->warnings.n++;
    }
}

/* The verdict without the findings: 0, or 1 with the line that says why
 * (why[0] == '\0' when allowed). */
static int broken_or_allowed(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                             char *why, size_t len)
{
    why[0] = '\0';
    if (o->sandbox_error[0])
        snprintf(why, len, "sandbox: %s", o->sandbox_error);
    else if (o->interrupted)
        snprintf(why, len, "interrupted by SIG%s: the command and its processes were stopped",
                 signame(o->interrupted));
    else if (o->timed_out)
        snprintf(why, len, "command timed out after %lld s (its processes were stopped)",
                 p->timeout_sec);
    else if (!o->exited)
        snprintf(why, len, "command status unknown (the command was not reaped)");
    else if (WIFSIGNALED(o->status))
        snprintf(why, len, "command exited -1 (killed by signal %d, SIG%s)", WTERMSIG(o->status),
                 signame(WTERMSIG(o->status)));
    else if (WEXITSTATUS(o->status) != 0)
        snprintf(why, len, "command exited %d", WEXITSTATUS(o->status));
    return why[0] ? PD_EXIT_BROKEN : PD_EXIT_ALLOW;
}

/* --stream: the streams went out as they came; the block keeps its last
 * lines. A stream that did not end its last line gets one, so that the
 * block's lines stay lines. */
static void end_streamed_line(const struct pd_exec_flow *f, FILE *to)
{
    if (f->wrote_any && !f->gone && f->last != '\n') {
        fputc('\n', to);
        fflush(to);
    }
}

int pd_exec_report(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                   struct pd_findings *deny)
{
    const bool denied = deny->n || deny->lost;
    char why[PD_MSG_MAX + 64];
    int rc = broken_or_allowed(p, o, why, sizeof why);
    if (denied)
        rc = PD_EXIT_DENY; /* a deny wins over every failure */
    const int code = o->exited && WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1;
    if (p->json) {
        pd_exec_json_result(p, o, deny, rc, rc == PD_EXIT_BROKEN ? why : NULL);
    } else if (p->interactive) {
        if (!o->sandbox_error[0])
            pd_err("interactive run ended: %zu live denial(s), exit %d",
                   p->live ? pd_live_denials(p->live) : 0, o->timed_out ? -1 : code);
    } else if (o->sandbox_error[0]) {
        pd_exec_print_sandbox_error(p, o->sandbox_error);
    } else if (!(p->stream && o->flow[0].gone && o->flow[0].gone_errno == EPIPE)) {
        if (p->stream) {
            end_streamed_line(&o->flow[0], stdout);
            end_streamed_line(&o->flow[1], stderr);
        }
        if (o->timed_out)
            fputs("[TIMEOUT] Command killed after exceeding time limit\n", stdout);
        if (!p->stream) {
            put_stream("[STDOUT]", &o->out);
            put_stream("[STDERR]", &o->err);
        }
        if (!o->timed_out && code == 0)
            fputs("[EXIT CODE] 0 (success)\n", stdout);
        else
            printf("[EXIT CODE] %d\n", o->timed_out ? -1 : code);
        fflush(stdout);
    }

    if (denied) {
        for (size_t k = 0; k < deny->n; k++)
            pd_err("deny: %s", deny->v[k].message);
        if (deny->lost)
            pd_err("deny: some findings could not be recorded (out of memory)");
        char status[PD_MSG_MAX];
        pd_exec_status_words(p, o, status, sizeof status);
        pd_err("denied: %zu finding%s%s; the command itself %s", deny->n, deny->n == 1 ? "" : "s",
               deny->lost ? " (and more)" : "", status);
    } else if (rc == PD_EXIT_BROKEN) {
        pd_err("%s", why);
    }
    return rc;
}
