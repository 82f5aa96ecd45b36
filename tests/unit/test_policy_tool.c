/* tests/unit/test_policy_tool.c - the tool-call gate (pd_gate_tool_call):
 * bad JSON, network, schema, suspicious substrings, tool semantics,
 * execute_code's shell words and the path pass; and the five tool schemas
 * (pd_tool_schema_find, pd_tool_schema_json). */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "policy/hosts.h"
#include "policy/policy.h"
#include "policy/tools.h"
#include "test_policy_fixture.h"

/*
 * ws/.env, ws/Makefile, ws/src/main.go, ws/src/link -> ../.env, ws/docs/a.md,
 * ws/.git/config, ws/.git/hooks/pre-commit; outd/x.txt; home/.ssh/id_rsa
 */
static char ws[256], outd[256], home[256];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool have_pol, have_ctx;

static void tree_init(void)
{
    tp_mkdtemp(ws, sizeof ws, "tool-ws");
    tp_mkdtemp(outd, sizeof outd, "tool-out");
    tp_mkdtemp(home, sizeof home, "tool-home");
    tp_put(ws, ".env", "SECRET=1", 0644);
    tp_put(ws, "Makefile", "all:", 0644);
    tp_put(ws, "src/main.go", "package main", 0644);
    tp_link(ws, "src/link", "../.env");
    tp_put(ws, "docs/a.md", "# a", 0644);
    tp_put(ws, ".git/config", "[core]", 0644);
    tp_put(ws, ".git/hooks/pre-commit", "#!/bin/sh\n", 0755);
    tp_put(outd, "x.txt", "x", 0644);
    tp_put(outd, "bin/ls", "#!/bin/sh\n", 0755);
    tp_put(outd, "bin/cat", "#!/bin/sh\n", 0755);
    tp_put(home, ".ssh/id_rsa", "KEY", 0600);
    have_pol = have_ctx = false;
}

static void tree_fini(void)
{
    if (have_ctx)
        pd_ctx_free(&ctx);
    if (have_pol)
        pd_policy_free(&pol);
    tp_rmtree(ws);
    tp_rmtree(outd);
    tp_rmtree(home);
}

TestSuite(tool_gate, .init = tree_init, .fini = tree_fini);

/* Replace {WS}, {OUT} and {HOME} in s. */
static void subst(const char *s, char *out, size_t len)
{
    size_t n = 0;
    while (*s && n + 1 < len) {
        const char *r = NULL;
        size_t skip = 0;
        if (strncmp(s, "{WS}", 4) == 0)
            r = ws, skip = 4;
        else if (strncmp(s, "{OUT}", 5) == 0)
            r = outd, skip = 5;
        else if (strncmp(s, "{HOME}", 6) == 0)
            r = home, skip = 6;
        if (r) {
            n += (size_t)snprintf(out + n, len - n, "%s", r);
            s += skip;
        } else {
            out[n++] = *s++;
        }
    }
    out[n < len ? n : len - 1] = '\0';
}

static void setup(const char *toml)
{
    char text[2048];
    struct pd_error err;
    subst(toml, text, sizeof text);
    if (have_ctx)
        pd_ctx_free(&ctx);
    if (have_pol)
        pd_policy_free(&pol);
    have_ctx = have_pol = false;
    cr_assert_eq(pd_policy_load_string(&pol, text, "tool.toml", &err), 0, "%s", err.msg);
    have_pol = true;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "%s", err.msg);
    have_ctx = true;
    char path_env[300];
    snprintf(path_env, sizeof path_env, "%s/bin", outd);
    pd_ctx_set_path_env(&ctx, path_env);
}

struct tool_case {
    const char *tool;
    const char *json;
    bool iso;           /* os_isolation_available */
    const char *reason; /* NULL: allow */
    const char *msg;    /* exact v->message (guardrails), or NULL */
};

#define GUARD(m) PD_REASON_GUARDRAIL, m

static void run_tool_cases(const char *name, const struct tool_case *cases, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct tool_case *c = &cases[k];
        char json[2048];
        subst(c->json, json, sizeof json);
        struct pd_verdict v;
        struct pd_error err;
        memset(&v, 0x5a, sizeof v);
        int rc = pd_gate_tool_call(&ctx, c->tool, json, c->iso, &v, &err);
        cr_expect_eq(rc, 0, "[%s] %s %s: rc %d (%s)", name, c->tool, json, rc, err.msg);
        if (rc != 0)
            continue;
        if (!c->reason) {
            cr_expect_not(v.deny, "[%s] %s %s: expected allow, got deny: %s", name, c->tool, json,
                          v.message);
            cr_expect_null(v.deny ? NULL : v.reason, "[%s] %s: allow with a reason", name, c->tool);
            continue;
        }
        cr_expect(v.deny, "[%s] %s %s: expected deny (%s%s%s), got allow", name, c->tool, json,
                  c->reason, c->msg ? ": " : "", c->msg ? c->msg : "");
        if (!v.deny)
            continue;
        cr_expect(tp_streq(v.reason, c->reason), "[%s] %s %s: reason expected '%s', got '%s' (%s)",
                  name, c->tool, json, c->reason, TP_S(v.reason), v.message);
        if (c->msg)
            cr_expect_str_eq(v.message, c->msg, "[%s] %s %s: message expected \"%s\", got \"%s\"",
                             name, c->tool, json, c->msg, v.message);
    }
}

