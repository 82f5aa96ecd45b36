/* tests/unit/test_report.c - the preload's report records (policy/report.h):
 * encode then decode gives back every field, also with tabs, newlines and
 * backslashes inside; over-long fields and argv are cut to the 8 KiB bound
 * and still decode; malformed records are refused. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "policy/report.h"

static struct pd_report_decoded dec;

static struct pd_report sample(const char *const *argv, size_t argc)
{
    struct pd_report r = {
        .kind = PD_REPORT_DENY,
        .op = "write",
        .path = ".env",
        .resolved = "/ws/.env",
        .key = "secrets",
        .pattern = ".env",
        .reason = "secret",
        .pid = 4242,
        .program = "python3",
        .argc = argc,
        .argv = argv,
    };
    return r;
}

static void roundtrip(const struct pd_report *r, size_t *len_out)
{
    char buf[PD_REPORT_MAX];
    size_t n = pd_report_encode(r, buf, sizeof buf);
    cr_assert_gt(n, 0);
    cr_assert_leq(n, PD_REPORT_MAX);
    cr_assert_eq(pd_report_decode(buf, n, &dec), 0, "decode of %.*s", (int)n, buf);
    if (len_out)
        *len_out = n;
}

Test(report, plain_round_trip)
{
    const char *argv[] = {"python3", "-c", "open('.env')"};
    struct pd_report r = sample(argv, 3);
    char buf[PD_REPORT_MAX];
    size_t n = pd_report_encode(&r, buf, sizeof buf);
    cr_assert_str_eq(buf,
                     "PDR1\tdeny\twrite\t.env\t/ws/.env\tsecrets\t.env\tsecret\t4242\tpython3\t"
                     "python3\t-c\topen('.env')");
    cr_assert_eq(n, strlen(buf));
    roundtrip(&r, NULL);
    cr_assert_str_eq(dec.r.kind, "deny");
    cr_assert_str_eq(dec.r.op, "write");
    cr_assert_str_eq(dec.r.path, ".env");
    cr_assert_str_eq(dec.r.resolved, "/ws/.env");
    cr_assert_str_eq(dec.r.key, "secrets");
    cr_assert_str_eq(dec.r.pattern, ".env");
    cr_assert_str_eq(dec.r.reason, "secret");
    cr_assert_eq(dec.r.pid, 4242);
    cr_assert_str_eq(dec.r.program, "python3");
    cr_assert_eq(dec.r.argc, 3);
    cr_assert_str_eq(dec.r.argv[2], "open('.env')");
}

Test(report, escapes_tabs_newlines_backslashes)
{
    const char *argv[] = {"sh", "-c", "printf 'a\tb\\n' >\n.env\\"};
    struct pd_report r = sample(argv, 3);
    r.path = "dir\twith\ttabs/new\nline\\.env";
    r.resolved = "\\\\\t\n";
    r.pattern = "*\\[x]";
    char buf[PD_REPORT_MAX];
    size_t n = pd_report_encode(&r, buf, sizeof buf);
    cr_assert_null(memchr(buf, '\n', n), "a record never holds a raw newline");
    cr_assert(strstr(buf, "dir\\twith\\ttabs/new\\nline\\\\.env"), "%s", buf);
    roundtrip(&r, NULL);
    cr_assert_str_eq(dec.r.path, r.path);
    cr_assert_str_eq(dec.r.resolved, r.resolved);
    cr_assert_str_eq(dec.r.pattern, r.pattern);
    cr_assert_str_eq(dec.r.argv[2], argv[2]);
}

Test(report, null_fields_are_empty)
{
    struct pd_report r = sample(NULL, 0);
    r.pattern = NULL;
    r.resolved = NULL;
    r.kind = PD_REPORT_COVERAGE;
    roundtrip(&r, NULL);
    cr_assert_str_eq(dec.r.pattern, "");
    cr_assert_str_eq(dec.r.resolved, "");
    cr_assert_str_eq(dec.r.kind, "coverage");
    cr_assert_eq(dec.r.argc, 0);
}

Test(report, negative_and_large_pid)
{
    struct pd_report r = sample(NULL, 0);
    r.pid = -7;
    roundtrip(&r, NULL);
    cr_assert_eq(dec.r.pid, -7);
    r.pid = 4194304;
    roundtrip(&r, NULL);
    cr_assert_eq(dec.r.pid, 4194304);
}

Test(report, long_argv_is_truncated_to_bound)
{
    static char big[3000];
    memset(big, 'a', sizeof big - 1);
    const char *argv[40];
    for (size_t k = 0; k < 40; k++)
        argv[k] = big;
    struct pd_report r = sample(argv, 40);
    size_t n;
    roundtrip(&r, &n);
    cr_assert_leq(n, PD_REPORT_MAX);
    cr_assert_lt(dec.r.argc, 40, "argv is cut");
    cr_assert_geq(dec.r.argc, 1);
    /* every kept argument is whole except the last, which ends in "..." */
    for (size_t k = 0; k + 1 < dec.r.argc; k++)
        cr_assert_str_eq(dec.r.argv[k], big);
    const char *last = dec.r.argv[dec.r.argc - 1];
    size_t ll = strlen(last);
    cr_assert(ll == strlen(big) || (ll >= 3 && strcmp(last + ll - 3, "...") == 0), "%s", last);
    /* the fixed fields are intact */
    cr_assert_str_eq(dec.r.path, ".env");
    cr_assert_str_eq(dec.r.program, "python3");
}

