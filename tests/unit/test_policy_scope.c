/* tests/unit/test_policy_scope.c - the scope rules of issue 14 in the
 * policy library: what a named path may read (pd_readable_scope and
 * PD_OP_NAME in pd_gate_path, read_paths), which built-in secrets
 * allow_secrets lifts (pd_secret_lifted: a relative entry only inside the
 * workspace, deny_globs never), how protected_paths extends the built-in
 * list and unprotect_paths removes exactly the entries it names
 * (pd_match_protected, pd_builtin_unprotected), and the load errors of
 * unprotect_paths entries that are no built-in. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

/*
 * base/
 * ├── ws/                    the workspace
 * │   ├── README.md, .npmrc, .env, key.pem (a private key), config/.npmrc
 * │   ├── src/main.c, generated/x, .vscode/settings.json
 * │   └── .git/hooks/pre-commit, .git/config
 * ├── data/x.txt, data/sub/y.txt   a folder for read_paths
 * ├── datax/z.txt                  shares a prefix with data, not a folder
 * ├── extra/e.txt                  an absolute allow_paths root
 * ├── other/o.txt                  outside everything
 * └── home/.npmrc, home/notes/n.txt, home/.ssh/id_rsa, home/.ssh/config
 */
static char base[256], ws[300], home[300];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool have_pol, have_ctx;

static void tree_init(void)
{
    tp_mkdtemp(base, sizeof base, "scope");
    tp_join(ws, sizeof ws, base, "ws");
    tp_join(home, sizeof home, base, "home");
    tp_put(base, "ws/README.md", "# r", 0644);
    tp_put(base, "ws/.npmrc", "//r/:_authToken=x", 0600);
    tp_put(base, "ws/.env", "K=1", 0600);
    tp_put(base, "ws/key.pem", "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n", 0600);
    tp_put(base, "ws/config/.npmrc", "x", 0600);
    tp_put(base, "ws/src/main.c", "int main;", 0644);
    tp_put(base, "ws/generated/x", "g", 0644);
    tp_put(base, "ws/.vscode/settings.json", "{}", 0644);
    tp_put(base, "ws/.git/hooks/pre-commit", "#!/bin/sh\n", 0755);
    tp_put(base, "ws/.git/config", "[core]", 0644);
    tp_put(base, "data/x.txt", "d", 0644);
    tp_put(base, "data/sub/y.txt", "d", 0644);
    tp_put(base, "datax/z.txt", "d", 0644);
    tp_put(base, "extra/e.txt", "e", 0644);
    tp_put(base, "other/o.txt", "o", 0644);
    tp_put(base, "home/.npmrc", "x", 0600);
    tp_put(base, "home/notes/n.txt", "n", 0644);
    tp_put(base, "home/.ssh/id_rsa", "KEY", 0600);
    tp_put(base, "home/.ssh/config", "Host x", 0600);
    have_pol = have_ctx = false;
}

static void tree_fini(void)
{
    if (have_ctx)
        pd_ctx_free(&ctx);
    if (have_pol)
        pd_policy_free(&pol);
    tp_rmtree(base);
}

/* "@" = ws, "&" = home, "^" = base: expanded anywhere in s. */
static void expand(const char *s, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (; *s && n + 1 < len; s++) {
        const char *r = *s == '@' ? ws : *s == '&' ? home : *s == '^' ? base : NULL;
        char one[2] = {*s, '\0'};
        n += (size_t)snprintf(out + n, len - n, "%s", r ? r : one);
    }
    cr_assert_lt(n, len, "expanded text too long: %s", out);
}

/* Load toml (markers expanded) and bind it to ws and home. */
static void setup(const char *toml)
{
    char text[4096];
    struct pd_error err;
    expand(toml, text, sizeof text);
    if (have_ctx)
        pd_ctx_free(&ctx);
    if (have_pol)
        pd_policy_free(&pol);
    have_ctx = have_pol = false;
    cr_assert_eq(pd_policy_load_string(&pol, text, "t.toml", &err), 0, "policy: %s\n%s", err.msg,
                 text);
    have_pol = true;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "ctx: %s", err.msg);
    have_ctx = true;
}

/* Gate op on path (markers expanded); the verdict in *v. */
static void gate(enum pd_op op, const char *path, struct pd_verdict *v)
{
    char abs[PD_PATH_MAX];
    expand(path, abs, sizeof abs);
    pd_gate_path(&ctx, op, NULL, abs, v);
}

