/* tests/unit/test_jev.c - the jev verdict client (launcher/jev/jev.h): the
 * decision and its messages, the request the endpoint receives (headers, JSON
 * shape, key order, truncation, UTF-8 repair, escaping), the response checks,
 * HTTP errors, timeouts and the URL and proxy rules. Every network test talks
 * to tests/jev_stub.py on 127.0.0.1, started afresh for each test. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/jev/jev.h"

#define STUB_SCRIPT   PALDRON_SOURCE_DIR "/tests/jev_stub.py"
#define SUITE_TIMEOUT 60

/* ---- the stub ------------------------------------------------------------ */

static pid_t stub_pid = -1;
static char tmp_dir[64];
static char log_path[128];
static char stub_url[128];

static const char *const proxy_vars[] = {
    "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
    "ALL_PROXY",  "no_proxy",   "NO_PROXY",    NULL,
};

static void setup(void)
{
    for (size_t i = 0; proxy_vars[i] != NULL; i++)
        unsetenv(proxy_vars[i]);
    setenv("JEV_API_KEY", "test-key", 1);
    unsetenv("JEV_API_URL");
    pd_jev_set_timeout_ms(0);
    snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/paldron-jev-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_dir), "mkdtemp: %s", strerror(errno));
    snprintf(log_path, sizeof(log_path), "%s/requests.jsonl", tmp_dir);
}

static void teardown(void)
{
    if (stub_pid > 0) {
        kill(stub_pid, SIGKILL);
        waitpid(stub_pid, NULL, 0);
        stub_pid = -1;
    }
    const char *files[] = {"requests.jsonl", "cert.pem", "key.pem"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[160];
        snprintf(path, sizeof(path), "%s/%s", tmp_dir, files[i]);
        unlink(path);
    }
    rmdir(tmp_dir);
}

TestSuite(jev, .init = setup, .fini = teardown, .timeout = SUITE_TIMEOUT);

/* Start the stub with the given options (NULL-terminated) and point
 * JEV_API_URL at it. */
static void stub_start(const char *opt, ...)
{
    const char *args[24];
    size_t n = 0;
    args[n++] = "python3";
    args[n++] = STUB_SCRIPT;
    args[n++] = "--log";
    args[n++] = log_path;
    va_list ap;
    va_start(ap, opt);
    for (const char *a = opt; a != NULL; a = va_arg(ap, const char *)) {
        cr_assert_lt(n, sizeof(args) / sizeof(args[0]) - 1);
        args[n++] = a;
    }
    va_end(ap);
    args[n] = NULL;

    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv("/usr/bin/python3", (char *const *)args);
        _exit(127);
    }
    close(fds[1]);
    stub_pid = pid;

    char line[32] = "";
    size_t len = 0;
    while (len < sizeof(line) - 1 && strchr(line, '\n') == NULL) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        int r = poll(&p, 1, 20000);
        cr_assert_eq(r, 1, "the stub did not print its port");
        ssize_t got = read(fds[0], line + len, sizeof(line) - 1 - len);
        cr_assert_gt(got, 0, "the stub exited before printing its port");
        len += (size_t)got;
        line[len] = '\0';
    }
    close(fds[0]);
    int port = atoi(line);
    cr_assert(port > 0 && port < 65536, "bad port line from the stub: %s", line);
    snprintf(stub_url, sizeof(stub_url), "http://127.0.0.1:%d/v1/systemone", port);
    setenv("JEV_API_URL", stub_url, 1);
}

/* The requests the stub logged, as a cJSON array (never NULL). */
static cJSON *stub_log(void)
{
    cJSON *all = cJSON_CreateArray();
    FILE *f = fopen(log_path, "r");
    if (f == NULL)
        return all;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        cJSON *e = cJSON_ParseWithLength(line, (size_t)n);
        cr_assert_not_null(e, "bad log line: %s", line);
        cJSON_AddItemToArray(all, e);
    }
    free(line);
    fclose(f);
    return all;
}

static int stub_requests(void)
{
    cJSON *all = stub_log();
    int n = cJSON_GetArraySize(all);
    cJSON_Delete(all);
    return n;
}

/* Follow a path of object keys ("body", "state", "stdout", NULL). */
static const cJSON *dig(const cJSON *j, ...)
{
    va_list ap;
    va_start(ap, j);
    for (const char *k = va_arg(ap, const char *); k != NULL && j != NULL;
         k = va_arg(ap, const char *))
        j = cJSON_GetObjectItemCaseSensitive(j, k);
    va_end(ap);
    return j;
}

static const char *dig_str(const cJSON *j, const char *a, const char *b, const char *c)
{
    const cJSON *x = dig(j, a, b, c, NULL);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

static int judge_bytes(const void *out, size_t len, struct pd_jev_verdict *v, char *err)
{
    struct pd_jev_request rq = {.stdout_buf = out, .stdout_len = len};
    return pd_jev_judge(&rq, v, err, PD_MSG_MAX);
}

static int judge_text(const char *out, struct pd_jev_verdict *v, char *err)
{
    return judge_bytes(out, strlen(out), v, err);
}

/* Judge through the stub and expect an error with exactly this text. */
static void expect_judge_error(const char *want)
{
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), -1, "want error %s", want);
    cr_expect_str_eq(err, want);
}

