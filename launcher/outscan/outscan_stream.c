/* launcher/outscan/outscan_stream.c - the output scan on a stream: bytes are fed as
 * they come and released, redacted, as soon as no secret can still cover
 * them (docs/output-scan.md, "Stream mode").
 *
 * Every feed scans a window: the last released bytes (context, so that a
 * match's left boundary and the trigger of url-credentials are seen) and the
 * held ones, with the new bytes after them. Then, from the first held byte
 * on, the window is searched for the earliest *open* position: one where a
 * match may start whose extent the bytes received so far do not decide - a
 * proper prefix of a needle or of a rule's or pattern's prefix, a base64
 * needle whose padding may still follow, or a rule's prefix whose body runs
 * to the end of the window. Everything before it is decided: its matches are
 * redacted (a component of overlapping matches is released whole or not at
 * all) and the rest goes out as it is. So only bytes that may be the start of
 * a secret wait, and they wait for the bytes that decide them (or the end of
 * the stream), never for a timer: a timer would have to release them undecided.
 *
 * The open tests below are written per rule: each one says "open" whenever
 * the rule's matcher (outscan_rules.c) could still change its answer, and may
 * say it more often (it then only holds bytes a little longer). A rule this
 * file does not know is open for 4 KiB after its prefix. The two rules with an
 * unbounded body (private-key, jwt) are capped at 64 KiB: a private key or a
 * complete JWT still open after that is redacted and the rest of its stream
 * withheld (it is a finding: the run is denied anyway); a JWT not yet complete
 * (no signature part) is released. With that, the bytes held never exceed
 * pd_outscan_stream_bound(). */
#include "launcher/outscan/outscan_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Released bytes kept in front of the held ones: the trigger of a
 * url-credentials match lies at most 3 + 256 + 1 bytes before the password it
 * redacts, plus the letter before it; every other match starts at its
 * trigger, or one byte before (base64 edges, left boundaries). */
#define CONTEXT 512
/* The most an unbounded rule (private-key, jwt) may hold back. */
#define CAP_UNBOUNDED ((size_t)64 * 1024)
/* A built-in rule without an entry in shapes[]. */
#define CAP_UNKNOWN ((size_t)4096)
/* A trigger that may hold more than this is looked for with memmem in the
 * older held bytes; every position nearer the end is checked one by one. */
#define FAR_SPAN ((size_t)2048)

#define TAG_OPEN "[REDACTED:"

/* ---- byte classes (the same as outscan_rules.c) ----------------------- */

static bool c_alnum(unsigned char c)
{
    return pd_os_is_alnum(c);
}

static bool c_word(unsigned char c)
{
    return pd_os_is_word(c);
}

static bool c_token(unsigned char c)
{
    return pd_os_is_word(c) || c == '-';
}

