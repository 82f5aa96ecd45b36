/* launcher/exec/exec_output.c - the output verdict of `paldron exec`: the local
 * secret scan of both streams (run on the output as it came, by the output
 * scan's stream mode in exec_flow.c: redacted before a byte is released, into
 * the capture or, with --stream, to paldron's stdout and stderr) and, when
 * the policy asks for it, the remote jev verdict on the redacted text. Not in
 * an interactive run: its output is never held back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/exec/exec.h"
#include "launcher/exec/exec_output.h"
#include "launcher/jev/jev.h"
#include "launcher/exec/live.h"
#include "launcher/outscan/outscan.h"

/* Credential files in the real home whose values must never be printed. */
static const char *const home_secret_files[] = {".aws/credentials",
                                                ".netrc",
                                                ".git-credentials",
                                                ".npmrc",
                                                ".pypirc",
                                                ".docker/config.json",
                                                ".ssh/id_rsa",
                                                ".ssh/id_ecdsa",
                                                ".ssh/id_ed25519",
                                                ".config/gh/hosts.yml",
                                                NULL};

struct known_ctx {
    const struct pd_ctx *ctx;
    struct pd_outscan *all, *secrets;
};

/* git's sample hooks are the templates git copies into every repository:
 * nothing of this machine, and a dozen files to read at every run. */
static bool git_sample_hook(const char *path)
{
    size_t n = strlen(path);
    const char *dir = strstr(path, "/.git/hooks/");
    return dir && n > 7 && strcmp(path + n - 7, ".sample") == 0 && !strchr(dir + 12, '/');
}

/* A file the policy denies reading (deny_globs, secrets) is a secret: every
 * line of it may be a value. One only protected from writing (.git/config,
 * hooks, the policy file) is code: only its assignments and URL passwords,
 * and only for the scan of everything (the output scan). */
static void add_denied_file(const char *path, void *user)
{
    const struct known_ctx *k = user;
    const char *rel = pd_path_under(path, k->ctx->workspace);
    struct pd_verdict v;
    pd_gate_path(k->ctx, PD_OP_READ, NULL, rel ? (rel[0] ? rel : ".") : path, &v);
    /* unreadable or oversized files just add nothing: their values are not known */
    if (v.deny) {
        if (k->all)
            (void)pd_outscan_add_secret_file(k->all, path);
        if (k->secrets)
            (void)pd_outscan_add_secret_file(k->secrets, path);
    } else if (k->all && !git_sample_hook(path)) {
        (void)pd_outscan_add_config_file(k->all, path);
    }
}

/* The files allow_secrets names literally ("~/x", "/abs/x" or a workspace
 * path): readable by the run, but still secrets to the output scan, so a
 * token printed from them is redacted and denies the run. A glob entry
 * names no one file: its values are not learned (docs/policy.md). */
static void add_lifted_secrets(const struct pd_ctx *ctx, struct pd_outscan *scan)
{
    const struct pd_strv *a = &ctx->policy->allow_secrets;
    for (size_t k = 0; k < a->n; k++) {
        char path[PD_PATH_MAX];
        if (strpbrk(a->v[k], "*?[\\") ||
            pd_path_normalize(ctx->workspace, ctx->home, a->v[k], path, sizeof path) != 0)
            continue;
        (void)pd_outscan_add_secret_file(scan, path);
    }
}

void pd_exec_add_denied_values(const struct pd_ctx *ctx, const struct pd_scan *snap,
                               struct pd_outscan *all, struct pd_outscan *secrets)
{
    struct known_ctx k = {ctx, all, secrets};
    if (snap && (all || secrets))
        pd_scan_each_denied_file(snap, add_denied_file, &k);
}

