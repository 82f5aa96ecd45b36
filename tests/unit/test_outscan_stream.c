/* tests/unit/test_outscan_stream.c - the output scan in stream mode
 * (launcher/outscan/outscan_stream.c): output fed in pieces must come out exactly as
 * the scan of the whole redacts it, whatever the cuts - a known value or a
 * rule's token split at every byte boundary, random cuts, one byte at a time -
 * clean output unchanged and released at once, and the bytes held back never
 * above the bound. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/outscan/outscan.h"

/* ---- helpers ---------------------------------------------------------- */

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
        cr_assert_not_null(s->buf);
    }
    memcpy(s->buf + s->len, bytes, len);
    s->len += len;
    s->buf[s->len] = '\0';
}

/* A scanner with a known value, a user pattern and the built-in rules. */
static const char VALUE[] = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd";

static struct pd_outscan *new_scan(void)
{
    struct pd_outscan *s = pd_outscan_new();
    cr_assert_not_null(s);
    cr_assert_eq(pd_outscan_add_value(s, VALUE, strlen(VALUE), "file .env"), 1);
    cr_assert_eq(pd_outscan_add_pattern(s, "acme", "prefix=ACME_ class=[A-Za-z0-9] min=20 max=40"),
                 0);
    cr_assert_eq(pd_outscan_add_pattern(s, "order", "ORD-####-*"), 0);
    return s;
}

/* The whole text scanned at once: the reference. */
static char *oneshot(struct pd_outscan *s, const char *text, size_t len, size_t *out_len,
                     size_t *nf)
{
    struct pd_outscan_result r;
    int n = pd_outscan_scan(s, text, len, &r);
    cr_assert_geq(n, 0);
    char *out = malloc(len + 1);
    cr_assert_not_null(out);
    if (r.out != NULL) {
        free(out);
        out = malloc(r.out_len + 1);
        memcpy(out, r.out, r.out_len + 1);
        *out_len = r.out_len;
    } else {
        memcpy(out, text, len);
        out[len] = '\0';
        *out_len = len;
    }
    *nf = (size_t)n;
    pd_outscan_result_free(&r);
    return out;
}

/* Feed text in the pieces that cuts[] (ascending offsets) make; check the
 * bound after every feed; returns the released bytes. */
static struct sink streamed(struct pd_outscan *s, const char *text, size_t len, const size_t *cuts,
                            size_t ncuts, size_t *total)
{
    struct sink out = {0};
    struct pd_outscan_stream *st = pd_outscan_stream_new(s);
    cr_assert_not_null(st);
    size_t at = 0;
    for (size_t k = 0; k <= ncuts; k++) {
        size_t to = k < ncuts ? cuts[k] : len;
        cr_assert_eq(pd_outscan_stream_feed(st, text + at, to - at, emit, &out), 0);
        at = to;
        cr_assert_leq(pd_outscan_stream_held(st), pd_outscan_stream_bound(st),
                      "held %zu > bound %zu", pd_outscan_stream_held(st),
                      pd_outscan_stream_bound(st));
        /* released + held == fed: nothing is lost or released twice before the end */
    }
    cr_assert_eq(pd_outscan_stream_finish(st, emit, &out), 0);
    cr_assert_eq(pd_outscan_stream_held(st), 0);
    pd_outscan_stream_findings(st, NULL, total);
    pd_outscan_stream_free(st);
    if (out.buf == NULL)
        emit(&out, "", 0);
    return out;
}

static void expect_same(struct pd_outscan *s, const char *text, size_t len, const size_t *cuts,
                        size_t ncuts)
{
    size_t want_len, want_n, got_n;
    char *want = oneshot(s, text, len, &want_len, &want_n);
    struct sink got = streamed(s, text, len, cuts, ncuts, &got_n);
    cr_assert_eq(got.len, want_len, "cut at %zu: length %zu want %zu\n got: %s\nwant: %s",
                 ncuts ? cuts[0] : 0, got.len, want_len, got.buf, want);
    cr_assert(memcmp(got.buf, want, want_len) == 0, "cut at %zu:\n got: %s\nwant: %s",
              ncuts ? cuts[0] : 0, got.buf, want);
    cr_assert_eq(got_n, want_n, "cut at %zu: %zu findings, want %zu", ncuts ? cuts[0] : 0, got_n,
                 want_n);
    free(want);
    free(got.buf);
}

