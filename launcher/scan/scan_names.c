/* launcher/scan/scan_names.c - which names the post-run scan must look at
 * closely. Asking the policy gate about every entry of a large tree costs
 * an lstat per path component; reducing each pattern to its last
 * significant component (scan_int.h explains why that loses nothing) lets
 * the scan ask the gate only about the few names that could be denied. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "launcher/scan/scan_int.h"

enum { NP_EXACT, NP_PREFIX, NP_SUFFIX, NP_GLOB };

/* Last component of pattern that is not "**", "." or empty; NULL if none. */
static const char *last_component(const char *pat, size_t *len)
{
    const char *best = NULL;
    size_t best_len = 0;
    for (const char *p = pat; *p;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        bool skip = n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '*' && p[1] == '*');
        if (!skip) {
            best = p;
            best_len = n;
        }
        p += n;
    }
    *len = best_len;
    return best;
}

static int add(struct names *nm, size_t *cap, const char *comp, size_t len)
{
    size_t stars = 0;
    bool special = false;
    for (size_t k = 0; k < len; k++) {
        if (comp[k] == '*')
            stars++;
        else if (comp[k] == '?' || comp[k] == '[' || comp[k] == '\\')
            special = true;
    }
    if (!special && stars == len) { /* "*", "***": every name */
        nm->always = true;
        return 0;
    }
    if (nm->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        struct name_pat *nv = realloc(nm->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        nm->v = nv;
        *cap = ncap;
    }
    struct name_pat *np = &nm->v[nm->n++];
    np->s = comp;
    np->len = len;
    np->kind = NP_GLOB;
    if (special)
        return 0;
    if (stars == 0) {
        np->kind = NP_EXACT;
    } else if (stars == 1 && comp[0] == '*') {
        np->kind = NP_SUFFIX;
        np->s = comp + 1;
        np->len = len - 1;
    } else if (stars == 1 && comp[len - 1] == '*') {
        np->kind = NP_PREFIX;
        np->len = len - 1;
    }
    return 0;
}

/* The patterns the gate applies to writes, in its order. */
struct pattern_lists {
    const char *const *v[4];
    size_t n[4];
};

static void lists_of(const struct pd_policy *p, struct pattern_lists *l)
{
    l->v[0] = (const char *const *)p->deny_globs.v;
    l->n[0] = p->deny_globs.n;
    l->v[1] = pd_builtin_secrets;
    l->n[1] = (size_t)-1;
    l->v[2] = (const char *const *)p->protected_paths.v;
    l->n[2] = p->protected_paths.n;
    l->v[3] = pd_builtin_protected;
    l->n[3] = (size_t)-1;
}

/* Copy the last component of pattern ("~" expanded) to buf and add it. */
static int add_pattern(struct names *nm, size_t *cap, char *buf, size_t *blen, const char *pat,
                       const char *home)
{
    char expanded[PD_PATH_MAX];
    if (pat[0] == '~' && (pat[1] == '/' || pat[1] == '\0')) {
        if (!home || !home[0])
            return 0; /* the gate cannot match it either */
        if ((size_t)snprintf(expanded, sizeof expanded, "%s%s", home, pat + 1) >= sizeof expanded)
            return 0;
        pat = expanded;
    }
    size_t len;
    const char *comp = last_component(pat, &len);
    if (!comp) {
        nm->always = true; /* "**", "/": matches every path */
        return 0;
    }
    char *copy = buf + *blen;
    memcpy(copy, comp, len);
    copy[len] = '\0';
    *blen += len + 1;
    return add(nm, cap, copy, len);
}

int pd_names_init(struct names *nm, const struct pd_ctx *ctx)
{
    const struct pd_policy *p = ctx->policy;
    struct pattern_lists l;
    size_t cap = 0, blen = 0, need = 1;
    int rc = 0;
    memset(nm, 0, sizeof *nm);
    lists_of(p, &l);
    /* One buffer sized for every component up front: the name_pat entries
     * point into it, so it must never move. */
    size_t home_len = strlen(ctx->home) + 1;
    for (int i = 0; i < 4; i++)
        for (size_t k = 0; k < l.n[i] && l.v[i][k]; k++)
            need += strlen(l.v[i][k]) + home_len;
    if (p->file)
        need += strlen(p->file) + 1;
    nm->buf = malloc(need);
    if (!nm->buf)
        rc = -1;
    for (int i = 0; rc == 0 && i < 4; i++)
        for (size_t k = 0; rc == 0 && k < l.n[i] && l.v[i][k]; k++)
            rc = add_pattern(nm, &cap, nm->buf, &blen, l.v[i][k], ctx->home);
    if (rc == 0 && p->file)
        rc = add_pattern(nm, &cap, nm->buf, &blen, p->file, ctx->home);
    if (rc != 0) {
        pd_names_free(nm);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

bool pd_names_maybe(const struct names *nm, const char *name, size_t len)
{
    if (nm->always)
        return true;
    for (size_t k = 0; k < nm->n; k++) {
        const struct name_pat *np = &nm->v[k];
        switch (np->kind) {
        case NP_EXACT:
            if (len == np->len && strncasecmp(name, np->s, len) == 0)
                return true;
            break;
        case NP_PREFIX:
            if (len >= np->len && strncasecmp(name, np->s, np->len) == 0)
                return true;
            break;
        case NP_SUFFIX:
            if (len >= np->len && strncasecmp(name + len - np->len, np->s, np->len) == 0)
                return true;
            break;
        default:
            if (pd_glob_component(np->s, np->len, name, len, true))
                return true;
            break;
        }
    }
    return false;
}

void pd_names_free(struct names *nm)
{
    free(nm->v);
    free(nm->buf);
    memset(nm, 0, sizeof *nm);
}

static const char *match_list(const char *const *list, size_t n, const char *rel, const char *abs,
                              const char *home)
{
    for (size_t k = 0; k < n && list[k]; k++)
        if (pd_glob_match(list[k], rel, abs, home, true))
            return list[k];
    return NULL;
}

bool pd_names_judge_link(const struct pd_ctx *ctx, const char *subject, const char *rel,
                         const char *abs, char *msg, size_t msglen)
{
    const struct pd_policy *p = ctx->policy;
    struct pattern_lists l;
    const char *hit;
    lists_of(p, &l);
    if ((hit = match_list(l.v[0], l.n[0], rel, abs, ctx->home))) {
        snprintf(msg, msglen, "%s (%s) [deny_globs: %s]", subject, PD_REASON_DENY_GLOB, hit);
        return true;
    }
    if ((hit = match_list(l.v[1], l.n[1], rel, abs, ctx->home))) {
        snprintf(msg, msglen, "%s (%s) [built-in secret: %s]", subject, PD_REASON_SECRET, hit);
        return true;
    }
    if (p->file && strcmp(p->file, abs) == 0) {
        snprintf(msg, msglen, "%s (%s) [the policy file in use]", subject, PD_REASON_PROTECTED);
        return true;
    }
    if ((hit = match_list(l.v[2], l.n[2], rel, abs, ctx->home))) {
        snprintf(msg, msglen, "%s (%s) [protected_paths: %s]", subject, PD_REASON_PROTECTED, hit);
        return true;
    }
    return false;
}
