/* launcher/jev/jev_response.c - decoding of the jev response body
 * {"answers":{"secret_exposure":{"noul":p},"hostile_action":{"noul":p}}}.
 * Extra fields are ignored; everything the verdict depends on is checked:
 * one JSON value and nothing after it, the expected objects, each key at most
 * once, each probability a number in [0, 1]. Anything else is an error, so a
 * garbled answer fails closed instead of reading as 0. */
#include "launcher/jev/jev.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err != NULL && errlen > 0)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The member named key of obj, exactly (cJSON's plain lookup ignores case).
 * Returns 0 with *item (NULL when absent), or -1 when the key occurs twice. */
static int member(const cJSON *obj, const char *key, const cJSON **item)
{
    const cJSON *found = NULL;
    for (const cJSON *c = obj->child; c != NULL; c = c->next) {
        if (c->string == NULL || strcmp(c->string, key) != 0)
            continue;
        if (found != NULL)
            return -1;
        found = c;
    }
    *item = found;
    return 0;
}

/* One answer: {"noul": <number in [0, 1]>}. */
static int probability(const cJSON *answers, const char *name, double *p, char *err, size_t errlen)
{
    const cJSON *a;
    if (member(answers, name, &a) != 0)
        return fail(err, errlen, "jev: decode response: answers.%s occurs twice", name);
    if (a == NULL)
        return fail(err, errlen, "jev: response missing %s", name);
    if (!cJSON_IsObject(a))
        return fail(err, errlen, "jev: decode response: %s must be an object", name);
    const cJSON *n;
    if (member(a, "noul", &n) != 0)
        return fail(err, errlen, "jev: decode response: %s.noul occurs twice", name);
    if (n == NULL || !cJSON_IsNumber(n) || !isfinite(n->valuedouble) || n->valuedouble < 0.0 ||
        n->valuedouble > 1.0)
        return fail(err, errlen, "jev: decode response: %s.noul must be a number between 0 and 1",
                    name);
    *p = n->valuedouble;
    return 0;
}

static bool json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int pd_jev_parse_response(const char *body, size_t len, struct pd_jev_verdict *out, char *err,
                          size_t errlen)
{
    size_t i = 0;
    while (i < len && json_space(body[i]))
        i++;
    if (i == len)
        return fail(err, errlen, "jev: decode response: empty body");

    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (root == NULL) {
        size_t at = end != NULL && end >= body && end <= body + len ? (size_t)(end - body) : 0;
        return fail(err, errlen, "jev: decode response: invalid JSON at byte %zu", at);
    }
    for (size_t k = (size_t)(end - body); k < len; k++) {
        if (!json_space(body[k])) {
            cJSON_Delete(root);
            return fail(err, errlen, "jev: decode response: unexpected data after JSON at byte %zu",
                        k);
        }
    }

    int rc = -1;
    const cJSON *answers = NULL;
    struct pd_jev_verdict v = {0};
    if (!cJSON_IsObject(root)) {
        fail(err, errlen, "jev: decode response: body is not a JSON object");
        goto out;
    }
    if (member(root, "answers", &answers) != 0) {
        fail(err, errlen, "jev: decode response: answers occurs twice");
        goto out;
    }
    if (answers == NULL || cJSON_IsNull(answers)) {
        /* the original: no answers at all reads as the first missing answer */
        fail(err, errlen, "jev: response missing secret_exposure");
        goto out;
    }
    if (!cJSON_IsObject(answers)) {
        fail(err, errlen, "jev: decode response: answers must be an object");
        goto out;
    }
    if (probability(answers, "secret_exposure", &v.secret_exposure, err, errlen) != 0 ||
        probability(answers, "hostile_action", &v.hostile_action, err, errlen) != 0)
        goto out;
    *out = v;
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}
