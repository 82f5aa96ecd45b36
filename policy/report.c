/* policy/report.c - encode and decode the preload's report records
 * (format: policy/report.h). The preload encodes, the launcher decodes;
 * both sides share this file so that the format has one definition. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy/report.h"

/* Bytes each fixed field may take, escaped. Their sum (plus separators)
 * stays below PD_REPORT_MAX so that argv always gets room. */
enum {
    BUDGET_WORD = 64, /* kind, op, key */
    BUDGET_REASON = 512,
    BUDGET_PATTERN = 1024,
    BUDGET_PATH = 2560, /* path, resolved */
    BUDGET_PROGRAM = 256,
    BUDGET_PID = 24,
};

#define TRUNC_MARK "..."

struct out {
    char *buf;
    size_t len; /* capacity, PD_REPORT_MAX at most */
    size_t n;
};

static size_t escaped_len(char c)
{
    return (c == '\\' || c == '\t' || c == '\n') ? 2 : 1;
}

static void put_escaped(struct out *o, char c)
{
    switch (c) {
    case '\\':
        o->buf[o->n++] = '\\';
        o->buf[o->n++] = '\\';
        break;
    case '\t':
        o->buf[o->n++] = '\\';
        o->buf[o->n++] = 't';
        break;
    case '\n':
        o->buf[o->n++] = '\\';
        o->buf[o->n++] = 'n';
        break;
    default:
        o->buf[o->n++] = c;
        break;
    }
}

enum put { PUT_FIT, PUT_CUT, PUT_NOROOM };

/* Append a separator and s, escaped, taking at most budget bytes (and what
 * is left of the buffer). A value that does not fit is cut and marked. */
static enum put put_field(struct out *o, const char *s, size_t budget, bool first)
{
    size_t room = o->len - o->n;
    size_t sep = first ? 0 : 1;
    if (room < sep + strlen(TRUNC_MARK))
        return PUT_NOROOM;
    if (budget > room - sep)
        budget = room - sep;
    if (!first)
        o->buf[o->n++] = '\t';
    if (!s)
        s = "";
    size_t need = 0;
    for (const char *p = s; *p; p++)
        need += escaped_len(*p);
    if (need <= budget) {
        for (const char *p = s; *p; p++)
            put_escaped(o, *p);
        return PUT_FIT;
    }
    size_t used = 0, limit = budget - strlen(TRUNC_MARK);
    for (const char *p = s; *p && used + escaped_len(*p) <= limit; p++) {
        used += escaped_len(*p);
        put_escaped(o, *p);
    }
    memcpy(o->buf + o->n, TRUNC_MARK, strlen(TRUNC_MARK));
    o->n += strlen(TRUNC_MARK);
    return PUT_CUT;
}

static void format_pid(long pid, char *out, size_t len)
{
    char tmp[24];
    size_t n = 0;
    unsigned long v = pid < 0 ? (unsigned long)(-(pid + 1)) + 1u : (unsigned long)pid;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof tmp);
    size_t k = 0;
    if (pid < 0 && k + 1 < len)
        out[k++] = '-';
    while (n && k + 1 < len)
        out[k++] = tmp[--n];
    out[k] = '\0';
}

size_t pd_report_encode(const struct pd_report *r, char *buf, size_t len)
{
    struct out o = {buf, len < PD_REPORT_MAX ? len : PD_REPORT_MAX, 0};
    char pid[24];
    format_pid(r->pid, pid, sizeof pid);
    const struct {
        const char *s;
        size_t budget;
    } fixed[] = {
        {PD_REPORT_MAGIC, BUDGET_WORD}, {r->kind, BUDGET_WORD},     {r->op, BUDGET_WORD},
        {r->path, BUDGET_PATH},         {r->resolved, BUDGET_PATH}, {r->key, BUDGET_WORD},
        {r->pattern, BUDGET_PATTERN},   {r->reason, BUDGET_REASON}, {pid, BUDGET_PID},
        {r->program, BUDGET_PROGRAM},
    };
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (put_field(&o, fixed[k].s, fixed[k].budget, k == 0) == PUT_NOROOM)
            return 0;
    size_t argc = r->argv ? r->argc : 0;
    if (argc > PD_REPORT_MAX_ARGS)
        argc = PD_REPORT_MAX_ARGS;
    for (size_t k = 0; k < argc; k++)
        if (put_field(&o, r->argv[k], o.len, false) != PUT_FIT)
            break; /* a cut argument is the last one */
    if (o.n < len)
        buf[o.n] = '\0';
    return o.n;
}

/* Unescape one field in place: [s, e) -> s; returns the new end or NULL. */
static char *unescape(char *s, char *e)
{
    char *w = s;
    for (char *p = s; p < e; p++) {
        if (*p != '\\') {
            *w++ = *p;
            continue;
        }
        if (++p == e)
            return NULL;
        if (*p == '\\')
            *w++ = '\\';
        else if (*p == 't')
            *w++ = '\t';
        else if (*p == 'n')
            *w++ = '\n';
        else
            return NULL;
    }
    return w;
}

static bool known_kind(const char *k)
{
    return strcmp(k, PD_REPORT_DENY) == 0 || strcmp(k, PD_REPORT_AUDIT) == 0 ||
           strcmp(k, PD_REPORT_COVERAGE) == 0 || strcmp(k, PD_REPORT_ERROR) == 0 ||
           strcmp(k, PD_REPORT_BLOCKED) == 0;
}

static bool parse_pid(const char *s, long *out)
{
    char *end;
    if (!s[0])
        return false;
    long v = strtol(s, &end, 10);
    if (*end)
        return false;
    *out = v;
    return true;
}

int pd_report_decode(const char *buf, size_t len, struct pd_report_decoded *d)
{
    struct pd_report *r = &d->r;
    enum { NFIXED = 10 }; /* magic .. program */
    const char *fixed[NFIXED];
    size_t nf = 0;
    if (len > PD_REPORT_MAX)
        return -1;
    memcpy(d->text, buf, len);
    d->text[len] = '\0';
    if (memchr(d->text, '\0', len))
        return -1;
    r->argc = 0;
    char *p = d->text, *end = d->text + len;
    for (;;) {
        char *tab = memchr(p, '\t', (size_t)(end - p));
        char *fe = tab ? tab : end;
        char *w = unescape(p, fe);
        if (!w)
            return -1;
        *w = '\0';
        if (nf < NFIXED)
            fixed[nf++] = p;
        else if (r->argc < PD_REPORT_MAX_ARGS)
            d->argv[r->argc++] = p;
        else
            return -1;
        if (!tab)
            break;
        p = tab + 1;
    }
    if (nf < NFIXED || strcmp(fixed[0], PD_REPORT_MAGIC) != 0 || !known_kind(fixed[1]) ||
        !parse_pid(fixed[8], &r->pid))
        return -1;
    r->kind = fixed[1];
    r->op = fixed[2];
    r->path = fixed[3];
    r->resolved = fixed[4];
    r->key = fixed[5];
    r->pattern = fixed[6];
    r->reason = fixed[7];
    r->program = fixed[9];
    r->argv = d->argv;
    return 0;
}