static bool c_upnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool c_alpha(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool c_slack(unsigned char c)
{
    return pd_os_is_alnum(c) || c == '-';
}

static bool c_path(unsigned char c)
{
    return c_token(c) || c == '/';
}

static bool c_b64body(unsigned char c)
{
    return pd_os_is_alnum(c) || c == '+' || c == '/' || c == '=';
}

static bool c_userinfo(unsigned char c)
{
    return c > ' ' && c != 0x7f && strchr("/?#@:\"'<>`\\", c) == NULL;
}

static bool c_password(unsigned char c)
{
    return c == ':' || c_userinfo(c);
}

/* ---- what decides each built-in rule ----------------------------------- */

enum walker { W_RUN, W_URL, W_JWT, W_PRIVATE_KEY };

/* W_RUN: after the prefix, a run of cls bytes; the match is decided by the
 * first byte outside cls or by the (max + 1)th byte of the run. */
struct shape {
    const char *rule;
    enum walker walker;
    bool (*cls)(unsigned char c);
    size_t max; /* W_RUN: longest run; others: the most bytes held after the prefix */
};

static const struct shape shapes[] = {
    {"private-key", W_PRIVATE_KEY, NULL, CAP_UNBOUNDED},
    {"aws-access-key-id", W_RUN, c_upnum, 16},
    {"github-token", W_RUN, c_alnum, 255},
    {"github-fine-grained-token", W_RUN, c_word, 255},
    {"gitlab-token", W_RUN, c_token, 255},
    {"slack-token", W_RUN, c_slack, 255},
    {"slack-webhook", W_RUN, c_path, 512},
    {"stripe-key", W_RUN, c_alnum, 255},
    {"anthropic-key", W_RUN, c_token, 1024},
    {"openai-key", W_RUN, c_token, 1024},
    {"google-api-key", W_RUN, c_token, 35},
    {"jwt", W_JWT, NULL, CAP_UNBOUNDED},
    {"npm-token", W_RUN, c_alnum, 36},
    {"huggingface-token", W_RUN, c_alpha, 34},
    /* user name up to 256, ':', password up to 256, '@' */
    {"url-credentials", W_URL, NULL, 256 + 1 + 256 + 1},
};

static const struct shape *shape_of(const char *rule)
{
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        if (strcmp(shapes[k].rule, rule) == 0)
            return &shapes[k];
    return NULL;
}

bool pd_outscan_stream_knows_rule(const char *rule)
{
    return shape_of(rule) != NULL;
}

/* ---- the stream --------------------------------------------------------- */

/* Something that may start a match: a rule's or a pattern's literal prefix. */
struct trigger {
    const unsigned char *bytes;
    size_t len;
    const struct shape *shape;           /* a rule (NULL for a pattern) */
    const struct pd_os_pattern *pattern; /* a pattern (NULL for a rule) */
    size_t span;                         /* the most bytes it holds from its start */
    size_t order;                        /* its place in the rule table, then patterns */
};

/* A needle, in the sorted table used to find the needles a held tail starts. */
struct sneedle {
    const unsigned char *b;
    size_t len;
    bool b64, lpart;
};

struct pd_outscan_stream {
    struct pd_outscan *scan;
    unsigned char *buf; /* context + held bytes; buf[0] is byte `base` of the stream */
    size_t len, cap;
    size_t base;     /* stream offset of buf[0] */
    size_t released; /* stream offset: every byte before it has been released */
    struct sneedle *needles;
    size_t nneedles, max_needle;
    struct trigger *trig; /* sorted by first byte */
    size_t ntrig;
    size_t tfirst[257];      /* the triggers starting with byte c: [tfirst[c], tfirst[c + 1]) */
    struct pd_os_set nfirst; /* bytes that start a needle */
    bool lpart;              /* some base64 needle may take the byte before it */
    size_t near;             /* positions this near the end are checked one by one */
    size_t *far;             /* the triggers of a span above FAR_SPAN (indices into trig) */
    size_t nfar;             /* how many */
    size_t nfar_cap;
    size_t bound;
    bool failed, finished;
    const char *withheld; /* the rule whose overlong match stopped the release, or NULL */
    struct pd_outscan_finding *findings;
    size_t nfindings, cfindings, total;
};

static int sneedle_cmp(const void *a, const void *b)
{
    const struct sneedle *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->b, y->b, n);
    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

/* By first byte, then in table order (rules before patterns). */
static int trigger_cmp(const void *a, const void *b)
{
    const struct trigger *x = a, *y = b;
    if (x->bytes[0] != y->bytes[0])
        return x->bytes[0] < y->bytes[0] ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static size_t pattern_span(const struct pd_os_pattern *p)
{
    size_t n = p->plen;
    for (size_t k = 0; k < p->nelems; k++)
        n += p->elems[k].max;
    return n + 1; /* the byte that ends the last element */
}

static int add_trigger(struct pd_outscan_stream *st, size_t *cap, const struct trigger *t)
{
    if (pd_os_grow((void **)&st->trig, cap, st->ntrig + 1, sizeof *st->trig) != 0)
        return -1;
    st->trig[st->ntrig] = *t;
    st->trig[st->ntrig].order = st->ntrig;
    st->ntrig++;
    if (t->span > st->bound)
        st->bound = t->span;
    return 0;
}

static int build_tables(struct pd_outscan_stream *st)
{
    struct pd_outscan *scan = st->scan;
    if (scan->dirty && pd_os_compile(scan) != 0)
        return -1;
    if (scan->nneedles > 0) {
        st->needles = calloc(scan->nneedles, sizeof *st->needles);
        if (st->needles == NULL)
            return -1;
    }
    for (size_t k = 0; k < scan->nneedles; k++) {
        const struct pd_os_needle *nd = &scan->needles[k];
        st->needles[k] = (struct sneedle){scan->arena + nd->off, nd->len,
                                          nd->kind == PD_OUTSCAN_KNOWN_BASE64, nd->lpart != 0};
        if (nd->len > st->max_needle)
            st->max_needle = nd->len;
        if (nd->len > 0)
            pd_os_set_add(&st->nfirst, scan->arena[nd->off]);
        st->lpart = st->lpart || (nd->kind == PD_OUTSCAN_KNOWN_BASE64 && nd->lpart);
    }
    st->nneedles = scan->nneedles;
    if (st->nneedles > 1)
        qsort(st->needles, st->nneedles, sizeof *st->needles, sneedle_cmp);
    /* a base64 match may take one byte before its needle and three after */
    st->bound = st->max_needle > 0 ? st->max_needle + 4 : 0;
    size_t cap = 0;
    for (size_t r = 0; r < pd_os_nrules; r++) {
        if ((scan->disabled_rules >> r) & 1u)
            continue;
        const struct shape *sh = shape_of(pd_os_rules[r].name);
        for (size_t k = 0; k < PD_OS_MAX_PREFIXES && pd_os_rules[r].prefixes[k]; k++) {
            const char *pre = pd_os_rules[r].prefixes[k];
            struct trigger t = {(const unsigned char *)pre, strlen(pre), sh, NULL, 0, 0};
            t.span = t.len + (sh ? sh->max : CAP_UNKNOWN) + 1;
            if (add_trigger(st, &cap, &t) != 0)
                return -1;
        }
    }
    for (size_t k = 0; k < scan->npatterns; k++) {
        const struct pd_os_pattern *p = &scan->patterns[k];
        struct trigger t = {p->prefix, p->plen, NULL, p, pattern_span(p), 0};
        if (add_trigger(st, &cap, &t) != 0)
            return -1;
    }
    if (st->ntrig > 1)
        qsort(st->trig, st->ntrig, sizeof *st->trig, trigger_cmp);
    size_t k = 0;
    for (unsigned c = 0; c < 256; c++) {
        st->tfirst[c] = k;
        while (k < st->ntrig && st->trig[k].bytes[0] == c)
            k++;
    }
    st->tfirst[256] = k;
    /* every needle prefix and partial trigger prefix lies near the end */
    st->near = st->max_needle + 3;
    for (size_t j = 0; j < st->ntrig; j++) {
        const struct trigger *t = &st->trig[j];
        if (t->len + 1 > st->near)
            st->near = t->len + 1;
        if (t->span <= FAR_SPAN) {
            if (t->span > st->near)
                st->near = t->span;
            continue;
        }
        if (pd_os_grow((void **)&st->far, &st->nfar_cap, st->nfar + 1, sizeof *st->far) != 0)
            return -1;
        st->far[st->nfar++] = j;
    }
    return 0;
}

struct pd_outscan_stream *pd_outscan_stream_new(struct pd_outscan *scan)
{
    if (scan == NULL) {
        errno = EINVAL;
        return NULL;
    }
    struct pd_outscan_stream *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->scan = scan;
    if (build_tables(st) != 0) {
        pd_outscan_stream_free(st);
        errno = ENOMEM;
        return NULL;
    }
    return st;
}

void pd_outscan_stream_free(struct pd_outscan_stream *st)
{
    if (st == NULL)
        return;
    free(st->buf);
    free(st->needles);
    free(st->trig);
    free(st->far);
    free(st->findings);
    free(st);
}

size_t pd_outscan_stream_bound(const struct pd_outscan_stream *st)
{
    return st->bound;
}

size_t pd_outscan_stream_held(const struct pd_outscan_stream *st)
{
    return st->base + st->len - st->released;
}

const struct pd_outscan_finding *pd_outscan_stream_findings(const struct pd_outscan_stream *st,
                                                            size_t *n, size_t *total)
{
    if (n != NULL)
        *n = st->nfindings;
    if (total != NULL)
        *total = st->total;
    return st->findings;
}

const char *pd_outscan_stream_withheld(const struct pd_outscan_stream *st)
{
    return st->withheld;
}

/* ---- open positions ----------------------------------------------------- */

/* Does a needle start with b[0..m) and go on (longer than m), or is a base64
 * needle equal to b[0..m - j) for j <= 2 (the matcher looks at the three bytes
 * after it: an edge character and two '=')? *lpart:
 * such a base64 needle may take the byte before it. */
static bool needle_open(const struct pd_outscan_stream *st, const unsigned char *b, size_t m,
                        bool *lpart)
{
    bool open = false;
    *lpart = false;
    for (size_t j = 0; j <= 2 && j <= m; j++) {
        size_t t = m - j;
        if (t == 0 || t > st->max_needle)
            continue;
        /* the first needle not below b[0..t) */
        size_t lo = 0, hi = st->nneedles;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const struct sneedle *nd = &st->needles[mid];
            size_t n = nd->len < t ? nd->len : t;
            int c = memcmp(nd->b, b, n);
            if (c < 0 || (c == 0 && nd->len < t))
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < st->nneedles; k++) {
            const struct sneedle *nd = &st->needles[k];
            if (nd->len < t || memcmp(nd->b, b, t) != 0)
                break;
            /* a proper prefix (the rest may follow), or a complete base64
             * needle (its edge and padding may follow) */
            if ((j == 0 && nd->len > t) || (nd->len == t && nd->b64)) {
                open = true;
                *lpart = *lpart || (nd->b64 && nd->lpart);
            }
        }
    }
    return open;
}

/* W_RUN: the prefix at i, then cls bytes up to the end of the window. */
static bool run_open(const struct shape *sh, const unsigned char *b, size_t n, size_t q)
{
    size_t count = 0;
    while (q < n && count <= sh->max && sh->cls(b[q])) {
        q++;
        count++;
    }
    return q == n && count <= sh->max;
}

/* A run of cls bytes from q, at most max: the position after it. */
static size_t skip_run(const unsigned char *b, size_t n, size_t q, bool (*cls)(unsigned char),
                       size_t max)
{
    size_t k = 0;
    while (q + k < n && k < max && cls(b[q + k]))
        k++;
    return q + k;
}

/* url-credentials: "://", user, ':', password, '@'. */
static bool url_open(const unsigned char *b, size_t n, size_t q)
{
    size_t colon = skip_run(b, n, q, c_userinfo, 256);
    if (colon >= n)
        return true;
    if (b[colon] != ':')
        return false;
    size_t at = skip_run(b, n, colon + 1, c_password, 256);
    return at >= n; /* '@' or not: decided once the byte after the password is known */
}

/* Does lit go on at q (b[q..n) is a prefix of it, or it is all there)?
 * Returns 1 when all of it is there, 0 when only a part is (the window ends),
 * -1 when a byte differs. */
static int lit_at(const unsigned char *b, size_t n, size_t q, const char *lit)
{
    size_t l = strlen(lit);
    size_t m = n - q < l ? n - q : l;
    if (memcmp(b + q, lit, m) != 0)
        return -1;
    return m == l ? 1 : 0;
}

/* jwt: "eyJ" token* '.' "eyJ" token* '.' token*. *complete: the signature
 * part has begun (the scan reports a match). */
static bool jwt_open(const unsigned char *b, size_t n, size_t q, bool *complete)
{
    *complete = false;
    q = skip_run(b, n, q, c_token, (size_t)-1);
    if (q >= n)
        return true;
    if (b[q] != '.')
        return false;
    int l = lit_at(b, n, q + 1, "eyJ");
    if (l <= 0)
        return l == 0;
    q = skip_run(b, n, q + 4, c_token, (size_t)-1);
    if (q >= n)
        return true;
    if (b[q] != '.')
        return false;
    *complete = q + 1 < n && c_token(b[q + 1]);
    q = skip_run(b, n, q + 1, c_token, (size_t)-1);
    return q >= n;
}

/* The separators of a key body: [ \t\r\n] or the escapes \n \r \t. Returns
 * the position after them, or n when they may go on past the window. */
static size_t pk_separators(const unsigned char *b, size_t n, size_t q)
{
    for (;;) {
        if (q >= n)
            return n;
        if (b[q] == '\n' || b[q] == '\r' || b[q] == ' ' || b[q] == '\t') {
            q++;
        } else if (b[q] == '\\') {
            if (q + 1 >= n)
                return n; /* an escape may follow */
            if (b[q + 1] != 'n' && b[q + 1] != 'r' && b[q + 1] != 't')
                return q;
            q += 2;
        } else {
            return q;
        }
    }
}

/* The armor line after "-----BEGIN " or "-----END " (at q): [A-Z0-9 ]{0,64}
 * then "-----". Returns 1 complete (*end after it, *priv: it names a
 * PRIVATE KEY), 0 open, -1 not an armor line. */
static int pk_armor(const unsigned char *b, size_t n, size_t q, size_t *end, bool *priv)
{
    size_t e = q;
    while (e < n && e - q < 64 && (c_upnum(b[e]) || b[e] == ' '))
        e++;
    if (e >= n)
        return 0;
    int l = lit_at(b, n, e, "-----");
    if (l <= 0)
        return l;
    static const char *const tails[] = {"PRIVATE KEY", "PRIVATE KEY BLOCK"};
    *priv = false;
    for (size_t k = 0; k < 2; k++) {
        size_t tl = strlen(tails[k]);
        if (e - q >= tl && memcmp(b + e - tl, tails[k], tl) == 0)
            *priv = true;
    }
    *end = e + 5;
    return 1;
}

/* private-key after "-----BEGIN " (at q): open while the armor line, or the
 * body after a private one, may still go on. The body walk accepts more than
 * the matcher (both line and word mode, headers anywhere): it may only hold
 * longer. *complete: a private key's armor line is there (a match). */
static bool pk_open(const unsigned char *b, size_t n, size_t q, bool *complete)
{
    size_t e;
    bool priv;
    *complete = false;
    int a = pk_armor(b, n, q, &e, &priv);
    if (a <= 0)
        return a == 0;
    if (!priv)
        return false;
    *complete = true;
    for (size_t p = e;;) {
        size_t s = pk_separators(b, n, p);
        if (s >= n)
            return true;
        if (s == p)
            return false; /* nothing separates the next line: the key ended */
        int l = lit_at(b, n, s, "-----");
        if (l == 0)
            return true;
        if (l > 0) {
            /* an END line ends it, anything else too: open only while the END
             * line is not complete */
            int el = lit_at(b, n, s, "-----END ");
            if (el == 0)
                return true;
            bool dummy;
            return el > 0 && pk_armor(b, n, s + 9, &e, &dummy) == 0;
        }
        size_t h = skip_run(b, n, s, c_slack, 64);
        if (h >= n)
            return true;
        if (h > s && b[h] == ':') { /* armor header: to the end of its line */
            size_t r = h;
            while (r < n && r - s < 256 && b[r] != '\n' && b[r] != '\r' && b[r] != '"' &&
                   b[r] != '\'' &&
                   !(b[r] == '\\' && (r + 1 >= n || b[r + 1] == 'n' || b[r + 1] == 'r')))
                r++;
            if (r >= n)
                return true;
            p = r;
            continue;
        }
        size_t r = skip_run(b, n, s, c_b64body, (size_t)-1);
        if (r >= n)
            return true;
        if (r == s)
            return false;
        unsigned char c = b[r];
        bool ends =
            c == '\n' || c == '\r' || c == '"' || c == '\'' || c == ' ' || c == '\t' || c == '\\';
        if (!ends)
            return false;
        p = r;
    }
}

/* A user pattern at q (its prefix matched): open while an element may still
 * take bytes, or the byte after the match is not there yet. */
static bool pattern_open(const struct pd_os_pattern *p, const unsigned char *b, size_t n, size_t q)
{
    for (size_t k = 0; k < p->nelems; k++) {
        const struct pd_os_elem *el = &p->elems[k];
        uint32_t c = 0;
        while (c < el->max && q < n && pd_os_set_has(&el->set, b[q])) {
            c++;
            q++;
        }
        if (q >= n && c < el->max)
            return true;
        if (c < el->min)
            return false;
    }
    return q >= n;
}

enum { OPEN_NO, OPEN_YES, OPEN_CAPPED };

/* The trigger t at position i of the window: is a match of it open there?
 * OPEN_CAPPED: an unbounded rule's match ran past its cap (*rule says which). */
static int trigger_open(const struct pd_outscan_stream *st, const struct trigger *t, size_t i,
                        const char **rule)
{
    const unsigned char *b = st->buf;
    const size_t n = st->len, m = n - i;
    if (m < t->len)
        return memcmp(b + i, t->bytes, m) == 0 ? OPEN_YES : OPEN_NO;
    if (memcmp(b + i, t->bytes, t->len) != 0)
        return OPEN_NO;
    const size_t q = i + t->len;
    if (t->pattern != NULL)
        return pattern_open(t->pattern, b, n, q) ? OPEN_YES : OPEN_NO;
    if (t->shape == NULL)
        return m <= t->span ? OPEN_YES : OPEN_NO;
    bool open = false, complete = false;
    switch (t->shape->walker) {
    case W_RUN:
        open = run_open(t->shape, b, n, q);
        break;
    case W_URL:
        open = url_open(b, n, q);
        break;
    case W_JWT:
        open = jwt_open(b, n, q, &complete);
        break;
    case W_PRIVATE_KEY:
        open = pk_open(b, n, q, &complete);
        break;
    }
    if (open && m > t->span) {
        /* past the cap: a match already there is forced, one that is not yet
         * a match is released */
        if (!complete)
            return OPEN_NO;
        *rule = t->shape->rule;
        return OPEN_CAPPED;
    }
    return open ? OPEN_YES : OPEN_NO;
}

/* Is position i of the window open (see the top of the file)? *start: where
 * its match may begin (i, or i - 1 for a base64 needle's edge). OPEN_CAPPED:
 * an unbounded rule's match ran past its cap (*rule says which). */
static int open_at(const struct pd_outscan_stream *st, size_t i, size_t *start, const char **rule)
{
    const unsigned char *b = st->buf;
    const size_t n = st->len, m = n - i;
    *start = i;
    bool lpart;
    if (m <= st->max_needle + 2 && pd_os_set_has(&st->nfirst, b[i]) &&
        needle_open(st, b + i, m, &lpart)) {
        if (lpart && i > 0)
            *start = i - 1;
        return OPEN_YES;
    }
    /* the last byte may be the partly determined edge of a base64 needle
     * that begins with the next byte */
    if (m == 1 && st->lpart && (pd_os_is_b64(b[i], false) || pd_os_is_b64(b[i], true)))
        return OPEN_YES;
    for (size_t k = st->tfirst[b[i]]; k < st->tfirst[b[i] + 1]; k++) {
        int o = trigger_open(st, &st->trig[k], i, rule);
        if (o != OPEN_NO)
            return o;
    }
    return OPEN_NO;
}

/* The earliest open position from the first held byte on (a stream offset;
 * the end of the window if none). Far from the end only a far trigger (a
 * private key, a JWT, a long pattern) can be open: those are found with
 * memmem; the last `near` bytes are checked one by one. */
static size_t first_open(const struct pd_outscan_stream *st, const char **capped)
{
    const size_t from = st->released - st->base, n = st->len;
    const size_t near_from = n - from > st->near ? n - st->near : from;
    size_t best = n; /* window index */
    for (size_t f = 0; f < st->nfar && near_from > from; f++) {
        /* from the first held byte: a trigger held since before its cap must
         * be seen to be forced (OPEN_CAPPED) */
        const struct trigger *t = &st->trig[st->far[f]];
        for (size_t i = from; i < near_from && i < best;) {
            const unsigned char *hit = memmem(st->buf + i, n - i, t->bytes, t->len);
            if (hit == NULL || (size_t)(hit - st->buf) >= near_from)
                break;
            i = (size_t)(hit - st->buf);
            const char *rule = NULL;
            int o = i < best ? trigger_open(st, t, i, &rule) : OPEN_NO;
            if (o != OPEN_NO) {
                best = i;
                *capped = o == OPEN_CAPPED ? rule : NULL;
                break;
            }
            i++;
        }
    }
    for (size_t i = near_from; i < n && i < best; i++) {
        size_t start;
        const char *rule = NULL;
        int o = open_at(st, i, &start, &rule);
        if (o != OPEN_NO) {
            best = start < from ? from : start;
            *capped = o == OPEN_CAPPED ? rule : NULL;
            break;
        }
    }
    return st->base + best;
}

/* ---- release ------------------------------------------------------------ */

static void note_finding(struct pd_outscan_stream *st, const struct pd_outscan_finding *f,
                         size_t offset, size_t length)
{
    st->total++;
    for (size_t k = 0; k < st->nfindings; k++) {
        const struct pd_outscan_finding *g = &st->findings[k];
        if (g->kind == f->kind && strcmp(g->rule, f->rule) == 0 &&
            (g->source == f->source ||
             (g->source && f->source && strcmp(g->source, f->source) == 0)))
            return;
    }
    if (pd_os_grow((void **)&st->findings, &st->cfindings, st->nfindings + 1,
                   sizeof *st->findings) != 0) {
        st->failed = true; /* a finding that cannot be kept must not pass unseen */
        return;
    }
    struct pd_outscan_finding g = *f;
    g.offset = offset;
    g.length = length;
    st->findings[st->nfindings++] = g;
}

struct sink {
    pd_outscan_emit_fn emit;
    void *arg;
    bool quiet; /* withheld: nothing more goes out */
};

static void put(const struct sink *k, const void *bytes, size_t len)
{
    if (len > 0 && !k->quiet)
        k->emit(k->arg, bytes, len);
}

static void put_clear(struct pd_outscan_stream *st, const struct sink *k, size_t upto)
{
    if (upto > st->released) {
        put(k, st->buf + (st->released - st->base), upto - st->released);
        st->released = upto;
    }
}

static void put_tag(const struct sink *k, const char *rule)
{
    put(k, TAG_OPEN, strlen(TAG_OPEN));
    put(k, rule, strlen(rule));
    put(k, "]", 1);
}

/* Stop releasing this stream: what is held from `released` goes out as one
 * redaction of rule (f: the finding it continues, NULL if none), then a
 * notice; the rest is still scanned (its findings count) but never released. */
static void withhold(struct pd_outscan_stream *st, const struct sink *k, const char *rule,
                     const struct pd_outscan_finding *f)
{
    static const char notice[] = "\n[WITHHELD: the rest of this stream (a match longer than "
                                 "64 KiB)]\n";
    struct pd_outscan_finding g = {.rule = rule, .kind = PD_OUTSCAN_FORMAT};
    const size_t end = st->base + st->len;
    if (f != NULL)
        note_finding(st, f, st->released, end - st->released);
    if (f == NULL || strcmp(f->rule, rule) != 0)
        note_finding(st, &g, st->released, end - st->released);
    put_tag(k, rule);
    put(k, notice, sizeof notice - 1);
    st->released = end;
    st->withheld = rule;
}

/* Scan the window and release what is decided (everything at eof). */
static int advance(struct pd_outscan_stream *st, pd_outscan_emit_fn emit, void *arg, bool eof)
{
    struct sink k = {emit, arg, st->withheld != NULL};
    const size_t end = st->base + st->len;
    /* the earliest open position (stream offset), end if none */
    size_t open = end;
    const char *capped = NULL; /* from `open` on, the match is forced and the rest withheld */
    if (!eof)
        open = first_open(st, &capped);
    struct pd_outscan_result res;
    const bool saved = st->scan->no_clean_copy;
    st->scan->no_clean_copy = true; /* only the spans are needed */
    int nf = pd_outscan_scan(st->scan, st->buf, st->len, &res);
    st->scan->no_clean_copy = saved;
    if (nf < 0) {
        st->failed = true;
        return -1;
    }
    const struct pd_outscan_finding *at_open = NULL;
    for (size_t j = 0; j < res.n_findings; j++) {
        const struct pd_outscan_finding *f = &res.findings[j];
        size_t cs = st->base + f->offset, ce = cs + f->length;
        if (ce <= st->released)
            continue; /* released before (context) */
        if (cs < st->released)
            cs = st->released; /* the rest of a forced match */
        if (ce > open) {
            /* not decided yet: held whole, from where it starts. Overlapping
             * matches may chain past the bound: the first of them is decided,
             * so the chain is a finding either way, and it is forced. */
            if (cs < open) {
                open = cs;
                if (!capped && end - cs > st->bound)
                    capped = f->rule;
            }
            if (cs == open)
                at_open = f;
            break;
        }
        put_clear(st, &k, cs);
        note_finding(st, f, cs, ce - cs);
        put_tag(&k, f->rule);
        st->released = ce;
    }
    put_clear(st, &k, open);
    if (capped)
        withhold(st, &k, capped, at_open);
    pd_outscan_result_free(&res);
    if (st->failed)
        return -1;
    /* keep CONTEXT released bytes in front of the held ones */
    size_t keep_from = st->released > st->base + CONTEXT ? st->released - CONTEXT : st->base;
    if (keep_from > st->base) {
        size_t drop = keep_from - st->base;
        memmove(st->buf, st->buf + drop, st->len - drop);
        st->len -= drop;
        st->base = keep_from;
    }
    return 0;
}

int pd_outscan_stream_feed(struct pd_outscan_stream *st, const void *buf, size_t len,
                           pd_outscan_emit_fn emit, void *arg)
{
    if (st == NULL || emit == NULL || (buf == NULL && len > 0) || st->finished) {
        errno = EINVAL;
        return -1;
    }
    if (st->failed) {
        errno = ENOMEM;
        return -1;
    }
    if (len == 0)
        return 0;
    if (len > SIZE_MAX / 4 - st->len) {
        st->failed = true;
        errno = ENOMEM;
        return -1;
    }
    if (st->len + len > st->cap) {
        size_t cap = st->cap ? st->cap : 4096;
        while (cap < st->len + len)
            cap *= 2;
        unsigned char *nb = realloc(st->buf, cap);
        if (nb == NULL) {
            st->failed = true;
            errno = ENOMEM;
            return -1;
        }
        st->buf = nb;
        st->cap = cap;
    }
    memcpy(st->buf + st->len, buf, len);
    st->len += len;
    if (advance(st, emit, arg, false) != 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int pd_outscan_stream_finish(struct pd_outscan_stream *st, pd_outscan_emit_fn emit, void *arg)
{
    if (st == NULL || emit == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (st->finished)
        return 0;
    if (st->failed) {
        errno = ENOMEM;
        return -1;
    }
    int rc = advance(st, emit, arg, true);
    st->finished = true;
    if (rc != 0)
        errno = ENOMEM;
    return rc;
}
