/* launcher/outscan/outscan.c - the output scanner object: known values, extra
 * patterns, disabled rules, and their compilation into needles and the
 * prefilter. The scan itself is in outscan_scan.c; map of the other files in
 * launcher/outscan/outscan_int.h; the rules in docs/output-scan.md. */
#include "launcher/outscan/outscan_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pd_os_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap < 16 ? 16 : *cap;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem) {
            errno = ENOMEM;
            return -1;
        }
        nc *= 2;
    }
    void *np = realloc(*p, nc * elem);
    if (np == NULL) {
        errno = ENOMEM;
        return -1;
    }
    *p = np;
    *cap = nc;
    return 0;
}

void pd_os_set_error(struct pd_outscan *scan, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(scan->err, sizeof(scan->err), fmt, ap);
    va_end(ap);
}

static uint32_t hash_bytes(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* ---- life cycle ------------------------------------------------------- */

struct pd_outscan *pd_outscan_new(void)
{
    struct pd_outscan *scan = calloc(1, sizeof(*scan));
    if (scan == NULL)
        return NULL;
    scan->dirty = true;
    return scan;
}

static void free_compiled(struct pd_outscan *scan)
{
    free(scan->arena);
    free(scan->needles);
    free(scan->nset);
    pd_os_filter_free(&scan->filter);
    scan->arena = NULL;
    scan->needles = NULL;
    scan->nset = NULL;
    scan->arena_len = scan->arena_cap = 0;
    scan->nneedles = scan->cneedles = scan->cnset = 0;
    scan->dirty = true;
}

void pd_outscan_free(struct pd_outscan *scan)
{
    if (scan == NULL)
        return;
    free_compiled(scan);
    for (size_t i = 0; i < scan->nvalues; i++)
        free(scan->values[i].bytes);
    free(scan->values);
    free(scan->vset);
    for (size_t i = 0; i < scan->nlabels; i++)
        free(scan->labels[i]);
    free(scan->labels);
    for (size_t i = 0; i < scan->npatterns; i++)
        pd_os_pattern_free(&scan->patterns[i]);
    free(scan->patterns);
    free(scan);
}

const char *pd_outscan_last_error(const struct pd_outscan *scan)
{
    return scan == NULL ? "" : scan->err;
}

size_t pd_outscan_value_count(const struct pd_outscan *scan)
{
    return scan == NULL ? 0 : scan->nvalues;
}

const char *pd_outscan_kind_name(enum pd_outscan_kind kind)
{
    switch (kind) {
    case PD_OUTSCAN_KNOWN_VALUE:
        return "known-value";
    case PD_OUTSCAN_KNOWN_BASE64:
        return "known-value-base64";
    case PD_OUTSCAN_KNOWN_HEX:
        return "known-value-hex";
    case PD_OUTSCAN_FORMAT:
        return "format";
    case PD_OUTSCAN_PATTERN:
        return "pattern";
    default:
        return "unknown";
    }
}

/* ---- known values ----------------------------------------------------- */

static int intern_label(struct pd_outscan *scan, const char *label, uint32_t *idx)
{
    for (size_t i = scan->nlabels; i-- > 0;)
        if (strcmp(scan->labels[i], label) == 0) {
            *idx = (uint32_t)i;
            return 0;
        }
    if (pd_os_grow((void **)&scan->labels, &scan->clabels, scan->nlabels + 1,
                   sizeof(*scan->labels)) != 0)
        return -1;
    char *copy = strdup(label);
    if (copy == NULL)
        return -1;
    scan->labels[scan->nlabels] = copy;
    *idx = (uint32_t)scan->nlabels++;
    return 0;
}

static void vset_insert(uint32_t *set, size_t cap, const struct pd_os_value *values, uint32_t i)
{
    size_t slot = values[i].hash & (cap - 1);
    while (set[slot] != 0)
        slot = (slot + 1) & (cap - 1);
    set[slot] = i + 1;
}

static bool vset_has(const struct pd_outscan *scan, const unsigned char *v, size_t n, uint32_t h)
{
    if (scan->cvset == 0)
        return false;
    size_t slot = h & (scan->cvset - 1);
    while (scan->vset[slot] != 0) {
        const struct pd_os_value *x = &scan->values[scan->vset[slot] - 1];
        if (x->hash == h && x->len == n && memcmp(x->bytes, v, n) == 0)
            return true;
        slot = (slot + 1) & (scan->cvset - 1);
    }
    return false;
}

static int vset_reserve(struct pd_outscan *scan, size_t n)
{
    if (n * 2 <= scan->cvset)
        return 0;
    size_t cap = scan->cvset == 0 ? 64 : scan->cvset * 2;
    while (n * 2 > cap)
        cap *= 2;
    uint32_t *set = calloc(cap, sizeof(*set));
    if (set == NULL)
        return -1;
    for (size_t i = 0; i < scan->nvalues; i++)
        vset_insert(set, cap, scan->values, (uint32_t)i);
    free(scan->vset);
    scan->vset = set;
    scan->cvset = cap;
    return 0;
}

int pd_outscan_add_value(struct pd_outscan *scan, const void *value, size_t len,
                         const char *source_label)
{
    if (scan == NULL || (value == NULL && len > 0)) {
        errno = EINVAL;
        return -1;
    }
    if (len == 0 || pd_outscan_value_is_trivial(value, len))
        return 0;
    if (scan->nvalues >= UINT32_MAX / 16) {
        errno = ENOMEM;
        return -1;
    }
    uint32_t h = hash_bytes(value, len);
    if (vset_has(scan, value, len, h))
        return 0;
    uint32_t label;
    if (intern_label(scan, source_label != NULL ? source_label : "value", &label) != 0)
        return -1;
    if (pd_os_grow((void **)&scan->values, &scan->cvalues, scan->nvalues + 1,
                   sizeof(*scan->values)) != 0 ||
        vset_reserve(scan, scan->nvalues + 1) != 0)
        return -1;
    unsigned char *copy = malloc(len);
    if (copy == NULL)
        return -1;
    memcpy(copy, value, len);
    scan->values[scan->nvalues] = (struct pd_os_value){copy, len, label, h};
    vset_insert(scan->vset, scan->cvset, scan->values, (uint32_t)scan->nvalues);
    scan->nvalues++;
    scan->dirty = true;
    // cppcheck-suppress memleak ; copy is owned by scan->values now
    return 1;
}

/* ---- patterns and rules ----------------------------------------------- */

static bool name_taken(const struct pd_outscan *scan, const char *name)
{
    for (size_t i = 0; i < pd_os_nrules; i++)
        if (strcmp(pd_os_rules[i].name, name) == 0)
            return true;
    for (int k = PD_OUTSCAN_KNOWN_VALUE; k <= PD_OUTSCAN_KNOWN_HEX; k++)
        if (strcmp(pd_outscan_kind_name((enum pd_outscan_kind)k), name) == 0)
            return true;
    for (size_t i = 0; i < scan->npatterns; i++)
        if (strcmp(scan->patterns[i].name, name) == 0)
            return true;
    return false;
}

int pd_outscan_add_pattern(struct pd_outscan *scan, const char *name, const char *pattern)
{
    if (scan == NULL || name == NULL || pattern == NULL) {
        errno = EINVAL;
        return -1;
    }
    size_t nl = strlen(name);
    bool ok = nl >= 1 && nl <= 64;
    for (size_t i = 0; i < nl && ok; i++)
        ok = pd_os_is_word((unsigned char)name[i]) || name[i] == '.' || name[i] == '-';
    if (!ok) {
        pd_os_set_error(scan, "pattern name '%.64s' must be 1 to 64 of [A-Za-z0-9_.-]", name);
        errno = EINVAL;
        return -1;
    }
    if (name_taken(scan, name)) {
        pd_os_set_error(scan, "pattern name '%s' is already a rule", name);
        errno = EEXIST;
        return -1;
    }
    if (scan->npatterns >= 1024) {
        pd_os_set_error(scan, "too many patterns (1024)");
        errno = EINVAL;
        return -1;
    }
    if (pd_os_grow((void **)&scan->patterns, &scan->cpatterns, scan->npatterns + 1,
                   sizeof(*scan->patterns)) != 0)
        return -1;
    struct pd_os_pattern p;
    char msg[200] = "";
    if (pd_os_pattern_compile(&p, pattern, msg, sizeof(msg)) != 0) {
        int saved = errno;
        pd_os_set_error(scan, "pattern %s: %s", name, msg[0] != '\0' ? msg : strerror(saved));
        errno = saved;
        return -1;
    }
    p.name = strdup(name);
    if (p.name == NULL) {
        pd_os_pattern_free(&p);
        return -1;
    }
    scan->patterns[scan->npatterns++] = p;
    scan->dirty = true;
    return 0;
}

int pd_outscan_disable_rule(struct pd_outscan *scan, const char *rule)
{
    for (size_t i = 0; scan != NULL && rule != NULL && i < pd_os_nrules; i++)
        if (strcmp(pd_os_rules[i].name, rule) == 0) {
            scan->disabled_rules |= (uint64_t)1 << i;
            scan->dirty = true;
            return 0;
        }
    errno = ENOENT;
    return -1;
}

/* ---- compilation ------------------------------------------------------ */

static int needle_sink(void *ctx, const unsigned char *bytes, size_t len,
                       const struct pd_os_needle *proto)
{
    struct pd_outscan *scan = ctx;
    if (len < 3)
        return 0;
    size_t mask = scan->cnset - 1;
    size_t slot = hash_bytes(bytes, len) & mask;
    while (scan->nset[slot] != 0) {
        const struct pd_os_needle *x = &scan->needles[scan->nset[slot] - 1];
        if (x->len == len && memcmp(scan->arena + x->off, bytes, len) == 0)
            return 0; /* the same bytes already searched for (first source wins) */
        slot = (slot + 1) & mask;
    }
    if (pd_os_grow((void **)&scan->arena, &scan->arena_cap, scan->arena_len + len, 1) != 0 ||
        pd_os_grow((void **)&scan->needles, &scan->cneedles, scan->nneedles + 1,
                   sizeof(*scan->needles)) != 0)
        return -1;
    memcpy(scan->arena + scan->arena_len, bytes, len);
    struct pd_os_needle n = *proto;
    n.off = scan->arena_len;
    n.len = len;
    scan->arena_len += len;
    scan->needles[scan->nneedles] = n;
    scan->nset[slot] = (uint32_t)++scan->nneedles;
    return 0;
}

struct entries {
    struct pd_os_entry *v;
    size_t n, cap;
    bool oom;
};

static void add_entry(struct entries *es, const struct pd_os_entry *e)
{
    if (es->oom || pd_os_grow((void **)&es->v, &es->cap, es->n + 1, sizeof(*es->v)) != 0) {
        es->oom = true;
        return;
    }
    es->v[es->n++] = *e;
}

static void set_from_fn(struct pd_os_set *set, bool (*fn)(unsigned char))
{
    memset(set, 0, sizeof(*set));
    for (unsigned c = 0; c < 256; c++)
        if (fn == NULL || fn((unsigned char)c))
            pd_os_set_add(set, (unsigned char)c);
}

/* Index p[0..len) (len >= 3) by its two grams; next: the bytes that may follow
 * a 3-byte p in a match (unused when len >= 4). */
static void add_entries(struct entries *es, const unsigned char *p, size_t len, uint8_t type,
                        uint32_t ref, const struct pd_os_set *next)
{
    struct pd_os_entry e;
    pd_os_entry_set_bytes(&e, p, len);
    e.type = type;
    e.ref = ref;
    add_entry(es, &e);
    e.off = 1;
    if (len >= 4) {
        e.gram = pd_os_gram_at(p + 1);
        add_entry(es, &e);
        return;
    }
    if (next == NULL) /* needles are 4 bytes or longer */
        return;
    for (unsigned c = 0; c < 256; c++) {
        if (!pd_os_set_has(next, (unsigned char)c))
            continue;
        e.gram = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)c << 16;
        add_entry(es, &e);
    }
}