static void expect_allow(enum pd_op op, const char *path)
{
    struct pd_verdict v;
    gate(op, path, &v);
    cr_expect(!v.deny, "%s %s: expected allow, got deny: %s", pd_op_name(op), path, v.message);
}

static void expect_deny(enum pd_op op, const char *path, const char *reason, const char *key,
                        const char *pattern)
{
    struct pd_verdict v;
    gate(op, path, &v);
    cr_expect(v.deny, "%s %s: expected deny (%s), got allow", pd_op_name(op), path, reason);
    cr_expect(tp_streq(v.reason, reason), "%s %s: reason %s, want %s (%s)", pd_op_name(op), path,
              TP_S(v.reason), reason, v.message);
    cr_expect(tp_streq(v.key, key), "%s %s: key %s, want %s (%s)", pd_op_name(op), path,
              TP_S(v.key), key, v.message);
    cr_expect(tp_streq(v.pattern, pattern), "%s %s: pattern %s, want %s (%s)", pd_op_name(op), path,
              TP_S(v.pattern), TP_S(pattern), v.message);
}

TestSuite(readable_scope, .init = tree_init, .fini = tree_fini);
TestSuite(named_path, .init = tree_init, .fini = tree_fini);
TestSuite(allow_secrets, .init = tree_init, .fini = tree_fini);
TestSuite(protected, .init = tree_init, .fini = tree_fini);
TestSuite(unprotect_load, .init = tree_init, .fini = tree_fini);

/* ---- pd_readable_scope ------------------------------------------------- */

static void expect_scope(const char *path, bool want)
{
    char abs[PD_PATH_MAX];
    expand(path, abs, sizeof abs);
    cr_expect_eq(pd_readable_scope(&ctx, abs), want, "%s: expected %s", abs,
                 want ? "readable" : "outside the readable scope");
}

Test(readable_scope, workspace_roots_read_paths_system_folders)
{
    setup("allow_paths = [\"src/\", \"^/extra\"]\nread_paths = [\"^/data\", \"~/notes\"]\n");
    /* the workspace, all of it, whatever allow_paths says */
    expect_scope("@", true);
    expect_scope("@/README.md", true);
    expect_scope("@/not/yet/made", true);
    expect_scope("@/src/main.c", true);
    /* an allow_paths root outside the workspace */
    expect_scope("^/extra", true);
    expect_scope("^/extra/e.txt", true);
    /* read_paths, absolute and "~/" */
    expect_scope("^/data", true);
    expect_scope("^/data/sub/y.txt", true);
    expect_scope("&/notes/n.txt", true);
    /* a prefix is not a folder */
    expect_scope("^/datax/z.txt", false);
    expect_scope("@x", false);
    /* the system folders and the bit buckets */
    expect_scope("/usr/bin/ls", true);
    expect_scope("/etc/hostname", true);
    expect_scope("/bin/sh", true);
    expect_scope("/lib", true);
    expect_scope("/opt/any/thing", true);
    expect_scope("/dev/null", true);
    expect_scope("/proc/self/fd/1", true);
    /* everything else */
    expect_scope("^/other/o.txt", false);
    expect_scope("^", false);
    expect_scope("&", false);
    expect_scope("&/.npmrc", false);
    expect_scope("/", false);
    expect_scope("/home", false);
    expect_scope("/tmp/x", false);
    expect_scope("/var/log/syslog", false);
    expect_scope("/root/.bashrc", false);
    expect_scope("/usrx/y", false);
    expect_scope("/dev/sda", false);
    expect_scope("/proc/1/environ", false);
}

Test(readable_scope, without_read_paths_only_the_defaults)
{
    setup("allow_paths = [\"src/\"]\n");
    expect_scope("@/README.md", true);
    expect_scope("^/data/x.txt", false);
    expect_scope("&/notes/n.txt", false);
    expect_scope("^/extra/e.txt", false);
}

Test(readable_scope, read_paths_resolve_against_the_workspace)
{
    /* a relative entry names a folder of the workspace ("../data" leaves it
     * on purpose, the way the user wrote it) */
    setup("read_paths = [\"../data\"]\n");
    cr_assert_eq(ctx.nread_roots, 1);
    char want[PD_PATH_MAX];
    tp_join(want, sizeof want, base, "data");
    cr_expect_str_eq(ctx.read_roots[0], want);
    expect_scope("^/data/x.txt", true);
    /* read_paths are no writable roots */
    cr_expect_eq(ctx.nroots, 1);
    cr_expect_str_eq(ctx.roots[0], ws);
}

