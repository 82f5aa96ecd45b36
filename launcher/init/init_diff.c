/* launcher/init/init_diff.c - the unified diff that `paldron init --dry-run`
 * prints for every file it would write (the format of `diff -u`: three
 * lines of context, "\ No newline at end of file" where one is missing).
 *
 * The files are settings files of a few hundred lines and init changes a
 * few of them: the common head and tail are cut off first, and the middle
 * is compared line by line (longest common subsequence) when it is small
 * enough; a large middle is shown as removed and added as a whole, which
 * is still a correct diff. */
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

#define CONTEXT   3
#define LCS_CELLS (4u << 20) /* the largest middle compared line by line */

struct lines {
    const char **at; /* start of each line */
    size_t *len;     /* its length, with its newline when it has one */
    size_t n;
};

static int split(const char *s, struct lines *l)
{
    l->n = 0;
    l->at = NULL;
    l->len = NULL;
    if (!s || !*s)
        return 0;
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == '\n';
    l->at = malloc(cap * sizeof *l->at);
    l->len = malloc(cap * sizeof *l->len);
    if (!l->at || !l->len)
        return -1;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);
        l->at[l->n] = s;
        l->len[l->n++] = n;
        s += n;
    }
    return 0;
}

static bool same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
    return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

struct op {
    char kind;   /* ' ', '-', '+' */
    size_t line; /* index in the old file (' ', '-') or the new one ('+') */
};

/* The middle a[p..p+ma) / b[p..p+mb) as operations, appended at ops+*n. */
static int middle(const struct lines *a, const struct lines *b, size_t p, size_t ma, size_t mb,
                  struct op *ops, size_t *n)
{
    if ((ma + 1) * (mb + 1) > LCS_CELLS) {
        for (size_t i = 0; i < ma; i++)
            ops[(*n)++] = (struct op){'-', p + i};
        for (size_t j = 0; j < mb; j++)
            ops[(*n)++] = (struct op){'+', p + j};
        return 0;
    }
    /* lcs[i][j]: the longest common subsequence of a[i..] and b[j..] */
    unsigned *lcs = calloc((ma + 1) * (mb + 1), sizeof *lcs);
    if (!lcs)
        return -1;
#define L(i, j) lcs[(i) * (mb + 1) + (j)]
    for (size_t i = ma; i-- > 0;)
        for (size_t j = mb; j-- > 0;)
            L(i, j) = same(a, p + i, b, p + j)     ? L(i + 1, j + 1) + 1
                      : L(i + 1, j) >= L(i, j + 1) ? L(i + 1, j)
                                                   : L(i, j + 1);
    size_t i = 0, j = 0;
    while (i < ma || j < mb) {
        if (i < ma && j < mb && same(a, p + i, b, p + j)) {
            ops[(*n)++] = (struct op){' ', p + i};
            i++;
            j++;
        } else if (i < ma && (j == mb || L(i + 1, j) >= L(i, j + 1))) {
            ops[(*n)++] = (struct op){'-', p + i++};
        } else {
            ops[(*n)++] = (struct op){'+', p + j++};
        }
    }
#undef L
    free(lcs);
    return 0;
}

static void put_line(struct pd_text *t, char kind, const struct lines *l, size_t k)
{
    pd_text_put(t, &kind, 1);
    pd_text_put(t, l->at[k], l->len[k]);
    if (l->len[k] == 0 || l->at[k][l->len[k] - 1] != '\n')
        pd_text_puts(t, "\n\\ No newline at end of file\n");
}

static void hunks(struct pd_text *t, const struct op *ops, size_t n, const struct lines *a,
                  const struct lines *b)
{
    size_t k = 0;
    while (k < n) {
        while (k < n && ops[k].kind == ' ')
            k++;
        if (k == n)
            return;
        size_t start = k > CONTEXT ? k - CONTEXT : 0;
        /* extend over changes whose context would touch this hunk's */
        size_t end = k;
        for (;;) {
            while (end < n && ops[end].kind != ' ')
                end++;
            size_t gap = 0;
            while (end + gap < n && ops[end + gap].kind == ' ')
                gap++;
            if (end + gap < n && gap <= 2 * CONTEXT) {
                end += gap;
                continue;
            }
            end += gap < CONTEXT ? gap : CONTEXT;
            break;
        }
        size_t old_before = 0, new_before = 0, old_n = 0, new_n = 0;
        for (size_t q = 0; q < start; q++) {
            old_before += ops[q].kind != '+';
            new_before += ops[q].kind != '-';
        }
        for (size_t q = start; q < end; q++) {
            old_n += ops[q].kind != '+';
            new_n += ops[q].kind != '-';
        }
        pd_text_printf(t, "@@ -%zu,%zu +%zu,%zu @@\n", old_n ? old_before + 1 : old_before, old_n,
                       new_n ? new_before + 1 : new_before, new_n);
        for (size_t q = start; q < end; q++)
            put_line(t, ops[q].kind, ops[q].kind == '+' ? b : a, ops[q].line);
        k = end;
    }
}

void pd_diff_unified(struct pd_text *t, const char *path, const char *old, const char *new_text)
{
    if (old && strcmp(old, new_text) == 0)
        return;
    struct lines a = {0}, b = {0};
    struct op *ops = NULL;
    if (split(old, &a) != 0 || split(new_text, &b) != 0)
        goto oom;
    ops = malloc((a.n + b.n + 1) * sizeof *ops);
    if (!ops)
        goto oom;
    size_t p = 0, s = 0, n = 0;
    while (p < a.n && p < b.n && same(&a, p, &b, p))
        p++;
    while (s < a.n - p && s < b.n - p && same(&a, a.n - 1 - s, &b, b.n - 1 - s))
        s++;
    for (size_t k = 0; k < p; k++)
        ops[n++] = (struct op){' ', k};
    if (middle(&a, &b, p, a.n - p - s, b.n - p - s, ops, &n) != 0)
        goto oom;
    for (size_t k = a.n - s; k < a.n; k++)
        ops[n++] = (struct op){' ', k};
    pd_text_printf(t, "--- %s\n+++ %s\n", old ? path : "/dev/null", path);
    hunks(t, ops, n, &a, &b);
    goto done;
oom:
    t->oom = true;
done:
    free(ops);
    free(a.at);
    free(a.len);
    free(b.at);
    free(b.len);
}