static void expect_judge_error_prefix(const char *prefix)
{
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), -1, "want error %s...", prefix);
    cr_expect(strncmp(err, prefix, strlen(prefix)) == 0, "error '%s' does not start with '%s'", err,
              prefix);
}

static struct pd_policy policy(double threshold, enum pd_on_error on_error)
{
    struct pd_policy p;
    pd_policy_defaults(&p);
    p.jev_verdict = true;
    p.jev_threshold = threshold;
    p.jev_on_error = on_error;
    return p;
}

/* Run decide for a verdict and compare outcome and message. */
static void expect_decide(double threshold, double secret, double hostile, enum pd_jev_outcome want,
                          const char *want_msg)
{
    struct pd_policy p = policy(threshold, PD_ON_ERROR_DENY);
    struct pd_jev_verdict v = {secret, hostile};
    char msg[PD_MSG_MAX];
    enum pd_jev_outcome o = pd_jev_decide(&p, 0, &v, "", msg, sizeof(msg));
    cr_expect_eq(o, want, "threshold %g secret %g hostile %g: outcome %d want %d", threshold,
                 secret, hostile, o, want);
    cr_expect_str_eq(msg, want_msg, "threshold %g secret %g hostile %g", threshold, secret,
                     hostile);
    pd_policy_free(&p);
}

static size_t count_code_points(const char *s)
{
    size_t n = 0;
    for (; *s != '\0'; s++)
        if (((unsigned char)*s & 0xC0u) != 0x80u)
            n++;
    return n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- decisions through the stub (J02-J06, B41) ---------------------------- */

static void judge_and_decide(const char *answer, double threshold, enum pd_jev_outcome want,
                             const char *want_msg)
{
    stub_start("--answer", answer, NULL);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX], msg[PD_MSG_MAX];
    int rc = judge_text("output", &v, err);
    cr_assert_eq(rc, 0, "judge failed: %s", err);
    struct pd_policy p = policy(threshold, PD_ON_ERROR_DENY);
    cr_expect_eq(pd_jev_decide(&p, rc, &v, err, msg, sizeof(msg)), want);
    cr_expect_str_eq(msg, want_msg);
    pd_policy_free(&p);
}

Test(jev, clean_output_allows)
{
    judge_and_decide("0.02,0.01", 0.7, PD_JEV_ALLOW, "");
}

Test(jev, secret_exposure_denies)
{
    judge_and_decide("0.93,0.05", 0.7, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.93)");
}

Test(jev, hostile_action_denies)
{
    judge_and_decide("0.1,0.88", 0.7, PD_JEV_DENY,
                     "jev verdict: output shows hostile action (p=0.88)");
}

Test(jev, secret_is_checked_before_hostile)
{
    judge_and_decide("0.95,0.99", 0.7, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.95)");
}

Test(jev, custom_threshold_high_allows)
{
    judge_and_decide("0.6,0.0", 0.9, PD_JEV_ALLOW, "");
}

Test(jev, custom_threshold_low_denies)
{
    judge_and_decide("0.6,0.0", 0.5, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.60)");
}

Test(jev, probability_equal_to_threshold_denies)
{
    judge_and_decide("0.7,0", 0.7, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.70)");
}

Test(jev, verdict_maps_both_answers)
{
    stub_start("--answer", "0.91,0.04", NULL);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("AKIA...", &v, err), 0, "%s", err);
    cr_expect_eq(v.secret_exposure, 0.91);
    cr_expect_eq(v.hostile_action, 0.04);
}

Test(jev, bounds_zero_and_one_are_accepted)
{
    stub_start("--answer", "0,1", NULL);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), 0, "%s", err);
    cr_expect_eq(v.secret_exposure, 0.0);
    cr_expect_eq(v.hostile_action, 1.0);
}

/* ---- decide() alone -------------------------------------------------------- */

Test(jev, decide_threshold_edges_and_formatting)
{
    expect_decide(0.7, 0.7, 0.0, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.70)");
    expect_decide(0.7, 0.6999, 0.0, PD_JEV_ALLOW, "");
    expect_decide(0.7, 0.0, 0.7, PD_JEV_DENY, "jev verdict: output shows hostile action (p=0.70)");
    expect_decide(0.7, 0.69, 0.69, PD_JEV_ALLOW, "");
    expect_decide(0.5, 0.5, 0.0, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.50)");
    expect_decide(0.9, 0.999, 0.0, PD_JEV_DENY, "jev verdict: output exposes secrets (p=1.00)");
    expect_decide(1.0, 1.0, 0.0, PD_JEV_DENY, "jev verdict: output exposes secrets (p=1.00)");
    expect_decide(1.0, 0.99, 0.99, PD_JEV_ALLOW, "");
    expect_decide(0.3, 0.1, 0.333, PD_JEV_DENY,
                  "jev verdict: output shows hostile action (p=0.33)");
    expect_decide(0.7, 0.8, 0.9, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.80)");
}