/* ---- bad JSON ----------------------------------------------------------------- */

Test(tool_gate, bad_json_is_an_error)
{
    setup("");
    static const char *const bad[] = {"{",         "[1,2]", "[]",       "\"str\"", "42",
                                      "true",      "",      "{\"a\":}", "{} x",    "{'a': 1}",
                                      "{\"a\" 1}", "nul",   NULL};
    for (size_t k = 0; bad[k]; k++) {
        struct pd_verdict v;
        struct pd_error err;
        int rc = pd_gate_tool_call(&ctx, "read_file", bad[k], true, &v, &err);
        cr_expect_eq(rc, -1, "JSON '%s': expected -1, got %d (%s)", bad[k], rc,
                     rc ? "" : v.message);
        if (rc == -1)
            cr_expect(tp_starts_with(err.msg, "bad JSON args:"),
                      "JSON '%s': message \"%s\" should start \"bad JSON args:\"", bad[k], err.msg);
    }
}

Test(tool_gate, null_means_an_empty_object)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "null", true, GUARD("missing required argument 'path' for tool 'read_file'")},
        {"read_file", " null ", true,
         GUARD("missing required argument 'path' for tool 'read_file'")},
        {"mytool", "null", true, NULL, NULL},
        {"mytool", "{}", true, NULL, NULL},
    };
    run_tool_cases("null", cases, sizeof cases / sizeof cases[0]);
}

/* ---- network -------------------------------------------------------------------- */

#define EXEC_NET                                                                                   \
    "tool 'execute_code' is disabled while network access is disabled because this execution "     \
    "path has no enforced network isolation"
#define GIT_NET                                                                                    \
    "tool 'git_ops' is disabled while network access is disabled because repository-controlled "   \
    "Git helpers are not network-isolated"
#define PUSH_NET "git push needs network access (disabled in config)"

Test(tool_gate, network_disabled)
{
    setup("");
    static const char *const net[] = {"wolfram",    "http_request",    "web_search",
                                      "web_scrape", "ask_cloud_model", "analyze_image",
                                      NULL};
    for (size_t k = 0; net[k]; k++) {
        for (int iso = 0; iso < 2; iso++) {
            struct pd_verdict v;
            struct pd_error err;
            char want[256];
            snprintf(want, sizeof want, "tool '%s' needs network access (disabled in config)",
                     net[k]);
            cr_assert_eq(pd_gate_tool_call(&ctx, net[k], "{\"q\":\"x\"}", iso, &v, &err), 0);
            cr_expect(v.deny, "%s: expected deny", net[k]);
            cr_expect_str_eq(v.message, want);
            cr_expect(tp_streq(v.reason, PD_REASON_GUARDRAIL) ||
                          tp_streq(v.reason, PD_REASON_NETWORK),
                      "%s: reason %s", net[k], TP_S(v.reason));
        }
    }
    static const struct tool_case cases[] = {
        {"execute_code", "{\"command\":\"ls\",\"dir\":\"{WS}\"}", false, GUARD(EXEC_NET)},
        {"execute_code", "{}", false, GUARD(EXEC_NET)},
        {"execute_code", "{\"command\":\"ls\",\"dir\":\"{WS}\"}", true, NULL, NULL},
        {"git_ops", "{\"action\":\"push\"}", true, GUARD(PUSH_NET)},
        {"git_ops", "{\"action\":\"  PUSH \\n\"}", true, GUARD(PUSH_NET)},
        {"git_ops", "{\"action\":\"Push\"}", false, GUARD(PUSH_NET)},
        {"git_ops", "{\"action\":\"status\"}", true, GUARD(GIT_NET)},
        {"git_ops", "{\"action\":\"push --force\"}", true, GUARD(GIT_NET)},
        {"git_ops", "{\"action\":\"pushx\"}", true, GUARD(GIT_NET)},
        {"git_ops", "{}", true, GUARD(GIT_NET)},
        {"git_ops", "{\"action\":5}", true, GUARD(GIT_NET)},
        {"git_ops", "null", true, GUARD(GIT_NET)},
        {"Wolfram", "{}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{WS}/src/main.go\"}", false, NULL, NULL},
    };
    run_tool_cases("network off", cases, sizeof cases / sizeof cases[0]);
}

Test(tool_gate, network_allowed)
{
    setup("allow_network = true");
    static const struct tool_case cases[] = {
        {"wolfram", "{\"q\":\"2+2\"}", false, NULL, NULL},
        {"http_request", "{\"url\":\"https://example.com/a\"}", false, NULL, NULL},
        {"execute_code", "{\"command\":\"ls\",\"dir\":\"{WS}\"}", false, NULL, NULL},
        {"git_ops", "{\"action\":\"push\"}", false, NULL, NULL},
        {"git_ops", "{\"action\":\"status\",\"cwd\":\"{WS}\"}", false, NULL, NULL},
        {"git_ops", "{\"action\":\"status\",\"cwd\":\"rel/dir\"}", false,
         GUARD("git_ops requires an absolute cwd")},
        {"git_ops", "{\"action\":\"status\",\"cwd\":\"\"}", false, NULL, NULL},
        {"web_search", "{\"q\":\"../x\"}", false,
         GUARD("suspicious path or system access pattern in argument 'q'")},
    };
    run_tool_cases("network on", cases, sizeof cases / sizeof cases[0]);
}

