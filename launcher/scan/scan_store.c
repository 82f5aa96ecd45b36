/* launcher/scan/scan_store.c - the scan's records: one array in walk order, the
 * paths in one arena, and an open-addressing index from path to record. */
#include <stdlib.h>
#include <string.h>

#include "launcher/scan/scan_int.h"

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t k = 0; k < len; k++) {
        h ^= (unsigned char)s[k];
        h *= 1099511628211ULL;
    }
    return h;
}

static bool grow_index(struct store *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < s->n; i++) {
        const char *p = s->arena + s->v[i].path;
        size_t j = (size_t)hash(p, strlen(p)) & (n - 1);
        while (slots[j])
            j = (j + 1) & (n - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return true;
}

long pd_store_add(struct store *s, const char *path, size_t len, int kind, int flags,
                  const struct stat *st)
{
    if (s->failed || s->n >= UINT32_MAX - 1)
        goto fail;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        struct rec *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            goto fail;
        s->v = nv;
        s->cap = cap;
    }
    if (s->alen + len + 1 > s->acap) {
        size_t cap = s->acap ? s->acap * 2 : 65536;
        while (cap < s->alen + len + 1)
            cap *= 2;
        char *na = realloc(s->arena, cap);
        if (!na)
            goto fail;
        s->arena = na;
        s->acap = cap;
    }
    /* Keep the index at most half full. */
    if ((s->n + 1) * 2 > s->nslots && !grow_index(s))
        goto fail;
    struct rec *r = &s->v[s->n];
    memset(r, 0, sizeof *r);
    r->path = s->alen;
    memcpy(s->arena + s->alen, path, len);
    s->arena[s->alen + len] = '\0';
    s->alen += len + 1;
    r->kind = (uint8_t)kind;
    r->flags = (uint8_t)flags;
    if (st) {
        r->mode = st->st_mode;
        r->dev = st->st_dev;
        r->ino = st->st_ino;
        r->mtime = st->st_mtim;
        r->ctime = st->st_ctim;
        r->size = st->st_size;
    }
    size_t j = (size_t)hash(path, len) & (s->nslots - 1);
    while (s->slots[j])
        j = (j + 1) & (s->nslots - 1);
    s->slots[j] = (uint32_t)(s->n + 1);
    return (long)s->n++;
fail:
    s->failed = true;
    return -1;
}

long pd_store_find(const struct store *s, const char *path, size_t len)
{
    if (!s->nslots)
        return -1;
    size_t j = (size_t)hash(path, len) & (s->nslots - 1);
    while (s->slots[j]) {
        size_t i = s->slots[j] - 1;
        const char *p = s->arena + s->v[i].path;
        if (strncmp(p, path, len) == 0 && p[len] == '\0')
            return (long)i;
        j = (j + 1) & (s->nslots - 1);
    }
    return -1;
}

const char *pd_store_path(const struct store *s, size_t i)
{
    return s->arena + s->v[i].path;
}

void pd_store_free(struct store *s)
{
    free(s->v);
    free(s->arena);
    free(s->slots);
    memset(s, 0, sizeof *s);
}
