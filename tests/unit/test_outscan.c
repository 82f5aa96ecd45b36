/* tests/unit/test_outscan.c - the output scanner (launcher/outscan/outscan.h): every
 * format rule and its near misses, known values raw / base64 / hex, trivial
 * values, secret-file and environment parsing, user patterns, overlaps, NUL
 * bytes, exact redaction and a 1 MiB buffer. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/outscan/outscan.h"

/* ---- helpers ---------------------------------------------------------- */

static struct pd_outscan *new_scan(void)
{
    struct pd_outscan *s = pd_outscan_new();
    cr_assert_not_null(s);
    return s;
}

/* Scan text (strlen) and compare the redacted copy with want. */
static void expect_out(struct pd_outscan *s, const char *text, const char *want)
{
    struct pd_outscan_result r;
    int n = pd_outscan_scan(s, text, strlen(text), &r);
    cr_assert_geq(n, 0);
    cr_expect_eq(r.out_len, strlen(want), "length %zu want %zu for: %s\n got: %s", r.out_len,
                 strlen(want), text, r.out);
    cr_expect_str_eq(r.out, want, "for input: %s", text);
    pd_outscan_result_free(&r);
}

/* Scan text and return the number of findings; *rule gets the first rule. */
static int scan_count(struct pd_outscan *s, const char *text, const char **rule)
{
    struct pd_outscan_result r;
    int n = pd_outscan_scan(s, text, strlen(text), &r);
    cr_assert_geq(n, 0);
    if (rule != NULL)
        *rule = n > 0 ? r.findings[0].rule : NULL;
    pd_outscan_result_free(&r);
    return n;
}

static void expect_rule(const char *text, const char *rule)
{
    struct pd_outscan *s = new_scan();
    const char *got = NULL;
    int n = scan_count(s, text, &got);
    cr_expect_eq(n, 1, "want 1 finding (%s) in: %s, got %d", rule, text, n);
    if (n >= 1)
        cr_expect_str_eq(got, rule, "in: %s", text);
    pd_outscan_free(s);
}

static void expect_clean(const char *text)
{
    struct pd_outscan *s = new_scan();
    const char *got = NULL;
    int n = scan_count(s, text, &got);
    cr_expect_eq(n, 0, "want no finding in: %s, got %d (%s)", text, n, got ? got : "");
    pd_outscan_free(s);
}

/* Deterministic [A-Za-z0-9] text of n bytes. */
static void alnum(char *out, size_t n, unsigned seed)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = a[x % 62];
    }
    out[n] = '\0';
}

static char *cat3(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c);
    char *s = malloc(n + 1);
    cr_assert_not_null(s);
    snprintf(s, n + 1, "%s%s%s", a, b, c);
    return s;
}

/* prefix + n generated alnum characters. */
static char *token(const char *prefix, size_t n, unsigned seed)
{
    char body[512];
    cr_assert_lt(n, sizeof(body));
    alnum(body, n, seed);
    return cat3(prefix, body, "");
}

static void expect_rule_tok(const char *prefix, size_t n, const char *rule)
{
    char *t = token(prefix, n, 7);
    char *line = cat3("value: ", t, " end");
    expect_rule(line, rule);
    free(line);
    free(t);
}

static void expect_clean_tok(const char *before, const char *prefix, size_t n, const char *after)
{
    char *t = token(prefix, n, 7);
    char *line = cat3(before, t, after);
    expect_clean(line);
    free(line);
    free(t);
}

/* Standard or URL-safe base64, with padding. */
static char *b64(const unsigned char *p, size_t n, bool url)
{
    const char *a = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                        : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(4 * (n / 3 + 1) + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        o[k++] = a[(v >> 18) & 63];
        o[k++] = a[(v >> 12) & 63];
        o[k++] = i + 1 < n ? a[(v >> 6) & 63] : '=';
        o[k++] = i + 2 < n ? a[v & 63] : '=';
    }
    o[k] = '\0';
    return o;
}

static char *hex(const unsigned char *p, size_t n, bool upper)
{
    const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char *o = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        o[2 * i] = d[p[i] >> 4];
        o[2 * i + 1] = d[p[i] & 15];
    }
    o[2 * n] = '\0';
    return o;
}

/* ---- format rules ----------------------------------------------------- */

Test(rules, aws_access_key_id)
{
    expect_rule("export AWS_ACCESS_KEY_ID=AKIAQWERTYUIOP123456", "aws-access-key-id");
    expect_rule("id ASIAQWERTYUIOP123456,", "aws-access-key-id");
    expect_rule("AKIAQWERTYUIOP123456", "aws-access-key-id");
    expect_clean("AKIAQWERTYUIOP12345 (15)");
    expect_clean("AKIAQWERTYUIOP1234567 (17)");
    expect_clean("XAKIAQWERTYUIOP123456 inside a word");
    expect_clean("AKIAQWERTYUIOP123456x lower-case after");
    expect_clean("AKIAqwertyuiop123456 lower-case body");
    expect_clean("docs: AKIAIOSFODNN7EXAMPLE");
}