Test(tool_gate, network_by_name)
{
    setup("allow_hosts = [\"example.com\", \"api.test:8443\"]");
    static const struct tool_case cases[] = {
        {"http_request", "{\"url\":\"https://example.com/a\"}", false, NULL, NULL},
        {"web_scrape", "{\"url\":\"http://example.com/\",\"depth\":\"1\"}", false, NULL, NULL},
        {"http_request",
         "{\"url\":\"https://api.test:8443/v1\",\"fallback\":\"https://example.com\"}", false, NULL,
         NULL},
        {"http_request", "{\"url\":\"https://evil.test/a\"}", false, PD_REASON_HOST_NOT_ALLOWED,
         "argument 'url': https://evil.test/a: evil.test:443 (not in allow_hosts)"},
        {"http_request",
         "{\"url\":\"https://example.com/\",\"next\":{\"u\":\"https://api.test/\"}}", false,
         PD_REASON_HOST_NOT_ALLOWED,
         "argument 'next.u': https://api.test/: api.test:443 (not in allow_hosts)"},
        {"http_request", "{\"url\":\"https://2130706433/\"}", false, PD_REASON_HOST_MALFORMED,
         "argument 'url': https://2130706433/: 2130706433:443 (malformed host)"},
        /* a network tool that names no host stays refused */
        {"wolfram", "{\"q\":\"2+2\"}", false,
         GUARD("tool 'wolfram' needs network access to hosts it does not name (allow_hosts admits "
               "the hosts of URL arguments only)")},
        {"web_search", "{\"q\":\"x\"}", true,
         GUARD("tool 'web_search' needs network access to hosts it does not name (allow_hosts "
               "admits the hosts of URL arguments only)")},
        /* the rest of the network rules are unchanged: no isolation, git helpers */
        {"execute_code", "{\"command\":\"ls\",\"dir\":\"{WS}\"}", false, GUARD(EXEC_NET)},
        {"git_ops", "{\"action\":\"push\"}", true, GUARD(PUSH_NET)},
        /* and the other passes still run after it */
        {"http_request", "{\"url\":\"https://example.com/\",\"body\":\"../../etc/passwd\"}", false,
         GUARD("suspicious path or system access pattern in argument 'body'")},
    };
    run_tool_cases("allow_hosts", cases, sizeof cases / sizeof cases[0]);
}

/* ---- schema --------------------------------------------------------------------- */

Test(tool_gate, schema)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "{}", true, GUARD("missing required argument 'path' for tool 'read_file'")},
        {"write_file", "{}", true,
         GUARD("missing required argument 'content' for tool 'write_file'")},
        {"write_file", "{\"path\":\"{WS}/a\"}", true,
         GUARD("missing required argument 'content' for tool 'write_file'")},
        {"write_file", "{\"content\":\"x\"}", true,
         GUARD("missing required argument 'path' for tool 'write_file'")},
        {"edit_file", "{}", true,
         GUARD("missing required argument 'new_text' for tool 'edit_file'")},
        {"edit_file", "{\"path\":\"{WS}/a\",\"old_text\":\"a\"}", true,
         GUARD("missing required argument 'new_text' for tool 'edit_file'")},
        {"edit_file", "{\"new_text\":\"b\",\"path\":\"{WS}/a\"}", true,
         GUARD("missing required argument 'old_text' for tool 'edit_file'")},
        {"list_dir", "{}", true, GUARD("missing required argument 'path' for tool 'list_dir'")},
        {"execute_code", "{}", true,
         GUARD("missing required argument 'command' for tool 'execute_code'")},
        {"execute_code", "{\"command\":\"ls\"}", true,
         GUARD("missing required argument 'dir' for tool 'execute_code'")},
        {"read_file", "{\"path\":\"{WS}/a.txt\",\"extra\":\"x\"}", true,
         GUARD("unknown argument 'extra' for tool 'read_file'")},
        {"read_file", "{\"zzz\":1,\"aaa\":\"x\",\"path\":\"{WS}/a\"}", true,
         GUARD("unknown argument 'aaa' for tool 'read_file'")},
        {"read_file", "{\"path\":\"{WS}/a\",\"Path\":\"x\"}", true,
         GUARD("unknown argument 'Path' for tool 'read_file'")},
        {"read_file", "{\"path\":5}", true,
         GUARD("argument 'path' for tool 'read_file' must be a string")},
        {"read_file", "{\"path\":null}", true,
         GUARD("argument 'path' for tool 'read_file' must be a string")},
        {"read_file", "{\"path\":{\"a\":\"b\"}}", true,
         GUARD("argument 'path' for tool 'read_file' must be a string")},
        {"list_dir", "{\"path\":[\"{WS}\"]}", true,
         GUARD("argument 'path' for tool 'list_dir' must be a string")},
        {"write_file", "{\"content\":1,\"path\":\"{WS}/a\"}", true,
         GUARD("argument 'content' for tool 'write_file' must be a string")},
        {"read_file", "{\"path\":5,\"aaa\":\"x\"}", true,
         GUARD("unknown argument 'aaa' for tool 'read_file'")},
        {"read_file", "{\"path\":5,\"zzz\":\"x\"}", true,
         GUARD("argument 'path' for tool 'read_file' must be a string")},
        {"execute_code", "{\"command\":true,\"dir\":\"{WS}\"}", true,
         GUARD("argument 'command' for tool 'execute_code' must be a string")},
        /* schema before the suspicious pass */
        {"read_file", "{\"path\":\"/etc/x\",\"extra\":1}", true,
         GUARD("unknown argument 'extra' for tool 'read_file'")},
        /* tools without a schema take any argument */
        {"mytool", "{\"anything\":1,\"else\":[true,null]}", true, NULL, NULL},
        {"git_ops", "{}", true, GUARD(GIT_NET)},
    };
    run_tool_cases("schema", cases, sizeof cases / sizeof cases[0]);
}