Test(report, long_fields_are_cut_but_decode)
{
    static char huge[PD_REPORT_MAX * 2];
    memset(huge, '\t', sizeof huge - 1); /* escapes double the size */
    struct pd_report r = sample(NULL, 0);
    r.path = huge;
    r.resolved = huge;
    r.pattern = huge;
    r.reason = huge;
    r.program = huge;
    size_t n;
    roundtrip(&r, &n);
    cr_assert_leq(n, PD_REPORT_MAX);
    size_t pl = strlen(dec.r.path);
    cr_assert_gt(pl, 100);
    cr_assert_str_eq(dec.r.path + pl - 3, "...");
    for (size_t k = 0; k + 3 < pl; k++)
        cr_assert_eq(dec.r.path[k], '\t');
    cr_assert_eq(dec.r.pid, 4242, "fields after a cut one survive");
}

Test(report, small_buffer)
{
    struct pd_report r = sample(NULL, 0);
    char buf[8];
    cr_assert_eq(pd_report_encode(&r, buf, sizeof buf), 0);
}

Test(report, malformed_records_are_refused)
{
    const char *bad[] = {
        "",
        "PDR1",
        "PDR2\tdeny\twrite\tp\tr\tk\tpat\treason\t1\tprog",
        "PDR1\tmaybe\twrite\tp\tr\tk\tpat\treason\t1\tprog",
        "PDR1\tdeny\twrite\tp\tr\tk\tpat\treason\tx1\tprog",
        "PDR1\tdeny\twrite\tp\tr\tk\tpat\treason\t\tprog",
        "PDR1\tdeny\twrite\tp\\q\tr\tk\tpat\treason\t1\tprog",
        "PDR1\tdeny\twrite\tp\tr\tk\tpat\treason\t1\tprog\\",
        "PDR1\tdeny\twrite\tp\tr\tk\tpat\treason\t1",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        cr_assert_eq(pd_report_decode(bad[k], strlen(bad[k]), &dec), -1, "accepted: %s", bad[k]);
    static char over[PD_REPORT_MAX + 2];
    memset(over, 'a', sizeof over);
    cr_assert_eq(pd_report_decode(over, sizeof over, &dec), -1);
    const char nul[] = "PDR1\tdeny\twrite\tp\0x\tr\tk\tpat\treason\t1\tprog";
    cr_assert_eq(pd_report_decode(nul, sizeof nul - 1, &dec), -1);
}

Test(report, minimal_record_without_argv)
{
    const char *rec = "PDR1\terror\tinit\t/run/policy.compiled\t\t\t\tbad header\t12\tsh";
    cr_assert_eq(pd_report_decode(rec, strlen(rec), &dec), 0);
    cr_assert_str_eq(dec.r.kind, "error");
    cr_assert_str_eq(dec.r.reason, "bad header");
    cr_assert_eq(dec.r.argc, 0);
}

/* A write refused only for lying outside the writable roots (issue 11,
 * item 5) is a kind of its own: the launcher lets the command decide. */
Test(report, blocked_kind_round_trip)
{
    struct pd_report r = sample(NULL, 0);
    r.kind = PD_REPORT_BLOCKED;
    r.key = "workspace";
    r.pattern = "";
    r.reason = "outside workspace";
    roundtrip(&r, NULL);
    cr_assert_str_eq(dec.r.kind, "blocked");
    cr_assert_str_eq(dec.r.key, "workspace");
}