int pd_exec_add_host_values(const struct pd_ctx *ctx, char *const *envp, struct pd_outscan *scan)
{
    if (pd_outscan_add_env(scan, envp) < 0 && errno == ENOMEM)
        return -1;
    if (ctx->home[0])
        for (size_t i = 0; home_secret_files[i]; i++) {
            char path[PD_PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", ctx->home, home_secret_files[i]);
            (void)pd_outscan_add_secret_file(scan, path);
        }
    add_lifted_secrets(ctx, scan);
    return 0;
}

int pd_exec_known_later_load(struct pd_known_later *l)
{
    if (!l->done) {
        l->done = true;
        l->rc = pd_exec_add_host_values(l->ctx, l->envp, l->scan);
    }
    return l->rc;
}

struct pd_outscan *pd_exec_output_prepare(const struct pd_ctx *ctx, char *const *envp,
                                          struct pd_known_later *later, char *err, size_t errlen)
{
    const struct pd_policy *p = ctx->policy;
    err[0] = '\0';
    if (!p->output_scan && !p->jev_verdict)
        return NULL;
    struct pd_outscan *scan = pd_outscan_new();
    if (!scan) {
        snprintf(err, errlen, "output scan: out of memory");
        return NULL;
    }
    pd_outscan_copy_clean(scan, false);
    for (size_t k = 0; k < p->output_patterns.n; k++) {
        const char *entry = p->output_patterns.v[k];
        const char *colon = strchr(entry, ':');
        char name[80];
        snprintf(name, sizeof name, "%.*s", (int)(colon - entry), entry);
        const char *pat = colon + 1 + strspn(colon + 1, " ");
        if (pd_outscan_add_pattern(scan, name, pat) != 0) {
            snprintf(err, errlen, "policy output_patterns entry '%s': %s (%s)", entry,
                     errno == EEXIST ? "the name is taken by a built-in rule"
                                     : pd_outscan_last_error(scan),
                     p->file ? p->file : "policy");
            pd_outscan_free(scan);
            return NULL;
        }
    }
    for (size_t k = 0; k < p->output_scan_ignore.n; k++)
        if (pd_outscan_disable_rule(scan, p->output_scan_ignore.v[k]) != 0) {
            snprintf(err, errlen,
                     "policy output_scan_ignore: unknown rule '%s' (docs/output-scan.md lists "
                     "them) (%s)",
                     p->output_scan_ignore.v[k], p->file ? p->file : "policy");
            pd_outscan_free(scan);
            return NULL;
        }
    *later = (struct pd_known_later){.ctx = ctx, .envp = envp, .scan = scan};
    return scan;
}

/* "a secret value from env X", "a private key", ... */
static void describe(const struct pd_outscan_finding *f, char *out, size_t len)
{
    switch (f->kind) {
    case PD_OUTSCAN_KNOWN_VALUE:
    case PD_OUTSCAN_KNOWN_BASE64:
    case PD_OUTSCAN_KNOWN_HEX:
        snprintf(out, len, "a secret value from %s", f->source ? f->source : "a secret file");
        break;
    case PD_OUTSCAN_FORMAT:
        snprintf(out, len, "%s",
                 strcmp(f->rule, "private-key") == 0 ? "a private key" : "a credential");
        break;
    case PD_OUTSCAN_PATTERN:
        snprintf(out, len, "a value matching output_patterns '%s'", f->rule);
        break;
    }
}

/* Replace the capture by a notice. */
static void withhold(struct pd_capture *c)
{
    static const char notice[] = "[WITHHELD: the output could not be scanned]";
    char *copy = malloc(sizeof notice);
    free(c->buf);
    c->buf = copy;
    c->len = c->cut = 0;
    c->dropped = 0;
    if (copy) {
        memcpy(copy, notice, sizeof notice);
        c->len = c->cut = sizeof notice - 1;
        c->cap = sizeof notice;
    }
}

/* The findings of one stream's scan: one deny line per kind and rule. */
static void stream_findings(const struct pd_exec_flow *f, const char *stream,
                            struct pd_findings *deny)
{
    if (!f->scan) /* the stream carried nothing: no scan was made */
        return;
    size_t n;
    const struct pd_outscan_finding *v = pd_outscan_stream_findings(f->scan, &n, NULL);
    for (size_t k = 0; k < n; k++) {
        char kind[256];
        describe(&v[k], kind, sizeof kind);
        /* the path slot groups findings by stream and rule: one line each */
        char key[320];
        snprintf(key, sizeof key, "output %s %s %s", stream, v[k].rule, kind);
        pd_findings_add(deny, key, "output exposes %s (%s) [%s]", kind, v[k].rule, stream);
    }
    const char *rule = pd_outscan_stream_withheld(f->scan);
    if (rule)
        pd_findings_add(deny, "output withheld",
                        "output withheld after a %s match longer than 64 KiB [%s]", rule, stream);
}

static void remote_verdict(const struct pd_policy *p, const struct pd_exec_outcome *o,
                           char *const *argv, struct pd_findings *deny, struct pd_findings *warn)
{
    /* head and tail joined: what the capture kept */
    struct pd_jev_request req = {.argv = argv,
                                 .exit_code = 0,
                                 .stdout_buf = o->out.buf,
                                 .stdout_len = o->out.len,
                                 .stderr_buf = o->err.buf,
                                 .stderr_len = o->err.len};
    struct pd_jev_verdict v = {0};
    char err[PD_MSG_MAX], msg[PD_MSG_MAX];
    int rc = pd_jev_judge(&req, &v, err, sizeof err);
    switch (pd_jev_decide(p, rc, &v, err, msg, sizeof msg)) {
    case PD_JEV_DENY:
        pd_findings_add(deny, "jev", "%s", msg);
        break;
    case PD_JEV_WARN:
        pd_findings_add(warn, "jev", "%s", strncmp(msg, "warning: ", 9) == 0 ? msg + 9 : msg);
        break;
    case PD_JEV_ALLOW:
        break;
    }
}

void pd_exec_output_judge(const struct pd_ctx *ctx, struct pd_outscan *scan,
                          struct pd_exec_outcome *o, bool denied_so_far, char *const *argv,
                          struct pd_findings *deny, struct pd_findings *warn)
{
    const struct pd_policy *p = ctx->policy;
    /* Records the preload could not deliver were printed on the command's
     * stderr instead: counted here, before anything else reads the capture
     * (and whether or not the output scan is on). */
    pd_live_stderr_findings(o->err.buf, o->err.len, deny);
    if (p->strict) /* an undelivered blocked write denies too (issue 11, item 5) */
        pd_live_stderr_blocked(o->err.buf, o->err.len, deny);
    if (!scan)
        return;
    /* Fail closed. With --stream, what went out before the failure was
     * scanned and redacted; nothing went out after it. */
    if (o->scan_failed) {
        withhold(&o->out);
        withhold(&o->err);
        pd_findings_add(deny, "output", "output could not be scanned (%s): withheld",
                        strerror(ENOMEM));
        return;
    }
    /* with output_scan off the scanner still redacted what jev will see */
    if (p->output_scan) {
        stream_findings(&o->flow[0], "stdout", deny);
        stream_findings(&o->flow[1], "stderr", deny);
    }
    bool success = !o->sandbox_error[0] && !o->timed_out && !o->interrupted && o->exited &&
                   WIFEXITED(o->status) && WEXITSTATUS(o->status) == 0;
    if (p->jev_verdict && success && !denied_so_far && deny->n == 0)
        remote_verdict(p, o, argv, deny, warn);
}
