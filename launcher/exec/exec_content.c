/* launcher/exec/exec_content.c - the content scan of changed files
 * (exec_content.h). The walk that finds them is scan_changed.c; the matcher
 * is the output scanner's, with its format rules off: a credential-shaped
 * string in a file (a test fixture, a key the run generated) is not a leak,
 * a known value of this machine is. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec/exec_content.h"
#include "launcher/exec/exec_output.h"
#include "launcher/outscan/outscan.h"

struct pd_outscan *pd_exec_content_prepare(const struct pd_ctx *ctx, char *const *envp,
                                           struct pd_known_later *later, char *err, size_t errlen)
{
    err[0] = '\0';
    if (!ctx->policy->output_scan)
        return NULL;
    struct pd_outscan *scan = pd_outscan_new();
    if (!scan) {
        snprintf(err, errlen, "content scan: out of memory");
        return NULL;
    }
    pd_outscan_copy_clean(scan, false);
    size_t n;
    const char *const *rules = pd_outscan_rule_names(&n);
    for (size_t k = 0; k < n; k++)
        (void)pd_outscan_disable_rule(scan, rules[k]);
    /* secrets only: a protected file (a hook, .git/config) is code anyone may
     * read, and a run copies or rewrites it without leaking anything */
    *later = (struct pd_known_later){.ctx = ctx, .envp = envp, .scan = scan};
    return scan;
}

struct judge {
    const struct pd_ctx *ctx;
    struct pd_outscan *known;
    struct pd_known_later *later; /* the host values, loaded by the first changed file */
    struct pd_findings *found, *warn;
    char *buf;
    size_t cap;
    size_t total;   /* bytes read so far */
    size_t skipped; /* files left out by the total bound */
};

static void subject_of(const struct pd_ctx *ctx, const char *abs, char *out, size_t outlen)
{
    const char *rel = pd_path_under(abs, ctx->workspace);
    snprintf(out, outlen, "%s", rel ? (rel[0] ? rel : ".") : abs);
}

/* "file /ws/.env" -> ".env"; "env API_TOKEN" stays. */
static void source_of(const struct pd_ctx *ctx, const char *label, char *out, size_t outlen)
{
    if (!label)
        snprintf(out, outlen, "a secret file");
    else if (strncmp(label, "file ", 5) == 0)
        subject_of(ctx, label + 5, out, outlen);
    else
        snprintf(out, outlen, "%s", label);
}

static const char *how(enum pd_outscan_kind kind)
{
    return kind == PD_OUTSCAN_KNOWN_BASE64 ? "known value in base64"
           : kind == PD_OUTSCAN_KNOWN_HEX  ? "known value in hex"
                                           : "known value";
}

/* Read fd whole into j->buf (at most limit bytes; *more set when the file
 * holds more). -1 with errno. */
static ssize_t read_all(struct judge *j, int fd, size_t want, size_t limit, bool *more)
{
    size_t need = (want < limit ? want : limit) + 1;
    if (need > j->cap) {
        char *nb = realloc(j->buf, need);
        if (!nb)
            return -1;
        j->buf = nb;
        j->cap = need;
    }
    size_t n = 0;
    *more = false;
    for (;;) {
        if (n == j->cap) {
            if (n > limit) {
                *more = true;
                return (ssize_t)limit;
            }
            size_t ncap = j->cap * 2 > limit + 1 ? limit + 1 : j->cap * 2;
            char *nb = realloc(j->buf, ncap);
            if (!nb)
                return -1;
            j->buf = nb;
            j->cap = ncap;
        }
        ssize_t r = read(fd, j->buf + n, j->cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > limit) {
        *more = true;
        n = limit;
    }
    return (ssize_t)n;
}

static void check_file(const char *path, int fd, int err, const struct stat *st, void *user)
{
    struct judge *j = user;
    /* Nothing known, nothing to find: the files are not worth reading. */
    if (pd_exec_known_later_load(j->later) != 0) {
        pd_findings_add(j->found, path, "the post-run scan could not search %s (%s)", path,
                        strerror(ENOMEM));
        return;
    }
    if (pd_outscan_value_count(j->known) == 0)
        return;
    char subject[PD_PATH_MAX];
    subject_of(j->ctx, path, subject, sizeof subject);
    /* A file the command may not read is a secret itself: its changes are
     * the post-run scan's findings, and its values are not copies. */
    struct pd_verdict v;
    pd_gate_path(j->ctx, PD_OP_READ, NULL, subject, &v);
    if (v.deny)
        return;
    if (fd < 0) {
        /* gone or swapped for a link meanwhile: the compare judged the name */
        if (err != ENOENT && err != ELOOP && err != ENOTDIR)
            pd_findings_add(j->found, subject, "run left %s unreadable to the post-run scan (%s)",
                            subject, strerror(err));
        return;
    }
    size_t size = st->st_size > 0 ? (size_t)st->st_size : 0;
    if (size > PD_CONTENT_FILE_MAX) {
        pd_findings_add(j->warn, subject,
                        "scan: %s is larger than %zu MiB; its content is not checked for "
                        "secrets",
                        subject, PD_CONTENT_FILE_MAX >> 20);
        return;
    }
    if (j->total + size > PD_CONTENT_TOTAL_MAX) {
        j->skipped++;
        return;
    }
    bool more;
    ssize_t n = read_all(j, fd, size, PD_CONTENT_FILE_MAX, &more);
    if (n < 0) {
        pd_findings_add(j->found, subject, "run left %s unreadable to the post-run scan (%s)",
                        subject, strerror(errno));
        return;
    }
    if (more)
        pd_findings_add(j->warn, subject,
                        "scan: %s grew past %zu MiB while being read; the rest is not checked "
                        "for secrets",
                        subject, PD_CONTENT_FILE_MAX >> 20);
    j->total += (size_t)n;
    struct pd_outscan_result res;
    int nf = pd_outscan_scan(j->known, j->buf, (size_t)n, &res);
    if (nf < 0) {
        pd_findings_add(j->found, subject, "the post-run scan could not search %s (%s)", subject,
                        strerror(errno));
        return;
    }
    if (nf > 0) {
        char source[PD_PATH_MAX];
        source_of(j->ctx, res.findings[0].source, source, sizeof source);
        pd_findings_add(j->found, subject, "run copied the secret of %s into %s (%s)", source,
                        subject, how(res.findings[0].kind));
    }
    pd_outscan_result_free(&res);
}

void pd_exec_content_judge(const struct pd_ctx *ctx, const struct pd_scan *snap,
                           struct pd_outscan *known, struct pd_known_later *later,
                           struct pd_findings *found, struct pd_findings *warn)
{
    if (!known || !snap)
        return;
    struct judge j = {.ctx = ctx, .known = known, .later = later, .found = found, .warn = warn};
    pd_scan_each_changed_file(snap, check_file, &j);
    if (j.skipped)
        pd_findings_add(warn, "",
                        "scan: the run changed more than %zu MiB of files; %zu file(s) are not "
                        "checked for secrets",
                        PD_CONTENT_TOTAL_MAX >> 20, j.skipped);
    free(j.buf);
}