Test(jev, decide_unset_threshold_means_default)
{
    /* a threshold outside (0, 1] cannot come from the policy loader; if it
     * does, 0.7 applies as in the original */
    expect_decide(0.0, 0.69, 0.0, PD_JEV_ALLOW, "");
    expect_decide(0.0, 0.7, 0.0, PD_JEV_DENY, "jev verdict: output exposes secrets (p=0.70)");

    struct pd_jev_verdict v = {0.75, 0.0};
    char msg[PD_MSG_MAX];
    cr_expect_eq(pd_jev_decide(NULL, 0, &v, NULL, msg, sizeof(msg)), PD_JEV_DENY);
    cr_expect_str_eq(msg, "jev verdict: output exposes secrets (p=0.75)");
}

Test(jev, decide_error_fails_closed_by_default)
{
    struct pd_policy p = policy(0.7, PD_ON_ERROR_DENY);
    char msg[PD_MSG_MAX];
    cr_expect_eq(pd_jev_decide(&p, -1, NULL, "jev: JEV_API_KEY is not set", msg, sizeof(msg)),
                 PD_JEV_DENY);
    cr_expect_str_eq(msg, "jev verdict unavailable: jev: JEV_API_KEY is not set");
    cr_expect_eq(pd_jev_decide(NULL, -1, NULL, "jev: x", msg, sizeof(msg)), PD_JEV_DENY);
    cr_expect_str_eq(msg, "jev verdict unavailable: jev: x");
    pd_policy_free(&p);
}

Test(jev, decide_error_warns_when_on_error_allow)
{
    struct pd_policy p = policy(0.7, PD_ON_ERROR_ALLOW);
    char msg[PD_MSG_MAX];
    cr_expect_eq(pd_jev_decide(&p, -1, NULL, "jev: request failed: boom", msg, sizeof(msg)),
                 PD_JEV_WARN);
    cr_expect_str_eq(msg, "warning: jev verdict unavailable, allowing run (jev_on_error=allow): "
                          "jev: request failed: boom");
    pd_policy_free(&p);
}

Test(jev, decide_rejects_bad_verdict_values)
{
    struct pd_policy p = policy(0.7, PD_ON_ERROR_DENY);
    char msg[PD_MSG_MAX];
    const double bad[] = {NAN, -0.1, 1.5, INFINITY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct pd_jev_verdict v = {bad[i], 0.0};
        cr_expect_eq(pd_jev_decide(&p, 0, &v, "", msg, sizeof(msg)), PD_JEV_DENY);
        cr_expect(strncmp(msg, "jev verdict unavailable: ", 25) == 0, "%s", msg);
        v = (struct pd_jev_verdict){0.0, bad[i]};
        cr_expect_eq(pd_jev_decide(&p, 0, &v, "", msg, sizeof(msg)), PD_JEV_DENY);
    }
    cr_expect_eq(pd_jev_decide(&p, 0, NULL, "", msg, sizeof(msg)), PD_JEV_DENY);
    pd_policy_free(&p);
}

Test(jev, decide_with_real_errors_end_to_end)
{
    /* J07/J08: an unreachable endpoint, fail closed then open */
    setenv("JEV_API_URL", "http://127.0.0.1:1/", 1);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX], msg[PD_MSG_MAX];
    int rc = judge_text("x", &v, err);
    cr_assert_eq(rc, -1);
    struct pd_policy deny = policy(0.7, PD_ON_ERROR_DENY);
    struct pd_policy allow = policy(0.7, PD_ON_ERROR_ALLOW);
    cr_expect_eq(pd_jev_decide(&deny, rc, &v, err, msg, sizeof(msg)), PD_JEV_DENY);
    cr_expect(strncmp(msg, "jev verdict unavailable: jev: request failed: ", 46) == 0, "%s", msg);
    cr_expect_eq(pd_jev_decide(&allow, rc, &v, err, msg, sizeof(msg)), PD_JEV_WARN);
    const char *w = "warning: jev verdict unavailable, allowing run (jev_on_error=allow): "
                    "jev: request failed: ";
    cr_expect(strncmp(msg, w, strlen(w)) == 0, "%s", msg);
    pd_policy_free(&deny);
    pd_policy_free(&allow);
}

/* ---- the key ------------------------------------------------------------- */

Test(jev, missing_key_makes_no_request)
{
    stub_start(NULL);
    unsetenv("JEV_API_KEY");
    expect_judge_error("jev: JEV_API_KEY is not set");
    setenv("JEV_API_KEY", "", 1);
    expect_judge_error("jev: JEV_API_KEY is not set");
    setenv("JEV_API_KEY", "abc\r\nX-Injected: 1", 1);
    expect_judge_error("jev: JEV_API_KEY contains control characters");
    cr_expect_eq(stub_requests(), 0);
}

