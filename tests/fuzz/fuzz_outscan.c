/* tests/fuzz/fuzz_outscan.c - libFuzzer target for the output scanner
 * (launcher/outscan/): a captured buffer scanned whole, and the same bytes
 * fed to the stream scanner in pieces the input chooses. Built by
 * tests/fuzz/CMakeLists.txt, run by tests/fuzz/run.sh (corpus
 * tests/fuzz/corpus/outscan, dictionary tests/fuzz/outscan.dict).
 * Input: a header byte H, then (H >> 2 & 7) bytes of piece lengths (used in
 * turn), then the rest. H & 3 picks the scanner:
 *   0  a fixed one: the built-in rules, a known value, two user patterns;
 *   1  a fresh one, with the text up to the first NUL as a user pattern
 *      (pd_outscan_add_pattern's language);
 *   2  a fresh one, with that text as a secret file (add_secret_text);
 *   3  a fresh one, with that text as an environment ("NAME=value" lines);
 * the bytes after that NUL (all of the rest in mode 0) are scanned.
 * Invariants checked: findings sorted, non-overlapping, within the buffer,
 * with a rule name; the redacted copy is exactly the input with each
 * finding replaced by "[REDACTED:<rule>]"; the stream, however it is cut,
 * releases exactly that copy with as many findings, never holding more than
 * its bound (inputs below 64 KiB: a longer one may hit the caps, where the
 * rest of a stream is withheld); a second scan gives the same. */
#include "tests/fuzz/fuzz_common.h"

#include "launcher/outscan/outscan.h"

static struct pd_outscan *fixed;
static const char VALUE[] = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd";

static void add_fixed(struct pd_outscan *s)
{
    if (pd_outscan_add_value(s, VALUE, strlen(VALUE), "file .env") != 1 ||
        pd_outscan_add_pattern(s, "acme", "prefix=ACME_ class=[A-Za-z0-9] min=20 max=40") != 0 ||
        pd_outscan_add_pattern(s, "order", "ORD-####-*") != 0)
        fz_setup_fail("outscan values");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fixed = pd_outscan_new();
    if (!fixed)
        fz_setup_fail("pd_outscan_new");
    add_fixed(fixed);
    return 0;
}

struct sink {
    char *buf;
    size_t len, cap;
};

static void emit(void *arg, const void *bytes, size_t len)
{
    struct sink *s = arg;
    if (s->len + len + 1 > s->cap) {
        s->cap = (s->len + len + 1) * 2;
        s->buf = realloc(s->buf, s->cap);
        CHECK(s->buf != NULL);
    }
    if (len)
        memcpy(s->buf + s->len, bytes, len);
    s->len += len;
}

static void check_result(const uint8_t *b, size_t len, const struct pd_outscan_result *r, int n)
{
    CHECK((size_t)n == r->n_findings);
    CHECK(r->n_findings == 0 || r->findings != NULL);
    /* rebuild the redacted copy */
    size_t want_cap = len + 1;
    for (size_t i = 0; i < r->n_findings; i++)
        want_cap += 12 + (r->findings[i].rule ? strlen(r->findings[i].rule) : 0);
    char *want = malloc(want_cap);
    CHECK(want != NULL);
    size_t o = 0, p = 0;
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct pd_outscan_finding *f = &r->findings[i];
        CHECK(f->rule != NULL && f->rule[0] != '\0');
        CHECK((int)f->kind >= PD_OUTSCAN_KNOWN_VALUE && (int)f->kind <= PD_OUTSCAN_PATTERN);
        CHECK(f->length > 0 && f->offset >= p && f->offset + f->length <= len);
        if (f->kind <= PD_OUTSCAN_KNOWN_HEX)
            CHECK(f->source != NULL);
        memcpy(want + o, b + p, f->offset - p);
        o += f->offset - p;
        o += (size_t)sprintf(want + o, "[REDACTED:%s]", f->rule);
        p = f->offset + f->length;
    }
    memcpy(want + o, b + p, len - p);
    o += len - p;
    if (r->out) {
        CHECK(r->out_len == o && r->out[o] == '\0');
        CHECK(memcmp(r->out, want, o) == 0);
    } else {
        CHECK(r->n_findings == 0 && r->out_len == 0);
    }
    free(want);
}