/* Every split into two feeds. */
static void every_split(struct pd_outscan *s, const char *text)
{
    size_t len = strlen(text);
    for (size_t k = 0; k <= len; k++)
        expect_same(s, text, len, &k, 1);
}

/* ---- tests ------------------------------------------------------------ */

Test(outscan_stream, known_value_split_at_every_byte)
{
    struct pd_outscan *s = new_scan();
    char text[256];
    snprintf(text, sizeof text, "token=%s and again:%s\n", VALUE, VALUE);
    every_split(s, text);
    /* the value at the very start and the very end of the stream */
    every_split(s, VALUE);
    pd_outscan_free(s);
}

Test(outscan_stream, known_value_encodings_split_at_every_byte)
{
    struct pd_outscan *s = new_scan();
    /* base64 of "x" + VALUE (alignment 1) with padding, and hex */
    const char *cases[] = {
        "b64: eHpxOEtwMm1YdjdMcjRUbjlXYzNZYjZIZA==\n",
        "b64 url: enE4S3AybVh2N0xyNFRuOVdjM1liNkhk end\n",
        "hex: 7a71384b70326d5876374c7234546e39576333596236486420\n",
        "json: \"zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd\"",
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t nf, ol;
        char *o = oneshot(s, cases[k], strlen(cases[k]), &ol, &nf);
        cr_assert_geq(nf, 1, "the reference must find the value in: %s", cases[k]);
        free(o);
        every_split(s, cases[k]);
    }
    pd_outscan_free(s);
}

static const char *const TOKENS[] = {
    "AKIAQWERTYUIOPASDFGH",
    "ghp_0123456789abcdefghijABCDEFGHIJ0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "0123456789abcd",
    "glpat-abcdefghij0123456789",
    "xoxb-1234567890-abcdefghij",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "sk_live_0123456789abcdefghijklmnop",
    "sk-ant-api03-Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1",
    "sk-proj-Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1",
    "AIzaSyA0123456789abcdefghijklmnopqrstuv",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "npm_0123456789abcdefghijABCDEFGHIJ012345",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "https://deploy:Pr0d-Pa55w0rd-x@git.example.com/repo.git",
    "ACME_abcdefghij0123456789",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDk4N8fVxuq1ZPyDnrh7Km6EnUXqcS9yNqDQp7S1g5h5wAAAJg3Q8mSN0PJ\n"
    "-----END OPENSSH PRIVATE KEY-----",
    /* a key without its END line, followed by text that must survive */
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\nnot part of it",
    /* inside a JSON string: escaped newlines */
    "{\"key\": \"-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\\n"
    "-----END RSA PRIVATE KEY-----\\n\"}",
    "ORD-2024-abc123XYZ",
    /* word mode: `echo $KEY` */
    "-----BEGIN EC PRIVATE KEY----- MHcCAQEEIIrYSSNQFaA2Hwf1 duIbc0vIvtlYIIbCf0 -----END EC "
    "PRIVATE KEY-----",
};

Test(outscan_stream, rule_tokens_split_at_every_byte)
{
    struct pd_outscan *s = new_scan();
    for (size_t k = 0; k < sizeof TOKENS / sizeof TOKENS[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text, "log: %s\nnext line\n", TOKENS[k]);
        size_t nf, ol;
        char *o = oneshot(s, text, strlen(text), &ol, &nf);
        cr_assert_geq(nf, 1, "the reference must find a token in: %s", text);
        free(o);
        every_split(s, text);
        /* the token is the last thing printed, without a newline */
        snprintf(text, sizeof text, "%s", TOKENS[k]);
        every_split(s, text);
    }
    pd_outscan_free(s);
}

