/* launcher/scan/git_config.c - git's configuration file format (git_config.h).
 * Follows git's own reader (config.c: get_next_char, parse_value,
 * get_base_var, get_extended_base_var, get_value) rule for rule: a reader
 * that accepted less than git would miss an entry git obeys, one that
 * accepted more would judge a file git refuses. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/scan/git_config.h"

#define END (-1)

struct reader {
    const unsigned char *p, *end;
    int line;
    /* growable buffers: section, subsection, key, value */
    char *sec, *sub, *key, *val;
    size_t nsec, nsub, nkey, nval;
    size_t csec, csub, ckey, cval;
    int has_sub;
    int oom;
};

/* Next character; "\r\n" reads as "\n" (as git's get_next_char). */
static int next(struct reader *r)
{
    if (r->p >= r->end)
        return END;
    int c = *r->p++;
    if (c == '\r' && r->p < r->end && *r->p == '\n')
        c = *r->p++;
    if (c == '\n')
        r->line++;
    return c;
}

static void push(struct reader *r, char **buf, size_t *n, size_t *cap, int c)
{
    if (*n + 2 > *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        char *nb = realloc(*buf, ncap);
        if (!nb) {
            r->oom = 1;
            return;
        }
        *buf = nb;
        *cap = ncap;
    }
    (*buf)[(*n)++] = (char)c;
    (*buf)[*n] = '\0';
}

static int iskeychar(int c)
{
    return isalnum(c) || c == '-';
}

/* The rest of a comment line. */
static void skip_line(struct reader *r)
{
    int c;
    while ((c = next(r)) != END && c != '\n')
        ;
}

/* [section "sub"]: after the space that follows the name. 0 or -1. */
static int extended_header(struct reader *r)
{
    int c;
    do
        c = next(r);
    while (c != END && isspace(c));
    if (c != '"')
        return -1;
    r->has_sub = 1;
    r->nsub = 0;
    push(r, &r->sub, &r->nsub, &r->csub, 0);
    r->nsub = 0;
    for (;;) {
        c = next(r);
        if (c == END || c == '\n')
            return -1;
        if (c == '"')
            break;
        if (c == '\\') {
            c = next(r);
            if (c == END || c == '\n')
                return -1;
        }
        push(r, &r->sub, &r->nsub, &r->csub, c);
    }
    return next(r) == ']' ? 0 : -1;
}

/* A header, after '['. 0 or -1. */
static int header(struct reader *r)
{
    r->nsec = 0;
    r->has_sub = 0;
    push(r, &r->sec, &r->nsec, &r->csec, 0);
    r->nsec = 0;
    for (;;) {
        int c = next(r);
        if (c == END)
            return -1;
        if (c == ']')
            break;
        if (isspace(c)) {
            if (extended_header(r) != 0)
                return -1;
            break;
        }
        if (!iskeychar(c) && c != '.')
            return -1;
        push(r, &r->sec, &r->nsec, &r->csec, tolower(c));
    }
    if (r->nsec == 0)
        return -1;
    /* the old form [section.sub]: everything after the first dot */
    char *dot = r->has_sub ? NULL : strchr(r->sec, '.');
    if (dot) {
        *dot = '\0';
        r->nsub = 0;
        for (const char *s = dot + 1; *s; s++)
            push(r, &r->sub, &r->nsub, &r->csub, *s);
        if (r->nsub == 0) {
            push(r, &r->sub, &r->nsub, &r->csub, 0);
            r->nsub = 0;
        }
        r->has_sub = 1;
        r->nsec = (size_t)(dot - r->sec);
    }
    return r->nsec ? 0 : -1;
}

/* A value, after '='. 0 or -1. */
static int value(struct reader *r)
{
    int quote = 0;
    size_t space = 0;
    r->nval = 0;
    push(r, &r->val, &r->nval, &r->cval, 0);
    r->nval = 0;
    for (;;) {
        int c = next(r);
        if (c == END) {
            if (quote)
                return -1;
            return 0;
        }
        if (c == '\n') {
            if (quote)
                return -1;
            return 0;
        }
        if (!quote) {
            if (isspace(c)) {
                if (r->nval)
                    space++;
                continue;
            }
            if (c == ';' || c == '#') {
                skip_line(r);
                return 0;
            }
        }
        for (; space; space--)
            push(r, &r->val, &r->nval, &r->cval, ' ');
        if (c == '\\') {
            c = next(r);
            switch (c) {
            case '\n':
                continue;
            case 't':
                c = '\t';
                break;
            case 'b':
                c = '\b';
                break;
            case 'n':
                c = '\n';
                break;
            case '\\':
            case '"':
                break;
            default:
                return -1;
            }
            push(r, &r->val, &r->nval, &r->cval, c);
            continue;
        }
        if (c == '"') {
            quote = !quote;
            continue;
        }
        push(r, &r->val, &r->nval, &r->cval, c);
    }
}

/* An entry whose key starts with c. Calls fn. 0, -1 or fn's value. */
static int entry(struct reader *r, int c, pd_git_config_fn fn, void *user)
{
    int line = r->line;
    r->nkey = 0;
    push(r, &r->key, &r->nkey, &r->ckey, tolower(c));
    for (;;) {
        c = next(r);
        if (c == END || !iskeychar(c))
            break;
        push(r, &r->key, &r->nkey, &r->ckey, tolower(c));
    }
    while (c == ' ' || c == '\t')
        c = next(r);
    const char *val = NULL;
    if (c != '\n' && c != END) {
        if (c != '=')
            return -1;
        if (value(r) != 0)
            return -1;
        val = r->val;
    }
    if (r->oom)
        return -1;
    if (r->nsec == 0)
        return -1; /* a key before any section */
    return fn(r->sec, r->has_sub ? r->sub : NULL, r->key, val, line, user);
}

int pd_git_config_parse(const char *text, size_t len, pd_git_config_fn fn, void *user, char *err,
                        size_t errlen)
{
    struct reader r = {0};
    r.p = (const unsigned char *)text;
    r.end = r.p + len;
    r.line = 1;
    int rc = 0;
    /* a UTF-8 byte order mark, as git skips it */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        r.p += 3;
    for (;;) {
        int c = next(&r);
        if (c == END)
            break;
        if (c == '\n' || isspace(c))
            continue;
        if (c == '#' || c == ';') {
            skip_line(&r);
            continue;
        }
        if (c == '[') {
            if (header(&r) != 0 || r.oom) {
                rc = -1;
                snprintf(err, errlen, "line %d: %s", r.line,
                         r.oom ? "out of memory" : "bad section header");
                break;
            }
            continue;
        }
        if (!isalpha(c)) {
            rc = -1;
            snprintf(err, errlen, "line %d: bad config line", r.line);
            break;
        }
        int line = r.line;
        rc = entry(&r, c, fn, user);
        if (rc == -1) {
            snprintf(err, errlen, "line %d: %s", line, r.oom ? "out of memory" : "bad config line");
            break;
        }
        if (rc)
            break;
    }
    free(r.sec);
    free(r.sub);
    free(r.key);
    free(r.val);
    return rc;
}