/* Scan b whole, then as a stream in the pieces cuts[] give (in turn). */
static void scan_both(struct pd_outscan *s, const uint8_t *b, size_t len, const uint8_t *cuts,
                      size_t ncuts)
{
    struct pd_outscan_result r, r2;
    int n = pd_outscan_scan(s, b, len, &r);
    if (n < 0) {
        CHECK(errno == ENOMEM);
        return;
    }
    check_result(b, len, &r, n);
    CHECK(pd_outscan_scan(s, b, len, &r2) == n);
    CHECK(r2.out_len == r.out_len && (!r.out || memcmp(r.out, r2.out, r.out_len) == 0));
    pd_outscan_result_free(&r2);

    struct pd_outscan_stream *st = pd_outscan_stream_new(s);
    CHECK(st != NULL);
    struct sink got = {0};
    size_t at = 0, k = 0;
    const size_t bound = pd_outscan_stream_bound(st);
    while (at < len) {
        size_t piece = ncuts ? cuts[k++ % ncuts] : len;
        if (piece > len - at)
            piece = len - at;
        CHECK(pd_outscan_stream_feed(st, b + at, piece, emit, &got) == 0);
        at += piece;
        CHECK(pd_outscan_stream_held(st) <= bound);
        if (ncuts && k > 4 * len + 8)
            ncuts = 0; /* only zero-length pieces: feed the rest at once */
    }
    CHECK(pd_outscan_stream_finish(st, emit, &got) == 0);
    CHECK(pd_outscan_stream_held(st) == 0);
    CHECK(pd_outscan_stream_finish(st, emit, &got) == 0); /* a second call does nothing */
    size_t nf = 0, total = 0;
    const struct pd_outscan_finding *f = pd_outscan_stream_findings(st, &nf, &total);
    CHECK(nf == 0 || f != NULL);
    CHECK(nf <= total);
    /* the caps (docs/output-scan.md, "Caps") need a match open for 64 KiB:
     * then the rest is withheld and the stream differs from the whole */
    if (pd_outscan_stream_withheld(st) != NULL) {
        CHECK(len >= 65536);
        free(got.buf);
        pd_outscan_stream_free(st);
        pd_outscan_result_free(&r);
        return;
    }
    const char *want = r.out ? r.out : (const char *)b;
    const size_t want_len = r.out ? r.out_len : len;
    if (got.len != want_len || (want_len && memcmp(got.buf, want, want_len) != 0)) {
        fprintf(stderr, "stream (%zu pieces of", ncuts);
        for (size_t i = 0; i < ncuts; i++)
            fprintf(stderr, " %u", cuts[i]);
        fprintf(stderr, "):\n%.*s\nwhole:\n%.*s\n", (int)got.len, got.buf ? got.buf : "",
                (int)want_len, want);
        FAIL("the stream releases what the whole scan redacts");
    }
    CHECK(total == r.n_findings);
    free(got.buf);
    pd_outscan_stream_free(st);
    pd_outscan_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t h = data[0];
    size_t ncuts = (h >> 2) & 7;
    if (size < 1 + ncuts)
        return 0;
    const uint8_t *cuts = data + 1;
    const uint8_t *rest = data + 1 + ncuts;
    size_t rlen = size - 1 - ncuts;
    const int mode = h & 3;
    const bool copy_clean = !(h & 0x20);

    if (mode == 0) {
        pd_outscan_copy_clean(fixed, copy_clean);
        scan_both(fixed, rest, rlen, cuts, ncuts);
        return 0;
    }
    const uint8_t *nul = memchr(rest, '\0', rlen);
    size_t tlen = nul ? (size_t)(nul - rest) : rlen;
    char *text = fz_cstr(rest, tlen);
    const uint8_t *body = nul ? nul + 1 : rest + rlen;
    size_t blen = nul ? rlen - tlen - 1 : 0;

    struct pd_outscan *s = pd_outscan_new();
    CHECK(s != NULL);
    pd_outscan_copy_clean(s, copy_clean);
    if (mode == 1) {
        int rc = pd_outscan_add_pattern(s, "fuzz", text);
        if (rc != 0) {
            CHECK(errno == EINVAL || errno == ENOMEM);
            if (errno == EINVAL)
                CHECK(pd_outscan_last_error(s)[0] != '\0');
        }
    } else if (mode == 2) {
        int n = pd_outscan_add_secret_text(s, text, tlen, "file fuzz.env");
        CHECK(n >= 0 || errno == ENOMEM);
        CHECK(n <= 0 || pd_outscan_value_count(s) > 0);
    } else {
        /* NAME=value lines as an environment */
        char *envp[64];
        size_t ne = 0;
        for (char *line = text; line && ne + 1 < sizeof envp / sizeof envp[0];) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            envp[ne++] = line;
            line = nl ? nl + 1 : NULL;
        }
        envp[ne] = NULL;
        int n = pd_outscan_add_env(s, envp);
        CHECK(n >= 0 || errno == ENOMEM);
    }
    scan_both(s, body, blen, cuts, ncuts);
    pd_outscan_free(s);
    free(text);
    return 0;
}
