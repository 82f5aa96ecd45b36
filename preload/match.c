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

static bool key_hits(const struct pd_image *im, const struct pd_image_set *s, const char *abs)
{
    const struct pd_image_pat *v = pd_image_pats(im, s);
    size_t pos = 0, len;
    const char *comp;
    while (next_comp(abs, &pos, &comp, &len)) {
        unsigned char c0 = fold(comp[0]), cn = fold(comp[len - 1]);
        if (!s->unfiltered && !map_has(s->firstmap, c0) && !map_has(s->lastmap, cn))
            continue;
        for (size_t k = 0; k < s->pats.n; k++) {
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
                     const char *rel)
{
    if (s->always)
        return true;
    const struct pd_image_pat *v = pd_image_pats(im, s);
    for (size_t k = 0; k < s->pats.n; k++) {
        if (v[k].kind == PD_PAT_ABS && prefix_match(abs, pd_image_str(im, v[k].text)))
            return true;
        if (v[k].kind == PD_PAT_REL && rel && prefix_match(rel, pd_image_str(im, v[k].text)))
            return true;
    }
    return s->keys && key_hits(im, s, abs);
}

/* Could pd_git_protected name abs? Only when the rest of the path after
 * some '/' is "config", "config.worktree", or "hooks" and below - the
 * tails it protects in a git directory (case folded, as it does). */
static bool git_tail(const char *abs)
{
    for (const char *s = strchr(abs, '/'); s; s = strchr(s + 1, '/')) {
        const char *t = s + 1;
        if (strcasecmp(t, "config") == 0 || strcasecmp(t, "config.worktree") == 0 ||
            (strncasecmp(t, "hooks", 5) == 0 && (t[5] == '\0' || t[5] == '/')))
            return true;
    }
    return false;
}

bool pd_match_maybe_denied(const struct pd_image *im, enum pd_op op, const char *abs)
{
    const char *rel = pd_path_under(abs, pd_image_str(im, im->workspace));
    if (set_hits(im, &im->read_set, abs, rel))
        return true;
    if (op == PD_OP_READ || op == PD_OP_EXEC)
        return false;
    if (im->file != PD_IMAGE_NONE && strcmp(pd_image_str(im, im->file), abs) == 0)
        return true;
    if (set_hits(im, &im->protect_set, abs, rel))
        return true;
    if (git_tail(abs))
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