/* ---- the request the endpoint sees (B41, B42) -------------------------------- */

Test(jev, request_headers_and_shape)
{
    stub_start("--answer", "0.91,0.04", NULL);
    char *argv[] = {"cat", ".env", NULL};
    struct pd_jev_request rq = {
        .argv = argv, .exit_code = 0, .stdout_buf = "AKIA...", .stdout_len = 7};
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(pd_jev_judge(&rq, &v, err, sizeof(err)), 0, "%s", err);

    cJSON *log = stub_log();
    cr_assert_eq(cJSON_GetArraySize(log), 1);
    const cJSON *r = cJSON_GetArrayItem(log, 0);
    cr_expect_str_eq(dig_str(r, "method", NULL, NULL), "POST");
    cr_expect_str_eq(dig_str(r, "path", NULL, NULL), "/v1/systemone");
    cr_expect_str_eq(dig_str(r, "headers", "authorization", NULL), "Bearer test-key");
    cr_expect_str_eq(dig_str(r, "headers", "content-type", NULL), "application/json");
    cr_expect_null(dig(r, "headers", "expect", NULL), "no Expect: 100-continue");

    const cJSON *body = dig(r, "body", NULL);
    cr_assert(cJSON_IsObject(body), "the body is not a JSON object");
    cr_expect_str_eq(dig_str(body, "model", NULL, NULL), "jev-latest");
    const char *names[] = {"secret_exposure", "hostile_action"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *q = dig(body, "questions", names[i], NULL);
        cr_assert(cJSON_IsObject(q), "question %s missing", names[i]);
        cr_expect_str_eq(dig_str(q, "type", NULL, NULL), "noul");
        const char *ins = dig_str(q, "instructions", NULL, NULL);
        cr_expect(ins != NULL && strlen(ins) > 20, "instructions of %s", names[i]);
        cr_expect_not_null(dig_str(q, "criteria", "true", NULL));
        cr_expect_not_null(dig_str(q, "criteria", "false", NULL));
    }
    cr_expect_eq(cJSON_GetArraySize(dig(body, "questions", NULL)), 2);
    cr_expect_str_eq(dig_str(body, "state", "stdout", NULL), "AKIA...");
    cr_expect_str_eq(dig_str(body, "state", "stderr", NULL), "");
    const cJSON *code = dig(body, "state", "exit_code", NULL);
    cr_expect(cJSON_IsNumber(code) && code->valuedouble == 0.0);
    const cJSON *av = dig(body, "state", "argv", NULL);
    cr_assert(cJSON_IsArray(av));
    cr_expect_eq(cJSON_GetArraySize(av), 2);
    cr_expect_str_eq(cJSON_GetArrayItem(av, 0)->valuestring, "cat");
    cr_expect_str_eq(cJSON_GetArrayItem(av, 1)->valuestring, ".env");
    cJSON_Delete(log);
}

Test(jev, request_argv_null_when_absent)
{
    stub_start(NULL);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), 0, "%s", err);
    cJSON *log = stub_log();
    const cJSON *r = cJSON_GetArrayItem(log, 0);
    cr_assert_not_null(r);
    cr_expect(cJSON_IsNull(dig(r, "body", "state", "argv", NULL)));
    cr_expect_not_null(strstr(dig_str(r, "raw", NULL, NULL), "\"argv\":null"));
    cJSON_Delete(log);
}

Test(jev, request_truncates_long_output)
{
    stub_start(NULL);
    size_t n = 13000;
    char *big = malloc(n);
    cr_assert_not_null(big);
    memset(big, 'x', n);
    /* stderr: 13000 two-byte characters, cut to 4000 code points */
    char *wide = malloc(2 * n);
    cr_assert_not_null(wide);
    for (size_t i = 0; i < n; i++)
        memcpy(wide + 2 * i, "\xc3\xa9", 2);
    struct pd_jev_request rq = {
        .stdout_buf = big, .stdout_len = n, .stderr_buf = wide, .stderr_len = 2 * n};
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(pd_jev_judge(&rq, &v, err, sizeof(err)), 0, "%s", err);
    cJSON *log = stub_log();
    const cJSON *r = cJSON_GetArrayItem(log, 0);
    const char *out = dig_str(r, "body", "state", "stdout");
    const char *errs = dig_str(r, "body", "state", "stderr");
    cr_assert_not_null(out);
    cr_assert_not_null(errs);
    cr_expect_eq(strlen(out), 8000);
    cr_expect_eq(strspn(out, "x"), 8000);
    cr_expect_eq(count_code_points(errs), 4000);
    cr_expect_eq(strlen(errs), 8000);
    cJSON_Delete(log);
    free(big);
    free(wide);
}