Test(rules, github_tokens)
{
    const char *pre[] = {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"};
    for (size_t i = 0; i < 5; i++) {
        expect_rule_tok(pre[i], 36, "github-token");
        expect_clean_tok("x ", pre[i], 35, " y");
        expect_clean_tok("x", pre[i], 36, " y");  /* inside an identifier */
        expect_clean_tok("x ", pre[i], 36, "_y"); /* continues as an identifier */
    }
    expect_clean_tok("x ", "ghx_", 36, " y");
    expect_rule_tok("github_pat_", 82, "github-fine-grained-token");
    expect_rule("github_pat_11ABCDEFG0123456789abcd_"
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456",
                "github-fine-grained-token");
    expect_clean_tok("x ", "github_pat_", 81, " y");
}

Test(rules, gitlab_token)
{
    expect_rule("token glpat-abcdEFGH1234_-ijklMNOP", "gitlab-token");
    expect_rule_tok("glpat-", 20, "gitlab-token");
    expect_clean_tok("", "glpat-", 19, "");
    expect_clean_tok("my", "glpat-", 20, "");
}

Test(rules, slack)
{
    const char *pre[] = {"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"};
    for (size_t i = 0; i < 5; i++) {
        char *t = cat3(pre[i], "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "");
        char *line = cat3("SLACK=", t, "\n");
        expect_rule(line, "slack-token");
        free(line);
        free(t);
    }
    expect_clean("see xoxb-your-token-here for the format");
    expect_clean("xoxz-123456789012-1234567890123-AbCdEf");
    expect_clean("xoxb-12345");
    expect_rule(
        "curl https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX -d x",
        "slack-webhook");
    expect_clean("https://hooks.slack.com/services/T0 is short");
    expect_clean("https://hooks.slack.com/ alone");
}

/* A prefix longer than the 8 bytes the prefilter compares must be there
 * whole: "hooks.sl" or "github_p" followed by something else is no token
 * (the scan used to take it for one, and stream mode, which reads the whole
 * prefix, released it: tests/fuzz/corpus/outscan/slack-prefix-cut). */
Test(rules, long_prefix_must_be_whole)
{
    expect_clean(
        "log: https://hooks.slack.com/serpqrstuvwxyzABCDEF00000000/XXXXXXXXXXXXXXXXXXXXXX\n");
    expect_clean("https://hooks.slackXcom/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX");
    expect_clean_tok("x ", "github_pXt_", 82, " y");
    expect_clean_tok("x ", "github_paX_", 82, " y");
    expect_rule("x https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXX y",
                "slack-webhook");
}

Test(rules, stripe)
{
    expect_rule_tok("sk_live_", 24, "stripe-key");
    expect_rule_tok("rk_live_", 30, "stripe-key");
    expect_rule_tok("sk_test_", 99, "stripe-key");
    expect_clean_tok("", "sk_live_", 23, "");
    expect_clean_tok("my", "sk_live_", 24, "");
    expect_clean_tok("", "pk_live_", 24, ""); /* publishable keys are public */
}

Test(rules, openai_and_anthropic)
{
    expect_rule_tok("sk-", 48, "openai-key");
    expect_rule_tok("sk-proj-", 120, "openai-key");
    expect_rule("OPENAI_API_KEY=sk-proj-Ab12_cd-EF34gh56IJ78kl90MN12op34QR56st78", "openai-key");
    expect_rule_tok("sk-ant-api03-", 93, "anthropic-key");
    expect_rule("k=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345-_ABCDEFG", "anthropic-key");
    expect_clean_tok("", "sk-", 31, "");
    expect_clean_tok("task", "sk-", 40, ""); /* task-<id>: inside a word */
    expect_clean("class=\"sk-button-primary-large-rounded-corner-shadow\"");
}

Test(rules, google_api_key)
{
    expect_rule("key=AIzaSyA-1234567890abcdefghijklmnopqrs_t&x", "google-api-key");
    expect_rule_tok("AIza", 35, "google-api-key");
    expect_clean_tok("", "AIza", 34, "");
    expect_clean_tok("", "AIza", 36, "");
    expect_clean_tok("x", "AIza", 35, "");
}

Test(rules, jwt)
{
    const char *jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                      "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    char *line = cat3("Authorization: Bearer ", jwt, "\n");
    expect_rule(line, "jwt");
    struct pd_outscan *s = new_scan();
    expect_out(s, line, "Authorization: Bearer [REDACTED:jwt]\n");
    pd_outscan_free(s);
    free(line);
    expect_clean("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0 (two parts)");
    expect_clean("eyJhbGciOiJIUzI1NiJ9.abcdef.ghijkl (second part not eyJ)");
    expect_clean("xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc (inside a word)");
}

Test(rules, npm_huggingface)
{
    expect_rule_tok("npm_", 36, "npm-token");
    expect_clean_tok("", "npm_", 35, "");
    expect_rule("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "huggingface-token");
    expect_clean("hf_abcdefghijklmnopqrstuvwxyzABCDEFG");
    expect_clean("hf_abcdefghijklmnopqrstuvwxyzABCDEFGHI");
}

Test(rules, url_credentials)
{
    struct pd_outscan *s = new_scan();
    expect_out(s, "origin\thttps://bot:Xk82hd93Kd@github.com/o/r.git (fetch)\n",
               "origin\thttps://bot:[REDACTED:url-credentials]@github.com/o/r.git (fetch)\n");
    expect_out(s, "postgres://app:s3cr%40t-Pw@db:5432/x",
               "postgres://app:[REDACTED:url-credentials]@db:5432/x");
    pd_outscan_free(s);
    expect_clean("postgres://user:password@localhost/db");
    expect_clean("redis://:${REDIS_PASSWORD}@redis:6379");
    expect_clean("https://user:****@host/");
    expect_clean("postgres://postgres:postgres@localhost:5432/postgres");
    expect_clean("http://[::1]:8080/path and http://host:8080/a@b");
    expect_clean("https://example.com/user@host");
}

static const char pem_body[] = "MIIEowIBAAKCAQEAvZ3q1Z8yU3nOq8gq0bX1YQvZ8yU3nOq8gq0bX1YQvZ8yU3nO\n"
                               "q8gq0bX1YQvZ8yU3nOq8gq0bX1YQvZ8yU3nOq8gq0bX1YQvZ8yU3nOq8gq0bX1YQ\n"
                               "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ==\n";

Test(rules, private_key_block)
{
    struct pd_outscan *s = new_scan();
    char *block =
        cat3("-----BEGIN RSA PRIVATE KEY-----\n", pem_body, "-----END RSA PRIVATE KEY-----");
    char *in = cat3("before\n", block, "\nafter\n");
    expect_out(s, in, "before\n[REDACTED:private-key]\nafter\n");
    free(in);
    free(block);

    const char *kinds[] = {"PRIVATE KEY",           "EC PRIVATE KEY",  "OPENSSH PRIVATE KEY",
                           "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK"};
    for (size_t i = 0; i < 6; i++) {
        char head[128], tail[128];
        snprintf(head, sizeof(head), "$ cat key\n-----BEGIN %s-----\n", kinds[i]);
        snprintf(tail, sizeof(tail), "-----END %s-----\n$ ", kinds[i]);
        char *x = cat3(head, pem_body, tail);
        expect_out(s, x, "$ cat key\n[REDACTED:private-key]\n$ ");
        free(x);
    }
    /* no END line (head -3): header and body lines, not the text after */
    expect_out(s,
               "-----BEGIN OPENSSH PRIVATE KEY-----\n"
               "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2\n"
               "gtZWQyNTUxOQAAACDx\n"
               "hello world, this is text\n",
               "[REDACTED:private-key]\nhello world, this is text\n");
    /* echo $KEY: the newlines became blanks */
    expect_out(s,
               "-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAvZ3q q8gq0bX1YQvZ8yU3nOq8 "
               "aB3dE5fG7hI9jK1lM3nO5pQ== -----END RSA PRIVATE KEY-----\nnext line\n",
               "[REDACTED:private-key]\nnext line\n");
    expect_out(s, "-----BEGIN EC PRIVATE KEY----- MIIEowIBAAKCAQEAvZ3q q8gq0bX1YQ\nnext line\n",
               "[REDACTED:private-key]\nnext line\n");
    expect_out(s, "-----BEGIN PRIVATE KEY----- is the header, see RFC 7468.",
               "[REDACTED:private-key] header, see RFC 7468.");
    /* armor headers of an encrypted key */
    expect_out(
        s,
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
        "DEK-Info: AES-128-CBC,1234ABCD\n\nMIIEowIBAAKCAQEAvZ3q\n-----END RSA PRIVATE KEY-----",
        "[REDACTED:private-key]");
    /* JSON string with \n escapes (service account files) */
    expect_out(s,
               "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF\\n"
               "AASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n\", \"x\": 1}",
               "{\"private_key\": \"[REDACTED:private-key]\\n\", \"x\": 1}");
    pd_outscan_free(s);
    expect_clean("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n"
                 "-----END CERTIFICATE-----\n");
    expect_clean("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n");
    expect_clean("----- BEGIN notes -----\n------------------------------\n");
}

Test(rules, names_and_disable)
{
    size_t n = 0;
    const char *const *names = pd_outscan_rule_names(&n);
    cr_assert_geq(n, 12);
    cr_expect_null(names[n]);
    struct pd_outscan *s = new_scan();
    cr_expect_eq(pd_outscan_disable_rule(s, "aws-access-key-id"), 0);
    expect_out(s, "AKIAQWERTYUIOP123456", "AKIAQWERTYUIOP123456");
    cr_expect_eq(pd_outscan_disable_rule(s, "no-such-rule"), -1);
    cr_expect_eq(errno, ENOENT);
    expect_out(s, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:github-token]");
    pd_outscan_free(s);
}

Test(rules, every_rule_is_documented)
{
    FILE *f = fopen(PALDRON_SOURCE_DIR "/docs/output-scan.md", "r");
    cr_assert_not_null(f, "docs/output-scan.md missing");
    static char doc[1 << 18];
    size_t n = fread(doc, 1, sizeof(doc) - 1, f);
    fclose(f);
    doc[n] = '\0';
    size_t nr = 0;
    const char *const *names = pd_outscan_rule_names(&nr);
    for (size_t i = 0; i < nr; i++) {
        char needle[96];
        snprintf(needle, sizeof(needle), "`%s`", names[i]);
        cr_expect_not_null(strstr(doc, needle), "rule %s not in docs/output-scan.md", names[i]);
    }
}

/* ---- known values ----------------------------------------------------- */

static const char secret[] = "Zr9!kQ>>?w~x7Lm#Pv2"; /* base64 of it has + and / */

/* Every rule and every kind of needle, at both parities of offset and at the
 * very end of the buffer (the scan probes even positions only). */
Test(rules, every_offset_and_buffer_end)
{
    static const struct {
        const char *text, *rule;
    } cases[] = {
        {"AKIAQWERTYUIOP123456", "aws-access-key-id"},
        {"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"},
        {"glpat-abcdEFGH1234_-ijklMNOP", "gitlab-token"},
        {"xoxb-123456789012-abcdef", "slack-token"},
        {"hooks.slack.com/services/T00000000/B00000000/XXXXXXXX", "slack-webhook"},
        {"sk_live_abcdefghijklmnopqrstuvwx", "stripe-key"},
        {"sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "anthropic-key"},
        {"sk-abcdefghijklmnopqrstuvwxyz0123456789AB", "openai-key"},
        {"AIzaSyA-1234567890abcdefghijklmnopqrs_t", "google-api-key"},
        {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "jwt"},
        {"npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm-token"},
        {"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "huggingface-token"},
        {"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----",
         "private-key"},
        {"Zr9!kQ>>?w~x7Lm#Pv2", "known-value"},
        {"WnI5IWtRPj4/d354N0xtI1B2Mg", "known-value-base64"},
        {"5a7239216b513e3e3f777e78374c6d23507632", "known-value-hex"},
        {"ACME_ab12CD34", "acme"},
        {"XYZ", "xyz"},
    };
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "x"), 1);
    cr_assert_eq(pd_outscan_add_pattern(s, "acme", "ACME_????????"), 0);
    cr_assert_eq(pd_outscan_add_pattern(s, "xyz", "XYZ"), 0);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        for (size_t lead = 0; lead < 4; lead++) {
            for (int at_end = 0; at_end <= 1; at_end++) {
                char in[256];
                snprintf(in, sizeof(in), "%.*s%s%s", (int)lead, "    ", cases[c].text,
                         at_end ? "" : " tail");
                struct pd_outscan_result r;
                int n = pd_outscan_scan(s, in, strlen(in), &r);
                cr_expect_eq(n, 1, "%s at %zu%s: %d findings", cases[c].rule, lead,
                             at_end ? " (end)" : "", n);
                if (n == 1) {
                    cr_expect_str_eq(r.findings[0].rule, cases[c].rule);
                    cr_expect_eq(r.findings[0].offset, lead, "%s", cases[c].rule);
                }
                pd_outscan_result_free(&r);
            }
        }
    }
    pd_outscan_free(s);
}

Test(known, raw_with_label)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "env JEV_API_KEY"), 1);
    cr_expect_eq(pd_outscan_add_value(s, secret, strlen(secret), "env OTHER"), 0, "dedup");
    char *in = cat3("the key is ", secret, ".\n");
    struct pd_outscan_result r;
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1);
    cr_expect_str_eq(r.out, "the key is [REDACTED:known-value].\n");
    cr_expect_str_eq(r.findings[0].rule, "known-value");
    cr_expect_eq(r.findings[0].kind, PD_OUTSCAN_KNOWN_VALUE);
    cr_expect_str_eq(r.findings[0].source, "env JEV_API_KEY");
    cr_expect_eq(r.findings[0].offset, 11);
    cr_expect_eq(r.findings[0].length, strlen(secret));
    pd_outscan_result_free(&r);
    free(in);
    pd_outscan_free(s);
}

