/* tests/unit/test_policy_agent_search.c - Read, Grep, Glob and LS judged by
 * what they read: pd_proc_credential, pd_gate_agent_read, pd_gate_grep,
 * pd_gate_glob; and the credential files of pd_builtin_secrets (a
 * process's environ is judged by the agent gates only: see builtins.c). */
#include <criterion/criterion.h>

#include <fcntl.h>

#include "policy/gate_search.h"
#include "policy/policy.h"
#include "test_policy_fixture.h"

static char ws[PD_PATH_MAX], home[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;

static void setup(const char *toml)
{
    struct pd_error err;
    tp_mkdtemp(ws, sizeof ws, "agentsearch-ws");
    tp_mkdtemp(home, sizeof home, "agentsearch-home");
    tp_put(ws, "src/app.py", "print(1)\n", 0644);
    tp_put(ws, "src/lib/util.py", "x = 1\n", 0644);
    tp_put(ws, "README.md", "# hi\n", 0644);
    tp_put(ws, ".env", "K=v\n", 0600);
    tp_put(home, ".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n", 0600);
    tp_put(home, ".config/gh/hosts.yml", "github.com:\n  oauth_token: x\n", 0600);
    cr_assert_eq(pd_policy_load_string(&pol, toml, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    tp_rmtree(ws);
    tp_rmtree(home);
}

static void expect(const struct pd_verdict *v, const char *reason, const char *fragment,
                   const char *what)
{
    if (!reason) {
        cr_expect(!v->deny, "%s: expected allow, got %s", what, v->message);
        return;
    }
    cr_expect(v->deny, "%s: expected %s, got allow", what, reason);
    if (!v->deny)
        return;
    cr_expect_str_eq(v->reason, reason, "%s: %s", what, v->message);
    if (fragment)
        cr_expect(strstr(v->message, fragment), "%s: '%s' not in '%s'", what, fragment, v->message);
}

/* ---- /proc ------------------------------------------------------------------ */

Test(proc_credential, shapes)
{
    cr_expect_str_eq(TP_S(pd_proc_credential(NULL, "/proc/self/environ")), "/proc/*/environ");
    cr_expect_str_eq(TP_S(pd_proc_credential(NULL, "/proc/1/environ")), "/proc/*/environ");
    cr_expect_str_eq(TP_S(pd_proc_credential(NULL, "/proc/thread-self/environ")),
                     "/proc/*/environ");
    cr_expect_str_eq(TP_S(pd_proc_credential(NULL, "/proc/1/task/1/environ")), "/proc/*/environ");
    cr_expect_str_eq(TP_S(pd_proc_credential(NULL, "/proc/self/mem")), "/proc/*/mem");
    cr_expect_str_eq(TP_S(pd_proc_credential("/tmp/a/b", "../../../proc/self//environ")),
                     "/proc/*/environ");
    cr_expect_null(pd_proc_credential(NULL, "/proc/self/maps"));
    cr_expect_null(pd_proc_credential(NULL, "/proc/self/status"));
    cr_expect_null(pd_proc_credential(NULL, "/proc/environ"));
    cr_expect_null(pd_proc_credential("/tmp", "environ"));
}

Test(proc_credential, through_a_link, .fini = teardown)
{
    setup("");
    tp_link(ws, "src/e", "/proc/self/environ");
    char src[PD_PATH_MAX];
    tp_join(src, sizeof src, ws, "src");
    cr_expect_str_eq(TP_S(pd_proc_credential(src, "e")), "/proc/*/environ");
}

Test(agent_read, credential_sources, .fini = teardown)
{
    setup("");
    struct pd_verdict v;
    char own[64];
    snprintf(own, sizeof own, "/proc/%d/environ", (int)getpid());
    const char *secret[] = {"/proc/self/environ",        own,
                            "/proc/1/environ",           "/proc/self/mem",
                            "/proc/thread-self/environ", "~/.ssh/id_rsa",
                            "~/.config/gh/hosts.yml",    ".env"};
    for (size_t k = 0; k < sizeof secret / sizeof secret[0]; k++) {
        pd_gate_agent_read(&ctx, NULL, secret[k], &v);
        expect(&v, PD_REASON_SECRET, NULL, secret[k]);
    }
    pd_gate_agent_read(&ctx, NULL, "/proc/self/environ", &v);
    cr_expect(strstr(v.message, "credential source"), "%s", v.message);
    const char *fine[] = {"/proc/cpuinfo", "/proc/self/status", "/usr/include/stdio.h",
                          "src/app.py", "README.md"};
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++) {
        pd_gate_agent_read(&ctx, NULL, fine[k], &v);
        expect(&v, NULL, NULL, fine[k]);
    }
}

Test(builtins, credential_files_are_secrets, .fini = teardown)
{
    setup("");
    static const char *const want[] = {"~/.config/gh/hosts.yml",
                                       "~/.cargo/credentials",
                                       "~/.cargo/credentials.toml",
                                       "~/.gem/credentials",
                                       "~/.terraform.d/credentials.tfrc.json",
                                       "~/.claude/.credentials.json",
                                       "~/.codex/auth.json"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        bool found = false;
        for (size_t i = 0; pd_builtin_secrets[i]; i++)
            found |= strcmp(pd_builtin_secrets[i], want[k]) == 0;
        cr_expect(found, "%s missing from pd_builtin_secrets", want[k]);
        struct pd_verdict v;
        pd_gate_path(&ctx, PD_OP_READ, NULL, want[k], &v);
        expect(&v, PD_REASON_SECRET, "built-in secret", want[k]);
    }
}

/* ---- Grep ------------------------------------------------------------------------ */

static void grep(const char *path, const char *glob, const char *type, const char *reason,
                 const char *fragment)
{
    struct pd_verdict v;
    char what[512];
    snprintf(what, sizeof what, "Grep path=%s glob=%s type=%s", TP_S(path), TP_S(glob), TP_S(type));
    pd_gate_grep(&ctx, NULL, path, glob, type, &v);
    expect(&v, reason, fragment, what);
}

Test(grep, walks_the_file_set, .fini = teardown)
{
    setup("");
    /* the whole workspace holds .env: denied, with the way around it */
    grep(NULL, NULL, NULL, PD_REASON_SECRET, "would read .env (secret)");
    grep(".", NULL, NULL, PD_REASON_SECRET, "glob \"!.env\"");
    /* globs and types that leave it out */
    grep(NULL, "*.py", NULL, NULL, NULL);
    grep(NULL, "!.env", NULL, NULL, NULL);
    grep(NULL, "*.md,*.py", NULL, NULL, NULL);
    grep(NULL, "*.{md,py}", NULL, NULL, NULL);
    grep(NULL, NULL, "py", NULL, NULL);
    grep("src", NULL, NULL, NULL, NULL);
    /* globs that take it in */
    grep(NULL, "*.{py,env}", NULL, PD_REASON_SECRET, ".env");
    grep(NULL, "*.py .env", NULL, PD_REASON_SECRET, ".env");
    grep(NULL, "!.env *", NULL, PD_REASON_SECRET, ".env"); /* the last glob decides */
    /* an unknown type narrows nothing */
    grep(NULL, NULL, "nosuchtype", PD_REASON_SECRET, ".env");
}

Test(grep, single_files_and_paths, .fini = teardown)
{
    setup("");
    grep(".env", NULL, NULL, PD_REASON_SECRET, NULL);
    grep("src/app.py", "*.md", NULL, NULL, NULL);
    grep("~/.ssh", NULL, NULL, PD_REASON_SECRET, NULL);
    grep("~", "*.py", NULL, NULL, NULL);
    grep("~", NULL, NULL, PD_REASON_SECRET, NULL);
    grep("/proc/self/environ", NULL, NULL, PD_REASON_SECRET, NULL);
}

Test(grep, deny_globs_hidden_and_vcs, .fini = teardown)
{
    setup("deny_globs = [\"*.secret\"]\n");
    tp_put(ws, "src/lib/.hidden/token.secret", "t\n", 0600);
    grep("src", NULL, NULL, PD_REASON_DENY_GLOB, ".hidden/token.secret");
    grep("src", "*.py", NULL, NULL, NULL);
    /* .git is not searched */
    tp_put(ws, "other/.git/x.secret", "t\n", 0600);
    grep("other", NULL, NULL, NULL, NULL);
    /* anchored globs: "/x" is the search root's x only */
    tp_put(ws, "other/keys/a.secret", "t\n", 0600);
    grep("other", "!/keys", NULL, NULL, NULL);
    grep("other", "!/nomatch/keys", NULL, PD_REASON_DENY_GLOB, "keys/a.secret");
}

Test(grep, gitignore_of_a_repository, .fini = teardown)
{
    setup("deny_globs = [\"*.secret\"]\n");
    tp_put(ws, ".env.local", "T=1\n", 0600);
    tp_put(ws, "certs/dev.pem", "-----BEGIN PRIVATE KEY-----\n", 0600);
    tp_put(ws, "node_modules/pkg/test/key.pem", "-----BEGIN PRIVATE KEY-----\n", 0600);
    tp_put(ws, ".gitignore", "# secrets\n.env\n.env.*\n*.pem\nnode_modules/\n", 0644);
    /* not a repository: ripgrep does not read .gitignore */
    grep(NULL, NULL, NULL, PD_REASON_SECRET, ".env");
    tp_mkdir(ws, ".git");
    grep(NULL, NULL, NULL, NULL, NULL);
    grep("src", NULL, NULL, NULL, NULL);
    /* an including glob overrides ignore files */
    grep(NULL, "*.pem", NULL, PD_REASON_SECRET, ".pem");
    /* an excluding one does not */
    grep(NULL, "!*.py", NULL, NULL, NULL);
    /* .ignore can re-include what .gitignore ignores */
    tp_put(ws, ".ignore", "\n", 0644);
    grep(NULL, NULL, NULL, PD_REASON_SECRET, NULL);
    char p[PD_PATH_MAX];
    tp_join(p, sizeof p, ws, ".ignore");
    cr_assert_eq(unlink(p), 0);
    /* so can a "!" line */
    tp_put(ws, ".gitignore", ".env\n.env.*\n*.pem\n!certs/dev.pem\nnode_modules/\n", 0644);
    grep(NULL, NULL, NULL, PD_REASON_SECRET, NULL);
    tp_put(ws, ".gitignore", ".env\n.env.*\n*.pem\nnode_modules/\n", 0644);
    grep(NULL, NULL, NULL, NULL, NULL);
}

Test(grep, gitignore_rules_read_narrowly, .fini = teardown)
{
    setup("deny_globs = [\"*.secret\"]\n");
    tp_mkdir(ws, ".git");
    /* a rule for folders leaves a file of that name in */
    tp_put(ws, ".gitignore", ".env\nx.secret/\n/top.secret\n", 0644);
    tp_put(ws, "x.secret", "s\n", 0600);
    grep(NULL, NULL, NULL, PD_REASON_DENY_GLOB, "x.secret");
    char p[PD_PATH_MAX];
    tp_join(p, sizeof p, ws, "x.secret");
    cr_assert_eq(unlink(p), 0);
    tp_put(ws, "x.secret/inner.txt", "s\n", 0600);
    grep(NULL, NULL, NULL, NULL, NULL);
    /* "/top.secret" is the root's only */
    tp_put(ws, "top.secret", "s\n", 0600);
    grep(NULL, NULL, NULL, NULL, NULL);
    tp_put(ws, "src/top.secret", "s\n", 0600);
    grep(NULL, NULL, NULL, PD_REASON_DENY_GLOB, "src/top.secret");
    tp_join(p, sizeof p, ws, "src/top.secret");
    cr_assert_eq(unlink(p), 0);
    /* a line with a backslash is not used (it can only leave out less) */
    tp_put(ws, ".gitignore", ".env\n\\#odd.secret\n", 0644);
    tp_put(ws, "#odd.secret", "s\n", 0600);
    grep(NULL, "!x.secret !top.secret", NULL, PD_REASON_DENY_GLOB, "#odd.secret");
}

Test(grep, gitignore_stops_at_nested_repositories_and_the_root, .fini = teardown)
{
    setup("");
    tp_mkdir(ws, ".git");
    tp_put(ws, ".gitignore", ".env\ngenerated\n", 0644);
    /* the parent's rules are not a nested repository's */
    tp_mkdir(ws, "vendor/lib/.git");
    tp_put(ws, "vendor/lib/.env", "K=1\n", 0600);
    grep("vendor", NULL, NULL, PD_REASON_SECRET, "lib/.env");
    /* a rule that covers the search root itself is not used */
    tp_put(ws, "generated/id_rsa", "k\n", 0600);
    grep("generated", NULL, NULL, PD_REASON_SECRET, "id_rsa");
    grep("src", NULL, NULL, NULL, NULL);
}

Test(grep, links_are_judged_by_their_target, .fini = teardown)
{
    setup("");
    char key[PD_PATH_MAX];
    tp_join(key, sizeof key, home, ".ssh/id_rsa");
    tp_link(ws, "src/k.py", key);
    grep("src", "*.py", NULL, PD_REASON_SECRET, "k.py");
    tp_link(ws, "src/loop.py", "loop.py"); /* a loop reads nothing */
    tp_join(key, sizeof key, ws, "src/k.py");
    cr_assert_eq(unlink(key), 0);
    grep("src", "*.py", NULL, NULL, NULL);
}

Test(grep, bounded_walk, .fini = teardown, .timeout = 120)
{
    setup("");
    tp_mkdir(ws, "big");
    char path[PD_PATH_MAX + 32];
    for (int k = 0; k <= PD_GREP_MAX_ENTRIES; k++) {
        snprintf(path, sizeof path, "%s/big/f%d.txt", ws, k);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        cr_assert_geq(fd, 0);
        close(fd);
    }
    grep("big", NULL, NULL, PD_REASON_GUARDRAIL, "more than 50000");
}

/* ---- Glob and LS ------------------------------------------------------------------ */

static void glob_tool(const char *path, const char *pattern, const char *reason)
{
    struct pd_verdict v;
    char what[2 * PD_PATH_MAX + 32];
    snprintf(what, sizeof what, "Glob path=%s pattern=%s", TP_S(path), TP_S(pattern));
    pd_gate_glob(&ctx, NULL, path, pattern, &v);
    expect(&v, reason, NULL, what);
}

Test(glob_tool, names_only_but_not_in_a_secret_folder, .fini = teardown)
{
    setup("");
    glob_tool(NULL, "**/*.pem", NULL);
    glob_tool(NULL, "**/.env*", NULL);
    glob_tool("src", "*.py", NULL);
    glob_tool("~/.ssh", "*", PD_REASON_SECRET);
    glob_tool(NULL, "~/.ssh/*", PD_REASON_SECRET);
    char pattern[PD_PATH_MAX + 16];
    snprintf(pattern, sizeof pattern, "%s/.ssh/id_*", home);
    glob_tool(NULL, pattern, PD_REASON_SECRET);
    glob_tool(NULL, "../*", NULL);
    struct pd_verdict v;
    pd_gate_agent_read(&ctx, NULL, "~/.ssh", &v); /* LS */
    expect(&v, PD_REASON_SECRET, NULL, "LS ~/.ssh");
    pd_gate_agent_read(&ctx, NULL, "src", &v);
    expect(&v, NULL, NULL, "LS src");
}