/* ---- PD_OP_NAME in pd_gate_path ------------------------------------------ */

Test(named_path, read_paths_root_allows_outside_denies)
{
    setup("allow_paths = [\"src/\"]\nread_paths = [\"^/data\"]\n");
    /* a file of the workspace outside allow_paths is named, so read */
    expect_allow(PD_OP_NAME, "@/README.md");
    expect_allow(PD_OP_NAME, "README.md");
    expect_allow(PD_OP_NAME, "@/src/main.c");
    expect_allow(PD_OP_NAME, "^/data/x.txt");
    expect_allow(PD_OP_NAME, "^/data");
    expect_allow(PD_OP_NAME, "/etc/hostname");
    expect_allow(PD_OP_NAME, "/usr/bin/env");
    expect_allow(PD_OP_NAME, "/dev/null");
    /* outside: key read_paths, reason "outside workspace", the scope listed */
    expect_deny(PD_OP_NAME, "^/other/o.txt", PD_REASON_OUTSIDE_WS, "read_paths", NULL);
    expect_deny(PD_OP_NAME, "^/datax/z.txt", PD_REASON_OUTSIDE_WS, "read_paths", NULL);
    expect_deny(PD_OP_NAME, "&/notes/n.txt", PD_REASON_OUTSIDE_WS, "read_paths", NULL);
    expect_deny(PD_OP_NAME, "../other/o.txt", PD_REASON_OUTSIDE_WS, "read_paths", NULL);
    struct pd_verdict v;
    gate(PD_OP_NAME, "^/other/o.txt", &v);
    char want[PD_MSG_MAX];
    snprintf(want, sizeof want,
             "%s/other/o.txt (outside workspace) [readable: the workspace %s, the system folders, "
             "read_paths: %s/data]",
             base, ws, base);
    cr_expect_str_eq(v.message, want);
    cr_expect_eq(v.op, PD_OP_NAME);
    char resolved[PD_PATH_MAX];
    tp_join(resolved, sizeof resolved, base, "other/o.txt");
    cr_expect_str_eq(v.resolved, resolved);
}

Test(named_path, message_without_read_paths)
{
    setup("allow_paths = [\"src/\"]\n");
    struct pd_verdict v;
    gate(PD_OP_NAME, "^/data/x.txt", &v);
    char want[PD_MSG_MAX];
    snprintf(want, sizeof want,
             "%s/data/x.txt (outside workspace) [readable: the workspace %s, the system folders]",
             base, ws);
    cr_expect(v.deny);
    cr_expect_str_eq(v.message, want);
}