/* value at byte offset k (0..2) of a longer stream, base64-encoded */
static void check_b64_embedded(bool url)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "file .env"), 1);
    for (size_t lead = 0; lead < 6; lead++) {
        for (size_t trail = 0; trail < 4; trail++) {
            unsigned char stream[128];
            size_t n = 0;
            for (size_t i = 0; i < lead; i++)
                stream[n++] = (unsigned char)(0xF0 + i);
            memcpy(stream + n, secret, strlen(secret));
            n += strlen(secret);
            for (size_t i = 0; i < trail; i++)
                stream[n++] = (unsigned char)(0xA0 + i);
            char *enc = b64(stream, n, url);
            char *in = cat3("data: ", enc, " ok");
            struct pd_outscan_result r;
            int got = pd_outscan_scan(s, in, strlen(in), &r);
            cr_expect_eq(got, 1, "lead %zu trail %zu url %d: %s", lead, trail, url, in);
            if (got == 1) {
                cr_expect_str_eq(r.findings[0].rule, "known-value-base64");
                cr_expect_str_eq(r.findings[0].source, "file .env");
                /* the redaction covers every character that carries bits of the value */
                size_t first = 6 + (lead * 8) / 6;
                size_t last = 6 + ((lead + strlen(secret)) * 8 + 5) / 6; /* exclusive */
                cr_expect_leq(r.findings[0].offset, first);
                cr_expect_geq(r.findings[0].offset + r.findings[0].length, last);
                if (lead == 0 && trail == 0)
                    cr_expect_str_eq(r.out, "data: [REDACTED:known-value-base64] ok");
            }
            pd_outscan_result_free(&r);
            free(in);
            free(enc);
        }
    }
    pd_outscan_free(s);
}

