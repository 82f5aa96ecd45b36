/* policy/suggest.c - "did you mean": the known name nearest to a mistyped
 * one (a subcommand, an option, a policy key), so that an error names the
 * fix instead of only the mistake.
 *
 * Nearness is the optimal string alignment distance (Damerau-Levenshtein
 * where no substring is edited twice: insert, delete, substitute, or swap
 * two neighbours), letters compared without case. A candidate is accepted
 * within max(1, strlen(word) / 3) edits: one typo in a short word, more in
 * a long key. Failing that, a word of three or more letters that begins
 * exactly one candidate names it ("timeout" -> "timeout_sec"); a prefix of
 * several ("allow") names none, since any pick would be a guess. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "policy/policy.h"

/* Longer words are no typo of a name; the bound keeps the rows on the stack. */
#define SUGGEST_MAX    64
#define PREFIX_MIN_LEN 3

static bool same_letter(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static size_t min_of(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Distance between a[0..n) and b[0..m), both at most SUGGEST_MAX long.
 * Three rows suffice: a swap looks two rows back. */
static size_t osa_distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t rows[3][SUGGEST_MAX + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = same_letter(a[i - 1], b[j - 1]) ? 0 : 1;
            size_t d = min_of(min_of(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
            if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) &&
                same_letter(a[i - 2], b[j - 1]))
                d = min_of(d, before[j - 2] + 1);
            cur[j] = d;
        }
        size_t *spare = before;
        before = prev;
        prev = cur;
        cur = spare;
    }
    return prev[m];
}

const char *pd_suggest(const char *word, const char *const *candidates, size_t n)
{
    size_t len = strlen(word);
    if (len == 0 || len > SUGGEST_MAX)
        return NULL;
    size_t limit = len / 3 > 1 ? len / 3 : 1;
    const char *best = NULL;
    size_t best_distance = limit + 1;
    for (size_t k = 0; k < n; k++) {
        size_t clen = strlen(candidates[k]);
        /* the distance is at least the difference in length */
        if (clen > SUGGEST_MAX || clen > len + limit || len > clen + limit)
            continue;
        size_t d = osa_distance(word, len, candidates[k], clen);
        if (d < best_distance) {
            best = candidates[k];
            best_distance = d;
        }
    }
    if (best || len < PREFIX_MIN_LEN)
        return best;
    const char *only = NULL;
    for (size_t k = 0; k < n; k++) {
        if (strlen(candidates[k]) <= len || strncasecmp(candidates[k], word, len) != 0)
            continue;
        if (only)
            return NULL; /* the prefix of several: no guess */
        only = candidates[k];
    }
    return only;
}