Test(jev, request_truncates_multibyte_stdout_by_code_points)
{
    stub_start(NULL);
    size_t n = 9000;
    char *s = malloc(3 * n);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++)
        memcpy(s + 3 * i, "\xe2\x82\xac", 3); /* U+20AC EURO SIGN */
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_bytes(s, 3 * n, &v, err), 0, "%s", err);
    cJSON *log = stub_log();
    const char *out = dig_str(cJSON_GetArrayItem(log, 0), "body", "state", "stdout");
    cr_assert_not_null(out);
    cr_expect_eq(count_code_points(out), 8000);
    cr_expect_eq(strlen(out), 24000);
    cJSON_Delete(log);
    free(s);
}

Test(jev, request_repairs_invalid_utf8_and_keeps_nul)
{
    stub_start(NULL);
    static const char in[] = "a\xff"
                             "b\xe2\x82"
                             "c\0d";
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_bytes(in, sizeof(in) - 1, &v, err), 0, "%s", err);
    cJSON *log = stub_log();
    const char *raw = dig_str(cJSON_GetArrayItem(log, 0), "raw", NULL, NULL);
    cr_assert_not_null(raw);
    /* U+FFFD travels as raw UTF-8, NUL as \u0000 */
    cr_expect_not_null(strstr(raw, "\"stdout\":\"a\xef\xbf\xbd"
                                   "b\xef\xbf\xbd"
                                   "c\\u0000d\""),
                       "raw body: %s", raw);
    cJSON_Delete(log);
}

Test(jev, request_escapes_html_characters)
{
    stub_start(NULL);
    char *argv[] = {"sh", "-c", "echo '<b>' && true", NULL};
    const char *out = "<script>x & y</script>";
    struct pd_jev_request rq = {.argv = argv, .stdout_buf = out, .stdout_len = strlen(out)};
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(pd_jev_judge(&rq, &v, err, sizeof(err)), 0, "%s", err);
    cJSON *log = stub_log();
    const cJSON *r = cJSON_GetArrayItem(log, 0);
    const char *raw = dig_str(r, "raw", NULL, NULL);
    cr_assert_not_null(raw);
    cr_expect_not_null(strstr(raw, "\\u003cscript\\u003ex \\u0026 y\\u003c/script\\u003e"), "%s",
                       raw);
    cr_expect_not_null(strstr(raw, "\"echo '\\u003cb\\u003e' \\u0026\\u0026 true\""), "%s", raw);
    cr_expect_null(strpbrk(raw, "<>&"), "a raw < > or & in: %s", raw);
    cr_expect_str_eq(dig_str(r, "body", "state", "stdout"), out);
    cJSON_Delete(log);
}

/* ---- request body without the network ------------------------------------- */

static void expect_sorted_keys(const cJSON *j, const char *where)
{
    const char *prev = NULL;
    for (const cJSON *c = j->child; c != NULL; c = c->next) {
        if (cJSON_IsObject(j)) {
            if (prev != NULL)
                cr_expect_lt(strcmp(prev, c->string), 0, "keys %s, %s out of order in %s", prev,
                             c->string, where);
            prev = c->string;
        }
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            expect_sorted_keys(c, c->string != NULL ? c->string : where);
    }
}

Test(jev, request_json_keys_sorted_at_every_level)
{
    char *argv[] = {"ls", NULL};
    struct pd_jev_request rq = {.argv = argv,
                                .exit_code = 3,
                                .stdout_buf = "o",
                                .stdout_len = 1,
                                .stderr_buf = "e",
                                .stderr_len = 1};
    size_t len = 0;
    char *s = pd_jev_request_json(&rq, &len);
    cr_assert_not_null(s);
    cr_expect_eq(strlen(s), len);
    const char *prefix = "{\"model\":\"jev-latest\",\"questions\":{\"hostile_action\":{"
                         "\"criteria\":{\"false\":\"";
    cr_expect(strncmp(s, prefix, strlen(prefix)) == 0, "%s", s);
    const char *suffix =
        ",\"state\":{\"argv\":[\"ls\"],\"exit_code\":3,\"stderr\":\"e\",\"stdout\":\"o\"}}";
    cr_expect(len > strlen(suffix) && strcmp(s + len - strlen(suffix), suffix) == 0, "%s", s);
    cJSON *j = cJSON_Parse(s);
    cr_assert_not_null(j, "not JSON: %s", s);
    expect_sorted_keys(j, "top");
    cJSON_Delete(j);
    free(s);
}

Test(jev, request_json_handles_null_buffers)
{
    struct pd_jev_request rq = {.stdout_buf = NULL, .stdout_len = 5};
    char *s = pd_jev_request_json(&rq, NULL);
    cr_assert_not_null(s);
    cr_expect_not_null(
        strstr(s, "\"state\":{\"argv\":null,\"exit_code\":0,\"stderr\":\"\",\"stdout\":\"\"}"),
        "%s", s);
    free(s);
}

static void expect_quote(const char *in, size_t len, size_t max_cp, const char *want)
{
    size_t n = 0;
    char *s = pd_jev_json_string(in, len, max_cp, &n);
    cr_assert_not_null(s);
    cr_expect_str_eq(s, want);
    cr_expect_eq(n, strlen(want));
    free(s);
}

#define QUOTE(lit, want) expect_quote(lit, sizeof(lit) - 1, SIZE_MAX, want)