Test(known, base64_std_all_alignments)
{
    check_b64_embedded(false);
}

Test(known, base64_url_all_alignments)
{
    check_b64_embedded(true);
}

Test(known, hex_lower_upper)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "env K_TOKEN"), 1);
    for (int up = 0; up <= 1; up++) {
        char *h = hex((const unsigned char *)secret, strlen(secret), up);
        char *in = cat3("00000000: ", h, " |....|");
        struct pd_outscan_result r;
        cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1, "%s", in);
        cr_expect_str_eq(r.findings[0].rule, "known-value-hex");
        cr_expect_str_eq(r.out, "00000000: [REDACTED:known-value-hex] |....|");
        pd_outscan_result_free(&r);
        free(in);
        free(h);
    }
    pd_outscan_free(s);
}

Test(known, binary_value_with_nul)
{
    struct pd_outscan *s = new_scan();
    const unsigned char v[] = {'k', 0, 'e', 0xff, 'y', 0, 0x80, 'z', 'q', 1};
    cr_assert_eq(pd_outscan_add_value(s, v, sizeof(v), "value"), 1);
    unsigned char in[32] = {0};
    memcpy(in + 5, v, sizeof(v));
    struct pd_outscan_result r;
    cr_assert_eq(pd_outscan_scan(s, in, sizeof(in), &r), 1);
    cr_expect_eq(r.findings[0].offset, 5);
    cr_expect_eq(r.out_len, sizeof(in) - sizeof(v) + strlen("[REDACTED:known-value]"));
    cr_expect_eq(memcmp(r.out + 5, "[REDACTED:known-value]", 22), 0);
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

Test(known, json_escaped)
{
    struct pd_outscan *s = new_scan();
    const char v[] = "pa\"ss/wo\\rd\n2nd-line";
    cr_assert_eq(pd_outscan_add_value(s, v, strlen(v), "env X_PASSWORD"), 1);
    expect_out(s, "{\"pw\": \"pa\\\"ss/wo\\\\rd\\n2nd-line\"}",
               "{\"pw\": \"[REDACTED:known-value]\"}");
    expect_out(s, "{\"pw\": \"pa\\\"ss\\/wo\\\\rd\\n2nd-line\"}",
               "{\"pw\": \"[REDACTED:known-value]\"}");
    pd_outscan_free(s);
}

Test(known, trivial_values_ignored)
{
    const char *trivial[] = {"",
                             "short",
                             "1234567",
                             "aaaaaaaaaaaa",
                             "abababab",
                             "12345678901",
                             "2024-06-01",
                             "10.0.0.1:8080",
                             "true",
                             "localhost",
                             "changeme",
                             "PASSWORD",
                             "${DB_PASSWORD}",
                             "<your-api-key>",
                             "{{ secret }}",
                             "********"};
    struct pd_outscan *s = new_scan();
    for (size_t i = 0; i < sizeof(trivial) / sizeof(trivial[0]); i++) {
        cr_expect(pd_outscan_value_is_trivial(trivial[i], strlen(trivial[i])), "%s", trivial[i]);
        cr_expect_eq(pd_outscan_add_value(s, trivial[i], strlen(trivial[i]), "x"), 0, "%s",
                     trivial[i]);
    }
    const char *real[] = {"123456789012", "hunter22x", "abcdefgh", "s3cr3t-v4lue"};
    for (size_t i = 0; i < 4; i++)
        cr_expect_not(pd_outscan_value_is_trivial(real[i], strlen(real[i])), "%s", real[i]);
    cr_expect_eq(pd_outscan_value_count(s), 0);
    expect_out(s, "localhost changeme 12345678901", "localhost changeme 12345678901");
    pd_outscan_free(s);
}

Test(known, needles_per_value)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "x"), 1);
    /* raw + 3 std + 3 url base64 (this value differs in the two alphabets) + 2 hex */
    cr_expect_eq(pd_outscan_needle_count(s), 9);
    pd_outscan_free(s);
}

Test(known, many_values_and_prefix_sharing)
{
    struct pd_outscan *s = new_scan();
    char vals[64][48];
    for (unsigned i = 0; i < 64; i++) {
        char body[40];
        alnum(body, 36, i + 100);
        snprintf(vals[i], sizeof(vals[i]), "sk-ant-%s", body);
        cr_assert_eq(pd_outscan_add_value(s, vals[i], strlen(vals[i]), "env K"), 1);
    }
    for (unsigned i = 0; i < 64; i += 7) {
        char *in = cat3("[", vals[i], "]");
        struct pd_outscan_result r;
        cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1);
        cr_expect_str_eq(r.findings[0].rule, "known-value", "tie: known value before format");
        cr_expect_str_eq(r.out, "[[REDACTED:known-value]]");
        pd_outscan_result_free(&r);
        free(in);
    }
    pd_outscan_free(s);
}

/* ---- redaction, clean text, overlaps, NUL ----------------------------- */

static const char clean_text[] =
    "#include <stdio.h>\nint main(void) { return printf(\"hello, world\\n\") < 0; }\n"
    "2024-06-01T12:00:00Z INFO GET https://example.com/api/v1/users?id=42 200 12ms\n"
    "task-4f9c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a6b finished; sk- is a prefix, so is eyJ\n"
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n"
    "-----END CERTIFICATE-----\n------------------------------------------------\n"
    "AKIA is how AWS key ids start; ghp_ for GitHub; xoxb- for Slack; AIza for Google.\n"
    "00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............\n"
    "dGhpcyBpcyBqdXN0IHNvbWUgYmFzZTY0IHRleHQgd2l0aCBubyBzZWNyZXQgaW4gaXQ=\n"
    "git@github.com:owner/repo.git  http://localhost:3000/  ssh://git@host:22/x\n"
    "MONKEY_BUSINESS=true PATH=/usr/bin:/bin sk_live_ rk_test_short npm_install\n";

