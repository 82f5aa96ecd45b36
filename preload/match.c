/* preload/match.c - the pattern index of the fast path (see match.h). It
 * mirrors how pd_glob_match (policy/glob.c) chooses its target; the
 * component comparison itself is pd_glob_component. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/match.h"

enum pf_kind {
    PF_NEVER,  /* cannot match (a "~/" pattern without a home) */
    PF_ALWAYS, /* no usable necessary condition: always ask the gate */
    PF_ABS,    /* literal leading components of the absolute path */
    PF_REL,    /* literal leading components of the workspace-relative path */
    PF_KEY,    /* one component of the path must match key */
};

struct pf_pat {
    enum pf_kind kind;
    char *text;          /* owned: PF_ABS/PF_REL literal prefix "a/b", PF_KEY key */
    size_t len;          /* length of text */
    unsigned char first; /* PF_KEY: folded first character, 0 = any */
    unsigned char last;  /* PF_KEY: folded last character, 0 = any */
};

struct pf_set {
    struct pf_pat *v;
    size_t n;
    uint32_t firstmap[8], lastmap[8]; /* characters some PF_KEY filter needs */
    bool unfiltered;                  /* a PF_KEY pattern without any filter */
    bool always;                      /* a PF_ALWAYS pattern */
    bool keys;                        /* any PF_KEY pattern */
};

struct pd_match {
    struct pf_set read;    /* deny_globs + built-in secrets: every op */
    struct pf_set protect; /* protected paths: writes */
};

