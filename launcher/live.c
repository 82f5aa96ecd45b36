/* launcher/live.c - the report channel of the live gate (see live.h). The
 * channel is a datagram socket the launcher owns: a sandboxed process can
 * add records (which only ever makes a run deny) but cannot edit or remove
 * what others sent. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/live.h"
#include "policy/report.h"

static int write_all(int fd, const char *text, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

int pd_live_open(struct pd_live *l, const struct pd_ctx *ctx, const char *run_dir, const char *lib,
                 bool audit, const char *log_path, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->audit = audit;
    snprintf(l->lib, sizeof l->lib, "%s", lib);
    snprintf(l->run_dir, sizeof l->run_dir, "%s", run_dir);
    snprintf(l->compiled, sizeof l->compiled, "%s/policy.compiled", run_dir);

    char *text = pd_compile(ctx);
    int fd = text ? open(l->compiled, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400) : -1;
    if (fd < 0 || write_all(fd, text, strlen(text)) || close(fd)) {
        snprintf(err, errlen, "live gate: write %s: %s", l->compiled, strerror(errno));
        free(text);
        return -1;
    }
    free(text);

    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s/report.sock", run_dir) >=
        sizeof sa.sun_path) {
        snprintf(err, errlen, "live gate: run directory path too long for a socket: %s", run_dir);
        return -1;
    }
    l->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int rcvbuf = 4 << 20;
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        snprintf(err, errlen, "live gate: report socket %s: %s", sa.sun_path, strerror(errno));
        return -1;
    }
    /* a bigger queue keeps bursts of records from blocking senders */
    (void)setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (log_path && !(l->log = fopen(log_path, "we"))) {
        snprintf(err, errlen, "--log %s: %s", log_path, strerror(errno));
        return -1;
    }
    return 0;
}

int pd_live_env(const struct pd_live *l, const char *debug, char *out[6])
{
    size_t n = 0;
    memset(out, 0, 6 * sizeof *out);
    if (asprintf(&out[n++], "LD_PRELOAD=%s", l->lib) < 0 ||
        asprintf(&out[n++], "PALDRON_PRELOAD=%s", l->lib) < 0 ||
        asprintf(&out[n++], "PALDRON_RUN=%s", l->run_dir) < 0 ||
        (l->audit && asprintf(&out[n++], "PALDRON_AUDIT=1") < 0) ||
        (debug && debug[0] && asprintf(&out[n++], "PALDRON_DEBUG=%s", debug) < 0)) {
        for (size_t k = 0; k < 6; k++) {
            free(out[k]);
            out[k] = NULL;
        }
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static void log_record(FILE *f, const struct pd_report *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", r->kind);
    cJSON_AddStringToObject(o, "op", r->op);
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "resolved", r->resolved);
    cJSON *rule = cJSON_AddObjectToObject(o, "rule");
    cJSON_AddStringToObject(rule, "key", r->key);
    cJSON_AddStringToObject(rule, "pattern", r->pattern);
    cJSON_AddStringToObject(o, "reason", r->reason);
    cJSON_AddNumberToObject(o, "pid", (double)r->pid);
    cJSON_AddStringToObject(o, "program", r->program);
    cJSON *argv = cJSON_AddArrayToObject(o, "argv");
    for (size_t k = 0; k < r->argc; k++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(r->argv[k]));
    char *s = cJSON_PrintUnformatted(o);
    if (s) {
        fprintf(f, "%s\n", s);
        fflush(f);
    }
    free(s);
    cJSON_Delete(o);
}

static bool same(const struct pd_live_rec *a, const struct pd_report *r)
{
    return strcmp(a->kind, r->kind) == 0 && strcmp(a->op, r->op) == 0 &&
           strcmp(a->path, r->path) == 0 && strcmp(a->reason, r->reason) == 0 &&
           strcmp(a->program, r->program) == 0 && strcmp(a->pattern, r->pattern) == 0;
}

static void keep(struct pd_live *l, const struct pd_report *r)
{
    for (size_t k = 0; k < l->nrecs; k++)
        if (same(&l->recs[k], r)) {
            l->recs[k].count++;
            return;
        }
    struct pd_live_rec *nv = realloc(l->recs, (l->nrecs + 1) * sizeof *nv);
    if (!nv)
        return; /* the counters below still make the run deny */
    l->recs = nv;
    struct pd_live_rec *x = &l->recs[l->nrecs++];
    x->kind = strdup(r->kind);
    x->op = strdup(r->op);
    x->path = strdup(r->path);
    x->resolved = strdup(r->resolved);
    x->key = strdup(r->key);
    x->pattern = strdup(r->pattern);
    x->reason = strdup(r->reason);
    x->program = strdup(r->program);
    x->pid = r->pid;
    x->count = 1;
}

/* "<program> <op> <path> (<reason> <pattern>) [live]" */
static void format_parts(const char *program, const char *op, const char *path, const char *reason,
                         const char *pattern, size_t count, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %s (%s%s%s) [live]%s", program, op, path, reason,
             pattern[0] ? " " : "", pattern, count > 1 ? " (repeated)" : "");
}

/* Interactive: one line for a record as it arrives, in the words of the
 * verdict's lines (each arrival is printed: no folding). */
static void echo_record(FILE *out, const struct pd_report *r)
{
    char msg[PD_MSG_MAX];
    const bool deny = strcmp(r->kind, PD_REPORT_DENY) == 0;
    if (deny || strcmp(r->kind, PD_REPORT_AUDIT) == 0) {
        format_parts(r->program, r->op, r->path, r->reason, r->pattern, 1, msg, sizeof msg);
        fprintf(out, "paldron: %s%s\n", deny ? "deny: " : "audit: would deny: ", msg);
    } else if (strcmp(r->kind, PD_REPORT_ERROR) == 0) {
        fprintf(out,
                "paldron: deny: %s could not load the live gate's policy (%s): every gated "
                "call was denied [live]\n",
                r->program, r->reason);
    }
    fflush(out);
}