Test(redact, clean_text_unchanged)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "x"), 1);
    struct pd_outscan_result r;
    cr_assert_eq(pd_outscan_scan(s, clean_text, sizeof(clean_text) - 1, &r), 0, "%s",
                 r.n_findings ? r.findings[0].rule : "");
    cr_expect_eq(r.out_len, sizeof(clean_text) - 1);
    cr_expect_eq(memcmp(r.out, clean_text, r.out_len), 0);
    cr_expect_eq(r.out[r.out_len], '\0');
    cr_expect_null(r.findings);
    pd_outscan_result_free(&r);
    /* empty and tiny buffers */
    cr_assert_eq(pd_outscan_scan(s, "", 0, &r), 0);
    cr_expect_eq(r.out_len, 0);
    cr_expect_str_eq(r.out, "");
    pd_outscan_result_free(&r);
    cr_assert_eq(pd_outscan_scan(s, NULL, 0, &r), 0);
    pd_outscan_result_free(&r);
    cr_assert_eq(pd_outscan_scan(s, "ab", 2, &r), 0);
    cr_expect_str_eq(r.out, "ab");
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

Test(redact, exact_several_findings)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, "hunter2-is-my-pw", 16, "env DB_PASSWORD"), 1);
    const char *in =
        "a=AKIAQWERTYUIOP123456 b=hunter2-is-my-pw c=ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    struct pd_outscan_result r;
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 3);
    cr_expect_str_eq(r.out, "a=[REDACTED:aws-access-key-id] b=[REDACTED:known-value] "
                            "c=[REDACTED:github-token]");
    cr_expect_eq(r.findings[0].offset, 2);
    cr_expect_eq(r.findings[0].length, 20);
    cr_expect_null(r.findings[0].source);
    cr_expect_eq(r.findings[0].kind, PD_OUTSCAN_FORMAT);
    cr_expect_str_eq(r.findings[1].source, "env DB_PASSWORD");
    cr_expect_eq(r.findings[2].offset, strlen(in) - 40);
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

Test(redact, nul_bytes_and_invalid_utf8)
{
    struct pd_outscan *s = new_scan();
    const char in[] = "\0\xff\xfe\0AKIAQWERTYUIOP123456\0\xc3\x28\0";
    size_t n = sizeof(in) - 1;
    struct pd_outscan_result r;
    cr_assert_eq(pd_outscan_scan(s, in, n, &r), 1);
    const char want[] = "\0\xff\xfe\0[REDACTED:aws-access-key-id]\0\xc3\x28\0";
    cr_expect_eq(r.out_len, sizeof(want) - 1);
    cr_expect_eq(memcmp(r.out, want, sizeof(want) - 1), 0);
    pd_outscan_result_free(&r);
    const char bin[] = "\0\0\0\x01\x02\xff\xff\xff-----\0eyJ\0sk-\0://\0";
    cr_assert_eq(pd_outscan_scan(s, bin, sizeof(bin) - 1, &r), 0);
    cr_expect_eq(memcmp(r.out, bin, sizeof(bin) - 1), 0);
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

Test(redact, overlapping_matches_merge)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, "ALPHA-BRAVO-7x", 14, "env A_KEY"), 1);
    cr_assert_eq(pd_outscan_add_value(s, "BRAVO-7x-CHARLIE", 16, "env B_KEY"), 1);
    struct pd_outscan_result r;
    const char *in = "<ALPHA-BRAVO-7x-CHARLIE>";
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1);
    cr_expect_str_eq(r.out, "<[REDACTED:known-value]>");
    cr_expect_str_eq(r.findings[0].source, "env A_KEY", "leftmost wins the label");
    cr_expect_eq(r.findings[0].offset, 1);
    cr_expect_eq(r.findings[0].length, 22, "extended over the second match");
    pd_outscan_result_free(&r);

    /* a known value inside a longer format match: the longer one wins */
    cr_assert_eq(pd_outscan_add_value(s, "ghp_abcdefghij", 14, "env GH_PART"), 1);
    in = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1);
    cr_expect_str_eq(r.findings[0].rule, "github-token");
    cr_expect_eq(r.findings[0].length, 40);
    pd_outscan_result_free(&r);

    /* adjacent matches stay two findings */
    in = "ALPHA-BRAVO-7xALPHA-BRAVO-7x";
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 2);
    cr_expect_str_eq(r.out, "[REDACTED:known-value][REDACTED:known-value]");
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

Test(redact, deterministic)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_value(s, secret, strlen(secret), "x"), 1);
    char *in =
        cat3(clean_text, secret, " AKIAQWERTYUIOP123456 ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    struct pd_outscan_result a, b;
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &a), 3);
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &b), 3);
    cr_expect_eq(a.out_len, b.out_len);
    cr_expect_eq(memcmp(a.out, b.out, a.out_len), 0);
    cr_expect_eq(memcmp(a.findings, b.findings, 3 * sizeof(*a.findings)), 0);
    pd_outscan_result_free(&a);
    pd_outscan_result_free(&b);
    free(in);
    pd_outscan_free(s);
}

/* ---- environment ------------------------------------------------------ */

Test(env, name_heuristics)
{
    const char *secret_names[] = {"AWS_SECRET_ACCESS_KEY",
                                  "GITHUB_TOKEN",
                                  "GH_TOKEN",
                                  "OPENAI_API_KEY",
                                  "ANTHROPIC_API_KEY",
                                  "DATABASE_URL",
                                  "PROD_DATABASE_URL",
                                  "SLACK_WEBHOOK_URL",
                                  "JEV_API_KEY",
                                  "MY_APIKEY",
                                  "DB_PASSWORD",
                                  "MYSQL_PWD",
                                  "PGPASSWORD",
                                  "SMTP_PASS",
                                  "PASSWD",
                                  "client_secret",
                                  "STRIPE_SECRET_KEY",
                                  "SESSION_SECRET",
                                  "COOKIE_SIGNING",
                                  "SENTRY_DSN",
                                  "AUTH",
                                  "BASIC_AUTH",
                                  "HTTP_AUTHORIZATION",
                                  "OAUTH_CLIENT",
                                  "API",
                                  "PRIVATE_KEY",
                                  "AZURE_CREDENTIALS",
                                  "NPM_CREDS",
                                  "apiToken",
                                  "SIGNING_KEYS",
                                  "JWT_SIGNING",
                                  "X_SESSION_ID"};
    for (size_t i = 0; i < sizeof(secret_names) / sizeof(*secret_names); i++)
        cr_expect(pd_outscan_env_name_is_secret(secret_names[i], strlen(secret_names[i])), "%s",
                  secret_names[i]);
    const char *plain[] = {"PATH",
                           "HOME",
                           "KEYBOARD_LAYOUT",
                           "KEYMAP",
                           "SSH_AUTH_SOCK",
                           "XAUTHORITY",
                           "GIT_AUTHOR_NAME",
                           "GIT_AUTHOR_EMAIL",
                           "AUTHOR",
                           "DBUS_SESSION_BUS_ADDRESS",
                           "XDG_SESSION_ID",
                           "DESKTOP_SESSION",
                           "SESSION_MANAGER",
                           "GOOGLE_APPLICATION_CREDENTIALS",
                           "SSH_KEY_PATH",
                           "API_KEY_FILE",
                           "TOKEN_DIR",
                           "SECRETS_DIR",
                           "CAPITAL",
                           "RAPID_MODE",
                           "PASSENGER",
                           "PWD",
                           "OLDPWD",
                           "API_URL",
                           "API_HOST",
                           "KEY_NAME",
                           "LANG",
                           "TERM",
                           ""};
    for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++)
        cr_expect_not(pd_outscan_env_name_is_secret(plain[i], strlen(plain[i])), "%s", plain[i]);
}