Test(jev, json_string_escapes_like_go)
{
    QUOTE("", "\"\"");
    QUOTE("plain text", "\"plain text\"");
    QUOTE("q\"b\\s/", "\"q\\\"b\\\\s/\"");
    QUOTE("n\nr\rt\t", "\"n\\nr\\rt\\t\"");
    QUOTE("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"");
    QUOTE("\b\f\x1b", "\"\\u0008\\u000c\\u001b\"");
    QUOTE("a\0b", "\"a\\u0000b\"");
    QUOTE("<>&", "\"\\u003c\\u003e\\u0026\"");
    QUOTE("\xe2\x80\xa8|\xe2\x80\xa9", "\"\\u2028|\\u2029\"");
    QUOTE("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    QUOTE("\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\"\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf\"");
}

#define FFFD "\xef\xbf\xbd"

Test(jev, json_string_replaces_maximal_invalid_subparts)
{
    /* the same counts as Python's bytes.decode("utf-8", "replace") */
    QUOTE("\xff", "\"" FFFD "\"");
    QUOTE("a\x80"
          "b",
          "\"a" FFFD "b\"");
    QUOTE("\xc0\x80", "\"" FFFD FFFD "\"");                   /* overlong NUL */
    QUOTE("\xe0\x80\x80", "\"" FFFD FFFD FFFD "\"");          /* overlong */
    QUOTE("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");          /* surrogate */
    QUOTE("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\""); /* above U+10FFFF */
    QUOTE("\xf5\x80", "\"" FFFD FFFD "\"");
    QUOTE("\xe2\x82", "\"" FFFD "\""); /* cut at the end */
    QUOTE("\xe2\x82"
          "A",
          "\"" FFFD "A\"");
    QUOTE("\xf0\x9f\x98"
          "x",
          "\"" FFFD "x\"");
}

Test(jev, json_string_counts_code_points)
{
    expect_quote("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 2, "\"\xc3\xa9\xc3\xa9\"");
    expect_quote("\xff\xff\xff", 3, 2, "\"" FFFD FFFD "\"");
    expect_quote("<<<", 3, 1, "\"\\u003c\"");
    expect_quote("abc", 3, 0, "\"\"");
    expect_quote("abc", 3, 3, "\"abc\"");
}

/* ---- HTTP errors (J11, B44) -------------------------------------------------- */

Test(jev, status_401)
{
    stub_start("--status", "401", NULL);
    expect_judge_error("jev: endpoint returned 401 Unauthorized");
}

Test(jev, status_500_with_big_body)
{
    stub_start("--status", "500", "--pad", "2000000", NULL);
    expect_judge_error("jev: endpoint returned 500 Internal Server Error");
}

Test(jev, status_404)
{
    stub_start("--status", "404", "--body", "nope", NULL);
    expect_judge_error("jev: endpoint returned 404 Not Found");
}

Test(jev, status_204_no_content)
{
    stub_start("--status", "204", "--body", "", NULL);
    expect_judge_error("jev: endpoint returned 204 No Content");
}

Test(jev, status_without_standard_phrase)
{
    stub_start("--status", "599", NULL);
    expect_judge_error("jev: endpoint returned 599");
}

Test(jev, redirect_is_not_followed)
{
    stub_start("--status", "302", NULL);
    expect_judge_error("jev: endpoint returned 302 Found");
    cr_expect_eq(stub_requests(), 1);
}

Test(jev, status_phrases)
{
    cr_expect_str_eq(pd_jev_status_text(200), "OK");
    cr_expect_str_eq(pd_jev_status_text(401), "Unauthorized");
    cr_expect_str_eq(pd_jev_status_text(403), "Forbidden");
    cr_expect_str_eq(pd_jev_status_text(429), "Too Many Requests");
    cr_expect_str_eq(pd_jev_status_text(503), "Service Unavailable");
    cr_expect_null(pd_jev_status_text(299));
    cr_expect_null(pd_jev_status_text(0));
}

/* ---- response bodies (J12, B45) ------------------------------------------------ */

Test(jev, empty_answers_is_missing_secret_exposure)
{
    stub_start("--body", "{\"answers\": {}}", NULL);
    expect_judge_error("jev: response missing secret_exposure");
}

Test(jev, no_answers_is_missing_secret_exposure)
{
    stub_start("--body", "{\"other\": 1}", NULL);
    expect_judge_error("jev: response missing secret_exposure");
}

Test(jev, missing_hostile_action)
{
    stub_start("--body", "{\"answers\": {\"secret_exposure\": {\"noul\": 0.1}}}", NULL);
    expect_judge_error("jev: response missing hostile_action");
}

Test(jev, malformed_body)
{
    stub_start("--body", "<html>bad gateway</html>", NULL);
    expect_judge_error("jev: decode response: invalid JSON at byte 0");
}

Test(jev, empty_body)
{
    stub_start("--body", "", NULL);
    expect_judge_error("jev: decode response: empty body");
}

Test(jev, extra_fields_are_ignored)
{
    stub_start("--body",
               "{\"id\":\"r1\",\"answers\":{\"hostile_action\":{\"noul\":0.2,\"why\":\"x\"},"
               "\"secret_exposure\":{\"noul\":0.3,\"yes\":0.3},\"other\":{}},\"usage\":[1,2]}",
               NULL);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), 0, "%s", err);
    cr_expect_eq(v.secret_exposure, 0.3);
    cr_expect_eq(v.hostile_action, 0.2);
}