Test(named_path, secrets_and_globs_before_the_scope)
{
    setup("allow_paths = [\"src/\"]\ndeny_globs = [\"*.log\"]\nread_paths = [\"^/data\", "
          "\"~/\"]\n");
    expect_deny(PD_OP_NAME, "@/.env", PD_REASON_SECRET, "secrets", ".env");
    expect_deny(PD_OP_NAME, ".npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
    expect_deny(PD_OP_NAME, "@/src/app.log", PD_REASON_DENY_GLOB, "deny_globs", "*.log");
    expect_deny(PD_OP_NAME, "^/data/app.log", PD_REASON_DENY_GLOB, "deny_globs", "*.log");
    /* read_paths naming the home does not make its secrets readable */
    expect_deny(PD_OP_NAME, "&/.ssh/id_rsa", PD_REASON_SECRET, "secrets", "id_rsa*");
    expect_deny(PD_OP_NAME, "&/.ssh/config", PD_REASON_SECRET, "secrets", "~/.ssh/**");
    expect_deny(PD_OP_NAME, "&/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
    expect_allow(PD_OP_NAME, "&/notes/n.txt");
}

Test(named_path, writes_keep_the_writable_roots)
{
    setup("allow_paths = [\"src/\"]\nread_paths = [\"^/data\"]\n");
    expect_allow(PD_OP_WRITE, "@/src/main.c");
    expect_deny(PD_OP_WRITE, "@/README.md", PD_REASON_OUTSIDE_ALLOW, "allow_paths", NULL);
    expect_deny(PD_OP_CREATE, "@/new.txt", PD_REASON_OUTSIDE_ALLOW, "allow_paths", NULL);
    /* read_paths are readable, not writable */
    expect_deny(PD_OP_WRITE, "^/data/x.txt", PD_REASON_OUTSIDE_WS, "workspace", NULL);
    expect_deny(PD_OP_DELETE, "^/data/x.txt", PD_REASON_OUTSIDE_WS, "workspace", NULL);
    /* the live gate's reads are judged by patterns only (kernel layers scope them) */
    expect_allow(PD_OP_READ, "^/other/o.txt");
}

/* ---- allow_secrets -------------------------------------------------------- */

/* pd_secret_lifted on path (markers expanded): the entry, or NULL. */
static const char *lifted(const char *path)
{
    char abs[PD_PATH_MAX];
    expand(path, abs, sizeof abs);
    return pd_secret_lifted(&ctx, pd_path_under(abs, ctx.workspace), abs);
}

Test(allow_secrets, relative_entry_lifts_inside_the_workspace_only)
{
    setup("allow_secrets = [\".npmrc\"]\n");
    cr_expect(tp_streq(lifted("@/.npmrc"), ".npmrc"));
    cr_expect(tp_streq(lifted("@/config/.npmrc"), ".npmrc"), "a pattern without '/' matches any "
                                                             "component in the workspace");
    cr_expect_null(lifted("&/.npmrc"), "~/.npmrc is never lifted by a relative entry");
    cr_expect_null(lifted("@/.env"));
    expect_allow(PD_OP_READ, "@/.npmrc");
    expect_allow(PD_OP_NAME, ".npmrc");
    expect_allow(PD_OP_NAME, "@/config/.npmrc");
    expect_allow(PD_OP_WRITE, "@/.npmrc");
    expect_deny(PD_OP_NAME, "&/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
    expect_deny(PD_OP_READ, "&/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
    expect_deny(PD_OP_NAME, "~/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
    /* other secrets stay */
    expect_deny(PD_OP_NAME, "@/.env", PD_REASON_SECRET, "secrets", ".env");
    expect_deny(PD_OP_NAME, "@/key.pem", PD_REASON_SECRET, "secrets", "*.pem");
}

Test(allow_secrets, anchored_entry_lifts_that_path_only)
{
    setup("allow_secrets = [\"config/.npmrc\"]\n");
    cr_expect(tp_streq(lifted("@/config/.npmrc"), "config/.npmrc"));
    cr_expect_null(lifted("@/.npmrc"));
    expect_allow(PD_OP_NAME, "@/config/.npmrc");
    expect_deny(PD_OP_NAME, "@/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
}

Test(allow_secrets, absolute_and_home_entries_lift_outside)
{
    setup("allow_secrets = [\"~/.npmrc\"]\n");
    cr_expect(tp_streq(lifted("&/.npmrc"), "~/.npmrc"));
    cr_expect_null(lifted("@/.npmrc"), "~/.npmrc names the home's file only");
    expect_allow(PD_OP_READ, "&/.npmrc");
    expect_deny(PD_OP_NAME, "@/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");

    setup("allow_secrets = [\"&/.npmrc\"]\n");
    char want[PD_PATH_MAX];
    tp_join(want, sizeof want, home, ".npmrc");
    cr_expect(tp_streq(lifted("&/.npmrc"), want));
    expect_allow(PD_OP_READ, "&/.npmrc");
    /* lifting the secret does not put the home in the readable scope */
    expect_deny(PD_OP_NAME, "&/.npmrc", PD_REASON_OUTSIDE_WS, "read_paths", NULL);
}

Test(allow_secrets, glob_entries)
{
    setup("allow_secrets = [\"*.pem\", \"~/.ssh/**\"]\n");
    cr_expect(tp_streq(lifted("@/key.pem"), "*.pem"));
    expect_allow(PD_OP_READ, "@/key.pem");
    expect_allow(PD_OP_READ, "&/.ssh/id_rsa");
    expect_allow(PD_OP_READ, "&/.ssh/config");
    expect_deny(PD_OP_READ, "@/.npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
}

Test(allow_secrets, deny_globs_are_never_lifted)
{
    setup("allow_secrets = [\".npmrc\", \".env\"]\ndeny_globs = [\".npmrc\", \".env\"]\n");
    cr_expect(tp_streq(lifted("@/.npmrc"), ".npmrc"), "the built-in rule is lifted");
    expect_deny(PD_OP_READ, "@/.npmrc", PD_REASON_DENY_GLOB, "deny_globs", ".npmrc");
    expect_deny(PD_OP_NAME, "@/.npmrc", PD_REASON_DENY_GLOB, "deny_globs", ".npmrc");
    expect_deny(PD_OP_WRITE, "@/.npmrc", PD_REASON_DENY_GLOB, "deny_globs", ".npmrc");
    expect_deny(PD_OP_READ, "@/.env", PD_REASON_DENY_GLOB, "deny_globs", ".env");
    /* a deny_globs entry that differs from the lifted name still catches it */
    setup("allow_secrets = [\".npmrc\"]\ndeny_globs = [\"**/config/**\"]\n");
    expect_allow(PD_OP_READ, "@/.npmrc");
    expect_deny(PD_OP_READ, "@/config/.npmrc", PD_REASON_DENY_GLOB, "deny_globs", "**/config/**");
}

Test(allow_secrets, none_by_default)
{
    setup("allow_paths = [\"src/\"]\n");
    cr_expect_null(lifted("@/.npmrc"));
    expect_deny(PD_OP_NAME, ".npmrc", PD_REASON_SECRET, "secrets", ".npmrc");
}

/* ---- protected_paths and unprotect_paths ------------------------------ */

/* One path per built-in protected pattern, in pd_builtin_protected order. */
static const struct {
    const char *pattern;
    const char *rel;
} builtin_samples[] = {
    {".git", NULL}, /* its removal only: git_dir_itself_against_removal */
    {".git/hooks/**", ".git/hooks/pre-commit"},
    {".git/config", ".git/config"},
    {".git/config.worktree", ".git/config.worktree"},
    {".git/commondir", ".git/commondir"},
    {".gitmodules", ".gitmodules"},
    {".claude/**", ".claude/settings.json"},
    {".codex/**", ".codex/config.toml"},
    {".mcp.json", ".mcp.json"},
    {".vscode/**", ".vscode/tasks.json"},
    {".idea/**", ".idea/workspace.xml"},
};
#define NSAMPLES (sizeof builtin_samples / sizeof builtin_samples[0])

/* pd_match_protected on a workspace-relative path. */
static const char *protected_by(const char *rel)
{
    char abs[PD_PATH_MAX];
    tp_join(abs, sizeof abs, ws, rel);
    return pd_match_protected(&ctx, rel, abs);
}

/* What protects sample k: pd_match_protected on its path, or for the git
 * directory itself (judged for removal only) the gate's verdict on it. */
static const char *sample_hit(size_t k)
{
    if (builtin_samples[k].rel)
        return protected_by(builtin_samples[k].rel);
    static struct pd_verdict v;
    char abs[PD_PATH_MAX];
    tp_join(abs, sizeof abs, ws, ".git");
    pd_gate_name(&ctx, PD_OP_DELETE, ws, abs, &v);
    return v.deny ? v.pattern : NULL;
}

Test(protected, samples_cover_every_builtin)
{
    size_t n = 0;
    while (pd_builtin_protected[n])
        n++;
    cr_assert_eq(n, NSAMPLES, "a built-in protected pattern without a sample here");
    for (size_t k = 0; k < n; k++)
        cr_expect_str_eq(pd_builtin_protected[k], builtin_samples[k].pattern);
}

Test(protected, protected_paths_extends_the_builtins)
{
    setup("protected_paths = [\"generated/**\"]\n");
    cr_expect(pol.protected_paths_set);
    cr_expect(tp_streq(protected_by("generated/x"), "generated/**"));
    for (size_t k = 0; k < NSAMPLES; k++)
        cr_expect(tp_streq(sample_hit(k), builtin_samples[k].pattern),
                  "%s: %s, want %s (protected_paths must extend, not replace)",
                  builtin_samples[k].pattern, TP_S(sample_hit(k)), builtin_samples[k].pattern);
    cr_expect_null(protected_by("src/main.c"));
    /* both deny a write, each with its own pattern */
    expect_deny(PD_OP_WRITE, "@/generated/x", PD_REASON_PROTECTED, "protected_paths",
                "generated/**");
    expect_deny(PD_OP_CREATE, "@/generated/new", PD_REASON_PROTECTED, "protected_paths",
                "generated/**");
    expect_deny(PD_OP_WRITE, "@/.git/hooks/pre-commit", PD_REASON_PROTECTED, "protected_paths",
                ".git/hooks/**");
    expect_deny(PD_OP_DELETE, "@/.vscode/settings.json", PD_REASON_PROTECTED, "protected_paths",
                ".vscode/**");
    /* protected paths stay readable */
    expect_allow(PD_OP_READ, "@/generated/x");
    expect_allow(PD_OP_NAME, "@/.git/hooks/pre-commit");
}

Test(protected, builtins_without_a_policy_key)
{
    setup("allow_paths = [\"src/\"]\n");
    cr_expect(!pol.protected_paths_set);
    cr_expect_null(protected_by("generated/x"));
    for (size_t k = 0; k < NSAMPLES; k++)
        cr_expect(tp_streq(sample_hit(k), builtin_samples[k].pattern), "%s",
                  builtin_samples[k].pattern);
}

Test(protected, unprotect_paths_removes_exactly_one_builtin)
{
    for (size_t u = 0; u < NSAMPLES; u++) {
        char toml[256];
        snprintf(toml, sizeof toml, "unprotect_paths = [\"%s\"]\n", builtin_samples[u].pattern);
        setup(toml);
        for (size_t k = 0; k < NSAMPLES; k++) {
            const char *pat = builtin_samples[k].pattern;
            cr_expect_eq(pd_builtin_unprotected(&pol, pat), k == u, "unprotect %s: %s %s",
                         builtin_samples[u].pattern, pat, k == u ? "removed" : "kept");
            const char *hit = sample_hit(k);
            if (k == u)
                cr_expect_null(hit, "unprotect %s: %s still protected by %s",
                               builtin_samples[u].pattern, pat, TP_S(hit));
            else
                cr_expect(tp_streq(hit, pat), "unprotect %s: %s protected by %s, want %s",
                          builtin_samples[u].pattern, pat, TP_S(hit), pat);
        }
    }
}

/* The git directory itself: its removal or rename (by it) is denied, so
 * that a "gitdir:" file cannot take its place; what is inside has its own
 * rules, and writes to the directory (its times, its mode) are the
 * kernel's business. With the launcher's list, only listed directories. */
Test(protected, git_dir_itself_against_removal)
{
    setup("allow_paths = [\".\"]\n");
    expect_deny(PD_OP_DELETE, "@/.git", PD_REASON_PROTECTED, "protected_paths", ".git");
    expect_deny(PD_OP_DELETE, "@/sub/.git", PD_REASON_PROTECTED, "protected_paths", ".git");
    expect_allow(PD_OP_WRITE, "@/.git");
    expect_allow(PD_OP_CREATE, "@/.git/objects/ab");
    expect_allow(PD_OP_DELETE, "@/.gitignore");
    expect_allow(PD_OP_DELETE, "@/.git/index.lock");
    expect_deny(PD_OP_CREATE, "@/.git/commondir", PD_REASON_PROTECTED, "protected_paths",
                ".git/commondir");
    /* listed: only what existed at the start */
    char listed[PD_PATH_MAX];
    tp_join(listed, sizeof listed, ws, "repo/.git");
    ctx.git_dirs_known = true;
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, listed), 0);
    expect_deny(PD_OP_DELETE, "@/repo/.git", PD_REASON_PROTECTED, "protected_paths", ".git");
    expect_allow(PD_OP_DELETE, "@/.git");
    expect_allow(PD_OP_DELETE, "@/repo/.git/sub");
}

Test(protected, unprotected_vscode_is_writable_the_rest_is_not)
{
    setup("unprotect_paths = [\".vscode/**\"]\n");
    expect_allow(PD_OP_WRITE, "@/.vscode/settings.json");
    expect_allow(PD_OP_CREATE, "@/.vscode/launch.json");
    expect_deny(PD_OP_WRITE, "@/.idea/workspace.xml", PD_REASON_PROTECTED, "protected_paths",
                ".idea/**");
    expect_deny(PD_OP_WRITE, "@/.git/hooks/pre-commit", PD_REASON_PROTECTED, "protected_paths",
                ".git/hooks/**");
    /* unprotecting does not widen the writable roots */
    setup("allow_paths = [\"src/\"]\nunprotect_paths = [\".vscode/**\"]\n");
    expect_deny(PD_OP_WRITE, "@/.vscode/settings.json", PD_REASON_OUTSIDE_ALLOW, "allow_paths",
                NULL);
}

Test(protected, unprotect_git_hooks_keeps_git_config)
{
    setup("unprotect_paths = [\".git/hooks/**\"]\n");
    expect_allow(PD_OP_WRITE, "@/.git/hooks/pre-commit");
    expect_deny(PD_OP_WRITE, "@/.git/config", PD_REASON_PROTECTED, "protected_paths",
                ".git/config");
}

Test(protected, own_entry_wins_over_unprotect)
{
    /* protected_paths is the user's own list: what it names stays protected */
    setup("protected_paths = [\".vscode/**\"]\nunprotect_paths = [\".vscode/**\"]\n");
    expect_deny(PD_OP_WRITE, "@/.vscode/settings.json", PD_REASON_PROTECTED, "protected_paths",
                ".vscode/**");
}

/* ---- unprotect_paths load errors ------------------------------------------ */

static const char *const ALL_BUILTINS =
    "(they are: .git, .git/hooks/**, .git/config, .git/config.worktree, .git/commondir, "
    ".gitmodules, .claude/**, "
    ".codex/**, .mcp.json, .vscode/**, .idea/**)";

static void expect_unprotect_error(const char *text, const char *entry, int line)
{
    struct pd_policy p;
    struct pd_error err;
    int rc = pd_policy_load_string(&p, text, "t.toml", &err);
    cr_assert_eq(rc, -1, "expected a load error for:\n%s", text);
    char want[PD_MSG_MAX];
    snprintf(want, sizeof want,
             "policy malformed: unprotect_paths entry '%s' is not a built-in protected path %s",
             entry, ALL_BUILTINS);
    cr_expect_str_eq(err.msg, want, "%s", text);
    cr_expect_str_eq(err.file, "t.toml");
    cr_expect_eq(err.line, line, "%s: line %d, want %d", text, err.line, line);
    char formatted[PD_MSG_MAX + PD_PATH_MAX], tail[64];
    pd_error_format(&err, formatted, sizeof formatted);
    snprintf(tail, sizeof tail, " (t.toml:%d)", line);
    cr_expect(strlen(formatted) > strlen(tail) &&
                  strcmp(formatted + strlen(formatted) - strlen(tail), tail) == 0,
              "%s: formatted error should end in%s", formatted, tail);
}

Test(unprotect_load, entries_that_are_not_builtins)
{
    expect_unprotect_error("unprotect_paths = [\".vscode/\"]\n", ".vscode/", 1);
    expect_unprotect_error("allow_paths = [\"src/\"]\n\nunprotect_paths = [\"generated/**\"]\n",
                           "generated/**", 3);
    expect_unprotect_error("unprotect_paths = [\".git/hooks\"]\n", ".git/hooks", 1);
    expect_unprotect_error("unprotect_paths = [\".VSCODE/**\"]\n", ".VSCODE/**", 1);
    expect_unprotect_error("unprotect_paths = [\".idea/**\", \"**\"]\n", "**", 1);
    expect_unprotect_error("unprotect_paths = [\".env\"]\n", ".env", 1);
}

Test(unprotect_load, every_builtin_loads)
{
    char text[1024];
    size_t n = (size_t)snprintf(text, sizeof text, "unprotect_paths = [");
    for (size_t k = 0; pd_builtin_protected[k]; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\"%s\"", k ? ", " : "",
                              pd_builtin_protected[k]);
    snprintf(text + n, sizeof text - n, "]\n");
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&p, text, "t.toml", &err), 0, "%s", err.msg);
    for (size_t k = 0; pd_builtin_protected[k]; k++)
        cr_expect(pd_builtin_unprotected(&p, pd_builtin_protected[k]), "%s",
                  pd_builtin_protected[k]);
    pd_policy_free(&p);
}

Test(unprotect_load, allow_secrets_and_read_paths_load)
{
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&p,
                                       "allow_secrets = [\".npmrc\", \"~/.pypirc\"]\n"
                                       "read_paths = [\"/srv/data\", \"~/notes\", \"vendor\"]\n",
                                       "t.toml", &err),
                 0, "%s", err.msg);
    cr_expect_eq(p.allow_secrets.n, 2);
    cr_expect_eq(p.read_paths.n, 3);
    pd_policy_free(&p);
    /* allow_secrets entries are globs: checked as such */
    cr_expect_eq(pd_policy_load_string(&p, "allow_secrets = [\"[a\"]\n", "t.toml", &err), -1);
    cr_expect(strstr(err.msg, "allow_secrets") != NULL, "%s", err.msg);
    cr_expect_eq(err.line, 1);
}