Test(env, add_env)
{
    char *envp[] = {
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "OPENAI_API_KEY=sk-proj-aaaaBBBBccccDDDD1234",
        "GH_TOKEN=gho_xyzXYZ0123456789",
        "HOME=/home/agent",
        "DEBUG_TOKEN=true",
        "http_proxy=http://proxyuser:Pr0xyPa55w0rd@proxy:3128",
        "MULTI_SECRET=first-line-secret\nsecond-line-secret",
        "NOEQUALS",
        "=weird",
        NULL,
    };
    struct pd_outscan *s = new_scan();
    int n = pd_outscan_add_env(s, envp);
    /* openai, gh, proxy password, multi (whole + 2 lines) */
    cr_expect_eq(n, 6, "got %d", n);
    struct pd_outscan_result r;
    const char *in =
        "key sk-proj-aaaaBBBBccccDDDD1234 home /home/agent pw Pr0xyPa55w0rd second-line-secret";
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 3);
    cr_expect_str_eq(r.findings[0].source, "env OPENAI_API_KEY");
    cr_expect_str_eq(r.findings[1].source, "env http_proxy");
    cr_expect_str_eq(r.findings[2].source, "env MULTI_SECRET");
    cr_expect_str_eq(r.out, "key [REDACTED:known-value] home /home/agent pw [REDACTED:known-value] "
                            "[REDACTED:known-value]");
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

/* ---- secret files ----------------------------------------------------- */

static char *write_temp(const char *content)
{
    char *path = strdup("/tmp/paldron-outscan-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
    close(fd);
    return path;
}

static void expect_found(struct pd_outscan *s, const char *value, bool found)
{
    char *in = cat3("<", value, ">");
    struct pd_outscan_result r;
    int n = pd_outscan_scan(s, in, strlen(in), &r);
    cr_expect_eq(n, found ? 1 : 0, "%s value '%s'", found ? "want" : "do not want", value);
    pd_outscan_result_free(&r);
    free(in);
}

Test(files, dotenv)
{
    const char *env = "# comment with SECRET_KEY=notavalue123\n"
                      "export API_KEY=plain-api-key-1\n"
                      "export   DB_PASSWORD=\"quoted pass \\\"x\\\" 2\"\n"
                      "SESSION_SECRET='single $quoted 3'\n"
                      "STRIPE_KEY = spaced-value-444 # inline comment\n"
                      "JWT_SECRET: yaml-style-five5\n"
                      "APP_NAME=myproject-name\n"
                      "DB_HOST=db.internal.example\n"
                      "QUEUE_CONNECTION=database\n"
                      "SOME_ID=Zx81kLm02Qa9rT\n"
                      "DEBUG=true\n"
                      "  indented_token = indented-tok-66\n"
                      "EMPTY=\n"
                      "not an assignment line\n"
                      "MULTI_KEY=\"line-one-aaaa\nline-two-bbbb\"\n"
                      "LAST_TOKEN=no-newline-at-end\n";
    char *path = write_temp(env);
    struct pd_outscan *s = new_scan();
    int n = pd_outscan_add_secret_file(s, path);
    cr_expect_eq(n, 11, "got %d", n);
    expect_found(s, "plain-api-key-1", true);
    expect_found(s, "quoted pass \"x\" 2", true);
    expect_found(s, "single $quoted 3", true);
    expect_found(s, "spaced-value-444", true);
    expect_found(s, "yaml-style-five5", true);
    expect_found(s, "Zx81kLm02Qa9rT", true); /* token-like value under a plain key */
    expect_found(s, "indented-tok-66", true);
    expect_found(s, "line-two-bbbb", true);
    expect_found(s, "no-newline-at-end", true);
    expect_found(s, "notavalue123", false);
    expect_found(s, "myproject-name", false);
    expect_found(s, "db.internal.example", false);
    expect_found(s, "spaced-value-444 # inline comment", true); /* the value part */
    struct pd_outscan_result r;
    const char *in = "pw=plain-api-key-1";
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1);
    char label[128];
    snprintf(label, sizeof(label), "file %s", path);
    cr_expect_str_eq(r.findings[0].source, label);
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
    unlink(path);
    free(path);
}

Test(files, crlf_and_no_trailing_newline)
{
    struct pd_outscan *s = new_scan();
    const char *env = "A_TOKEN=crlf-value-777\r\nB_SECRET=\"quoted-crlf-88\"\r\nC_KEY=last-one-99";
    cr_expect_eq(pd_outscan_add_secret_text(s, env, strlen(env), "file .env"), 3);
    expect_found(s, "crlf-value-777", true);
    expect_found(s, "quoted-crlf-88", true);
    expect_found(s, "last-one-99", true);
    struct pd_outscan_result r;
    cr_assert_eq(pd_outscan_scan(s, "crlf-value-777\r", 15, &r), 1);
    cr_expect_eq(r.findings[0].length, 14, "the value has no \\r");
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
}

/* A quote that never closes: the line is read unquoted (it used to read the
 * value from a NULL pointer; tests/fuzz/corpus/outscan/unterminated-quote). */
Test(files, unterminated_quote_reads_the_line_unquoted)
{
    struct pd_outscan *s = new_scan();
    const char *env = "OTHER_SECRET=before-it-77\nAPI_TOKEN=\"unterminated-value-4242\n";
    cr_expect_eq(pd_outscan_add_secret_text(s, env, strlen(env), "file .env"), 2);
    expect_found(s, "before-it-77", true);
    expect_found(s, "\"unterminated-value-4242", true);
    pd_outscan_free(s);

    /* the fuzzer's input: a key that is not secret, a value that is no token */
    s = new_scan();
    cr_expect_geq(pd_outscan_add_secret_text(s, "-:\"//z", 6, "file fuzz.env"), 0);
    pd_outscan_free(s);
}

