/* launcher/hook/hook_input.c - read and check the PreToolUse JSON of a hook call.
 * Two inputs are refused because the client would run something other than
 * what Paldron judged: a NUL inside the text (cJSON's strings end at it, the
 * client's do not: the command would be judged up to the NUL and run whole)
 * and a key given twice in one object (cJSON finds the first, JavaScript's
 * JSON.parse and serde keep the last). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/hook/hook.h"

#define HOOK_INPUT_MAX (16u << 20)

char *pd_hook_read_stdin(size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap >= HOOK_INPUT_MAX) {
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                break;
            buf = nb;
        }
        ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        if (r == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        n += (size_t)r;
    }
    free(buf);
    return NULL;
}

/* A \u0000 escape (any case of the hex digits) outside of an escaped
 * backslash: "\\u0000" is the six characters, not a NUL. */
static bool escaped_nul(const char *text, size_t len)
{
    for (size_t k = 0; k + 5 < len; k++) {
        if (text[k] != '\\')
            continue;
        if (text[k + 1] == 'u' && text[k + 2] == '0' && text[k + 3] == '0' && text[k + 4] == '0' &&
            text[k + 5] == '0')
            return true;
        k++; /* skip the escaped character, a backslash included */
    }
    return false;
}

/* The first key that appears twice in one object, at any depth, or NULL. */
static const char *duplicate_key(const cJSON *node, unsigned depth)
{
    if (depth > 256)
        return "(nesting too deep)";
    for (const cJSON *a = node ? node->child : NULL; a; a = a->next) {
        if (cJSON_IsObject(node) && a->string)
            for (const cJSON *b = a->next; b; b = b->next)
                if (b->string && strcmp(a->string, b->string) == 0)
                    return a->string;
        const char *d = duplicate_key(a, depth + 1);
        if (d)
            return d;
    }
    return NULL;
}

int pd_hook_parse(const char *text, size_t len, struct cJSON **out, char *why, size_t whylen)
{
    *out = NULL;
    if (len == 0 || strspn(text, " \t\r\n") == len) {
        snprintf(why, whylen, "the hook input on stdin is empty");
        return -1;
    }
    if (strlen(text) != len) {
        snprintf(why, whylen, "the hook input holds a NUL byte at offset %zu", strlen(text));
        return -1;
    }
    if (escaped_nul(text, len)) {
        snprintf(why, whylen,
                 "the hook input holds a NUL character (\\u0000): Paldron would judge the text "
                 "up to it and the client run all of it");
        return -1;
    }
    const char *end = NULL;
    cJSON *in = cJSON_ParseWithOpts(text, &end, true);
    if (!in || !cJSON_IsObject(in)) {
        size_t off = end ? (size_t)(end - text) : 0;
        cJSON_Delete(in);
        snprintf(why, whylen, "the hook input is not a JSON object (error near byte %zu)", off);
        return -1;
    }
    const char *dup = duplicate_key(in, 0);
    if (dup) {
        snprintf(why, whylen,
                 "the hook input has the key \"%.64s\" twice in one object: Paldron would judge "
                 "one and the client use the other",
                 dup);
        cJSON_Delete(in);
        return -1;
    }
    *out = in;
    return 0;
}