static const char *const bad_values[] = {"1.5", "-0.1", "\"0.9\"", "true", "null", "1e999", "{}"};

Test(jev, out_of_range_secret_probability)
{
    for (size_t i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
        char answer[64]; /* one word: argparse takes "-0.1,..." for an option */
        snprintf(answer, sizeof(answer), "--answer=%s,0.1", bad_values[i]);
        stub_start(answer, NULL);
        expect_judge_error("jev: decode response: secret_exposure.noul must be a number between "
                           "0 and 1");
        teardown();
        setup();
    }
}

Test(jev, out_of_range_hostile_probability)
{
    stub_start("--answer", "0.1,2", NULL);
    expect_judge_error(
        "jev: decode response: hostile_action.noul must be a number between 0 and 1");
}

Test(jev, missing_noul_is_an_error)
{
    stub_start("--body", "{\"answers\":{\"secret_exposure\":{},\"hostile_action\":{\"noul\":0}}}",
               NULL);
    expect_judge_error("jev: decode response: secret_exposure.noul must be a number between 0 "
                       "and 1");
}

static void expect_parse_error(const char *body, const char *want)
{
    struct pd_jev_verdict v = {-1, -1};
    char err[PD_MSG_MAX];
    cr_expect_eq(pd_jev_parse_response(body, strlen(body), &v, err, sizeof(err)), -1,
                 "accepted: %s", body);
    cr_expect_str_eq(err, want, "for body %s", body);
    cr_expect_eq(v.secret_exposure, -1, "verdict changed on error");
}

#define NOUL_MSG(name) "jev: decode response: " name ".noul must be a number between 0 and 1"

Test(jev, parse_response_rejects_bad_shapes)
{
    expect_parse_error("[1]", "jev: decode response: body is not a JSON object");
    expect_parse_error("0.5", "jev: decode response: body is not a JSON object");
    expect_parse_error("{\"answers\":[]}", "jev: decode response: answers must be an object");
    expect_parse_error("{\"answers\":null}", "jev: response missing secret_exposure");
    expect_parse_error("{\"answers\":{\"secret_exposure\":0.9,\"hostile_action\":{\"noul\":0}}}",
                       "jev: decode response: secret_exposure must be an object");
    expect_parse_error("{\"answers\":{\"Secret_Exposure\":{\"noul\":0.9},"
                       "\"hostile_action\":{\"noul\":0}}}",
                       "jev: response missing secret_exposure");
    expect_parse_error("{\"answers\":{\"secret_exposure\":{\"NOUL\":0.9},"
                       "\"hostile_action\":{\"noul\":0}}}",
                       NOUL_MSG("secret_exposure"));
    expect_parse_error("{\"answers\":{\"secret_exposure\":{\"noul\":0.1},"
                       "\"secret_exposure\":{\"noul\":0.9},\"hostile_action\":{\"noul\":0}}}",
                       "jev: decode response: answers.secret_exposure occurs twice");
    expect_parse_error("{\"answers\":{\"secret_exposure\":{\"noul\":0.1,\"noul\":0.9},"
                       "\"hostile_action\":{\"noul\":0}}}",
                       "jev: decode response: secret_exposure.noul occurs twice");
    expect_parse_error("{\"answers\":{}} {}",
                       "jev: decode response: unexpected data after JSON at byte 15");
    expect_parse_error("{\"answers\":", "jev: decode response: invalid JSON at byte 10");
    expect_parse_error("  \n", "jev: decode response: empty body");
    expect_parse_error("{\"answers\":{\"secret_exposure\":{\"noul\":-1e-9},"
                       "\"hostile_action\":{\"noul\":0}}}",
                       NOUL_MSG("secret_exposure"));
    expect_parse_error("{\"answers\":{\"secret_exposure\":{\"noul\":1.0000001},"
                       "\"hostile_action\":{\"noul\":0}}}",
                       NOUL_MSG("secret_exposure"));
    expect_parse_error("{\"answers\":{\"secret_exposure\":{\"noul\":0},"
                       "\"hostile_action\":{\"noul\":[0.5]}}}",
                       NOUL_MSG("hostile_action"));
}