Test(files, json_and_ini)
{
    struct pd_outscan *s = new_scan();
    const char *json =
        "{\n  \"type\": \"service_account\",\n  \"project_id\": \"demo\",\n"
        "  \"private_key_id\": \"0123456789abcdef0123456789abcdef01234567\",\n"
        "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF"
        "\\nAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n\",\n"
        "  \"client_email\": \"bot@demo.iam.gserviceaccount.com\"\n}\n";
    int n = pd_outscan_add_secret_text(s, json, strlen(json), "file sa.json");
    cr_expect_geq(n, 3, "got %d", n);
    expect_found(s, "0123456789abcdef0123456789abcdef01234567", true);
    expect_found(s, "MIIEvQIBADANBgkqhkiG9w0BAQEF", true);
    expect_found(s, "AASCBKcwggSjAgEAAoIBAQC7", true);
    expect_found(s, "service_account", false);
    pd_outscan_free(s);

    s = new_scan();
    const char *ini = "[default]\naws_access_key_id = AKIAQWERTYUIOP123456\n"
                      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzzzz\n"
                      "region = us-east-1\n";
    cr_expect_eq(pd_outscan_add_secret_text(s, ini, strlen(ini), "file credentials"), 2);
    expect_found(s, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzzzz", true);
    pd_outscan_free(s);
}

Test(files, pem)
{
    char *key = cat3("-----BEGIN OPENSSH PRIVATE KEY-----\n", pem_body,
                     "-----END OPENSSH PRIVATE KEY-----\n");
    char *path = write_temp(key);
    struct pd_outscan *s = new_scan();
    cr_expect_eq(pd_outscan_add_secret_file(s, path), 3);
    /* one line of the key printed on its own (sed -n 2p id_ed25519) */
    struct pd_outscan_result r;
    const char *in = "line: q8gq0bX1YQvZ8yU3nOq8gq0bX1YQvZ8yU3nOq8gq0bX1YQvZ8yU3nOq8gq0bX1YQ\n";
    cr_assert_eq(pd_outscan_scan(s, in, strlen(in), &r), 1);
    cr_expect_str_eq(r.findings[0].rule, "known-value");
    cr_expect_str_eq(r.out, "line: [REDACTED:known-value]\n");
    pd_outscan_result_free(&r);
    pd_outscan_free(s);
    unlink(path);
    free(path);
    free(key);
}

Test(files, errors)
{
    struct pd_outscan *s = new_scan();
    errno = 0;
    cr_expect_eq(pd_outscan_add_secret_file(s, "/nonexistent/paldron/.env"), -1);
    cr_expect_eq(errno, ENOENT);
    cr_expect_eq(pd_outscan_add_secret_file(s, "/tmp"), -1);
    cr_expect_eq(errno, EISDIR);
    cr_expect_eq(pd_outscan_add_secret_file(s, "/dev/null"), 0);
    pd_outscan_free(s);
}

/* ---- user patterns ---------------------------------------------------- */

Test(patterns, key_value_form)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_pattern(s, "acme", "prefix=ACME_ class=[A-Za-z0-9] min=20 max=40"),
                 0, "%s", pd_outscan_last_error(s));
    char *ok = token("ACME_", 20, 3);
    char *in = cat3("k=", ok, ";");
    expect_out(s, in, "k=[REDACTED:acme];");
    free(in);
    free(ok);
    expect_out(s, "ACME_abc", "ACME_abc"); /* too short */
    char *longer = token("ACME_", 41, 3);  /* too long */
    expect_out(s, longer, longer);
    free(longer);
    char *inword = token("XACME_", 25, 3);
    expect_out(s, inword, inword);
    free(inword);
    cr_assert_eq(
        pd_outscan_add_pattern(s, "hexy", "prefix=\\x23tok class=[0-9a-f] min=8 boundary=no"), 0,
        "%s", pd_outscan_last_error(s));
    expect_out(s, "x#tok0123abcdZZ", "x[REDACTED:hexy]ZZ");
    pd_outscan_free(s);
}

Test(patterns, glob_form)
{
    struct pd_outscan *s = new_scan();
    cr_assert_eq(pd_outscan_add_pattern(s, "acme-glob", "ACME_????????"), 0, "%s",
                 pd_outscan_last_error(s));
    cr_assert_eq(pd_outscan_add_pattern(s, "order", "ORD-####-*"), 0, "%s",
                 pd_outscan_last_error(s));
    expect_out(s, "id ACME_ab12CD34 ok", "id [REDACTED:acme-glob] ok");
    expect_out(s, "id ACME_ab12CD345 ok", "id ACME_ab12CD345 ok");
    expect_out(s, "id ACME_ab12CD3 ok", "id ACME_ab12CD3 ok");
    expect_out(s, "ORD-2024-x9Y8z7 end", "[REDACTED:order] end");
    expect_out(s, "ORD-20x4-x9Y8z7 end", "ORD-20x4-x9Y8z7 end");
    pd_outscan_free(s);
}

Test(patterns, errors)
{
    struct pd_outscan *s = new_scan();
    struct {
        const char *name, *pat;
        int err;
    } bad[] = {
        {"p1", "AB?", EINVAL},
        {"p2", "prefix=AB class=[a-z]", EINVAL},
        {"p3", "prefix=ABC class=a-z", EINVAL},
        {"p4", "prefix=ABC class=[a-z", EINVAL},
        {"p5", "prefix=ABC class=[a-z] min=0", EINVAL},
        {"p6", "prefix=ABC class=[a-z] min=9 max=3", EINVAL},
        {"p7", "prefix=ABC class=[a-z] colour=red", EINVAL},
        {"p8", "prefix=ABC prefix=DEF class=[a-z]", EINVAL},
        {"p9", "prefix=ABC", EINVAL},
        {"bad name", "ABCD", EINVAL},
        {"", "ABCD", EINVAL},
        {"jwt", "ABCD", EEXIST},
        {"known-value", "ABCD", EEXIST},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        cr_expect_eq(pd_outscan_add_pattern(s, bad[i].name, bad[i].pat), -1, "%s", bad[i].pat);
        cr_expect_eq(errno, bad[i].err, "%s: errno %d", bad[i].pat, errno);
        cr_expect_neq(pd_outscan_last_error(s)[0], '\0');
    }
    cr_expect_eq(pd_outscan_add_pattern(s, "mine", "ABCD"), 0);
    cr_expect_eq(pd_outscan_add_pattern(s, "mine", "EFGH"), -1);
    cr_expect_eq(errno, EEXIST);
    pd_outscan_free(s);
}

/* ---- 1 MiB ------------------------------------------------------------ */