void pd_live_drain(struct pd_live *l)
{
    static struct pd_report_decoded d;
    char buf[PD_REPORT_MAX + 1];
    if (l->fd < 0)
        return;
    for (;;) {
        ssize_t n = recv(l->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (pd_report_decode(buf, (size_t)n, &d) != 0) {
            l->nbad++; /* unreadable records count as denials: fail closed */
            if (l->echo) {
                fputs("paldron: deny: unreadable live-gate record [live]\n", l->echo);
                fflush(l->echo);
            }
            continue;
        }
        const char *kind = d.r.kind;
        if (strcmp(kind, PD_REPORT_DENY) == 0)
            l->ndeny++;
        else if (strcmp(kind, PD_REPORT_AUDIT) == 0)
            l->naudit++;
        else if (strcmp(kind, PD_REPORT_COVERAGE) == 0)
            l->ncoverage++;
        else
            l->nerror++;
        if (l->log)
            log_record(l->log, &d.r);
        if (l->echo)
            echo_record(l->echo, &d.r);
        keep(l, &d.r);
    }
}

size_t pd_live_denials(const struct pd_live *l)
{
    return l->ndeny + l->nerror + l->nbad;
}

/* The smallest policy change that would allow what an audit record shows. */
static void advise(const struct pd_live_rec *r, const struct pd_policy *pol, FILE *out)
{
    const char *key = r->key;
    if (strcmp(key, "deny_globs") == 0)
        fprintf(out, "remove \"%s\" from deny_globs", r->pattern);
    else if (strcmp(key, "secrets") == 0)
        fprintf(out, "none: \"%s\" is a built-in secret; keep the file out of the command's way",
                r->pattern);
    else if (strcmp(key, "protected_paths") == 0)
        fprintf(out, "set protected_paths to a list without \"%s\"", r->pattern);
    else if (strcmp(key, "policy_file") == 0)
        fputs("none: the policy file is never writable from inside a run", out);
    else if (strcmp(key, "allow_binaries") == 0) {
        const char *slash = strrchr(r->path, '/');
        fprintf(out, "add \"%s\" to allow_binaries", slash ? slash + 1 : r->path);
    } else if (strcmp(key, "allow_network") == 0)
        fputs("set allow_network = true", out);
    else if (strcmp(key, "allow_paths") == 0 || strcmp(key, "workspace") == 0) {
        const char *p = r->resolved[0] ? r->resolved : r->path;
        const char *slash = strrchr(p, '/');
        fprintf(out, "add \"%.*s\" to allow_paths", slash && slash != p ? (int)(slash - p) : 1, p);
    } else
        fprintf(out, "see 'paldron explain --policy %s %s'", pol->file ? pol->file : "P", r->path);
}

static void format_rec(const struct pd_live_rec *r, char *buf, size_t len)
{
    format_parts(r->program, r->op, r->path, r->reason, r->pattern, r->count, buf, len);
}

void pd_live_findings(const struct pd_live *l, struct pd_findings *out)
{
    char msg[PD_MSG_MAX];
    for (size_t k = 0; k < l->nrecs; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (strcmp(r->kind, PD_REPORT_DENY) == 0) {
            format_rec(r, msg, sizeof msg);
            pd_findings_add(out, r->path, "%s", msg);
        } else if (strcmp(r->kind, PD_REPORT_ERROR) == 0) {
            pd_findings_add(out, r->path,
                            "%s could not load the live gate's policy (%s): every gated call "
                            "was denied [live]",
                            r->program, r->reason);
        }
    }
    if (l->nbad)
        pd_findings_add(out, "", "%zu unreadable live-gate record(s) [live]", l->nbad);
}

void pd_live_note_unmonitored(struct pd_live *l, const char *path, const char *why)
{
    struct pd_report r = {.kind = PD_REPORT_COVERAGE,
                          .op = "exec",
                          .path = path,
                          .resolved = path,
                          .key = "",
                          .pattern = "",
                          .reason = why,
                          .program = "paldron"};
    l->ncoverage++;
    if (l->log)
        log_record(l->log, &r);
    keep(l, &r);
}

void pd_live_notes(const struct pd_live *l, const struct pd_policy *pol, FILE *out)
{
    char msg[PD_MSG_MAX];
    for (size_t k = 0; k < l->nrecs; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (strcmp(r->kind, PD_REPORT_AUDIT) != 0)
            continue;
        format_rec(r, msg, sizeof msg);
        fprintf(out, "paldron: audit: would deny: %s\npaldron: audit:   smallest change: ", msg);
        advise(r, pol, out);
        fputc('\n', out);
    }
    if (!l->ncoverage)
        return;
    fputs("paldron: coverage: ran without the live gate (kernel layers only):", out);
    const char *sep = " ";
    for (size_t k = 0; k < l->nrecs; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (strcmp(r->kind, PD_REPORT_COVERAGE) != 0)
            continue;
        fprintf(out, "%s%s (%s)", sep, r->resolved[0] ? r->resolved : r->path, r->reason);
        sep = ", ";
    }
    fputc('\n', out);
}

void pd_live_close(struct pd_live *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    if (l->log)
        fclose(l->log);
    l->log = NULL;
    for (size_t k = 0; k < l->nrecs; k++) {
        struct pd_live_rec *r = &l->recs[k];
        free(r->kind);
        free(r->op);
        free(r->path);
        free(r->resolved);
        free(r->key);
        free(r->pattern);
        free(r->reason);
        free(r->program);
    }
    free(l->recs);
    l->recs = NULL;
    l->nrecs = 0;
}