Test(jev, parse_response_accepts_whitespace_and_length)
{
    const char body[] = " {\"answers\":{\"secret_exposure\":{\"noul\":1},"
                        "\"hostile_action\":{\"noul\":0.25}}}\n GARBAGE";
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    size_t len = strlen(body) - strlen("GARBAGE");
    cr_assert_eq(pd_jev_parse_response(body, len, &v, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(v.secret_exposure, 1.0);
    cr_expect_eq(v.hostile_action, 0.25);
}

/* ---- size cap ---------------------------------------------------------------- */

Test(jev, response_larger_than_cap_is_an_error)
{
    stub_start("--answer", "0,0", "--pad", "2000000", NULL);
    expect_judge_error("jev: response body larger than 1048576 bytes");
}

Test(jev, response_below_cap_is_accepted)
{
    stub_start("--answer", "0.2,0.3", "--pad", "1000000", NULL);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), 0, "%s", err);
    cr_expect_eq(v.secret_exposure, 0.2);
}

/* ---- transport ---------------------------------------------------------------- */

Test(jev, default_timeout_is_ten_seconds)
{
    cr_expect_eq(PD_JEV_TIMEOUT_MS, 10000L);
    cr_expect_eq(pd_jev_timeout_ms(), 10000L);
    pd_jev_set_timeout_ms(250);
    cr_expect_eq(pd_jev_timeout_ms(), 250L);
    pd_jev_set_timeout_ms(0);
    cr_expect_eq(pd_jev_timeout_ms(), 10000L);
    pd_jev_set_timeout_ms(-5);
    cr_expect_eq(pd_jev_timeout_ms(), 10000L);
}

Test(jev, slow_answer_times_out)
{
    stub_start("--answer", "0,0", "--sleep", "5", NULL);
    pd_jev_set_timeout_ms(300);
    double t0 = now_s();
    expect_judge_error_prefix("jev: request failed: ");
    double took = now_s() - t0;
    cr_expect_lt(took, 3.0, "took %.2f s", took);
    cr_expect_eq(stub_requests(), 1);
}

Test(jev, connection_refused)
{
    setenv("JEV_API_URL", "http://127.0.0.1:1/", 1);
    expect_judge_error_prefix("jev: request failed: ");
}

Test(jev, ipv6_loopback_is_allowed_over_http)
{
    setenv("JEV_API_URL", "http://[::1]:1/", 1);
    expect_judge_error_prefix("jev: request failed: ");
}

Test(jev, plain_http_to_a_remote_host_is_refused)
{
    setenv("JEV_API_URL", "http://192.0.2.1/v1/systemone", 1);
    expect_judge_error("jev: bad JEV_API_URL: plain http is allowed only to a loopback address");
    setenv("JEV_API_URL", "http://127.0.0.1.example.com/", 1);
    expect_judge_error("jev: bad JEV_API_URL: plain http is allowed only to a loopback address");
}

Test(jev, other_schemes_and_garbage_urls_are_refused)
{
    setenv("JEV_API_URL", "ftp://127.0.0.1/x", 1);
    expect_judge_error("jev: bad JEV_API_URL: scheme must be https");
    setenv("JEV_API_URL", "file:///etc/passwd", 1);
    expect_judge_error_prefix("jev: bad JEV_API_URL: ");
    setenv("JEV_API_URL", "not a url", 1);
    expect_judge_error_prefix("jev: bad JEV_API_URL: ");
}

Test(jev, tls_certificate_is_verified)
{
    if (access("/usr/bin/openssl", X_OK) != 0)
        cr_skip_test("/usr/bin/openssl is needed to make a self-signed certificate");
    char cert[160], key[160], cmd[600];
    snprintf(cert, sizeof(cert), "%s/cert.pem", tmp_dir);
    snprintf(key, sizeof(key), "%s/key.pem", tmp_dir);
    snprintf(cmd, sizeof(cmd),
             "/usr/bin/openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
             "-nodes -keyout %s -out %s -days 1 -subj /CN=127.0.0.1 "
             "-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1",
             key, cert);
    cr_assert_eq(system(cmd), 0, "openssl req failed");
    stub_start("--tls", cert, key, NULL);
    char url[160];
    snprintf(url, sizeof(url), "https%s", stub_url + strlen("http"));
    setenv("JEV_API_URL", url, 1);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), -1, "a self-signed certificate was accepted");
    cr_expect(strncmp(err, "jev: request failed: ", 21) == 0, "%s", err);
    cr_expect_not_null(strstr(err, "certificate"), "%s", err);
    cr_expect_eq(stub_requests(), 0, "the request (and the key) went out");
}

Test(jev, loopback_is_never_proxied)
{
    stub_start("--answer", "0.4,0.5", NULL);
    setenv("http_proxy", "http://127.0.0.1:1", 1);
    setenv("all_proxy", "http://127.0.0.1:1", 1);
    setenv("NO_PROXY", "example.com", 1);
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_assert_eq(judge_text("x", &v, err), 0, "%s", err);
    cr_expect_eq(v.hostile_action, 0.5);
    cr_expect_eq(stub_requests(), 1);
}

Test(jev, null_arguments)
{
    struct pd_jev_verdict v;
    char err[PD_MSG_MAX];
    cr_expect_eq(pd_jev_judge(NULL, &v, err, sizeof(err)), -1);
    cr_expect_str_eq(err, "jev: no request");
}