/* ---- suspicious substrings -------------------------------------------------------- */

#define SUSP(a) GUARD("suspicious path or system access pattern in argument '" a "'")

Test(tool_gate, suspicious_substrings_at_any_depth)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "{\"path\":\"{WS}/../etc/x\"}", true, SUSP("path")},
        {"read_file", "{\"path\":\"/etc/passwd\"}", true, SUSP("path")},
        {"list_dir", "{\"path\":\"~/.ssh\"}", true, SUSP("path")},
        {"read_file", "{\"path\":\"../x\"}", true, SUSP("path")},
        {"mytool", "{\"a\":{\"b\":\"~/.ssh/x\"}}", true, SUSP("a.b")},
        {"mytool", "{\"a\":[\"ok\",\"/etc/passwd\"]}", true, SUSP("a[1]")},
        {"mytool", "{\"a\":[{\"b\":\"../x\"}]}", true, SUSP("a[0].b")},
        {"mytool", "{\"a\":{\"b\":{\"c\":[[\"x\",\"/etc/\"]]}}}", true, SUSP("a.b.c[0][1]")},
        {"mytool", "{\"x\":\"  /ETC/hosts\"}", true, SUSP("x")},
        {"mytool", "{\"x\":\"~/.SSH/id\"}", true, SUSP("x")},
        {"mytool", "{\"x\":\"cat ~/.ssh/id_rsa\"}", true, SUSP("x")},
        {"mytool", "{\"x\":\"a/../b\"}", true, SUSP("x")},
        {"mytool", "{\"first\":\"fine\",\"second\":\"../x\",\"third\":\"/etc/\"}", true,
         SUSP("second")},
        {"write_file", "{\"content\":\"cd ../x\",\"path\":\"{WS}/src/a.txt\"}", true,
         SUSP("content")},
        {"edit_file", "{\"new_text\":\"see /etc/hosts\",\"old_text\":\"a\",\"path\":\"{WS}/a\"}",
         true, SUSP("new_text")},
        {"execute_code", "{\"command\":\"cat ../x\",\"dir\":\"{WS}\"}", true, SUSP("command")},
        /* not suspicious */
        {"mytool", "{\"x\":\"..\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        {"mytool", "{\"x\":\"~/.sshx\"}", true, SUSP("x")},
        {"mytool", "{\"x\":\"~/.sh\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        {"mytool", "{\"x\":\"etc\"}", true, NULL, NULL},
        {"mytool", "{\"x\":\"etc/passwd.txt\"}", true, NULL, NULL},
        {"mytool", "{\"n\":1,\"b\":false,\"z\":null,\"a\":[1,2]}", true, NULL, NULL},
        /* issue 14: named paths are reads; /etc is a system folder */
        {"mytool", "{\"k\":\"/etc\"}", true, NULL, NULL},
        {"mytool", "{\"k\":\"/srv\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        /* suspicious before semantics */
        {"write_file", "{\"content\":\"x\",\"path\":\"../x\"}", true, SUSP("path")},
    };
    run_tool_cases("suspicious", cases, sizeof cases / sizeof cases[0]);
}

/* ---- semantics -------------------------------------------------------------------- */

Test(tool_gate, file_tools_need_absolute_paths)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "{\"path\":\"rel.txt\"}", true,
         GUARD("tool 'read_file' requires an absolute path")},
        {"read_file", "{\"path\":\"src/main.go\"}", true,
         GUARD("tool 'read_file' requires an absolute path")},
        {"write_file", "{\"content\":\"x\",\"path\":\"rel\"}", true,
         GUARD("tool 'write_file' requires an absolute path")},
        {"edit_file", "{\"new_text\":\"\",\"old_text\":\"\",\"path\":\"a/b\"}", true,
         GUARD("tool 'edit_file' requires an absolute path")},
        {"read_file", "{\"path\":\"./x\"}", true,
         GUARD("tool 'read_file' requires an absolute path")},
        {"list_dir", "{\"path\":\"rel\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{WS}/src/main.go\"}", true, NULL, NULL},
    };
    run_tool_cases("absolute", cases, sizeof cases / sizeof cases[0]);
}

#define UNSAFE(op) GUARD("execute_code command contains unsafe shell operator '" op "'")
#define EXEC(cmd)  "{\"command\":\"" cmd "\",\"dir\":\"{WS}\"}"

