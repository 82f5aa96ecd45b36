/* preload/match.c - the pattern index of the fast path (see match.h), read
 * from the mapped image. It mirrors how pd_glob_match (policy/glob.c)
 * chooses its target; the component comparison itself is
 * pd_glob_component. The index is built by policy/compiled_image.c. */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "preload/match.h"

static unsigned char fold(char c)
{
    return (unsigned char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
}

static bool map_has(const uint32_t *map, unsigned char c)
{
    return (map[c >> 5] >> (c & 31)) & 1u;
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

/* Do the leading components of target equal lit (len bytes), folded?
 * Both are clean: target a clean path (abs, or the workspace-relative rest
 * of one), lit its components joined by single '/' without a leading or a
 * trailing one (compiled_image.c), so a comparison of bytes up to a
 * component boundary is the comparison component by component. */
static bool prefix_match(const char *target, const char *lit, size_t len)
{
    while (*target == '/')
        target++;
    for (size_t k = 0; k < len; k++)
        if (!target[k] || fold(target[k]) != fold(lit[k]))
            return false;
    return target[len] == '\0' || target[len] == '/';
}

/* The components of the path, found once for every test of one call: with
 * their folded first and last characters, and those characters' maps (the
 * sets' character filters are tested against these first: a path none of
 * whose components a set's filter admits is done with in a few words). */
#define MAX_COMPS 64
struct comps {
    const char *s;
    size_t n;
    uint16_t off[MAX_COMPS], len[MAX_COMPS];
    unsigned char c0[MAX_COMPS], cn[MAX_COMPS];
    uint32_t firsts[8], lasts[8];
};

static void map_add(uint32_t *map, unsigned char c)
{
    map[c >> 5] |= 1u << (c & 31);
}

static bool maps_meet(const uint32_t *a, const uint32_t *b)
{
    uint32_t any = 0;
    for (int k = 0; k < 8; k++)
        any |= a[k] & b[k];
    return any != 0;
}

/* false when the path has more components than fit (then the gate judges). */
static bool split(const char *abs, struct comps *c)
{
    size_t pos = 0, len;
    const char *comp;
    c->s = abs;
    c->n = 0;
    memset(c->firsts, 0, sizeof c->firsts);
    memset(c->lasts, 0, sizeof c->lasts);
    while (next_comp(abs, &pos, &comp, &len)) {
        if (c->n == MAX_COMPS || len > UINT16_MAX || (size_t)(comp - abs) > UINT16_MAX)
            return false;
        c->off[c->n] = (uint16_t)(comp - abs);
        c->len[c->n] = (uint16_t)len;
        c->c0[c->n] = fold(comp[0]);
        c->cn[c->n] = fold(comp[len - 1]);
        map_add(c->firsts, c->c0[c->n]);
        map_add(c->lasts, c->cn[c->n]);
        c->n++;
    }
    return true;
}

static bool key_hits(const struct pd_image *im, const struct pd_image_set *s,
                     const struct comps *cs)
{
    if (!s->unfiltered && !maps_meet(s->firstmap, cs->firsts) && !maps_meet(s->lastmap, cs->lasts))
        return false; /* no component passes the filter below */
    const struct pd_image_pat *v = pd_image_pats(im, s);
    for (size_t i = 0; i < cs->n; i++) {
        const char *comp = cs->s + cs->off[i];
        size_t len = cs->len[i];
        unsigned char c0 = cs->c0[i], cn = cs->cn[i];
        if (!s->unfiltered && !map_has(s->firstmap, c0) && !map_has(s->lastmap, cn))
            continue;
        for (size_t k = s->nlead; k < s->pats.n; k++) {
            const struct pd_image_pat *pp = &v[k];
            if (pp->kind != PD_PAT_KEY || (pp->first && pp->first != c0) ||
                (pp->last && pp->last != cn))
                continue;
            if (pd_glob_component(pd_image_str(im, pp->text), pp->len, comp, len, true))
                return true;
        }
    }
    return false;
}

static bool set_hits(const struct pd_image *im, const struct pd_image_set *s, const char *abs,
                     const char *rel, const struct comps *cs)
{
    if (s->always)
        return true;
    const struct pd_image_pat *v = pd_image_pats(im, s);
    /* the first characters of both targets: most paths are led by none of
     * the patterns (a workspace outside $HOME, a path that is not /etc) */
    unsigned char a0 = fold(abs[abs[0] == '/']), r0 = rel ? fold(rel[rel[0] == '/']) : 0;
    bool any = map_has(s->absmap, a0) || (rel && map_has(s->relmap, r0));
    for (size_t k = 0; any && k < s->nlead; k++) {
        if (v[k].kind == PD_PAT_ABS && prefix_match(abs, pd_image_str(im, v[k].text), v[k].len))
            return true;
        if (v[k].kind == PD_PAT_REL && rel &&
            prefix_match(rel, pd_image_str(im, v[k].text), v[k].len))
            return true;
    }
    return s->keys && key_hits(im, s, cs);
}

/* Is the component c (n bytes) the word w, case folded? */
static bool comp_is(const char *c, size_t n, const char *w)
{
    size_t k = 0;
    for (; k < n && w[k]; k++)
        if (fold(c[k]) != (unsigned char)w[k])
            return false;
    return k == n && !w[k];
}

/* Could pd_git_protected name abs? Only when the rest of the path after
 * some '/' is "config", "config.worktree", "commondir" or "hooks" and
 * below - the tails it protects in a git directory (case folded, as it
 * does): the last component is one of the first three, or some component
 * is hooks. */
static bool git_tail(const struct comps *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        if (comp_is(cs->s + cs->off[i], cs->len[i], "hooks"))
            return true;
    if (cs->n == 0)
        return false;
    const char *last = cs->s + cs->off[cs->n - 1];
    size_t n = cs->len[cs->n - 1];
    return comp_is(last, n, "config") || comp_is(last, n, "config.worktree") ||
           comp_is(last, n, "commondir");
}

/* Could pd_git_dir_protected name abs (a removal or rename of it)? A
 * directory called .git, or one the launcher listed as a git directory
 * (.git/modules/<name>, a bare repository). */
static bool git_dir(const struct pd_image *im, const char *abs, const struct comps *cs)
{
    if (cs->n && comp_is(cs->s + cs->off[cs->n - 1], cs->len[cs->n - 1], ".git"))
        return true;
    size_t n;
    const uint32_t *dirs = pd_image_list(im, PD_IL_GIT_DIRS, &n);
    for (size_t k = 0; k < n; k++)
        if (strcasecmp(pd_image_str(im, dirs[k]), abs) == 0)
            return true;
    return false;
}

bool pd_match_maybe_denied(const struct pd_image *im, enum pd_op op, const char *abs)
{
    const char *rel = pd_path_under(abs, pd_image_str(im, im->workspace));
    struct comps cs;
    if (!split(abs, &cs) || set_hits(im, &im->read_set, abs, rel, &cs))
        return true;
    if (op == PD_OP_READ || op == PD_OP_EXEC)
        return false;
    if (im->file != PD_IMAGE_NONE && strcmp(pd_image_str(im, im->file), abs) == 0)
        return true;
    if (set_hits(im, &im->protect_set, abs, rel, &cs))
        return true;
    if (git_tail(&cs) || (op == PD_OP_DELETE && git_dir(im, abs, &cs)))
        return true;
    size_t n;
    const uint32_t *roots = pd_image_list(im, PD_IL_ROOTS, &n);
    for (size_t k = 0; k < n; k++)
        if (pd_path_under(abs, pd_image_str(im, roots[k])))
            return false;
    /* the terminal, /dev/null and the like: writable wherever the roots
     * are, by the gate's own rule and list */
    for (size_t k = 0; pd_builtin_writable[k]; k++)
        if (pd_glob_match(pd_builtin_writable[k], NULL, abs, pd_image_str(im, im->home), true))
            return false;
    return true; /* outside the writable roots: the gate decides */
}
