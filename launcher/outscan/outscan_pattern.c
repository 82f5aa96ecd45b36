/* launcher/outscan/outscan_pattern.c - the small pattern language of extra output-scan
 * rules (policy). Two spellings compile to the same form: a literal prefix of
 * at least three bytes (what the prefilter triggers on) followed by elements,
 * each a byte set with a repeat range, matched possessively (an element takes
 * as many bytes as it can and never gives any back), so matching is linear.
 *
 *   prefix=ACME_ class=[A-Za-z0-9] min=20 max=40 [boundary=yes|no]
 *   ACME_????????     ? one [A-Za-z0-9], # one [0-9], * 1 to 256 [A-Za-z0-9],
 *                     \c the byte c itself, anything else literal
 *
 * docs/output-scan.md is the user documentation. */
#include "launcher/outscan/outscan_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAT_MAX_ELEMS  64
#define PAT_MAX_REPEAT 4096
#define PAT_STAR_MAX   256

struct builder {
    unsigned char prefix[256];
    size_t plen;
    struct pd_os_elem elems[PAT_MAX_ELEMS];
    size_t nelems;
    char *err;
    size_t errlen;
};

static int fail(struct builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, b->errlen, fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return -1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One possibly escaped byte at *s (\\, \xHH, \c); advances *s. -1 on a bad escape. */
static int read_byte(const char **s)
{
    const char *p = *s;
    if (*p != '\\') {
        *s = p + 1;
        return (unsigned char)*p;
    }
    if (p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
        *s = p + 4;
        return hexval(p[2]) * 16 + hexval(p[3]);
    }
    if (p[1] == '\0')
        return -1;
    *s = p + 2;
    return (unsigned char)p[1];
}

static int add_elem(struct builder *b, const struct pd_os_set *set, uint32_t min, uint32_t max)
{
    if (b->nelems > 0) {
        struct pd_os_elem *last = &b->elems[b->nelems - 1];
        if (memcmp(&last->set, set, sizeof(*set)) == 0 && last->max + max <= PAT_MAX_REPEAT) {
            last->min += min;
            last->max += max;
            return 0;
        }
    }
    if (b->nelems == PAT_MAX_ELEMS)
        return fail(b, "pattern too long (more than %d elements)", PAT_MAX_ELEMS);
    b->elems[b->nelems].set = *set;
    b->elems[b->nelems].min = min;
    b->elems[b->nelems].max = max;
    b->nelems++;
    return 0;
}

static int add_literal(struct builder *b, unsigned char c)
{
    if (b->nelems == 0) {
        if (b->plen == sizeof(b->prefix))
            return fail(b, "pattern prefix longer than %zu bytes", sizeof(b->prefix));
        b->prefix[b->plen++] = c;
        return 0;
    }
    struct pd_os_set set = {{0}};
    pd_os_set_add(&set, c);
    /* literals never merge: a repeated literal is two elements of one byte */
    if (b->nelems == PAT_MAX_ELEMS)
        return fail(b, "pattern too long (more than %d elements)", PAT_MAX_ELEMS);
    b->elems[b->nelems].set = set;
    b->elems[b->nelems].min = b->elems[b->nelems].max = 1;
    b->nelems++;
    return 0;
}

static void set_range(struct pd_os_set *set, unsigned char lo, unsigned char hi)
{
    for (unsigned c = lo; c <= hi; c++)
        pd_os_set_add(set, (unsigned char)c);
}

static int compile_glob(struct builder *b, const char *s, bool *wild_last)
{
    struct pd_os_set alnum = {{0}}, digit = {{0}};
    set_range(&alnum, '0', '9');
    set_range(&alnum, 'A', 'Z');
    set_range(&alnum, 'a', 'z');
    set_range(&digit, '0', '9');
    while (*s != '\0') {
        int rc;
        *wild_last = true;
        if (*s == '?') {
            rc = b->plen < 3 ? -2 : add_elem(b, &alnum, 1, 1);
            s++;
        } else if (*s == '#') {
            rc = b->plen < 3 ? -2 : add_elem(b, &digit, 1, 1);
            s++;
        } else if (*s == '*') {
            rc = b->plen < 3 ? -2 : add_elem(b, &alnum, 1, PAT_STAR_MAX);
            s++;
        } else {
            int c = read_byte(&s);
            if (c < 0)
                return fail(b, "pattern ends with a lone backslash");
            rc = add_literal(b, (unsigned char)c);
            *wild_last = false;
        }
        if (rc == -2)
            return fail(b, "pattern must start with at least 3 literal bytes");
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int parse_class(struct builder *b, const char *v, struct pd_os_set *set)
{
    if (*v != '[')
        return fail(b, "class must be written [...], e.g. [A-Za-z0-9]");
    const char *s = v + 1;
    bool any = false;
    while (*s != ']') {
        if (*s == '\0')
            return fail(b, "class has no closing ]");
        int lo = read_byte(&s);
        if (lo < 0)
            return fail(b, "class ends with a lone backslash");
        int hi = lo;
        if (s[0] == '-' && s[1] != ']' && s[1] != '\0') {
            s++;
            hi = read_byte(&s);
            if (hi < 0 || hi < lo)
                return fail(b, "bad range in class");
        }
        set_range(set, (unsigned char)lo, (unsigned char)hi);
        any = true;
    }
    if (!any)
        return fail(b, "class is empty");
    if (s[1] != '\0')
        return fail(b, "unexpected text after class ]");
    return 0;
}

static int parse_count(struct builder *b, const char *key, const char *v, uint32_t *out)
{
    char *endp;
    errno = 0;
    unsigned long n = strtoul(v, &endp, 10);
    if (*v < '0' || *v > '9' || *endp != '\0' || errno != 0 || n < 1 || n > PAT_MAX_REPEAT)
        return fail(b, "%s must be a number from 1 to %d", key, PAT_MAX_REPEAT);
    *out = (uint32_t)n;
    return 0;
}

static int compile_kv(struct builder *b, const char *src, bool *boundary)
{
    char buf[1024];
    size_t srclen = strlen(src);
    if (srclen >= sizeof(buf))
        return fail(b, "pattern too long");
    memcpy(buf, src, srclen + 1);
    bool seen_prefix = false, seen_class = false, seen_min = false, seen_max = false;
    bool seen_boundary = false;
    struct pd_os_set set = {{0}};
    uint32_t min = 1, max = PAT_STAR_MAX;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            return fail(b, "expected key=value, got '%s'", tok);
        *eq = '\0';
        const char *v = eq + 1;
        int rc = 0;
        bool dup;
        if (strcmp(tok, "prefix") == 0) {
            dup = seen_prefix;
            seen_prefix = true;
            const char *s = v;
            while (*s != '\0' && rc == 0) {
                int c = read_byte(&s);
                rc = c < 0 ? fail(b, "prefix ends with a lone backslash")
                           : add_literal(b, (unsigned char)c);
            }
        } else if (strcmp(tok, "class") == 0) {
            dup = seen_class;
            seen_class = true;
            rc = parse_class(b, v, &set);
        } else if (strcmp(tok, "min") == 0) {
            dup = seen_min;
            seen_min = true;
            rc = parse_count(b, "min", v, &min);
        } else if (strcmp(tok, "max") == 0) {
            dup = seen_max;
            seen_max = true;
            rc = parse_count(b, "max", v, &max);
        } else if (strcmp(tok, "boundary") == 0) {
            dup = seen_boundary;
            seen_boundary = true;
            if (strcmp(v, "yes") == 0)
                *boundary = true;
            else if (strcmp(v, "no") == 0)
                *boundary = false;
            else
                rc = fail(b, "boundary must be yes or no");
        } else {
            return fail(b, "unknown pattern key '%s' (prefix, class, min, max, boundary)", tok);
        }
        if (dup)
            return fail(b, "pattern key '%s' given twice", tok);
        if (rc != 0)
            return rc;
    }
    if (!seen_class)
        return fail(b, "pattern needs class=[...]");
    if (!seen_max && max < min)
        max = min;
    if (max < min)
        return fail(b, "max (%u) is less than min (%u)", (unsigned)max, (unsigned)min);
    if (b->plen < 3)
        return fail(b, "prefix must be at least 3 bytes");
    return add_elem(b, &set, min, max);
}

int pd_os_pattern_compile(struct pd_os_pattern *p, const char *src, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    struct builder *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return -1;
    b->err = err;
    b->errlen = errlen;
    while (*src == ' ' || *src == '\t')
        src++;
    size_t n = strlen(src);
    while (n > 0 && (src[n - 1] == ' ' || src[n - 1] == '\t'))
        n--;
    char *copy = strndup(src, n);
    if (copy == NULL) {
        free(b);
        return -1;
    }
    bool boundary = true, wild_last = true;
    int rc;
    if (strncmp(copy, "prefix=", 7) == 0)
        rc = compile_kv(b, copy, &boundary);
    else
        rc = compile_glob(b, copy, &wild_last);
    free(copy);
    if (rc == 0 && b->plen < 3)
        rc = fail(b, "pattern must start with at least 3 literal bytes");
    if (rc == 0) {
        p->prefix = malloc(b->plen);
        p->elems = malloc((b->nelems > 0 ? b->nelems : 1) * sizeof(*p->elems));
        if (p->prefix == NULL || p->elems == NULL) {
            pd_os_pattern_free(p);
            free(b);
            errno = ENOMEM;
            return -1;
        }
        memcpy(p->prefix, b->prefix, b->plen);
        p->plen = b->plen;
        memcpy(p->elems, b->elems, b->nelems * sizeof(*p->elems));
        p->nelems = b->nelems;
        p->left_bound = boundary && pd_os_is_word(p->prefix[0]);
        p->right_bound = boundary && wild_last && p->nelems > 0;
    }
    free(b);
    return rc;
}

bool pd_os_pattern_match(const struct pd_os_pattern *p, const unsigned char *buf, size_t len,
                         size_t at, size_t *end)
{
    if (len - at < p->plen || memcmp(buf + at, p->prefix, p->plen) != 0)
        return false;
    if (p->left_bound && at > 0 && pd_os_is_word(buf[at - 1]))
        return false;
    size_t q = at + p->plen;
    for (size_t i = 0; i < p->nelems; i++) {
        const struct pd_os_elem *e = &p->elems[i];
        uint32_t k = 0;
        while (k < e->max && q < len && pd_os_set_has(&e->set, buf[q])) {
            k++;
            q++;
        }
        if (k < e->min)
            return false;
    }
    if (p->right_bound && q < len && pd_os_set_has(&p->elems[p->nelems - 1].set, buf[q]))
        return false;
    *end = q;
    return true;
}

void pd_os_pattern_free(struct pd_os_pattern *p)
{
    free(p->name);
    free(p->prefix);
    free(p->elems);
    memset(p, 0, sizeof(*p));
}
