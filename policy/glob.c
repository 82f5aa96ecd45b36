/* policy/glob.c - the one glob matcher (gitignore-like, docs/policy.md).
 *
 * A pattern is split into components. A pattern with no '/' (a trailing '/'
 * does not count) becomes "**" + itself, so it matches a component at any
 * depth. A pattern matches a path when it matches the path or one of its
 * ancestors, so a matching directory covers everything below it; a trailing
 * '/' or a last "**" therefore need no special case. */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

#define MAX_PARTS 256 /* pattern components */

struct part {
    const char *s;
    size_t n;
};

static char fold(char c, bool on)
{
    return (on && c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Match a bracket expression at pat[*pi] ('[' already seen) against c. */
static bool match_class(const char *pat, size_t plen, size_t *pi, char c, bool fc, bool *ok)
{
    size_t i = *pi + 1;
    bool neg = false, hit = false;
    if (i < plen && (pat[i] == '!' || pat[i] == '^')) {
        neg = true;
        i++;
    }
    size_t first = i;
    for (; i < plen && (pat[i] != ']' || i == first); i++) {
        char lo = pat[i];
        if (lo == '\\' && i + 1 < plen)
            lo = pat[++i];
        char hi = lo;
        if (i + 2 < plen && pat[i + 1] == '-' && pat[i + 2] != ']') {
            hi = pat[i + 2];
            if (hi == '\\' && i + 3 < plen)
                hi = pat[++i + 2];
            i += 2;
        }
        char fc_c = fold(c, fc);
        if ((c >= lo && c <= hi) || (fc && fc_c >= fold(lo, fc) && fc_c <= fold(hi, fc)))
            hit = true;
    }
    if (i >= plen) { /* no closing ']' (pd_glob_check refuses these) */
        *ok = false;
        return false;
    }
    *pi = i + 1;
    *ok = true;
    return hit != neg;
}

bool pd_glob_component(const char *pat, size_t plen, const char *s, size_t slen, bool fc)
{
    size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0;
    while (si < slen) {
        if (pi < plen) {
            char pc = pat[pi];
            if (pc == '*') {
                star_p = ++pi;
                star_s = si;
                continue;
            }
            if (pc == '?') {
                pi++;
                si++;
                continue;
            }
            if (pc == '[') {
                bool ok;
                size_t npi = pi;
                if (match_class(pat, plen, &npi, s[si], fc, &ok)) {
                    pi = npi;
                    si++;
                    continue;
                }
                if (!ok)
                    return false;
            } else {
                if (pc == '\\' && pi + 1 < plen)
                    pc = pat[++pi];
                if (fold(pc, fc) == fold(s[si], fc)) {
                    pi++;
                    si++;
                    continue;
                }
            }
        }
        if (star_p == (size_t)-1)
            return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < plen && pat[pi] == '*')
        pi++;
    return pi == plen;
}

static size_t split(const char *s, struct part *out, size_t max)
{
    size_t n = 0;
    while (*s) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (!(len == 1 && s[0] == '.')) {
            if (n == max)
                return max + 1;
            out[n].s = s;
            out[n].n = len;
            n++;
        }
        s += len;
    }
    return n;
}

/* The component of the path s at or after *pos ("" and "." skipped), with
 * *pos moved past it; false at the end. The path is walked in place, not
 * split into an array: a PATH_MAX path holds 2048 components, 32 KiB of
 * parts that would not fit a small thread stack (nor belong in static TLS,
 * which glibc takes from every thread's stack). */
static bool next_part(const char *s, size_t *pos, struct part *out)
{
    for (;;) {
        while (s[*pos] == '/')
            (*pos)++;
        if (!s[*pos])
            return false;
        size_t start = *pos;
        while (s[*pos] && s[*pos] != '/')
            (*pos)++;
        out->s = s + start;
        out->n = *pos - start;
        if (!(out->n == 1 && s[start] == '.'))
            return true;
    }
}

static bool is_globstar(const struct part *p)
{
    return p->n == 2 && p->s[0] == '*' && p->s[1] == '*';
}

/* Does pattern p[0..np) match the path t or one of its ancestors? That is
 * p followed by a "**" (zero or more components) matching all of t. "**"
 * spans zero or more components; greedy with backtracking to the last "**"
 * (linear per try). Positions in t stand for the components from there. */
static bool match_parts(const struct part *p, size_t np, const char *t, bool fc)
{
    size_t pi = 0, ti = 0, star_p = (size_t)-1, star_t = 0;
    struct part c;
    for (;;) {
        size_t next = ti;
        if (!next_part(t, &next, &c))
            break;
        if (pi == np) /* the pattern is used up: an ancestor of t matched */
            return true;
        if (is_globstar(&p[pi])) {
            star_p = ++pi;
            star_t = ti;
            continue;
        }
        if (pd_glob_component(p[pi].s, p[pi].n, c.s, c.n, fc)) {
            pi++;
            ti = next;
            continue;
        }
        if (star_p == (size_t)-1)
            return false;
        /* let the last "**" take one more component */
        pi = star_p;
        size_t from = star_t;
        next_part(t, &from, &c);
        ti = star_t = from;
    }
    while (pi < np && is_globstar(&p[pi]))
        pi++;
    return pi == np;
}

/* May "~/..." match abs at all? Only if abs begins with the home's
 * components, which the expanded pattern holds literally (when the home
 * holds no wildcard): most paths are elsewhere, and this answers them
 * without expanding the pattern. Compared as match_parts compares
 * (components, "" and "." skipped, case folded as asked), so a false here
 * is the matcher's own false. */
static bool under_home(const char *home, const char *abs, bool fc)
{
    if (!abs || strpbrk(home, "*?[\\"))
        return true; /* the full match decides */
    size_t hp = 0, ap = 0;
    struct part h, a;
    while (next_part(home, &hp, &h)) {
        if (!next_part(abs, &ap, &a) || a.n != h.n)
            return false;
        for (size_t k = 0; k < h.n; k++)
            if (fold(h.s[k], fc) != fold(a.s[k], fc))
                return false;
    }
    return true;
}

bool pd_glob_match(const char *pattern, const char *rel, const char *abs, const char *home,
                   bool fold_case)
{
    static const struct part any = {"**", 2};
    struct part p[MAX_PARTS + 1];
    char expanded[PD_PATH_MAX];
    size_t np, off = 0;
    const char *pat = pattern;
    const char *target;

    if (pat[0] == '~' && (pat[1] == '/' || pat[1] == '\0')) {
        if (!home || !home[0] || !under_home(home, abs, fold_case))
            return false;
        if ((size_t)snprintf(expanded, sizeof expanded, "%s%s", home, pat + 1) >= sizeof expanded)
            return false;
        pat = expanded;
    }
    if (pat[0] == '/') {
        target = abs;
    } else {
        while (pat[0] == '.' && pat[1] == '/')
            pat += 2;
        const char *slash = strchr(pat, '/');
        bool anchored = slash && slash[strspn(slash, "/")] != '\0';
        if (!anchored) {
            p[0] = any;
            off = 1;
            target = rel ? rel : abs;
        } else {
            target = rel;
        }
    }
    if (!target)
        return false;
    np = split(pat, p + off, MAX_PARTS - off) + off;
    if (np > MAX_PARTS)
        return false;
    return match_parts(p, np, target, fold_case);
}

int pd_glob_check(const char *pattern, char *msg, size_t msglen)
{
    struct part p[MAX_PARTS + 1];
    if (!pattern[0]) {
        snprintf(msg, msglen, "is empty");
        return -1;
    }
    size_t np = split(pattern, p, MAX_PARTS);
    if (np > MAX_PARTS) {
        snprintf(msg, msglen, "'%s' has too many components", pattern);
        return -1;
    }
    for (size_t k = 0; k < np; k++) {
        if (p[k].n == 2 && p[k].s[0] == '.' && p[k].s[1] == '.') {
            snprintf(msg, msglen, "'%s' holds a '..' component", pattern);
            return -1;
        }
        for (size_t i = 0; i < p[k].n; i++) {
            if (p[k].s[i] == '\\') {
                i++;
            } else if (p[k].s[i] == '[') {
                size_t j = i + 1;
                if (j < p[k].n && (p[k].s[j] == '!' || p[k].s[j] == '^'))
                    j++;
                if (j < p[k].n && p[k].s[j] == ']')
                    j++;
                while (j < p[k].n && p[k].s[j] != ']')
                    j++;
                if (j >= p[k].n) {
                    snprintf(msg, msglen, "'%s' has an unclosed '['", pattern);
                    return -1;
                }
                i = j;
            }
        }
    }
    if (pattern[0] == '~' && pattern[1] && pattern[1] != '/') {
        snprintf(msg, msglen, "'%s': only ~/ (your own home) is supported", pattern);
        return -1;
    }
    return 0;
}
