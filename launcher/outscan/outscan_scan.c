/* launcher/outscan/outscan_scan.c - the scan: probe the output through the prefilter,
 * run the needles and matchers on the hits, merge overlapping matches into
 * findings and write the redacted copy. docs/output-scan.md, "Matching and
 * redaction" and "How it is fast", describes the behaviour. */
#include "launcher/outscan/outscan_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Tie-break order of matches with the same span: known values first (they
 * carry a source label), then rules in table order, then user patterns. */
#define PRIO_RULE    16u
#define PRIO_PATTERN (PRIO_RULE + 64u)

struct match {
    size_t start, end;
    uint32_t prio; /* kind of needle, or PRIO_RULE + rule, or PRIO_PATTERN + pattern */
    uint32_t ref;  /* needle, rule or pattern index */
};

/* Overlapping matches (start < other's end and other's start < end) form one
 * finding: a connected component of the overlap relation, spanning [cs, ce),
 * named after its leftmost-longest member `best`. Choosing leftmost-longest
 * and extending the choice over every later overlapping match gives exactly
 * these components whatever order the matches are found in, so they are
 * merged as they come: dense overlapping matches need no memory per match. */
struct component {
    size_t cs, ce;
    struct match best;
};

struct matches {
    struct component *v;
    size_t n, cap;
    bool oom;
};

/* ---- scanning --------------------------------------------------------- */

/* Leftmost, then longest, then by priority and index: the total order that
 * names a component. */
static bool match_before(const struct match *x, const struct match *y)
{
    if (x->start != y->start)
        return x->start < y->start;
    if (x->end != y->end)
        return x->end > y->end;
    if (x->prio != y->prio)
        return x->prio < y->prio;
    return x->ref < y->ref;
}

static bool overlaps(const struct component *c, size_t start, size_t end)
{
    return start < c->ce && c->cs < end;
}

static void absorb(struct component *c, const struct component *o)
{
    c->cs = o->cs < c->cs ? o->cs : c->cs;
    c->ce = o->ce > c->ce ? o->ce : c->ce;
    if (match_before(&o->best, &c->best))
        c->best = o->best;
}

static void push(struct matches *ms, size_t start, size_t end, uint32_t prio, uint32_t ref)
{
    struct component m = {start, end, {start, end, prio, ref}};
    if (ms->n > 0 && overlaps(&ms->v[ms->n - 1], start, end)) {
        absorb(&ms->v[ms->n - 1], &m);
        return;
    }
    if (ms->oom)
        return;
    if (pd_os_grow((void **)&ms->v, &ms->cap, ms->n + 1, sizeof(*ms->v)) != 0) {
        ms->oom = true;
        return;
    }
    ms->v[ms->n++] = m;
}

