/* policy/resolve_memo.c - realpath and PATH lookups remembered while the
 * launcher prepares one run (pd_memo_begin .. pd_memo_end).
 *
 * Preparing a run asks the same questions many times over: the gate, the
 * exec floor, the compiled image and the kernel grants each resolve the
 * allow_binaries entries through PATH and each realpath the same system
 * folders, some 500 system calls for a policy of four programs. Within the
 * preparation the answers cannot change for any reason of ours: only what
 * succeeded is remembered (a path the launcher creates later, such as the
 * run directory, is looked up again), and the memo ends before the command
 * starts, so nothing the run changes is ever answered from it. Off (the
 * default, and always in the preload), every call asks the kernel. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

struct memo_ent {
    uint64_t hash;
    char *key, *val; /* one allocation: key, NUL, value, NUL */
};

static struct {
    bool on;
    struct memo_ent *v;
    size_t n, cap;
} memo;

static uint64_t hash_of(char kind, const char *key)
{
    uint64_t h = 1469598103934665603ull ^ (unsigned char)kind;
    for (const char *c = key; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

void pd_memo_begin(void)
{
    memo.on = true;
}

void pd_memo_end(void)
{
    for (size_t k = 0; k < memo.n; k++)
        free(memo.v[k].key);
    free(memo.v);
    memo.v = NULL;
    memo.n = memo.cap = 0;
    memo.on = false;
}

/* key is kind-prefixed in the stored string, so kinds never collide */
static const char *memo_get(char kind, const char *key)
{
    if (!memo.on)
        return NULL;
    uint64_t h = hash_of(kind, key);
    for (size_t k = 0; k < memo.n; k++)
        if (memo.v[k].hash == h && memo.v[k].key[0] == kind && strcmp(memo.v[k].key + 1, key) == 0)
            return memo.v[k].val;
    return NULL;
}

static void memo_put(char kind, const char *key, const char *val)
{
    if (!memo.on)
        return;
    if (memo.n == memo.cap) {
        size_t cap = memo.cap ? 2 * memo.cap : 64;
        struct memo_ent *v = realloc(memo.v, cap * sizeof *v);
        if (!v)
            return; /* not remembered: asked again next time */
        memo.v = v;
        memo.cap = cap;
    }
    size_t kl = strlen(key), vl = strlen(val);
    struct memo_ent *e = &memo.v[memo.n];
    e->key = malloc(kl + vl + 3);
    if (!e->key)
        return;
    e->key[0] = kind;
    memcpy(e->key + 1, key, kl + 1);
    e->val = e->key + kl + 2;
    memcpy(e->val, val, vl + 1);
    e->hash = hash_of(kind, key);
    memo.n++;
}

char *pd_realpath(const char *path, char *out)
{
    const char *hit = memo_get('R', path);
    if (hit) {
        size_t n = strlen(hit);
        memcpy(out, hit, n + 1); /* stored from a PATH_MAX buffer: fits */
        return out;
    }
    if (!realpath(path, out))
        return NULL;
    memo_put('R', path, out);
    return out;
}

bool pd_memo_lookup(const char *key, char *out, size_t outlen)
{
    const char *hit = memo_get('L', key);
    if (!hit || strlen(hit) >= outlen)
        return false;
    memcpy(out, hit, strlen(hit) + 1);
    return true;
}

void pd_memo_remember(const char *key, const char *val)
{
    memo_put('L', key, val);
}