Test(tool_gate, execute_code_command)
{
    setup("");
    static const struct tool_case cases[] = {
        {"execute_code", "{\"command\":\"   \",\"dir\":\"{WS}\"}", true,
         GUARD("execute_code requires a non-empty command")},
        {"execute_code", "{\"command\":\"\",\"dir\":\"{WS}\"}", true,
         GUARD("execute_code requires a non-empty command")},
        {"execute_code", "{\"command\":\" \\t\\n \",\"dir\":\"{WS}\"}", true,
         GUARD("execute_code requires a non-empty command")},
        {"execute_code", "{\"command\":\"ls\",\"dir\":\"rel\"}", true,
         GUARD("execute_code requires an absolute working directory")},
        {"execute_code", "{\"command\":\"ls\",\"dir\":\"\"}", true,
         GUARD("execute_code requires an absolute working directory")},
        {"execute_code", "{\"command\":\"ls && rm x\",\"dir\":\"rel\"}", true,
         GUARD("execute_code requires an absolute working directory")},
        {"execute_code", "{\"command\":\"  \",\"dir\":\"rel\"}", true,
         GUARD("execute_code requires a non-empty command")},
        {"execute_code", EXEC("ls && rm x"), true, UNSAFE("&&")},
        {"execute_code", EXEC("ls; rm x"), true, UNSAFE(";")},
        {"execute_code", EXEC("ls;rm x"), true, UNSAFE(";")},
        {"execute_code", EXEC("ls | wc"), true, UNSAFE("|")},
        {"execute_code", EXEC("ls || true"), true, UNSAFE("||")},
        {"execute_code", EXEC("ls > f"), true, UNSAFE(">")},
        {"execute_code", EXEC("ls>f"), true, UNSAFE(">")},
        {"execute_code", EXEC("cat < f"), true, UNSAFE("<")},
        {"execute_code", EXEC("echo $(id)"), true, UNSAFE("$(")},
        {"execute_code", EXEC("echo `id`"), true, UNSAFE("`")},
        {"execute_code", EXEC("sleep 1 &"), true, UNSAFE("&")},
        {"execute_code", EXEC("(ls)"), true, UNSAFE("(")},
        {"execute_code", EXEC("echo \\\"$(id)\\\""), true, UNSAFE("$(")},
        {"execute_code", EXEC("ls ; rm x && y"), true, UNSAFE(";")},
        {"execute_code", EXEC("echo \\\"a;b\\\""), true, NULL, NULL},
        {"execute_code", EXEC("echo 'x > y'"), true, NULL, NULL},
        {"execute_code", EXEC("echo 'a && b | c'"), true, NULL, NULL},
        {"execute_code", EXEC("echo a\\\\;b"), true, NULL, NULL},
        {"execute_code", EXEC("ls -la src"), true, NULL, NULL},
        {"execute_code", EXEC("echo 'unterminated"), true, PD_REASON_GUARDRAIL, NULL},
    };
    run_tool_cases("execute_code", cases, sizeof cases / sizeof cases[0]);
}

Test(tool_gate, execute_code_words_are_judged_in_dir)
{
    setup("");
    static const struct tool_case cases[] = {
        {"execute_code", EXEC("cat .env"), true, PD_REASON_SECRET, NULL},
        {"execute_code", EXEC("cat --file=.env"), true, PD_REASON_SECRET, NULL},
        {"execute_code", "{\"command\":\"cat .env\",\"dir\":\"{WS}/src\"}", true, PD_REASON_SECRET,
         NULL},
        {"execute_code", "{\"command\":\"cat link\",\"dir\":\"{WS}/src\"}", true, PD_REASON_SECRET,
         NULL},
        {"execute_code", "{\"command\":\"cat main.go\",\"dir\":\"{WS}/src\"}", true, NULL, NULL},
        {"execute_code", EXEC("cat {OUT}/x.txt"), true, PD_REASON_OUTSIDE_WS, NULL},
        {"execute_code", EXEC("cat Makefile src/main.go"), true, NULL, NULL},
        {"execute_code", EXEC("cat 'src/link'"), true, PD_REASON_SECRET, NULL},
        {"execute_code", EXEC("git commit -m 'fix the build'"), true, NULL, NULL},
    };
    run_tool_cases("execute_code paths", cases, sizeof cases / sizeof cases[0]);
}

Test(tool_gate, execute_code_allow_paths_and_binaries)
{
    setup("allow_paths = [\"src/\"]\nallow_binaries = [\"ls\"]");
    static const struct tool_case cases[] = {
        /* issue 14: named paths are reads: docs/ is readable, outside the
         * workspace is not */
        {"execute_code", "{\"command\":\"ls docs\",\"dir\":\"{WS}\"}", true, NULL, NULL},
        {"execute_code", "{\"command\":\"ls {OUT}\",\"dir\":\"{WS}\"}", true, PD_REASON_OUTSIDE_WS,
         NULL},
        {"execute_code", "{\"command\":\"ls .env\",\"dir\":\"{WS}\"}", true, PD_REASON_SECRET,
         NULL},
        {"execute_code", "{\"command\":\"ls main.go\",\"dir\":\"{WS}/src\"}", true, NULL, NULL},
        {"execute_code", "{\"command\":\"cat main.go\",\"dir\":\"{WS}/src\"}", true,
         PD_REASON_BINARY, NULL},
        {"execute_code", "{\"command\":\"LS main.go\",\"dir\":\"{WS}/src\"}", true,
         PD_REASON_BINARY, NULL},
    };
    run_tool_cases("execute_code allow lists", cases, sizeof cases / sizeof cases[0]);
}