static uint64_t load_head(const unsigned char *b, size_t len, size_t i)
{
    uint64_t w = 0;
    if (len - i >= 8) {
        memcpy(&w, b + i, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        return w;
    }
    for (size_t k = 0; k < len - i; k++)
        w |= (uint64_t)b[i + k] << (8 * k);
    return w;
}

static void match_needle(const struct pd_outscan *scan, const struct pd_os_needle *nd, uint32_t ref,
                         const unsigned char *b, size_t len, size_t i, struct matches *ms)
{
    if (len - i < nd->len || memcmp(b + i, scan->arena + nd->off, nd->len) != 0)
        return;
    size_t start = i, end = i + nd->len;
    if (nd->kind == PD_OUTSCAN_KNOWN_BASE64) {
        /* widen over the partly determined edge characters and the padding */
        if (nd->lpart && start > 0 && pd_os_is_b64(b[start - 1], nd->b64url))
            start--;
        if (nd->rpart && end < len && pd_os_is_b64(b[end], nd->b64url))
            end++;
        for (int pad = 0; pad < 2 && end < len && b[end] == '='; pad++)
            end++;
    }
    push(ms, start, end, nd->kind, ref);
}

/* Does one of rule r's prefixes lie whole at b + at? The filter compares
 * the first 8 bytes only, and the matchers skip their prefix unread
 * ("hooks.slack.com/services/", "github_pat_" are longer). */
static bool rule_prefix_at(const struct pd_os_rule *r, const unsigned char *b, size_t len,
                           size_t at)
{
    for (size_t k = 0; k < PD_OS_MAX_PREFIXES && r->prefixes[k] != NULL; k++) {
        size_t n = strlen(r->prefixes[k]);
        if (len - at >= n && memcmp(b + at, r->prefixes[k], n) == 0)
            return true;
    }
    return false;
}

/* Everything indexed by the gram g found at position i (it passed the bitmap):
 * entries of offset 0 may start at i, of offset 1 at i - 1. offs: which of
 * the two to check (bit 0, bit 1). */
__attribute__((noinline)) static void check_at(const struct pd_outscan *scan,
                                               const unsigned char *b, size_t len, size_t i,
                                               uint32_t g, unsigned offs, struct matches *ms)
{
    const struct pd_os_filter *f = &scan->filter;
    size_t first;
    size_t count = pd_os_filter_lookup(f, g, &first);
    if (count == 0)
        return;
    uint64_t heads[2] = {load_head(b, len, i), i > 0 ? load_head(b, len, i - 1) : 0};
    for (size_t k = first; k < first + count; k++) {
        const struct pd_os_entry *e = &f->entries[k];
        if (((offs >> e->off) & 1u) == 0 || e->off > i)
            continue;
        size_t at = i - e->off;
        if ((heads[e->off] & e->mask) != e->head || len - at < e->headlen)
            continue;
        size_t s, t;
        switch (e->type) {
        case PD_OS_E_NEEDLE:
            match_needle(scan, &scan->needles[e->ref], e->ref, b, len, at, ms);
            break;
        case PD_OS_E_RULE:
            if (rule_prefix_at(&pd_os_rules[e->ref], b, len, at) &&
                pd_os_rules[e->ref].match(b, len, at, &s, &t))
                push(ms, s, t, PRIO_RULE + e->ref, e->ref);
            break;
        default:
            if (pd_os_pattern_match(&scan->patterns[e->ref], b, len, at, &t))
                push(ms, at, t, PRIO_PATTERN + e->ref, e->ref);
            break;
        }
    }
}

/* The hot loop: the gram at every even position is hashed into the bitmap;
 * the bitmap size is a constant in each instance so that the shifts are
 * immediate. Two overlapping 8-byte loads give the grams of four even
 * positions; the probes are written out so that every shift is a constant. */
#define PROBE(w, k, pos)                                                                           \
    do {                                                                                           \
        uint32_t g_ = (uint32_t)((w) >> (8 * (k))) & 0xFFFFFFu;                                    \
        uint32_t h_ = (g_ * PD_OS_GRAM_MUL) >> (32u - bits);                                       \
        if ((bm[h_ >> 5] >> (h_ & 31u)) & 1u)                                                      \
            check_at(scan, b, len, (pos), g_, 3u, ms);                                             \
    } while (0)

static inline __attribute__((always_inline)) size_t scan_loop(const struct pd_outscan *scan,
                                                              const unsigned char *b, size_t len,
                                                              struct matches *ms,
                                                              const unsigned bits)
{
    const uint32_t *bm = scan->filter.bitmap;
    size_t i = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; len - i >= 12; i += 8) {
        uint64_t w0, w1;
        memcpy(&w0, b + i, 8);
        memcpy(&w1, b + i + 4, 8);
        PROBE(w0, 0, i);
        PROBE(w0, 2, i + 2);
        PROBE(w0, 4, i + 4);
        PROBE(w1, 2, i + 6);
    }
#else
    (void)bm;
    (void)bits;
#endif
    return i;
}

#undef PROBE

static void scan_all(const struct pd_outscan *scan, const unsigned char *b, size_t len,
                     struct matches *ms)
{
    const struct pd_os_filter *f = &scan->filter;
    if (len < 3 || f->nentries == 0)
        return;
    size_t i;
    switch (f->bits) {
    case 16:
        i = scan_loop(scan, b, len, ms, 16);
        break;
    case 18:
        i = scan_loop(scan, b, len, ms, 18);
        break;
    default:
        i = scan_loop(scan, b, len, ms, 20);
        break;
    }
    /* i is even here: the remaining even positions, then the last odd one,
     * whose second gram would reach past the end */
    for (; len - i >= 3; i += 2) {
        uint32_t g = pd_os_gram_at(b + i);
        if (pd_os_filter_hit(f, g))
            check_at(scan, b, len, i, g, 3u, ms);
    }
    size_t last = len - 3;
    if (last % 2 == 1) {
        uint32_t g = pd_os_gram_at(b + last);
        if (pd_os_filter_hit(f, g))
            check_at(scan, b, len, last, g, 1u, ms);
    }
}

static int component_cmp(const void *a, const void *b)
{
    const struct component *x = a, *y = b;
    if (x->cs != y->cs)
        return x->cs < y->cs ? -1 : 1;
    if (match_before(&x->best, &y->best))
        return -1;
    return match_before(&y->best, &x->best) ? 1 : 0;
}

/* Components arrive nearly sorted (a rule may report a match starting after
 * later trigger positions): sort if needed, then join the ones that overlap. */
static size_t settle(struct matches *ms)
{
    bool sorted = true;
    for (size_t i = 1; i < ms->n && sorted; i++)
        sorted = ms->v[i - 1].cs <= ms->v[i].cs;
    if (!sorted)
        qsort(ms->v, ms->n, sizeof(*ms->v), component_cmp);
    size_t nf = 0;
    for (size_t i = 0; i < ms->n; i++) {
        if (nf > 0 && overlaps(&ms->v[nf - 1], ms->v[i].cs, ms->v[i].ce))
            absorb(&ms->v[nf - 1], &ms->v[i]);
        else
            ms->v[nf++] = ms->v[i];
    }
    return nf;
}