static unsigned char fold(char c)
{
    return (unsigned char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
}

static bool special(char c)
{
    return c == '*' || c == '?' || c == '[' || c == '\\';
}

static bool map_has(const uint32_t *map, unsigned char c)
{
    return (map[c >> 5] >> (c & 31)) & 1u;
}

static void map_set(uint32_t *map, unsigned char c)
{
    map[c >> 5] |= 1u << (c & 31);
}

/* Next component of s at *pos ("." and empty ones skipped). */
static bool next_comp(const char *s, size_t *pos, const char **comp, size_t *len)
{
    for (;;) {
        while (s[*pos] == '/')
            (*pos)++;
        if (!s[*pos])
            return false;
        size_t start = *pos;
        while (s[*pos] && s[*pos] != '/')
            (*pos)++;
        *comp = s + start;
        *len = *pos - start;
        if (!(*len == 1 && s[start] == '.'))
            return true;
    }
}

static int classify(struct pf_pat *pp, const char *pattern, const char *home)
{
    char expanded[PD_PATH_MAX];
    const char *pat = pattern;
    memset(pp, 0, sizeof *pp);
    if (pat[0] == '~' && (pat[1] == '/' || pat[1] == '\0')) {
        if (!home || !home[0] ||
            (size_t)snprintf(expanded, sizeof expanded, "%s%s", home, pat + 1) >= sizeof expanded) {
            pp->kind = PF_NEVER;
            return 0;
        }
        pat = expanded;
    }
    bool anchored = pat[0] == '/';
    pp->kind = anchored ? PF_ABS : PF_REL;
    if (!anchored) {
        while (pat[0] == '.' && pat[1] == '/')
            pat += 2;
        const char *slash = strchr(pat, '/');
        anchored = slash && slash[strspn(slash, "/")] != '\0';
    }
    /* literal leading components */
    char lit[PD_PATH_MAX];
    size_t n = 0, pos = 0, len;
    const char *comp, *key = NULL;
    size_t keylen = 0;
    bool literal = anchored;
    while (next_comp(pat, &pos, &comp, &len)) {
        bool has_special = false;
        for (size_t k = 0; k < len; k++)
            has_special |= special(comp[k]);
        if (literal && !has_special && n + len + 2 < sizeof lit) {
            if (n)
                lit[n++] = '/';
            memcpy(lit + n, comp, len);
            n += len;
        } else {
            literal = false;
        }
        if (!(len == 2 && comp[0] == '*' && comp[1] == '*')) {
            key = comp;
            keylen = len;
        }
    }
    if (anchored && n > 0) {
        lit[n] = '\0';
        pp->text = strdup(lit);
        pp->len = n;
        return pp->text ? 0 : -1;
    }
    if (!key) {
        pp->kind = PF_ALWAYS;
        return 0;
    }
    pp->kind = PF_KEY;
    pp->text = strndup(key, keylen);
    pp->len = keylen;
    if (!special(key[0]))
        pp->first = fold(key[0]);
    char e = key[keylen - 1];
    if (!special(e) && e != ']' && !(keylen >= 2 && key[keylen - 2] == '\\'))
        pp->last = fold(e);
    return pp->text ? 0 : -1;
}

static int set_add(struct pf_set *s, const char *pattern, const char *home)
{
    struct pf_pat *nv = realloc(s->v, (s->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    s->v = nv;
    struct pf_pat *pp = &s->v[s->n];
    if (classify(pp, pattern, home) != 0)
        return -1;
    s->n++;
    if (pp->kind == PF_ALWAYS)
        s->always = true;
    if (pp->kind == PF_KEY) {
        s->keys = true;
        if (pp->first)
            map_set(s->firstmap, pp->first);
        else if (pp->last)
            map_set(s->lastmap, pp->last);
        else
            s->unfiltered = true;
    }
    return 0;
}

static int set_add_list(struct pf_set *s, const char *const *list, size_t n, const char *home)
{
    for (size_t k = 0; k < n && list[k]; k++)
        if (set_add(s, list[k], home) != 0)
            return -1;
    return 0;
}

struct pd_match *pd_match_build(const struct pd_ctx *c)
{
    const struct pd_policy *p = c->policy;
    struct pd_match *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    const char *home = c->home;
    int rc = set_add_list(&m->read, (const char *const *)p->deny_globs.v, p->deny_globs.n, home);
    if (!rc)
        rc = set_add_list(&m->read, pd_builtin_secrets, (size_t)-1, home);
    /* a filter: every protected pattern may deny (unprotect_paths and
     * allow_secrets are the gate's to apply) */
    if (!rc)
        rc = set_add_list(&m->protect, (const char *const *)p->protected_paths.v,
                          p->protected_paths.n, home);
    if (!rc)
        rc = set_add_list(&m->protect, pd_builtin_protected, (size_t)-1, home);
    if (rc)
        return NULL; /* a process that cannot allocate this fails closed */
    return m;
}

/* Do the leading components of target equal those of lit (folded)? */
static bool prefix_match(const char *target, const char *lit)
{
    size_t tp = 0, lp = 0, tl, ll;
    const char *tc, *lc;
    while (next_comp(lit, &lp, &lc, &ll)) {
        if (!next_comp(target, &tp, &tc, &tl) || tl != ll)
            return false;
        for (size_t k = 0; k < ll; k++)
            if (fold(tc[k]) != fold(lc[k]))
                return false;
    }
    return true;
}

static bool key_hits(const struct pf_set *s, const char *abs)
{
    size_t pos = 0, len;
    const char *comp;
    while (next_comp(abs, &pos, &comp, &len)) {
        unsigned char c0 = fold(comp[0]), cn = fold(comp[len - 1]);
        if (!s->unfiltered && !map_has(s->firstmap, c0) && !map_has(s->lastmap, cn))
            continue;
        for (size_t k = 0; k < s->n; k++) {
            const struct pf_pat *pp = &s->v[k];
            if (pp->kind != PF_KEY || (pp->first && pp->first != c0) ||
                (pp->last && pp->last != cn))
                continue;
            if (pd_glob_component(pp->text, pp->len, comp, len, true))
                return true;
        }
    }
    return false;
}

static bool set_hits(const struct pf_set *s, const char *abs, const char *rel)
{
    if (s->always)
        return true;
    for (size_t k = 0; k < s->n; k++) {
        const struct pf_pat *pp = &s->v[k];
        if (pp->kind == PF_ABS && prefix_match(abs, pp->text))
            return true;
        if (pp->kind == PF_REL && rel && prefix_match(rel, pp->text))
            return true;
    }
    return s->keys && key_hits(s, abs);
}

bool pd_match_maybe_denied(const struct pd_match *m, const struct pd_ctx *c, enum pd_op op,
                           const char *abs)
{
    const char *rel = pd_path_under(abs, c->workspace);
    if (set_hits(&m->read, abs, rel))
        return true;
    if (op == PD_OP_READ || op == PD_OP_EXEC)
        return false;
    if (c->policy->file && strcmp(c->policy->file, abs) == 0)
        return true;
    if (set_hits(&m->protect, abs, rel))
        return true;
    /* git's config and hooks of nested repositories and submodules: the
     * built-in ".git/" patterns are anchored at the workspace root */
    if (pd_git_protected(c, abs))
        return true;
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(abs, c->roots[k]))
            return false;
    return true; /* outside the writable roots: the gate decides */
}