Test(outscan_stream, near_misses_split_at_every_byte)
{
    struct pd_outscan *s = new_scan();
    /* shapes that are not a match once complete: the stream must agree */
    const char *cases[] = {
        "AKIAQWERTYUIOPASDFGHx is a longer identifier\n",
        "xAKIAQWERTYUIOPASDFGH\n",
        "AKIAIOSFODNN7EXAMPLE from the docs\n",
        "ghp_short\n",
        "task-abcdefghijklmnopqrstuvwxyzabcdefghij-kebab\n",
        "https://github.com/org/repo and ssh://git@host:22/x\n",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
        "eyJhbGciOiJIUzI1NiJ9 then a dot. eyJ\n",
        "zq8Kp2mXv7Lr4Tn9Wc3Yb6H (one byte short)\n",
        "ACME_short\n",
        /* a prefix longer than 8 bytes, whole only up to its 8th byte
         * (tests/fuzz/corpus/outscan/slack-prefix-cut) */
        "log: https://hooks.slack.com/serpqrstuvwxyzABCDEF00000000/XXXXXXXXXXXXXXXXXXXXXX\n"
        "next line\n",
        "x github_pXt_11ABCDEFG0123456789abcd_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        "0123456 y\n",
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        every_split(s, cases[k]);
    pd_outscan_free(s);
}

/* A fixed-seed generator: the same cuts on every run. */
static uint32_t rnd(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

Test(outscan_stream, random_cuts_and_byte_at_a_time)
{
    struct pd_outscan *s = new_scan();
    /* a corpus of everything above, with plain lines between */
    size_t cap = 65536, len = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    for (size_t k = 0; k < sizeof TOKENS / sizeof TOKENS[0]; k++)
        len += (size_t)snprintf(text + len, cap - len, "step %zu: %s %s\nplain text line\n", k,
                                TOKENS[k], k % 3 ? VALUE : "");
    uint32_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        size_t cuts[64], n = 1 + rnd(&seed) % 63;
        for (size_t k = 0; k < n; k++)
            cuts[k] = rnd(&seed) % (len + 1);
        for (size_t a = 1; a < n; a++) /* insertion sort */
            for (size_t b = a; b > 0 && cuts[b - 1] > cuts[b]; b--) {
                size_t t = cuts[b];
                cuts[b] = cuts[b - 1];
                cuts[b - 1] = t;
            }
        expect_same(s, text, len, cuts, n);
    }
    size_t *every = malloc(len * sizeof *every);
    cr_assert_not_null(every);
    for (size_t k = 0; k < len; k++)
        every[k] = k;
    expect_same(s, text, len, every, len);
    free(every);
    free(text);
    pd_outscan_free(s);
}

Test(outscan_stream, clean_output_is_identical_and_released_at_once)
{
    struct pd_outscan *s = new_scan();
    struct pd_outscan_stream *st = pd_outscan_stream_new(s);
    cr_assert_not_null(st);
    struct sink out = {0};
    char line[128];
    size_t fed = 0;
    for (int k = 0; k < 2000; k++) {
        int n = snprintf(line, sizeof line,
                         "[%04d] compiling src/module_%d.c ... ok (https://example.com/x/%d)\n", k,
                         k, k);
        cr_assert_eq(pd_outscan_stream_feed(st, line, (size_t)n, emit, &out), 0);
        fed += (size_t)n;
        /* a whole line is decided: nothing of it waits */
        cr_assert_eq(pd_outscan_stream_held(st), 0, "line %d held %zu bytes", k,
                     pd_outscan_stream_held(st));
        cr_assert_eq(out.len, fed);
    }
    /* a line cut before its end waits only from where a secret could start */
    cr_assert_eq(pd_outscan_stream_feed(st, "progress 50% ", 13, emit, &out), 0);
    cr_assert_eq(pd_outscan_stream_held(st), 0);
    cr_assert_eq(pd_outscan_stream_feed(st, "key AKIA", 8, emit, &out), 0);
    cr_assert_eq(pd_outscan_stream_held(st), 4, "only 'AKIA' may be a secret's start");
    cr_assert_eq(pd_outscan_stream_feed(st, "!\n", 2, emit, &out), 0);
    cr_assert_eq(pd_outscan_stream_held(st), 0);
    cr_assert_eq(pd_outscan_stream_finish(st, emit, &out), 0);
    size_t n, total;
    pd_outscan_stream_findings(st, &n, &total);
    cr_assert_eq(n, 0);
    cr_assert_eq(total, 0);
    cr_assert(strstr(out.buf, "REDACTED") == NULL);
    cr_assert(strstr(out.buf, "key AKIA!\n") != NULL);
    pd_outscan_stream_free(st);
    free(out.buf);
    pd_outscan_free(s);
}

Test(outscan_stream, held_back_never_exceeds_the_bound)
{
    struct pd_outscan *s = new_scan();
    size_t bound;
    {
        struct pd_outscan_stream *st = pd_outscan_stream_new(s);
        bound = pd_outscan_stream_bound(st);
        pd_outscan_stream_free(st);
    }
    cr_assert_geq(bound, (size_t)64 * 1024, "the unbounded rules are capped at 64 KiB");
    cr_assert_lt(bound, (size_t)128 * 1024);
    /* a private key body that never ends: redacted, the rest withheld */
    size_t len = 0, cap = 400000;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    len += (size_t)snprintf(text, cap, "before\n-----BEGIN RSA PRIVATE KEY-----\n");
    while (len < 300000)
        len += (size_t)snprintf(text + len, cap - len, "%s\n",
                                "QyNTUxOQAAACDk4N8fVxuq1ZPyDnrh7Km6EnUXqcS9yNqDQp7S1g5h5wAAAJg3");
    size_t cuts[400];
    for (size_t k = 0; k < 400; k++)
        cuts[k] = (k + 1) * 700;
    size_t total;
    struct sink out = streamed(s, text, len, cuts, 400, &total);
    cr_assert_geq(total, 1);
    cr_assert(strstr(out.buf, "before\n[REDACTED:private-key]") == out.buf, "%.200s", out.buf);
    cr_assert(strstr(out.buf, "[WITHHELD:") != NULL);
    cr_assert(strstr(out.buf, "QyNTUxOQ") == NULL, "no body line may be released");
    free(out.buf);

    /* 200 KiB of token characters after "eyJ" (no JWT yet) and after "sk-"
     * (longer than any key): released, nothing found */
    for (int k = 0; k < 2; k++) {
        len = (size_t)snprintf(text, cap, "%s", k == 0 ? "eyJ" : "sk-");
        while (len < 200000) {
            text[len] = "Ab1-_"[len % 5];
            len++;
        }
        text[len] = '\0';
        size_t want_len, want_n;
        char *want = oneshot(s, text, len, &want_len, &want_n);
        out = streamed(s, text, len, cuts, 280, &total);
        cr_assert_eq(out.len, want_len);
        cr_assert(memcmp(out.buf, want, want_len) == 0);
        cr_assert_eq(total, want_n);
        free(want);
        free(out.buf);
    }
    free(text);
    pd_outscan_free(s);
}

/* A private key and a JWT several KiB long: when the cut comes, their start
 * is far from the end of the window (found by memmem, not byte by byte). */
Test(outscan_stream, long_keys_and_jwts_split_far_from_their_start)
{
    struct pd_outscan *s = new_scan();
    size_t cap = 65536, len = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    len += (size_t)snprintf(text + len, cap - len, "%s", "log line\n");
    len += (size_t)snprintf(text + len, cap - len, "-----BEGIN RSA PRIVATE KEY-----\n");
    for (int k = 0; k < 80; k++)
        len += (size_t)snprintf(text + len, cap - len, "%s\n",
                                "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB");
    len += (size_t)snprintf(text + len, cap - len, "-----END RSA PRIVATE KEY-----\nafter key\n");
    len += (size_t)snprintf(text + len, cap - len, "jwt: eyJ");
    for (int k = 0; k < 3000; k++)
        text[len++] = "Ab1_-"[k % 5];
    len += (size_t)snprintf(text + len, cap - len, ".eyJ");
    for (int k = 0; k < 3000; k++)
        text[len++] = "Zx9-_"[k % 5];
    len += (size_t)snprintf(text + len, cap - len, ".sigSIGsig done\n");
    size_t nf, ol;
    char *o = oneshot(s, text, len, &ol, &nf);
    cr_assert_eq(nf, 2, "the reference finds the key and the JWT");
    free(o);
    for (size_t k = 0; k <= len; k += 37)
        expect_same(s, text, len, &k, 1);
    size_t cuts[] = {100, 2000, 4000, 5500, 8000, 10500, 11000};
    cr_assert_lt(cuts[6], len);
    expect_same(s, text, len, cuts, sizeof cuts / sizeof cuts[0]);
    free(text);
    pd_outscan_free(s);
}

Test(outscan_stream, findings_name_rule_and_source)
{
    struct pd_outscan *s = new_scan();
    char text[256];
    snprintf(text, sizeof text, "%s AKIAQWERTYUIOPASDFGH %s", VALUE, VALUE);
    size_t cuts[] = {5, 30, 50};
    struct pd_outscan_stream *st = pd_outscan_stream_new(s);
    struct sink out = {0};
    size_t at = 0;
    for (size_t k = 0; k <= 3; k++) {
        size_t to = k < 3 ? cuts[k] : strlen(text);
        cr_assert_eq(pd_outscan_stream_feed(st, text + at, to - at, emit, &out), 0);
        at = to;
    }
    cr_assert_eq(pd_outscan_stream_finish(st, emit, &out), 0);
    size_t n, total;
    const struct pd_outscan_finding *f = pd_outscan_stream_findings(st, &n, &total);
    cr_assert_eq(n, 2, "one per distinct rule and source");
    cr_assert_eq(total, 3);
    cr_assert_str_eq(f[0].rule, "known-value");
    cr_assert_str_eq(f[0].source, "file .env");
    cr_assert_eq(f[0].offset, 0);
    cr_assert_eq(f[0].length, strlen(VALUE));
    cr_assert_str_eq(f[1].rule, "aws-access-key-id");
    cr_assert_str_eq(out.buf, "[REDACTED:known-value] [REDACTED:aws-access-key-id] "
                              "[REDACTED:known-value]");
    /* after finish: no more input */
    cr_assert_eq(pd_outscan_stream_feed(st, "x", 1, emit, &out), -1);
    pd_outscan_stream_free(st);
    free(out.buf);
    pd_outscan_free(s);
}

Test(outscan_stream, nul_bytes_and_disabled_rules)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_disable_rule(s, "jwt"), 0);
    const char text[] =
        "a\0b\0eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig\0zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd\0";
    size_t len = sizeof text - 1;
    for (size_t k = 0; k <= len; k++)
        expect_same(s, text, len, &k, 1);
    pd_outscan_free(s);
}

Test(outscan_stream, every_builtin_rule_has_a_stream_shape)
{
    size_t n;
    const char *const *names = pd_outscan_rule_names(&n);
    for (size_t k = 0; k < n; k++)
        cr_expect(pd_outscan_stream_knows_rule(names[k]),
                  "rule %s: add its shape to launcher/outscan/outscan_stream.c", names[k]);
}

Test(outscan_stream, no_values_no_patterns)
{
    struct pd_outscan *s = pd_outscan_new();
    cr_assert_not_null(s);
    every_split(s, "plain AKIAQWERTYUIOPASDFGH text\n");
    pd_outscan_free(s);
}