/* ---- the path pass ------------------------------------------------------------------- */

Test(tool_gate, path_pass)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "{\"path\":\"{WS}/src/main.go\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{WS}/.env\"}", true, PD_REASON_SECRET, NULL},
        {"read_file", "{\"path\":\"{WS}/src/link\"}", true, PD_REASON_SECRET, NULL},
        {"read_file", "{\"path\":\"{WS}/.git/config\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{OUT}/x.txt\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        {"read_file", "{\"path\":\"{HOME}/.ssh/id_rsa\"}", true, PD_REASON_SECRET, NULL},
        {"list_dir", "{\"path\":\"{WS}/src\"}", true, NULL, NULL},
        {"list_dir", "{\"path\":\"{WS}\"}", true, NULL, NULL},
        {"write_file", "{\"content\":\"x\",\"path\":\"{WS}/src/new.go\"}", true, NULL, NULL},
        {"write_file", "{\"content\":\"x\",\"path\":\"{WS}/.git/config\"}", true,
         PD_REASON_PROTECTED, NULL},
        {"write_file", "{\"content\":\"x\",\"path\":\"{WS}/.env\"}", true, PD_REASON_SECRET, NULL},
        {"write_file", "{\"content\":\"x\",\"path\":\"{OUT}/x.txt\"}", true, PD_REASON_OUTSIDE_WS,
         NULL},
        {"edit_file",
         "{\"new_text\":\"a\",\"old_text\":\"b\",\"path\":\"{WS}/.git/hooks/pre-commit\"}", true,
         PD_REASON_PROTECTED, NULL},
        {"edit_file",
         "{\"new_text\":\"a\",\"old_text\":\"b\",\"path\":\"{WS}/.vscode/tasks.json\"}", true,
         PD_REASON_PROTECTED, NULL},
        /* prose is never a path */
        {"edit_file", "{\"new_text\":\".env\",\"old_text\":\"/x/y\",\"path\":\"{WS}/src/main.go\"}",
         true, NULL, NULL},
        {"write_file", "{\"content\":\".env ~/x /abs/path\",\"path\":\"{WS}/src/a.txt\"}", true,
         NULL, NULL},
        {"write_file", "{\"content\":\"{OUT}/x.txt\",\"path\":\"{WS}/src/a.txt\"}", true, NULL,
         NULL},
        {"write_file", "{\"content\":\"id_rsa.pem\",\"path\":\"{WS}/src/a.txt\"}", true, NULL,
         NULL},
        /* generic pass: every string at any depth, in document order */
        {"mytool", "{\"file\":\".env\"}", true, PD_REASON_SECRET, NULL},
        {"mytool", "{\"a\":{\"b\":\".env\"}}", true, PD_REASON_SECRET, NULL},
        {"mytool", "{\"list\":[\"src/main.go\",\"{OUT}/x.txt\"]}", true, PD_REASON_OUTSIDE_WS,
         NULL},
        {"mytool", "{\"msg\":\"hello world\"}", true, NULL, NULL},
        {"mytool", "{\"v\":\"3.11\",\"u\":\"https://x/y\",\"f\":\"--flag\"}", true, NULL, NULL},
        {"mytool", "{\"x\":\".env\",\"y\":\"{OUT}/a.txt\"}", true, PD_REASON_SECRET, NULL},
        {"mytool", "{\"y\":\"{OUT}/a.txt\",\"x\":\".env\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        {"mytool", "{\"content\":\".env\"}", true, PD_REASON_SECRET, NULL},
        {"read_file", "{\"path\":\"{WS}/tls/server.pem\"}", true, PD_REASON_SECRET, NULL},
    };
    run_tool_cases("path pass", cases, sizeof cases / sizeof cases[0]);
}

