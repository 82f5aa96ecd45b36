/* launcher/outscan/outscan_filter.c - the multi-pattern prefilter of the output scanner.
 *
 * Every needle, rule prefix and user-pattern prefix is at least three bytes
 * long. Each is indexed by two "grams": its bytes 0..2 and its bytes 1..3 (for
 * a 3-byte prefix: bytes 1..2 and each byte its rule allows after it). An
 * occurrence at an even position shows its first gram there, one at an odd
 * position shows its second gram at the next (even) position, so the scan loop
 * only probes even positions. It hashes the gram there into a small bitmap (a
 * few KiB, stays in L1); only on a hit does it look the exact gram up in an
 * open-addressing table that gives the entries indexed by it, each of which is
 * checked against its first eight bytes before the full comparison or the rule
 * matcher runs. The loop has no dependency between positions, so it runs at
 * about a cycle per byte whatever the number of needles. */
#include "launcher/outscan/outscan_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pd_os_entry_set_bytes(struct pd_os_entry *e, const unsigned char *p, size_t len)
{
    size_t n = len < 8 ? len : 8;
    e->head = 0;
    e->mask = 0;
    for (size_t i = 0; i < n; i++) {
        e->head |= (uint64_t)p[i] << (8 * i);
        e->mask |= (uint64_t)0xFF << (8 * i);
    }
    e->headlen = (uint8_t)n;
    e->gram = pd_os_gram_at(p);
    e->off = 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const struct pd_os_entry *x = a, *y = b;
    if (x->gram != y->gram)
        return x->gram < y->gram ? -1 : 1;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->ref != y->ref)
        return x->ref < y->ref ? -1 : 1;
    return 0;
}

static unsigned log2_ceil(size_t n)
{
    unsigned b = 0;
    while (((size_t)1 << b) < n)
        b++;
    return b;
}

int pd_os_filter_build(struct pd_os_filter *f, struct pd_os_entry *entries, size_t n)
{
    memset(f, 0, sizeof(*f));
    if (n > UINT32_MAX / 4) {
        free(entries);
        errno = ENOMEM;
        return -1;
    }
    qsort(entries, n, sizeof(*entries), entry_cmp);
    size_t grams = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || entries[i].gram != entries[i - 1].gram)
            grams++;
    /* About 1 bit in 128 set: a false hit on ~1% of positions of unrelated text.
     * At most 2^20 bits (128 KiB): a larger bitmap falls out of cache and costs
     * more than the extra false hits it saves (measured with 1000 values). */
    unsigned bits = log2_ceil(grams * 128);
    bits += bits & 1u; /* the scan loop has instances for 16, 18 and 20 bits */
    f->bits = bits < 16 ? 16 : bits > 20 ? 20 : bits;
    f->tbits = log2_ceil(grams * 2);
    if (f->tbits < 4)
        f->tbits = 4;
    f->bitmap = calloc((size_t)1 << (f->bits - 5), sizeof(*f->bitmap));
    f->table = calloc((size_t)1 << f->tbits, sizeof(*f->table));
    if (f->bitmap == NULL || f->table == NULL) {
        free(entries);
        pd_os_filter_free(f);
        errno = ENOMEM;
        return -1;
    }
    f->entries = entries;
    f->nentries = n;
    size_t tmask = ((size_t)1 << f->tbits) - 1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && entries[j].gram == entries[i].gram)
            j++;
        uint32_t g = entries[i].gram;
        uint32_t h = pd_os_gram_hash(g, f->bits);
        f->bitmap[h >> 5] |= 1u << (h & 31u);
        size_t slot = pd_os_gram_hash(g, f->tbits);
        while (f->table[slot].gram_plus1 != 0)
            slot = (slot + 1) & tmask;
        f->table[slot].gram_plus1 = g + 1;
        f->table[slot].first = (uint32_t)i;
        f->table[slot].count = (uint32_t)(j - i);
        i = j;
    }
    return 0;
}

size_t pd_os_filter_lookup(const struct pd_os_filter *f, uint32_t gram, size_t *first)
{
    size_t tmask = ((size_t)1 << f->tbits) - 1;
    size_t slot = pd_os_gram_hash(gram, f->tbits);
    for (;;) {
        const struct pd_os_slot *s = &f->table[slot];
        if (s->gram_plus1 == 0)
            return 0;
        if (s->gram_plus1 == gram + 1) {
            *first = s->first;
            return s->count;
        }
        slot = (slot + 1) & tmask;
    }
}

void pd_os_filter_free(struct pd_os_filter *f)
{
    free(f->bitmap);
    free(f->table);
    free(f->entries);
    memset(f, 0, sizeof(*f));
}