Test(big, one_mebibyte_mixed)
{
    struct pd_outscan *s = new_scan();
    char vals[50][40];
    for (unsigned i = 0; i < 50; i++) {
        alnum(vals[i], 32, 500 + i);
        char label[32];
        snprintf(label, sizeof(label), "env K%u_TOKEN", i);
        cr_assert_eq(pd_outscan_add_value(s, vals[i], 32, label), 1);
    }
    const size_t size = 1 << 20;
    char *in = malloc(size + 1);
    char *want = malloc(2 * size);
    size_t n = 0, w = 0;
    static const char *filler[] = {
        "static int parse(const char *s, size_t n) { return n > 0 && s[0] == '#'; }\n",
        "2024-06-01 12:00:00 INFO request id=7f3a path=/api/v1/items status=200\n",
        "00000010: 0200 3e00 0100 0000 6010 0000 0000 0000  ..>.....`.......\n",
        "U29tZSBiYXNlNjQgdGV4dCB0aGF0IGlzIG5vdCBhIHNlY3JldCBhdCBhbGwsIGp1c3QgZGF0YQ==\n",
    };
    unsigned k = 0, found = 0;
    while (n < size - 200) {
        const char *f = filler[k % 4];
        size_t fl = strlen(f);
        memcpy(in + n, f, fl);
        memcpy(want + w, f, fl);
        n += fl;
        w += fl;
        if (k % 97 == 5) {
            const char *v = vals[k % 50];
            memcpy(in + n, v, 32);
            n += 32;
            in[n++] = '\n';
            w += (size_t)sprintf(want + w, "[REDACTED:known-value]\n");
            found++;
        } else if (k % 211 == 7) {
            const char *t = "AKIAQWERTYUIOP123456\n";
            memcpy(in + n, t, strlen(t));
            n += strlen(t);
            w += (size_t)sprintf(want + w, "[REDACTED:aws-access-key-id]\n");
            found++;
        }
        k++;
    }
    struct pd_outscan_result r;
    int got = pd_outscan_scan(s, in, n, &r);
    cr_expect_eq(got, (int)found);
    cr_expect_eq(r.out_len, w);
    cr_expect_eq(memcmp(r.out, want, w), 0);
    for (size_t i = 1; i < r.n_findings; i++)
        cr_expect_geq(r.findings[i].offset, r.findings[i - 1].offset + r.findings[i - 1].length);
    pd_outscan_result_free(&r);
    free(in);
    free(want);
    pd_outscan_free(s);
}

/* pd_outscan_copy_clean(false): no copy of a clean buffer, findings still redacted. */
Test(outscan, copy_clean_off_skips_the_copy_of_clean_output)
{
    struct pd_outscan *scan = pd_outscan_new();
    cr_assert_not_null(scan);
    pd_outscan_copy_clean(scan, false);
    struct pd_outscan_result res;
    const char clean[] = "nothing to see here\n";
    cr_assert_eq(pd_outscan_scan(scan, clean, sizeof clean - 1, &res), 0);
    cr_expect_null(res.out);
    cr_expect_eq(res.out_len, 0);
    pd_outscan_result_free(&res);
    const char dirty[] = "id AKIAIOSFODNN7ABCDEFG\n";
    cr_assert_eq(pd_outscan_scan(scan, dirty, sizeof dirty - 1, &res), 1);
    cr_expect_str_eq(res.out, "id [REDACTED:aws-access-key-id]\n");
    pd_outscan_result_free(&res);
    pd_outscan_free(scan);
}

/* ---- bare lines (issue 10, item 7) ------------------------------------ */

Test(files, public_certificate_bundle_adds_nothing)
{
    /* certifi's cacert.pem matches *.pem, but certificates are public */
    char *bundle = cat3("# Issuer: CN=Some Root CA\n-----BEGIN CERTIFICATE-----\n", pem_body,
                        "-----END CERTIFICATE-----\n");
    char *path = write_temp(bundle);
    struct pd_outscan *s = new_scan();
    cr_expect_eq(pd_outscan_add_secret_file(s, path), 0);
    cr_expect_eq(pd_outscan_value_count(s), 0);
    pd_outscan_free(s);
    unlink(path);
    free(path);
    /* a certificate next to a private key: the file stays a secret */
    char *both = cat3("-----BEGIN CERTIFICATE-----\nMIIBxyz\n-----END CERTIFICATE-----\n"
                      "-----BEGIN PRIVATE KEY-----\n",
                      pem_body, "-----END PRIVATE KEY-----\n");
    path = write_temp(both);
    s = new_scan();
    cr_expect_gt(pd_outscan_add_secret_file(s, path), 0);
    pd_outscan_free(s);
    unlink(path);
    free(path);
    free(bundle);
    free(both);
}

Test(files, bare_value_file_is_a_known_value)
{
    struct pd_outscan *s = new_scan();
    const char *v = "hunter2-very-long-value\n";
    cr_expect_eq(pd_outscan_add_secret_text(s, v, strlen(v), "file secrets/db_password"), 1);
    expect_found(s, "hunter2-very-long-value", true);
    pd_outscan_free(s);
}

Test(files, one_line_file_that_reads_like_an_assignment)
{
    struct pd_outscan *s = new_scan();
    const char *v = "admin:Pa55-w0rd-value";
    cr_expect_geq(pd_outscan_add_secret_text(s, v, strlen(v), "file secrets/basic"), 1);
    expect_found(s, "admin:Pa55-w0rd-value", true);
    pd_outscan_free(s);
}

Test(files, bare_lines_among_assignments)
{
    struct pd_outscan *s = new_scan();
    const char *v = "# tokens\nAPP_NAME=myproject\nsettings\nx9-Qr7-Lm2-Zt4\n";
    cr_expect_eq(pd_outscan_add_secret_text(s, v, strlen(v), "file .env"), 1);
    expect_found(s, "x9-Qr7-Lm2-Zt4", true);
    expect_found(s, "settings", false);
    expect_found(s, "myproject", false);
    pd_outscan_free(s);
}

Test(files, config_files_add_no_bare_line)
{
    char *path = write_temp("#!/bin/sh\nexec git diff-index --check --cached $against --\n"
                            "url = https://bot:Gh0st-pass-99@example.com/r.git\n");
    struct pd_outscan *s = new_scan();
    cr_expect_geq(pd_outscan_add_config_file(s, path), 1);
    expect_found(s, "Gh0st-pass-99", true);
    expect_found(s, "exec git diff-index --check --cached $against --", false);
    pd_outscan_free(s);
    unlink(path);
    free(path);
}

Test(names, line_is_secret)
{
    cr_expect(pd_outscan_line_is_secret("hunter2-very-long-value", 23));
    cr_expect(pd_outscan_line_is_secret("Zx81kLm02Qa9", 12));
    cr_expect(pd_outscan_line_is_secret("abcdefghijklmnopq", 17), "long, one class, no blank");
    cr_expect(!pd_outscan_line_is_secret("settings", 8), "a word");
    cr_expect(!pd_outscan_line_is_secret("the prod keys live here", 23), "prose");
    cr_expect(!pd_outscan_line_is_secret("12345678901", 11), "a number");
    cr_expect(!pd_outscan_line_is_secret("short-1", 7), "under 8 bytes");
    cr_expect(!pd_outscan_line_is_secret("${DB_PASSWORD}", 14), "a placeholder");
}