Test(tool_gate, path_pass_allow_paths)
{
    setup("allow_paths = [\"src/\"]");
    static const struct tool_case cases[] = {
        /* issue 14: named paths are reads: the workspace is readable
         * whatever allow_paths says; writes stay inside allow_paths */
        {"mytool", "{\"p\":\"docs/a.md\"}", true, NULL, NULL},
        {"mytool", "{\"p\":\"{OUT}/x.txt\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        {"mytool", "{\"p\":\"src/main.go\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{WS}/docs/a.md\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{OUT}/x.txt\"}", true, PD_REASON_OUTSIDE_WS, NULL},
        {"read_file", "{\"path\":\"{WS}/docs/.env\"}", true, PD_REASON_SECRET, NULL},
        {"write_file", "{\"content\":\"x\",\"path\":\"{WS}/docs/a.md\"}", true,
         PD_REASON_OUTSIDE_ALLOW, NULL},
        {"write_file", "{\"content\":\"x\",\"path\":\"{WS}/src/b.go\"}", true, NULL, NULL},
    };
    run_tool_cases("path pass allow_paths", cases, sizeof cases / sizeof cases[0]);
}

/* JSON duplicate keys: the last one wins (schema, semantics, network). */
Test(tool_gate, duplicate_keys_last_wins)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "{\"path\":\"rel.txt\",\"path\":\"{WS}/src/main.go\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{WS}/src/main.go\",\"path\":\"rel.txt\"}", true,
         GUARD("tool 'read_file' requires an absolute path")},
        {"read_file", "{\"path\":5,\"path\":\"{WS}/src/main.go\"}", true, NULL, NULL},
        {"read_file", "{\"path\":\"{WS}/src/main.go\",\"path\":5}", true,
         GUARD("argument 'path' for tool 'read_file' must be a string")},
        {"read_file", "{\"path\":\"{WS}/src/main.go\",\"path\":\"{WS}/.env\"}", true,
         PD_REASON_SECRET, NULL},
        {"git_ops", "{\"action\":\"status\",\"action\":\"push\"}", true, GUARD(PUSH_NET)},
        {"git_ops", "{\"action\":\"push\",\"action\":\"status\"}", true, GUARD(GIT_NET)},
    };
    run_tool_cases("duplicates", cases, sizeof cases / sizeof cases[0]);
}

/* Duplicate keys: the last value is the one the tool sees, but every value
 * is judged (fail closed: a consumer with first-wins semantics exists too). */
Test(tool_gate, duplicate_keys_every_value_is_judged)
{
    setup("");
    static const struct tool_case cases[] = {
        {"read_file", "{\"path\":\"{OUT}/x.txt\",\"path\":\"{WS}/src/main.go\"}", true,
         PD_REASON_OUTSIDE_WS, NULL},
        {"read_file", "{\"path\":\"/etc/passwd\",\"path\":\"{WS}/src/main.go\"}", true,
         GUARD("suspicious path or system access pattern in argument 'path'")},
    };
    run_tool_cases("duplicates (every value)", cases, sizeof cases / sizeof cases[0]);
}

/* "Any string value": a long value is inspected to its end. */
Test(tool_gate, suspicious_pattern_after_a_long_prefix)
{
    setup("");
    static char json[8192];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"x\":\"");
    for (int k = 0; k < 2000; k++)
        json[n++] = 'a';
    snprintf(json + n, sizeof json - n, " ../../etc/shadow\"}");
    struct pd_verdict v;
    struct pd_error err;
    cr_assert_eq(pd_gate_tool_call(&ctx, "mytool", json, true, &v, &err), 0, "%s", err.msg);
    cr_expect(v.deny, "expected deny for '<2000 x a> ../../etc/shadow', got allow");
    cr_expect_str_eq(v.message, "suspicious path or system access pattern in argument 'x'");
}

/* "At any depth": strings nested deeper than a few dozen levels are
 * inspected too (cJSON parses up to 1000 levels). */
Test(tool_gate, deeply_nested_values_are_inspected)
{
    setup("");
    static char json[4096];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"a\":");
    for (int k = 0; k < 100; k++)
        json[n++] = '[';
    n += (size_t)snprintf(json + n, sizeof json - n, "\"/etc/passwd\"");
    for (int k = 0; k < 100; k++)
        json[n++] = ']';
    snprintf(json + n, sizeof json - n, "}");
    struct pd_verdict v;
    struct pd_error err;
    cr_assert_eq(pd_gate_tool_call(&ctx, "mytool", json, true, &v, &err), 0, "%s", err.msg);
    cr_expect(v.deny, "expected deny for \"/etc/passwd\" nested 101 levels deep, got allow");
    cr_expect(tp_starts_with(v.message, "suspicious path or system access pattern in argument 'a["),
              "%s", v.message);

    n = (size_t)snprintf(json, sizeof json, "{\"a\":");
    for (int k = 0; k < 100; k++)
        json[n++] = '[';
    n += (size_t)snprintf(json + n, sizeof json - n, "\"%s/.env\"", ws);
    for (int k = 0; k < 100; k++)
        json[n++] = ']';
    snprintf(json + n, sizeof json - n, "}");
    cr_assert_eq(pd_gate_tool_call(&ctx, "mytool", json, true, &v, &err), 0, "%s", err.msg);
    cr_expect(v.deny, "expected deny (secret) for <ws>/.env nested 101 levels deep, got allow");
    cr_expect(tp_streq(v.reason, PD_REASON_SECRET), "%s", TP_S(v.reason));
}

/* An allowed call leaves an allow verdict; the subject is the tool. */
Test(tool_gate, allowed_verdict)
{
    setup("");
    struct pd_verdict v;
    struct pd_error err;
    char json[512];
    snprintf(json, sizeof json, "{\"path\":\"%s/src/main.go\"}", ws);
    memset(&v, 0x5a, sizeof v);
    cr_assert_eq(pd_gate_tool_call(&ctx, "read_file", json, true, &v, &err), 0);
    cr_expect_not(v.deny);
    cr_expect_null(v.reason);
    cr_expect_null(v.pattern);
}

/* ---- pd_tool_schema_find / pd_tool_schema_json ------------------------------------ */