static void describe(const struct pd_outscan *scan, const struct component *c,
                     struct pd_outscan_finding *f)
{
    const struct match *m = &c->best;
    f->offset = c->cs;
    f->length = c->ce - c->cs;
    f->source = NULL;
    if (m->prio < PRIO_RULE) {
        const struct pd_os_needle *nd = &scan->needles[m->ref];
        f->kind = (enum pd_outscan_kind)nd->kind;
        f->rule = pd_outscan_kind_name(f->kind);
        f->source = scan->labels[scan->values[nd->value].label];
    } else if (m->prio < PRIO_PATTERN) {
        f->kind = PD_OUTSCAN_FORMAT;
        f->rule = pd_os_rules[m->ref].name;
    } else {
        f->kind = PD_OUTSCAN_PATTERN;
        f->rule = scan->patterns[m->ref].name;
    }
}

#define TAG_OPEN "[REDACTED:"

/* The copy of a large capture is written once, front to back: on 2 MiB pages
 * it costs a few hundred page faults instead of one per 4 KiB (which, in a VM,
 * can cost more than the scan). Small copies come from malloc as usual. Both
 * are released by free(). */
#define HUGE_PAGE  ((size_t)2 << 20)
#define HUGE_FLOOR ((size_t)8 << 20)

static char *alloc_output(size_t n)
{
    if (n < HUGE_FLOOR)
        return malloc(n);
    size_t rounded = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    char *p = aligned_alloc(HUGE_PAGE, rounded);
    if (p != NULL)
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: fine if it fails */
    return p;
}

static int redact(const unsigned char *b, size_t len, struct pd_outscan_result *res)
{
    size_t out_len = len;
    for (size_t i = 0; i < res->n_findings; i++)
        out_len = out_len - res->findings[i].length + strlen(TAG_OPEN) +
                  strlen(res->findings[i].rule) + 1;
    char *out = alloc_output(out_len + 1);
    if (out == NULL)
        return -1;
    size_t o = 0, p = 0;
    for (size_t i = 0; i < res->n_findings; i++) {
        const struct pd_outscan_finding *f = &res->findings[i];
        memcpy(out + o, b + p, f->offset - p);
        o += f->offset - p;
        size_t rl = strlen(f->rule);
        memcpy(out + o, TAG_OPEN, strlen(TAG_OPEN));
        o += strlen(TAG_OPEN);
        memcpy(out + o, f->rule, rl);
        o += rl;
        out[o++] = ']';
        p = f->offset + f->length;
    }
    if (len > p)
        memcpy(out + o, b + p, len - p);
    o += len - p;
    out[o] = '\0';
    res->out = out;
    res->out_len = o;
    return 0;
}

int pd_outscan_scan(struct pd_outscan *scan, const void *buf, size_t len,
                    struct pd_outscan_result *res)
{
    if (res != NULL)
        memset(res, 0, sizeof(*res));
    if (scan == NULL || res == NULL || (buf == NULL && len > 0)) {
        errno = EINVAL;
        return -1;
    }
    if (scan->dirty && pd_os_compile(scan) != 0)
        return -1;
    const unsigned char *b = buf != NULL ? buf : (const unsigned char *)"";
    struct matches ms = {0};
    scan_all(scan, b, len, &ms);
    if (ms.oom) {
        free(ms.v);
        errno = ENOMEM;
        return -1;
    }
    size_t nf = settle(&ms);
    if (nf > (size_t)INT_MAX) {
        free(ms.v);
        errno = ENOMEM;
        return -1;
    }
    if (nf > 0) {
        res->findings = calloc(nf, sizeof(*res->findings));
        if (res->findings == NULL) {
            free(ms.v);
            errno = ENOMEM;
            return -1;
        }
        for (size_t i = 0; i < nf; i++)
            describe(scan, &ms.v[i], &res->findings[i]);
        res->n_findings = nf;
    }
    free(ms.v);
    if (nf == 0 && scan->no_clean_copy)
        return 0; /* the caller keeps its own buffer: no copy, no page faults */
    if (redact(b, len, res) != 0) {
        pd_outscan_result_free(res);
        errno = ENOMEM;
        return -1;
    }
    return (int)nf;
}

void pd_outscan_copy_clean(struct pd_outscan *scan, bool want)
{
    scan->no_clean_copy = !want;
}

void pd_outscan_result_free(struct pd_outscan_result *res)
{
    if (res == NULL)
        return;
    free(res->out);
    free(res->findings);
    memset(res, 0, sizeof(*res));
}