int pd_os_compile(struct pd_outscan *scan)
{
    free_compiled(scan);
    /* at most 11 needles per value (raw, 6 base64, 2 hex, 2 JSON); load <= 1/2 */
    size_t cap = 64;
    while (cap < scan->nvalues * 11 * 2)
        cap *= 2;
    scan->nset = calloc(cap, sizeof(*scan->nset));
    if (scan->nset == NULL)
        return -1;
    scan->cnset = cap;
    for (size_t i = 0; i < scan->nvalues; i++)
        if (pd_os_encode_needles(scan->values[i].bytes, scan->values[i].len, (uint32_t)i,
                                 needle_sink, scan) != 0) {
            free_compiled(scan);
            errno = ENOMEM;
            return -1;
        }
    free(scan->nset);
    scan->nset = NULL;
    scan->cnset = 0;

    struct entries es = {0};
    for (size_t i = 0; i < scan->nneedles; i++)
        add_entries(&es, scan->arena + scan->needles[i].off, scan->needles[i].len, PD_OS_E_NEEDLE,
                    (uint32_t)i, NULL);
    for (size_t r = 0; r < pd_os_nrules; r++) {
        if ((scan->disabled_rules >> r) & 1u)
            continue;
        struct pd_os_set next;
        set_from_fn(&next, pd_os_rules[r].next);
        for (size_t k = 0; pd_os_rules[r].prefixes[k] != NULL; k++) {
            const char *pre = pd_os_rules[r].prefixes[k];
            add_entries(&es, (const unsigned char *)pre, strlen(pre), PD_OS_E_RULE, (uint32_t)r,
                        &next);
        }
    }
    for (size_t i = 0; i < scan->npatterns; i++) {
        const struct pd_os_pattern *pat = &scan->patterns[i];
        struct pd_os_set next;
        set_from_fn(&next, NULL);
        if (pat->nelems > 0 && pat->elems[0].min > 0)
            next = pat->elems[0].set;
        add_entries(&es, pat->prefix, pat->plen, PD_OS_E_PATTERN, (uint32_t)i, &next);
    }
    if (es.oom) {
        free(es.v);
        free_compiled(scan);
        errno = ENOMEM;
        return -1;
    }
    struct pd_os_entry *entries = es.v;
    size_t m = es.n;
    if (pd_os_filter_build(&scan->filter, entries, m) != 0) {
        free_compiled(scan);
        return -1;
    }
    scan->dirty = false;
    return 0;
}

size_t pd_outscan_needle_count(struct pd_outscan *scan)
{
    if (scan == NULL || (scan->dirty && pd_os_compile(scan) != 0))
        return 0;
    return scan->nneedles;
}