static const char read_file_json[] = "{\n"
                                     "  \"name\": \"read_file\",\n"
                                     "  \"description\": \"Read file contents from an allowed "
                                     "directory\",\n"
                                     "  \"parameters\": {\n"
                                     "    \"type\": \"object\",\n"
                                     "    \"properties\": {\n"
                                     "      \"path\": {\n"
                                     "        \"type\": \"string\",\n"
                                     "        \"description\": \"Absolute path to the file\"\n"
                                     "      }\n"
                                     "    },\n"
                                     "    \"required\": [\n"
                                     "      \"path\"\n"
                                     "    ],\n"
                                     "    \"additionalProperties\": false\n"
                                     "  },\n"
                                     "  \"args_schema\": \"\"\n"
                                     "}\n";

Test(tool_schema, read_file_exact_bytes)
{
    const struct pd_tool_schema *s = pd_tool_schema_find("read_file");
    cr_assert_not_null(s);
    char *json = pd_tool_schema_json(s);
    cr_assert_not_null(json);
    cr_expect_str_eq(json, read_file_json);
    free(json);
}

struct schema_want {
    const char *name, *description;
    const char *props[4];
    const char *prop_desc[4];
};

static const struct schema_want schema_wants[] = {
    {"read_file",
     "Read file contents from an allowed directory",
     {"path"},
     {"Absolute path to the file"}},
    {"write_file",
     "Write content to a file in an allowed directory",
     {"content", "path"},
     {"Complete content to write", "Absolute path to the file"}},
    {"edit_file",
     "Replace the first occurrence of old_text with new_text in a file",
     {"new_text", "old_text", "path"},
     {"Replacement text", "Exact text to replace", "Absolute path to the file"}},
    {"list_dir", "List files and directories at a path", {"path"}, {"Absolute directory path"}},
    {"execute_code",
     "Execute a single binary command in a sandboxed directory. Shell chaining, pipes, redirects, "
     "and subshells are blocked.",
     {"command", "dir"},
     {"Single command with no shell operators", "Absolute working directory"}},
};

Test(tool_schema, the_five_tables)
{
    cr_assert_eq(pd_tool_schema_count, 5);
    for (size_t k = 0; k < 5; k++) {
        const struct schema_want *w = &schema_wants[k];
        const struct pd_tool_schema *s = pd_tool_schema_find(w->name);
        cr_assert_not_null(s, "%s not found", w->name);
        cr_expect_str_eq(s->name, w->name);
        cr_expect_str_eq(s->description, w->description);
        size_t n = 0;
        while (n < 4 && w->props[n])
            n++;
        cr_assert_eq(s->nprops, n, "%s: %zu properties", w->name, s->nprops);
        for (size_t p = 0; p < n; p++) {
            cr_expect_str_eq(s->props[p].name, w->props[p], "%s prop %zu", w->name, p);
            cr_expect_str_eq(s->props[p].description, w->prop_desc[p], "%s prop %zu", w->name, p);
            if (p)
                cr_expect_lt(strcmp(s->props[p - 1].name, s->props[p].name), 0,
                             "%s: properties not sorted", w->name);
        }
    }
}

Test(tool_schema, find_is_exact)
{
    static const char *const bad[] = {"",        "READ_FILE", "read_file ", "readfile",
                                      "git_ops", "wolfram",   "read",       NULL};
    for (size_t k = 0; bad[k]; k++)
        cr_expect_null(pd_tool_schema_find(bad[k]), "pd_tool_schema_find(\"%s\")", bad[k]);
    for (size_t k = 0; k < pd_tool_schema_count; k++)
        cr_expect_eq(pd_tool_schema_find(pd_tool_schemas[k].name), &pd_tool_schemas[k]);
}

/* Every schema prints as valid JSON with the documented layout. */
Test(tool_schema, json_of_every_tool)
{
    for (size_t k = 0; k < 5; k++) {
        const struct schema_want *w = &schema_wants[k];
        char *json = pd_tool_schema_json(pd_tool_schema_find(w->name));
        cr_assert_not_null(json);
        size_t len = strlen(json);
        cr_expect(len > 2 && json[len - 1] == '\n' && json[len - 2] == '}', "%s: trailing newline",
                  w->name);
        char needle[512];
        snprintf(needle, sizeof needle, "{\n  \"name\": \"%s\",\n  \"description\": \"%s\",\n",
                 w->name, w->description);
        cr_expect(tp_starts_with(json, needle), "%s: head", w->name);
        cr_expect(strstr(json, "\"additionalProperties\": false") != NULL);
        cr_expect(strstr(json, "  \"args_schema\": \"\"\n}\n") != NULL);
        cJSON *doc = cJSON_Parse(json);
        cr_assert_not_null(doc, "%s: not JSON:\n%s", w->name, json);
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(doc, "parameters");
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(params, "properties");
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(params, "required");
        cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "type")),
                         "object");
        cr_expect_eq(cJSON_GetArraySize(props), cJSON_GetArraySize(req));
        int i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, props)
        {
            cr_expect_str_eq(it->string, w->props[i], "%s: property %d", w->name, i);
            cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "type")),
                             "string");
            cr_expect_str_eq(
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "description")),
                w->prop_desc[i]);
            cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(req, i)), w->props[i]);
            i++;
        }
        cr_expect_eq(i, (int)pd_tool_schema_find(w->name)->nprops);
        cJSON_Delete(doc);
        free(json);
    }
}
