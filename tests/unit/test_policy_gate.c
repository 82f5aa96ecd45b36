/* tests/unit/test_policy_gate.c - the decisions: pd_ctx_init and the
 * writable roots, pd_gate_path for every operation (deny_globs, secrets,
 * policy file, protected paths, devices, roots, workspace, allow_paths),
 * pd_looks_like_path, pd_resolve_program, pd_gate_binary and pd_gate_argv,
 * all on real temp trees with an explicit home and PATH. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

/*
 * ws/                        the workspace
 * ├── .env                   secret
 * ├── Makefile               exists, no dot
 * ├── policy.toml            a policy file (loaded in the policy_file tests)
 * ├── pl -> policy.toml
 * ├── src/main.go
 * ├── src/link -> ../.env
 * ├── src/repo/.git/config   nested repository (protected: check has no run,
 * │                          so every git-shaped config is; policy/gate_git.c)
 * ├── docs/a.md
 * ├── .git/config, .git/hooks/pre-commit
 * ├── cfg -> .git/config
 * ├── lsrc -> src
 * ├── out -> <outd>          link leaving the workspace
 * ├── loop -> loop
 * └── python3                an executable the sandboxed command can write
 * home/.ssh/id_rsa, home/.aws/credentials
 * outd/x.txt                 outside everything
 * tools/{ls,cat,python3,mytool,othertool}, tools/alias -> mytool, tools/noexec (0644)
 * tools2/mytool              same basename, different file
 */
static char ws[256], home[256], outd[256], tools[256], tools2[256];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool have_pol, have_ctx;

static void tree_init(void)
{
    tp_mkdtemp(ws, sizeof ws, "gate-ws");
    tp_mkdtemp(home, sizeof home, "gate-home");
    tp_mkdtemp(outd, sizeof outd, "gate-out");
    tp_mkdtemp(tools, sizeof tools, "gate-tools");
    tp_mkdtemp(tools2, sizeof tools2, "gate-tools2");
    tp_put(ws, ".env", "SECRET=1", 0644);
    tp_put(ws, "Makefile", "all:", 0644);
    tp_put(ws, "policy.toml", "timeout_sec = 5\n", 0644);
    tp_link(ws, "pl", "policy.toml");
    tp_put(ws, "src/main.go", "package main", 0644);
    tp_link(ws, "src/link", "../.env");
    tp_put(ws, "src/repo/.git/config", "[core]", 0644);
    tp_put(ws, "docs/a.md", "# a", 0644);
    tp_put(ws, ".git/config", "[core]", 0644);
    tp_put(ws, ".git/hooks/pre-commit", "#!/bin/sh\n", 0755);
    tp_link(ws, "cfg", ".git/config");
    tp_link(ws, "lsrc", "src");
    tp_link(ws, "out", outd);
    tp_link(ws, "loop", "loop");
    tp_put(ws, "python3", "#!/bin/sh\n", 0755);
    tp_put(ws, "1.pem", "KEY", 0644);
    tp_put(ws, "id_rsa", "KEY", 0600);
    tp_put(ws, "id_rsa copy", "KEY", 0600);
    tp_put(home, ".ssh/id_rsa", "KEY", 0600);
    tp_put(home, ".aws/credentials", "KEY", 0600);
    tp_put(outd, "x.txt", "out", 0644);
    static const char *const progs[] = {"ls", "cat", "python3", "mytool", "othertool", NULL};
    for (size_t k = 0; progs[k]; k++)
        tp_put(tools, progs[k], "#!/bin/sh\n", 0755);
    tp_link(tools, "alias", "mytool");
    tp_put(tools, "noexec", "#!/bin/sh\n", 0644);
    tp_mkdir(tools, "dirprog");
    tp_put(tools2, "mytool", "#!/bin/sh\n", 0755);
    have_pol = have_ctx = false;
}

static void tree_fini(void)
{
    if (have_ctx)
        pd_ctx_free(&ctx);
    if (have_pol)
        pd_policy_free(&pol);
    tp_rmtree(ws);
    tp_rmtree(home);
    tp_rmtree(outd);
    tp_rmtree(tools);
    tp_rmtree(tools2);
}

/* Replace "@" by the workspace, "&" by home, "%" by outd, "$" by tools,
 * "^" by tools2 (at the start of s only). */
static void expand(const char *s, char *out, size_t len)
{
    const char *root = NULL;
    switch (s[0]) {
    case '@':
        root = ws;
        break;
    case '&':
        root = home;
        break;
    case '%':
        root = outd;
        break;
    case '$':
        root = tools;
        break;
    case '^':
        root = tools2;
        break;
    default:
        break;
    }
    if (root)
        snprintf(out, len, "%s%s", root, s + 1);
    else
        snprintf(out, len, "%s", s);
}

/* Load a policy from text (with @, % and $ expanded anywhere in the text)
 * and bind it to the workspace, with PATH = tools. */
static void setup(const char *toml)
{
    char text[4096];
    size_t n = 0;
    for (const char *s = toml; *s && n + 300 < sizeof text; s++) {
        const char *r = *s == '@' ? ws : *s == '%' ? outd : *s == '$' ? tools : NULL;
        if (r)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", r);
        else
            text[n++] = *s;
    }
    text[n] = '\0';
    struct pd_error err;
    if (have_ctx)
        pd_ctx_free(&ctx);
    if (have_pol)
        pd_policy_free(&pol);
    have_ctx = have_pol = false;
    cr_assert_eq(pd_policy_load_string(&pol, text, "test.toml", &err), 0, "policy: %s", err.msg);
    have_pol = true;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "ctx: %s", err.msg);
    have_ctx = true;
    pd_ctx_set_path_env(&ctx, tools);
}

TestSuite(ctx, .init = tree_init, .fini = tree_fini);
TestSuite(gate_path, .init = tree_init, .fini = tree_fini);
TestSuite(looks_like_path, .init = tree_init, .fini = tree_fini);
TestSuite(resolve_program, .init = tree_init, .fini = tree_fini);
TestSuite(gate_binary, .init = tree_init, .fini = tree_fini);
TestSuite(gate_argv, .init = tree_init, .fini = tree_fini);

/* ---- pd_ctx_* ---------------------------------------------------------- */

Test(ctx, defaults_make_the_workspace_the_only_root)
{
    struct pd_error err;
    pd_policy_defaults(&pol);
    have_pol = true;
    char spelled[PD_PATH_MAX];
    snprintf(spelled, sizeof spelled, "%s/./src/..//", ws);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, spelled, home, &err), 0, "%s", err.msg);
    have_ctx = true;
    cr_expect_eq(ctx.policy, &pol);
    cr_expect_str_eq(ctx.workspace, ws);
    cr_expect_str_eq(ctx.home, home);
    cr_assert_eq(ctx.nroots, 1);
    cr_expect_eq(ctx.npolicy_roots, 1);
    cr_expect_str_eq(ctx.roots[0], ws);
    cr_expect_neq(ctx.path_env[0], '\0', "a default PATH is set");
}

Test(ctx, workspace_and_home_are_real_paths)
{
    struct pd_error err;
    char lws[300], lhome[300];
    snprintf(lws, sizeof lws, "%s/wslink", outd);
    snprintf(lhome, sizeof lhome, "%s/homelink", outd);
    cr_assert_eq(symlink(ws, lws), 0);
    cr_assert_eq(symlink(home, lhome), 0);
    pd_policy_defaults(&pol);
    have_pol = true;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, lws, lhome, &err), 0, "%s", err.msg);
    have_ctx = true;
    cr_expect_str_eq(ctx.workspace, ws);
    cr_expect_str_eq(ctx.home, home);
    cr_expect_str_eq(ctx.roots[0], ws);
}

Test(ctx, home_may_be_null_or_empty)
{
    struct pd_error err;
    pd_policy_defaults(&pol);
    have_pol = true;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    cr_expect_str_eq(ctx.home, "");
    pd_ctx_free(&ctx);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "", &err), 0, "%s", err.msg);
    have_ctx = true;
    cr_expect_str_eq(ctx.home, "");
}

Test(ctx, missing_workspace_is_an_error)
{
    struct pd_error err;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/dir", ws);
    pd_policy_defaults(&pol);
    have_pol = true;
    cr_expect_eq(pd_ctx_init(&ctx, &pol, missing, home, &err), -1);
    cr_expect_neq(err.msg[0], '\0');
    cr_expect_null(ctx.roots);
    cr_expect_eq(ctx.nroots, 0);
}

Test(ctx, allow_paths_become_resolved_roots)
{
    setup("allow_paths = [\"src/\", \"docs\", \"lsrc/../docs/\", \"newdir\", \"%\"]");
    /* lsrc/../docs: lsrc -> src, so physically src/../docs = docs (a duplicate) */
    char want[5][PD_PATH_MAX];
    snprintf(want[0], sizeof want[0], "%s/src", ws);
    snprintf(want[1], sizeof want[1], "%s/docs", ws);
    snprintf(want[2], sizeof want[2], "%s/newdir", ws);
    snprintf(want[3], sizeof want[3], "%s", outd);
    cr_assert_geq(ctx.nroots, 4);
    cr_expect_eq(ctx.nroots, ctx.npolicy_roots);
    for (size_t w = 0; w < 4; w++) {
        bool found = false;
        for (size_t k = 0; k < ctx.nroots; k++)
            found = found || strcmp(ctx.roots[k], want[w]) == 0;
        cr_expect(found, "root %s missing", want[w]);
    }
    for (size_t k = 0; k < ctx.nroots; k++)
        cr_expect_str_neq(ctx.roots[k], ws, "the workspace is no root when allow_paths is set");
}

Test(ctx, symlinked_allow_path_is_resolved)
{
    setup("allow_paths = [\"lsrc\"]");
    char want[PD_PATH_MAX];
    snprintf(want, sizeof want, "%s/src", ws);
    cr_assert_eq(ctx.nroots, 1);
    cr_expect_str_eq(ctx.roots[0], want);
    cr_expect_eq(ctx.npolicy_roots, 1);
}

Test(ctx, unresolvable_allow_path_is_an_error)
{
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, "allow_paths = [\"src\", \"loop\"]", "t", &err), 0);
    have_pol = true;
    cr_expect_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), -1);
    cr_expect(strstr(err.msg, "loop") != NULL, "%s", err.msg);
    cr_expect_null(ctx.roots);
}

Test(ctx, add_root_adds_resolved_roots_after_the_policy_ones)
{
    setup("allow_paths = [\"src\"]");
    char l[300];
    snprintf(l, sizeof l, "%s/outlink", ws);
    cr_assert_eq(symlink(outd, l), 0);
    cr_assert_eq(pd_ctx_add_root(&ctx, l), 0);
    cr_assert_eq(ctx.nroots, 2);
    cr_expect_eq(ctx.npolicy_roots, 1);
    cr_expect_str_eq(ctx.roots[1], outd);
    cr_assert_eq(pd_ctx_add_root(&ctx, "/dev/shm"), 0);
    cr_expect_eq(ctx.npolicy_roots, 1);
    cr_expect_str_eq(ctx.roots[ctx.nroots - 1], "/dev/shm");
}

Test(ctx, set_path_env)
{
    setup("");
    pd_ctx_set_path_env(&ctx, "/a/bin:/b/bin");
    cr_expect_str_eq(ctx.path_env, "/a/bin:/b/bin");
    pd_ctx_set_path_env(&ctx, tools);
    cr_expect_str_eq(ctx.path_env, tools);
}

/* ---- pd_op_name / pd_op_parse / pd_verdict_allow ------------------------ */

Test(ops, name_and_parse_round_trip)
{
    static const struct {
        enum pd_op op;
        const char *name;
    } ops[] = {{PD_OP_READ, "read"},     {PD_OP_WRITE, "write"}, {PD_OP_CREATE, "create"},
               {PD_OP_DELETE, "delete"}, {PD_OP_EXEC, "exec"},   {PD_OP_NAME, "name"}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        cr_expect_str_eq(pd_op_name(ops[k].op), ops[k].name);
        cr_expect_eq(pd_op_parse(ops[k].name), (int)ops[k].op, "pd_op_parse(\"%s\")", ops[k].name);
        cr_expect_eq(pd_op_parse(pd_op_name(ops[k].op)), (int)ops[k].op);
    }
    static const char *const bad[] = {"",     "READ", "Write", "rea", "reads",
                                      "open", "x",    " read", NULL};
    for (size_t k = 0; bad[k]; k++)
        cr_expect_eq(pd_op_parse(bad[k]), -1, "pd_op_parse(\"%s\")", bad[k]);
}

Test(ops, verdict_allow_resets)
{
    struct pd_verdict v;
    memset(&v, 0, sizeof v);
    v.deny = true;
    v.reason = PD_REASON_SECRET;
    v.key = "secrets";
    v.pattern = ".env";
    snprintf(v.message, sizeof v.message, "x (secret) [y]");
    pd_verdict_allow(&v);
    cr_expect_not(v.deny);
    cr_expect_null(v.reason);
    cr_expect_null(v.key);
    cr_expect_null(v.pattern);
    cr_expect_str_eq(v.message, "");
}

/* ---- pd_gate_path ------------------------------------------------------ */

struct gate_case {
    enum pd_op op;
    const char *base; /* NULL: the workspace */
    const char *path;
    const char *reason; /* NULL: allow */
    const char *key;
    const char *pattern;
    const char *resolved; /* expected v->resolved, or NULL not to check */
};

#define R             PD_OP_READ
#define W             PD_OP_WRITE
#define C             PD_OP_CREATE
#define D             PD_OP_DELETE
#define X             PD_OP_EXEC
#define N             PD_OP_NAME
#define ALLOW         NULL, NULL, NULL
#define SECRET(p)     PD_REASON_SECRET, "secrets", p
#define DENYGLOB(p)   PD_REASON_DENY_GLOB, "deny_globs", p
#define PROTECTED(p)  PD_REASON_PROTECTED, "protected_paths", p
#define OUTSIDE_WS    PD_REASON_OUTSIDE_WS, NULL, NULL
#define OUTSIDE_ALLOW PD_REASON_OUTSIDE_ALLOW, "allow_paths", NULL
/* a named path outside the readable scope: the fix is read_paths */
#define OUTSIDE_READ PD_REASON_OUTSIDE_WS, "read_paths", NULL

static void run_cases(const char *policy_name, const struct gate_case *cases, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct gate_case *c = &cases[k];
        char base[PD_PATH_MAX], path[PD_PATH_MAX], resolved[PD_PATH_MAX];
        struct pd_verdict v;
        if (c->base)
            expand(c->base, base, sizeof base);
        expand(c->path, path, sizeof path);
        memset(&v, 0x5a, sizeof v);
        pd_gate_path(&ctx, c->op, c->base ? base : NULL, path, &v);
        const char *what = pd_op_name(c->op);
        if (!c->reason) {
            cr_expect_not(v.deny, "[%s] %s %s: expected allow, got deny: %s", policy_name, what,
                          path, v.deny ? v.message : "");
            cr_expect_null(v.reason, "[%s] %s %s: allowed with a reason", policy_name, what, path);
        } else {
            cr_expect(v.deny, "[%s] %s %s: expected deny (%s), got allow", policy_name, what, path,
                      c->reason);
            cr_expect(tp_streq(v.reason, c->reason), "[%s] %s %s: reason expected '%s', got '%s'",
                      policy_name, what, path, c->reason, TP_S(v.deny ? v.reason : "(allow)"));
            if (c->key)
                cr_expect(tp_streq(v.key, c->key), "[%s] %s %s: key expected '%s', got '%s'",
                          policy_name, what, path, c->key, TP_S(v.deny ? v.key : "(allow)"));
            if (c->pattern)
                cr_expect(tp_streq(v.pattern, c->pattern),
                          "[%s] %s %s: pattern expected '%s', got '%s'", policy_name, what, path,
                          c->pattern, TP_S(v.deny ? v.pattern : "(allow)"));
            /* message: "<path as given> (<reason>) [<rule text>]" */
            char prefix[PD_PATH_MAX + 64];
            snprintf(prefix, sizeof prefix, "%s (%s) [", path, c->reason);
            if (v.deny) {
                cr_expect(tp_starts_with(v.message, prefix),
                          "[%s] %s %s: message expected to start \"%s\", got \"%s\"", policy_name,
                          what, path, prefix, v.message);
                size_t ml = strlen(v.message);
                cr_expect(ml > 0 && v.message[ml - 1] == ']',
                          "[%s] %s %s: message should end in ']': \"%s\"", policy_name, what, path,
                          v.message);
            }
        }
        cr_expect_eq(v.op, c->op, "[%s] %s %s: v.op", policy_name, what, path);
        cr_expect_str_eq(v.subject, path, "[%s] %s %s: subject is the path as given", policy_name,
                         what, path);
        if (c->resolved) {
            expand(c->resolved, resolved, sizeof resolved);
            cr_expect_str_eq(v.resolved, resolved, "[%s] %s %s: resolved expected %s, got %s",
                             policy_name, what, path, resolved, v.resolved);
        } else {
            cr_expect_eq(v.resolved[0], '/', "[%s] %s %s: resolved \"%s\" not absolute",
                         policy_name, what, path, v.resolved);
        }
    }
}

Test(gate_path, default_policy_with_deny_globs)
{
    setup("deny_globs = [\"*.log\", \"build/**\"]");
    static const struct gate_case cases[] = {
        /* reads: patterns only */
        {R, NULL, "src/main.go", ALLOW, "@/src/main.go"},
        {R, NULL, ".env", SECRET(".env"), "@/.env"},
        {R, NULL, "src/.env.local", SECRET(".env.*"), "@/src/.env.local"},
        {R, NULL, ".ENV", SECRET(".env"), "@/.ENV"},
        {R, NULL, "tls/server.pem", SECRET("*.pem"), NULL},
        {R, NULL, "tls/server.key", SECRET("*.key"), NULL},
        {R, NULL, "a/secrets/dump.sql", SECRET("**/secrets/**"), NULL},
        {R, NULL, "keys/id_rsa", SECRET("id_rsa*"), NULL},
        {R, NULL, ".netrc", SECRET(".netrc"), NULL},
        {R, NULL, "app.log", DENYGLOB("*.log"), "@/app.log"},
        {R, NULL, "logs/APP.LOG", DENYGLOB("*.log"), NULL},
        {R, NULL, "build/x/y.o", DENYGLOB("build/**"), NULL},
        {R, NULL, "build", DENYGLOB("build/**"), NULL},
        {R, NULL, "src/build/y.o", ALLOW, NULL},
        {R, NULL, "/etc/hosts", ALLOW, "/etc/hosts"},
        {R, NULL, "/usr/lib/x", ALLOW, "/usr/lib/x"},
        {R, NULL, "../elsewhere.txt", ALLOW, NULL},
        {R, NULL, "~/.ssh/id_rsa", SECRET(NULL), "&/.ssh/id_rsa"},
        {R, NULL, "~/.ssh/known_hosts", SECRET("~/.ssh/**"), "&/.ssh/known_hosts"},
        {R, NULL, "~/.kube/config", SECRET("~/.kube/config"), NULL},
        {R, NULL, "~/.docker/config.json", SECRET("~/.docker/config.json"), NULL},
        {R, NULL, "&/.aws/credentials", SECRET("~/.aws/**"), "&/.aws/credentials"},
        {R, NULL, "~/.bashrc", ALLOW, "&/.bashrc"},
        {R, NULL, "%/x.key", SECRET("*.key"), "%/x.key"},
        {R, NULL, "src/link", SECRET(".env"), "@/.env"},
        {R, "@/src", "link", SECRET(".env"), "@/.env"},
        {R, "@/src", "../.env", SECRET(".env"), "@/.env"},
        {R, "@/src", "main.go", ALLOW, "@/src/main.go"},
        {R, NULL, ".git/config", ALLOW, "@/.git/config"},
        {R, NULL, "cfg", ALLOW, "@/.git/config"},
        /* exec: patterns only */
        {X, NULL, "/usr/bin/env", ALLOW, NULL},
        {X, NULL, ".env", SECRET(".env"), NULL},
        {X, NULL, "run.log", DENYGLOB("*.log"), NULL},
        /* writes */
        {W, NULL, "src/main.go", ALLOW, "@/src/main.go"},
        {C, NULL, "src/new.go", ALLOW, "@/src/new.go"},
        {D, NULL, "src/main.go", ALLOW, NULL},
        {W, NULL, ".", ALLOW, "@"},
        {W, NULL, ".env", SECRET(".env"), NULL},
        {D, NULL, "src/link", SECRET(".env"), "@/.env"},
        {W, NULL, "app.log", DENYGLOB("*.log"), NULL},
        {W, NULL, ".git/hooks/pre-commit", PROTECTED(".git/hooks/**"), NULL},
        {C, NULL, ".git/hooks/post-checkout", PROTECTED(".git/hooks/**"), NULL},
        {D, NULL, ".git/hooks", PROTECTED(".git/hooks/**"), NULL},
        {W, NULL, ".git/config", PROTECTED(".git/config"), "@/.git/config"},
        {W, NULL, "cfg", PROTECTED(".git/config"), "@/.git/config"},
        {W, NULL, "src/repo/.git/config", PROTECTED(".git/config"), NULL},
        {W, NULL, ".git/HEAD", ALLOW, NULL},
        {W, NULL, ".gitmodules", PROTECTED(".gitmodules"), NULL},
        {W, NULL, ".claude/settings.json", PROTECTED(".claude/**"), NULL},
        {C, NULL, ".claude", PROTECTED(".claude/**"), NULL},
        {W, NULL, ".codex/config.toml", PROTECTED(".codex/**"), NULL},
        {W, NULL, ".mcp.json", PROTECTED(".mcp.json"), NULL},
        {W, NULL, ".vscode/tasks.json", PROTECTED(".vscode/**"), NULL},
        {W, NULL, ".idea/workspace.xml", PROTECTED(".idea/**"), NULL},
        {W, NULL, ".VSCODE/tasks.json", PROTECTED(".vscode/**"), NULL},
        {W, "@/src", "../.git/config", PROTECTED(".git/config"), NULL},
        {W, NULL, "/dev/null", ALLOW, "/dev/null"},
        {W, NULL, "/dev/tty", ALLOW, NULL},
        {W, NULL, "/dev/sda", OUTSIDE_WS, NULL},
        {W, NULL, "%/x.txt", OUTSIDE_WS, "%/x.txt"},
        {C, NULL, "out/new.txt", OUTSIDE_WS, "%/new.txt"},
        {W, NULL, "../x", OUTSIDE_WS, NULL},
        {D, NULL, "/etc/hosts", OUTSIDE_WS, "/etc/hosts"},
        {W, NULL, "~/.bashrc", OUTSIDE_WS, "&/.bashrc"},
        {W, NULL, "/", OUTSIDE_WS, "/"},
        {W, NULL, "@x/file", OUTSIDE_WS, "@x/file"},
        {N, NULL, "@x", OUTSIDE_READ, "@x"},
        /* named paths */
        {N, NULL, ".", ALLOW, "@"},
        {N, NULL, "src/main.go", ALLOW, NULL},
        {N, NULL, "Makefile", ALLOW, NULL},
        {N, NULL, ".git/config", ALLOW, NULL},
        {N, NULL, "../x", OUTSIDE_READ, NULL},
        /* issue 14: named paths are reads; /etc is a system folder */
        {N, NULL, "/etc/hosts", ALLOW, "/etc/hosts"},
        {N, NULL, "/usr/lib/x", ALLOW, "/usr/lib/x"},
        {N, NULL, "&/notes.txt", OUTSIDE_READ, "&/notes.txt"},
        {N, NULL, "%/x.txt", OUTSIDE_READ, "%/x.txt"},
        {N, NULL, "out/x.txt", OUTSIDE_READ, "%/x.txt"},
        {N, NULL, "src/link", SECRET(".env"), "@/.env"},
        {N, NULL, "~/.ssh/id_rsa", SECRET(NULL), "&/.ssh/id_rsa"},
        {N, NULL, "&/.ssh", SECRET("~/.ssh/**"), "&/.ssh"},
        {N, NULL, "x.log", DENYGLOB("*.log"), NULL},
    };
    run_cases("deny_globs", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_path, allow_paths_scope_names_and_writes)
{
    setup("allow_paths = [\"src/\"]");
    static const struct gate_case cases[] = {
        /* issue 14: named paths are reads: the whole workspace and the
         * system folders are readable, allow_paths only bounds the writes
         * (the neighbouring W/C/D cases still deny outside src/) */
        {N, NULL, ".", ALLOW, "@"},
        {N, NULL, "src", ALLOW, "@/src"},
        {N, NULL, "src/main.go", ALLOW, NULL},
        {N, NULL, "lsrc/main.go", ALLOW, "@/src/main.go"},
        {N, NULL, "docs/a.md", ALLOW, NULL},
        {N, NULL, "srcx/a", ALLOW, NULL},
        {N, NULL, "Makefile", ALLOW, NULL},
        {N, NULL, "../x", OUTSIDE_READ, NULL},
        {N, NULL, "/etc/hosts", ALLOW, NULL},
        {N, NULL, "%/x.txt", OUTSIDE_READ, "%/x.txt"},
        {N, NULL, "&/notes.txt", OUTSIDE_READ, NULL},
        {N, NULL, "src/link", SECRET(".env"), NULL},
        {N, NULL, "docs/.env", SECRET(".env"), NULL},
        {W, NULL, "src/a", ALLOW, NULL},
        {C, "@/src", "new.c", ALLOW, "@/src/new.c"},
        {W, NULL, "docs/a.md", OUTSIDE_ALLOW, NULL},
        {C, NULL, "srcx/a", OUTSIDE_ALLOW, NULL},
        {D, NULL, "Makefile", OUTSIDE_ALLOW, NULL},
        {W, NULL, "/etc/hosts", OUTSIDE_WS, NULL},
        {W, NULL, "%/x.txt", OUTSIDE_WS, NULL},
        {W, NULL, "/dev/null", ALLOW, NULL},
        {R, NULL, "docs/a.md", ALLOW, NULL},
        {R, NULL, "/etc/hosts", ALLOW, NULL},
        {X, NULL, "/usr/bin/env", ALLOW, NULL},
    };
    run_cases("allow_paths=src/", cases, sizeof cases / sizeof cases[0]);
}

/* issue 14: protected_paths extends the built-in list (it replaced it) */
Test(gate_path, protected_paths_extend_the_builtins)
{
    setup("protected_paths = [\"docs/**\", \"*.lock\"]");
    static const struct gate_case cases[] = {
        {W, NULL, "docs/a.md", PROTECTED("docs/**"), NULL},
        {C, NULL, "docs/new.md", PROTECTED("docs/**"), NULL},
        {W, NULL, "sub/Cargo.lock", PROTECTED("*.lock"), NULL},
        {W, NULL, ".git/config", PROTECTED(".git/config"), NULL},
        {W, NULL, ".git/hooks/pre-commit", PROTECTED(".git/hooks/**"), NULL},
        {W, NULL, ".claude/settings.json", PROTECTED(".claude/**"), NULL},
        {W, NULL, "src/main.go", ALLOW, NULL},
        {W, NULL, ".env", SECRET(".env"), NULL},
        {R, NULL, "docs/a.md", ALLOW, NULL},
        {N, NULL, "docs/a.md", ALLOW, NULL},
    };
    run_cases("protected_paths", cases, sizeof cases / sizeof cases[0]);
}

/* issue 14: protected_paths extends the built-in list, so an empty one
 * keeps it; unprotect_paths is what removes built-in entries. */
Test(gate_path, empty_protected_paths_keep_the_builtins)
{
    setup("protected_paths = []");
    cr_expect(pol.protected_paths_set);
    static const struct gate_case cases[] = {
        {W, NULL, ".git/config", PROTECTED(".git/config"), NULL},
        {W, NULL, ".vscode/tasks.json", PROTECTED(".vscode/**"), NULL},
        {W, NULL, ".env", SECRET(".env"), NULL},
    };
    run_cases("protected_paths=[]", cases, sizeof cases / sizeof cases[0]);
    setup("unprotect_paths = [\".git/config\", \".vscode/**\"]");
    static const struct gate_case unprotected[] = {
        {W, NULL, ".git/config", ALLOW, NULL},
        {W, NULL, ".vscode/tasks.json", ALLOW, NULL},
        {W, NULL, ".git/hooks/pre-commit", PROTECTED(".git/hooks/**"), NULL},
        {W, NULL, ".idea/workspace.xml", PROTECTED(".idea/**"), NULL},
        {W, NULL, ".env", SECRET(".env"), NULL},
    };
    run_cases("unprotect_paths", unprotected, sizeof unprotected / sizeof unprotected[0]);
}

Test(gate_path, deny_globs_come_before_secrets)
{
    setup("deny_globs = [\".env\", \"docs/\"]");
    static const struct gate_case cases[] = {
        {R, NULL, ".env", DENYGLOB(".env"), NULL},
        {W, NULL, ".env", DENYGLOB(".env"), NULL},
        {N, NULL, "src/link", DENYGLOB(".env"), "@/.env"},
        {R, NULL, "docs/a.md", DENYGLOB("docs/"), NULL},
        {R, NULL, "x.pem", SECRET("*.pem"), NULL},
    };
    run_cases("deny_globs first", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_path, absolute_allow_path)
{
    setup("allow_paths = [\"%\"]");
    static const struct gate_case cases[] = {
        {W, NULL, "%/x.txt", ALLOW, NULL},
        {C, NULL, "out/new.txt", ALLOW, "%/new.txt"},
        {W, NULL, "src/main.go", OUTSIDE_ALLOW, NULL},
        {W, NULL, "/etc/hosts", OUTSIDE_WS, NULL},
        {W, NULL, "%/key.pem", SECRET("*.pem"), NULL},
    };
    run_cases("allow_paths=outd", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_path, added_roots_are_writable_but_not_named)
{
    setup("");
    cr_assert_eq(pd_ctx_add_root(&ctx, outd), 0);
    static const struct gate_case cases[] = {
        {W, NULL, "%/x.txt", ALLOW, NULL},      {C, NULL, "%/new", ALLOW, NULL},
        {D, NULL, "%/x.txt", ALLOW, NULL},      {W, NULL, "%/.env", SECRET(".env"), NULL},
        {N, NULL, "%/x.txt", OUTSIDE_WS, NULL}, {W, NULL, "src/main.go", ALLOW, NULL},
    };
    run_cases("extra root", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_path, policy_file_is_protected)
{
    struct pd_error err;
    char file[300];
    snprintf(file, sizeof file, "%s/policy.toml", ws);
    cr_assert_eq(pd_policy_load(&pol, file, &err), 0, "%s", err.msg);
    have_pol = true;
    cr_assert_str_eq(pol.file, file);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "%s", err.msg);
    have_ctx = true;
    static const struct gate_case cases[] = {
        {W, NULL, "policy.toml", PD_REASON_PROTECTED, "policy_file", NULL, "@/policy.toml"},
        {D, NULL, "policy.toml", PD_REASON_PROTECTED, "policy_file", NULL, NULL},
        {C, NULL, "@/policy.toml", PD_REASON_PROTECTED, "policy_file", NULL, NULL},
        {W, NULL, "pl", PD_REASON_PROTECTED, "policy_file", NULL, "@/policy.toml"},
        {W, "@/src", "../policy.toml", PD_REASON_PROTECTED, "policy_file", NULL, NULL},
        {R, NULL, "policy.toml", ALLOW, NULL},
        {N, NULL, "policy.toml", ALLOW, NULL},
        {W, NULL, "other.toml", ALLOW, NULL},
        {W, NULL, ".git/config", PROTECTED(".git/config"), NULL},
    };
    run_cases("policy file", cases, sizeof cases / sizeof cases[0]);
}

/* Names that reach a symlink again after "missing/.." (see
 * test_policy_path.c, link_after_missing_component_and_dotdot). */
Test(gate_path, link_after_missing_component_is_followed)
{
    setup("");
    static const struct gate_case cases[] = {
        {R, NULL, "missing/../src/link", SECRET(".env"), "@/.env"},
        {N, NULL, "missing/../src/link", SECRET(".env"), "@/.env"},
        {W, NULL, "missing/../cfg", PROTECTED(".git/config"), "@/.git/config"},
        {W, NULL, "missing/../out/x.txt", OUTSIDE_WS, "%/x.txt"},
    };
    run_cases("missing/..", cases, sizeof cases / sizeof cases[0]);
}

/* pd_gate_name: the link itself is judged, not where it leads; what the
 * name itself matches still decides; a link in the directory part is
 * followed. */
Test(gate_path, name_is_judged_not_the_target)
{
    setup("deny_globs = [\"*.log\"]");
    static const struct gate_case cases[] = {
        {D, NULL, "src/link", ALLOW, "@/src/link"},
        {W, NULL, "src/link", ALLOW, "@/src/link"},
        {D, NULL, "out", ALLOW, "@/out"},
        {C, NULL, "out", ALLOW, "@/out"},
        {D, NULL, "loop", ALLOW, "@/loop"},
        {D, NULL, "cfg", ALLOW, "@/cfg"},
        {D, NULL, ".env", SECRET(".env"), "@/.env"},
        {C, NULL, "x.log", DENYGLOB("*.log"), "@/x.log"},
        {C, NULL, ".git/hooks/x", PROTECTED(".git/hooks/**"), "@/.git/hooks/x"},
        {D, NULL, ".git/config", PROTECTED(".git/config"), "@/.git/config"},
        {C, NULL, "out/new", OUTSIDE_WS, "%/new"},
        {D, NULL, "lsrc/link", ALLOW, "@/src/link"},
        {C, NULL, "/tmp", OUTSIDE_WS, "/tmp"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct gate_case *c = &cases[k];
        char path[PD_PATH_MAX], resolved[PD_PATH_MAX];
        struct pd_verdict v;
        expand(c->path, path, sizeof path);
        pd_gate_name(&ctx, c->op, NULL, path, &v);
        const char *what = pd_op_name(c->op);
        if (!c->reason)
            cr_expect_not(v.deny, "name %s %s: expected allow, got %s", what, path, v.message);
        else
            cr_expect(v.deny && tp_streq(v.reason, c->reason),
                      "name %s %s: expected deny (%s), got %s", what, path, c->reason,
                      v.deny ? v.message : "allow");
        if (c->pattern)
            cr_expect(tp_streq(v.pattern, c->pattern), "name %s %s: pattern %s", what, path,
                      TP_S(v.pattern));
        expand(c->resolved, resolved, sizeof resolved);
        cr_expect_str_eq(v.resolved, resolved, "name %s %s: resolved", what, path);
        cr_expect_str_eq(v.subject, path);
        cr_expect_eq(v.op, c->op);
    }
    /* the same paths through pd_gate_path still judge the target */
    struct pd_verdict v;
    pd_gate_path(&ctx, PD_OP_DELETE, NULL, "src/link", &v);
    cr_expect(v.deny && tp_streq(v.reason, PD_REASON_SECRET), "delete src/link: %s", v.message);
    pd_gate_path(&ctx, PD_OP_DELETE, NULL, "loop", &v);
    cr_expect(v.deny && tp_streq(v.reason, PD_REASON_UNRESOLVABLE), "delete loop: %s", v.message);
}

Test(gate_path, unresolvable_path_is_denied)
{
    setup("");
    static const enum pd_op ops[] = {R, W, C, D, X, N};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        struct pd_verdict v;
        pd_gate_path(&ctx, ops[k], NULL, "loop/x", &v);
        cr_expect(v.deny, "%s loop/x: expected deny", pd_op_name(ops[k]));
        cr_expect(tp_streq(v.reason, PD_REASON_UNRESOLVABLE), "%s loop/x: reason %s",
                  pd_op_name(ops[k]), TP_S(v.reason));
        cr_expect_str_eq(v.subject, "loop/x");
    }
}

/* The message names the rule: the pattern for globs, the list for scopes. */
Test(gate_path, message_names_the_rule)
{
    setup("allow_paths = [\"src/\"]\ndeny_globs = [\"*.log\"]");
    struct pd_verdict v;
    pd_gate_path(&ctx, PD_OP_READ, NULL, "a.log", &v);
    cr_expect(strstr(v.message, "*.log") != NULL, "%s", v.message);
    pd_gate_path(&ctx, PD_OP_READ, NULL, ".env", &v);
    cr_expect(strstr(v.message, ".env (secret) [") == v.message, "%s", v.message);
    /* issue 14: named paths are reads: a write outside allow_paths names
     * the writable folders, a named path outside the readable scope names
     * what is readable */
    pd_gate_path(&ctx, PD_OP_WRITE, NULL, "docs/a.md", &v);
    cr_expect(v.deny && strstr(v.message, "src/") != NULL, "%s", v.message);
    pd_gate_path(&ctx, PD_OP_NAME, NULL, "docs/a.md", &v);
    cr_expect_not(v.deny, "%s", v.message);
    char outside[PD_PATH_MAX];
    snprintf(outside, sizeof outside, "%s/x.txt", outd);
    pd_gate_path(&ctx, PD_OP_NAME, NULL, outside, &v);
    cr_expect(v.deny && strstr(v.message, "readable: the workspace ") != NULL &&
                  strstr(v.message, ws) != NULL && strstr(v.message, "the system folders") != NULL,
              "%s", v.message);
}

/* Gate writes of devs[] with fd 1 and 2 pointing at target_fd. */
static void gate_with_std_streams(int target_fd, const char *const *devs, struct pd_verdict *v)
{
    int saved1 = dup(1), saved2 = dup(2);
    cr_assert(saved1 >= 0 && saved2 >= 0);
    fflush(stdout);
    fflush(stderr);
    dup2(target_fd, 1);
    dup2(target_fd, 2);
    for (size_t k = 0; devs[k]; k++)
        pd_gate_path(&ctx, PD_OP_WRITE, NULL, devs[k], &v[k]);
    dup2(saved1, 1);
    dup2(saved2, 2);
    close(saved1);
    close(saved2);
}

/* The process's own descriptors are writable when they are a pipe. */
Test(gate_path, std_streams_are_writable_on_a_pipe)
{
    setup("");
    int p[2];
    cr_assert_eq(pipe(p), 0);
    static const char *const devs[] = {"/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/1",
                                       NULL};
    struct pd_verdict v[4];
    gate_with_std_streams(p[1], devs, v);
    close(p[0]);
    close(p[1]);
    for (size_t k = 0; devs[k]; k++)
        cr_expect_not(v[k].deny, "write %s (fd -> pipe): expected allow, got: %s", devs[k],
                      v[k].message);
}

/* /dev/stdout and /dev/stderr are always writable, whatever they point
 * at: here they are redirected to a file outside the workspace (as in
 * `paldron exec ... > /tmp/log`). */
Test(gate_path, std_streams_are_writable_when_redirected_to_a_file)
{
    setup("");
    char file[300];
    snprintf(file, sizeof file, "%s/captured", outd);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    static const char *const devs[] = {"/dev/stdout", "/dev/stderr", NULL};
    struct pd_verdict v[2];
    gate_with_std_streams(fd, devs, v);
    close(fd);
    for (size_t k = 0; devs[k]; k++)
        cr_expect_not(v[k].deny, "write %s (fd -> %s): expected allow, got: %s", devs[k], file,
                      v[k].message);
}

/* ---- pd_looks_like_path ------------------------------------------------------ */

struct looks_case {
    const char *arg;
    bool want;
};

Test(looks_like_path, table)
{
    static const struct looks_case cases[] = {
        {"", false},
        {"-x", false},
        {"-", false},
        {"--x=/a", false},
        {"--verbose", false},
        {"1.5", false},
        {"3.11", false},
        {"v2.0.1", false},
        {"1.2.3-rc1", false},
        {"1.2.3", false},
        {"42", false},
        {"https://x/y", false},
        {"http://example.com/a.txt", false},
        {"git@github.com:a/b.git", false},
        {"requests==2.31.0", false},
        {"flask>=2", false},
        {"build", false},
        {"test", false},
        {"hello", false},
        {"hello world", false},
        {"touch canary-outside", false},
        {"fix the build.", false},
        {"my file.txt", false},
        {"/x", true},
        {"/", true},
        {"~/x", true},
        {"~", true},
        {"./x", true},
        {"../x", true},
        {".", true},
        {"..", true},
        {"a/b", true},
        {"src/", true},
        {".env", true},
        {".gitignore", true},
        {"a.txt", true},
        {"main.go", true},
        {"open(\".env\",\"w\")", true},
        {"Makefile", true},
        {"src", true},
        {"/abs with space", true},
        {"./rel with space", true},
        {"../up with space", true},
        {"~/home with space", true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        cr_expect_eq(pd_looks_like_path(cases[k].arg, ws), cases[k].want,
                     "pd_looks_like_path(\"%s\", ws): expected %s", cases[k].arg,
                     cases[k].want ? "true" : "false");
}

/* A name that exists under base is a path even when it looks like a
 * version: "1.pem" exists in the workspace and is a built-in secret. */
Test(looks_like_path, existing_name_that_looks_like_a_version)
{
    cr_expect(pd_looks_like_path("1.pem", ws), "\"1.pem\" exists under base: expected true");
    setup("");
    char *argv[] = {"cat", "1.pem", NULL};
    struct pd_verdict v;
    bool missing;
    pd_gate_argv(&ctx, 2, argv, &v, &missing);
    cr_expect(v.deny, "argv cat 1.pem (an existing *.pem file): expected deny (secret), got allow");
    cr_expect(tp_streq(v.reason, PD_REASON_SECRET), "reason %s", TP_S(v.reason));
}

/* A name with a space that exists under base (here "id_rsa copy") is a
 * path: the space rule is for prose, and prose does not name a file. */
Test(looks_like_path, existing_name_with_a_space)
{
    cr_expect(pd_looks_like_path("id_rsa copy", ws),
              "\"id_rsa copy\" exists under base: expected true");
    cr_expect_not(pd_looks_like_path("id_rsa copy", outd));
}

/* Existence is looked up under base only. */
Test(looks_like_path, existence_depends_on_base)
{
    cr_expect(pd_looks_like_path("Makefile", ws));
    cr_expect_not(pd_looks_like_path("Makefile", outd));
    cr_expect_not(pd_looks_like_path("Makefile", NULL));
    cr_expect(pd_looks_like_path("mytool", tools));
    cr_expect_not(pd_looks_like_path("mytool", ws));
}

/* ---- pd_resolve_program ------------------------------------------------------ */

Test(resolve_program, path_search)
{
    setup("");
    char out[PD_PATH_MAX], want[PD_PATH_MAX];
    char path_env[1024];
    /* relative PATH entries ("", ".", "rel") are skipped even when they would find it */
    cr_assert_eq(chdir(ws), 0);
    tp_put(ws, "rel/relonly", "#!/bin/sh\n", 0755);
    tp_put(ws, "dotonly", "#!/bin/sh\n", 0755);
    snprintf(path_env, sizeof path_env, "::.:rel:%s:%s", tools2, tools);
    pd_ctx_set_path_env(&ctx, path_env);

    cr_expect_eq(pd_resolve_program(&ctx, "mytool", ws, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/mytool", tools2);
    cr_expect_str_eq(out, want, "the first PATH entry wins");

    cr_expect_eq(pd_resolve_program(&ctx, "ls", ws, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/ls", tools);
    cr_expect_str_eq(out, want);

    cr_expect_eq(pd_resolve_program(&ctx, "relonly", ws, out, sizeof out), -1,
                 "found through a relative PATH entry: %s", out);
    cr_expect_eq(pd_resolve_program(&ctx, "dotonly", ws, out, sizeof out), -1,
                 "found through '.' or an empty PATH entry: %s", out);
    cr_expect_eq(pd_resolve_program(&ctx, "noexec", ws, out, sizeof out), -1,
                 "a file without execute permission: %s", out);
    cr_expect_eq(pd_resolve_program(&ctx, "dirprog", ws, out, sizeof out), -1, "a directory: %s",
                 out);
    cr_expect_eq(pd_resolve_program(&ctx, "no-such-program", ws, out, sizeof out), -1);
    cr_expect_eq(pd_resolve_program(&ctx, "", ws, out, sizeof out), -1);
}

/* A name with '/' is resolved as execve resolves it: physically. Here
 * ws/x -> ws/d1/d2, so "x/../../<tools>/python3" run from the workspace is
 * ws/<tools>/python3 (a file in the workspace), not <tools>/python3. */
static void make_dotdot_trap(char *argv0, size_t len, char *physical, size_t plen)
{
    const char *tools_base = strrchr(tools, '/') + 1;
    char rel[300];
    tp_mkdir(ws, "d1/d2");
    tp_link(ws, "x", "d1/d2");
    snprintf(rel, sizeof rel, "%s/python3", tools_base);
    tp_put(ws, rel, "#!/bin/sh\n", 0755);
    snprintf(argv0, len, "x/../../%s/python3", tools_base);
    snprintf(physical, plen, "%s/%s/python3", ws, tools_base);
}

Test(resolve_program, slash_names_follow_symlinks_before_dotdot)
{
    setup("");
    char argv0[300], physical[600], out[PD_PATH_MAX];
    make_dotdot_trap(argv0, sizeof argv0, physical, sizeof physical);
    cr_assert_eq(pd_resolve_program(&ctx, argv0, ws, out, sizeof out), 0);
    cr_expect_str_eq(out, physical, "pd_resolve_program(\"%s\", base=ws): expected %s, got %s",
                     argv0, physical, out);
}

Test(gate_binary, slash_names_follow_symlinks_before_dotdot)
{
    setup("allow_binaries = [\"python3\"]");
    char argv0[300], physical[600];
    make_dotdot_trap(argv0, sizeof argv0, physical, sizeof physical);
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(&ctx, argv0, ws, &v, &missing);
    cr_expect(v.deny,
              "binary %s runs %s (a file in the workspace): expected deny, got allow "
              "(resolved %s)",
              argv0, physical, v.resolved);
    cr_expect_str_eq(v.resolved, physical);
}

Test(resolve_program, names_with_a_slash_use_base)
{
    setup("");
    char out[PD_PATH_MAX], want[PD_PATH_MAX];
    cr_expect_eq(pd_resolve_program(&ctx, "./python3", ws, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/python3", ws);
    cr_expect_str_eq(out, want);

    cr_expect_eq(pd_resolve_program(&ctx, "./mytool", tools, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/mytool", tools);
    cr_expect_str_eq(out, want);

    char rel[300];
    snprintf(rel, sizeof rel, "../%s/mytool", strrchr(tools, '/') + 1);
    cr_expect_eq(pd_resolve_program(&ctx, rel, ws, out, sizeof out), 0, "%s", rel);
    cr_expect_str_eq(out, want);

    char abs[300];
    snprintf(abs, sizeof abs, "%s/ls", tools);
    cr_expect_eq(pd_resolve_program(&ctx, abs, "/", out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/ls", tools);
    cr_expect_str_eq(out, want);

    cr_expect_eq(pd_resolve_program(&ctx, "./mytool", ws, out, sizeof out), -1,
                 "not under base: %s", out);
    snprintf(abs, sizeof abs, "%s/noexec", tools);
    cr_expect_eq(pd_resolve_program(&ctx, abs, "/", out, sizeof out), -1);
    snprintf(abs, sizeof abs, "%s/dirprog", tools);
    cr_expect_eq(pd_resolve_program(&ctx, abs, "/", out, sizeof out), -1);
}

/* ---- pd_gate_binary ------------------------------------------------------------ */

struct bin_case {
    const char *argv0;
    const char *base; /* NULL: the workspace */
    bool deny;
    bool missing;
    const char *msg_prefix; /* checked when deny */
};

static void run_bin_cases(const char *name, const struct bin_case *cases, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct bin_case *c = &cases[k];
        char argv0[PD_PATH_MAX], base[PD_PATH_MAX];
        expand(c->argv0, argv0, sizeof argv0);
        expand(c->base ? c->base : "@", base, sizeof base);
        struct pd_verdict v;
        bool missing = !c->missing;
        pd_gate_binary(&ctx, argv0, base, &v, &missing);
        cr_expect_eq(v.deny, c->deny, "[%s] binary %s: expected %s, got %s: %s", name, argv0,
                     c->deny ? "deny" : "allow", v.deny ? "deny" : "allow", v.message);
        if (!c->deny)
            cr_expect_eq(missing, c->missing, "[%s] binary %s: missing expected %d", name, argv0,
                         c->missing);
        if (c->deny && v.deny) {
            cr_expect(tp_streq(v.reason, PD_REASON_BINARY), "[%s] %s: reason %s", name, argv0,
                      TP_S(v.reason));
            cr_expect(tp_streq(v.key, "allow_binaries"), "[%s] %s: key %s", name, argv0,
                      TP_S(v.key));
            if (c->msg_prefix)
                cr_expect(tp_starts_with(v.message, c->msg_prefix),
                          "[%s] %s: message expected to start \"%s\", got \"%s\"", name, argv0,
                          c->msg_prefix, v.message);
        }
        if (!v.deny)
            cr_expect_null(v.reason);
    }
}

Test(gate_binary, no_allow_list_allows_everything)
{
    setup("");
    static const struct bin_case cases[] = {
        {"ls", NULL, false, false, NULL},
        {"mytool", NULL, false, false, NULL},
        {"no-such-program", NULL, false, true, NULL},
        {"./python3", NULL, false, false, NULL},
        {"python3", NULL, false, false, NULL},
        {"$/mytool", NULL, false, false, NULL},
        {"$/noexec", NULL, false, true, NULL},
    };
    run_bin_cases("no allow_binaries", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_binary, allow_list)
{
    setup("allow_binaries = [\"python3\", \"ls\", \"$/mytool\", \"missingprog\"]");
    static const struct bin_case cases[] = {
        {"ls", NULL, false, false, NULL},
        {"python3", NULL, false, false, NULL},
        {"$/ls", NULL, false, false, NULL},
        {"$/mytool", NULL, false, false, NULL},
        {"mytool", NULL, false, false, NULL},
        {"$/alias", NULL, false, false, NULL},
        {"./mytool", "$", false, false, NULL},
        {"missingprog", NULL, false, true, NULL},
        {"PYTHON3", NULL, true, false, "binary 'PYTHON3' not in allow_binaries ["},
        {"Ls", NULL, true, false, "binary 'Ls' not in allow_binaries ["},
        {"cat", NULL, true, false, "binary 'cat' not in allow_binaries ["},
        {"othertool", NULL, true, false, "binary 'othertool' not in allow_binaries ["},
        {"no-such-program", NULL, true, false, "binary 'no-such-program' not in allow_binaries ["},
        {"^/mytool", NULL, true, false, NULL},
        {"$/cat", NULL, true, false, "binary 'cat' not in allow_binaries ["},
    };
    run_bin_cases("allow list", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_binary, deny_message_lists_the_allow_list)
{
    setup("allow_binaries = [\"python3\", \"ls\"]");
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(&ctx, "PYTHON3", ws, &v, &missing);
    cr_assert(v.deny);
    cr_expect(strstr(v.message, "python3") && strstr(v.message, "ls"), "%s", v.message);
    size_t ml = strlen(v.message);
    cr_expect(ml && v.message[ml - 1] == ']', "%s", v.message);
}

/* A bare-name entry never admits a program the sandboxed command can write. */
Test(gate_binary, bare_name_in_a_writable_root_is_denied)
{
    char path_env[600];
    setup("allow_binaries = [\"python3\", \"ls\"]");
    snprintf(path_env, sizeof path_env, "%s:%s", ws, tools);
    pd_ctx_set_path_env(&ctx, path_env);
    static const struct bin_case cases[] = {
        {"python3", NULL, true, false, "binary 'python3' "},
        {"./python3", NULL, true, false, "binary 'python3' "},
        {"@/python3", NULL, true, false, "binary 'python3' "},
        {"ls", NULL, false, false, NULL},
    };
    run_bin_cases("workspace python3", cases, sizeof cases / sizeof cases[0]);
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(&ctx, "python3", ws, &v, &missing);
    cr_expect(strstr(v.message, "can write") != NULL, "the message says the file is writable: %s",
              v.message);
    char want[300];
    snprintf(want, sizeof want, "%s/python3", ws);
    cr_expect_str_eq(v.resolved, want);

    /* an added root counts too */
    cr_assert_eq(pd_ctx_add_root(&ctx, tools), 0);
    pd_gate_binary(&ctx, "ls", ws, &v, &missing);
    cr_expect(v.deny, "ls in an added writable root: expected deny");
}

/* A program outside the roots that is a symlink into a writable root is
 * judged by the file it runs. */
Test(gate_binary, link_into_a_writable_root_is_denied)
{
    char target[300];
    snprintf(target, sizeof target, "%s/python3", ws);
    tp_link(tools, "py", target);
    setup("allow_binaries = [\"py\"]");
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(&ctx, "py", ws, &v, &missing);
    cr_expect(v.deny, "py -> %s: expected deny", target);
    cr_expect_str_eq(v.resolved, target);
}

/* A path entry naming a symlink admits the invocation through that link. */
Test(gate_binary, path_entry_naming_a_link)
{
    setup("allow_binaries = [\"$/alias\"]");
    static const struct bin_case cases[] = {
        {"$/alias", NULL, false, false, NULL},
        {"alias", NULL, false, false, NULL},
        {"$/ls", NULL, true, false, "binary 'ls' not in allow_binaries ["},
    };
    run_bin_cases("path entry alias", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_binary, resolved_is_the_real_file)
{
    setup("allow_binaries = [\"alias\"]");
    struct pd_verdict v;
    bool missing = true;
    char want[300];
    pd_gate_binary(&ctx, "alias", ws, &v, &missing);
    cr_expect_not(v.deny, "%s", v.message);
    cr_expect_not(missing);
    snprintf(want, sizeof want, "%s/mytool", tools);
    cr_expect_str_eq(v.resolved, want);
    cr_expect_str_eq(v.subject, "alias");
    cr_expect_eq(v.op, PD_OP_EXEC);
}

/* ---- pd_gate_argv ------------------------------------------------------------ */

struct argv_case {
    const char *argv[6];
    const char *reason; /* NULL: allow */
    const char *subject;
    const char *resolved; /* or NULL */
};

static void run_argv_cases(const char *name, const struct argv_case *cases, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct argv_case *c = &cases[k];
        char store[6][PD_PATH_MAX];
        char *argv[7];
        int argc = 0;
        char line[1024] = "";
        size_t used = 0;
        for (; argc < 6 && c->argv[argc]; argc++) {
            expand(c->argv[argc], store[argc], sizeof store[argc]);
            argv[argc] = store[argc];
            /* the argv for the messages, cut at the buffer */
            int w = snprintf(line + used, sizeof line - used, "%s ", store[argc]);
            used = w < 0 || (size_t)w >= sizeof line - used ? sizeof line - 1 : used + (size_t)w;
        }
        argv[argc] = NULL;
        struct pd_verdict v;
        bool missing;
        pd_gate_argv(&ctx, argc, argv, &v, &missing);
        if (!c->reason) {
            cr_expect_not(v.deny, "[%s] argv %s: expected allow, got %s", name, line, v.message);
            cr_expect_null(v.reason);
            continue;
        }
        cr_expect(v.deny, "[%s] argv %s: expected deny (%s), got allow", name, line, c->reason);
        cr_expect(tp_streq(v.reason, c->reason), "[%s] argv %s: reason expected %s, got %s", name,
                  line, c->reason, TP_S(v.reason));
        if (c->subject) {
            char subj[PD_PATH_MAX];
            expand(c->subject, subj, sizeof subj);
            cr_expect_str_eq(v.subject, subj, "[%s] argv %s: subject", name, line);
        }
        if (c->resolved) {
            char res[PD_PATH_MAX];
            expand(c->resolved, res, sizeof res);
            cr_expect_str_eq(v.resolved, res, "[%s] argv %s: resolved", name, line);
        }
    }
}

Test(gate_argv, default_policy)
{
    setup("");
    static const struct argv_case cases[] = {
        {{"ls", "src/main.go"}, NULL, NULL, NULL},
        {{"ls", "-la"}, NULL, NULL, NULL},
        {{"ls"}, NULL, NULL, NULL},
        {{"cat", ".env"}, PD_REASON_SECRET, ".env", "@/.env"},
        {{"cat", "--file=.env"}, PD_REASON_SECRET, ".env", NULL},
        {{"cat", "-f", ".env"}, PD_REASON_SECRET, ".env", NULL},
        {{"grep", "-r", "hello", "."}, NULL, NULL, NULL},
        {{"cat", "../x"}, PD_REASON_OUTSIDE_WS, "../x", NULL},
        {{"cat", "src/link"}, PD_REASON_SECRET, "src/link", "@/.env"},
        {{"cat", "../x", ".env"}, PD_REASON_OUTSIDE_WS, "../x", NULL},
        {{"cat", ".env", "../x"}, PD_REASON_SECRET, ".env", NULL},
        {{"tool", "--level=3"}, NULL, NULL, NULL},
        /* issue 14: named paths are reads; /etc is a system folder (a write
         * there is judged when the command does it) */
        {{"tool", "--output=/etc/passwd"}, NULL, NULL, NULL},
        {{"tool", "--output=/srv/out.txt"}, PD_REASON_OUTSIDE_WS, "/srv/out.txt", NULL},
        {{"tool", "--output=/home/x/notes.txt"}, PD_REASON_OUTSIDE_WS, NULL, NULL},
        {{"tool", "-o/etc/passwd"}, NULL, NULL, NULL},
        {{"pip", "install", "requests==2.31.0", "flask>=2"}, NULL, NULL, NULL},
        {{"curl", "https://x/y"}, NULL, NULL, NULL},
        {{"git", "clone", "git@github.com:a/b.git"}, NULL, NULL, NULL},
        {{"cat", "~/.ssh/id_rsa"}, PD_REASON_SECRET, "~/.ssh/id_rsa", "&/.ssh/id_rsa"},
        {{"git", "commit", "-m", "fix the build"}, NULL, NULL, NULL},
        {{"python3", "-c", "print(1)"}, NULL, NULL, NULL},
        {{"python3", "3.11", "v2.0.1"}, NULL, NULL, NULL},
        {{"cat", "/abs with space/x"}, PD_REASON_OUTSIDE_WS, NULL, NULL},
        {{"cat", "out/x.txt"}, PD_REASON_OUTSIDE_WS, "out/x.txt", "%/x.txt"},
        /* a named link that only leads out of scope (or loops): the command
         * may act on the link itself (rm, mv, ln -sf); what the target
         * matches still denies (src/link is .env, cfg is .git/config) */
        {{"mv", "out", "out2"}, NULL, NULL, NULL},
        {{"rm", "loop"}, NULL, NULL, NULL},
        {{"rm", "loop/x"}, PD_REASON_UNRESOLVABLE, "loop/x", NULL},
        {{"rm", "src/link"}, PD_REASON_SECRET, "src/link", "@/.env"},
        {{"ln", "-sf", "%/x.txt", "newlink"}, PD_REASON_OUTSIDE_WS, NULL, NULL},
        {{"cat", "%/key.pem"}, PD_REASON_SECRET, NULL, NULL},
        {{"vim", ".git/config"}, NULL, NULL, NULL},
    };
    run_argv_cases("default", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_argv, allow_paths)
{
    setup("allow_paths = [\"src/\"]");
    /* issue 14: named paths are reads: the workspace is readable whatever
     * allow_paths says; outside it, secrets and deny_globs still deny */
    static const struct argv_case cases[] = {
        {{"ls", "."}, NULL, NULL, NULL},
        {{"ls", "src"}, NULL, NULL, NULL},
        {{"ls", "src/main.go"}, NULL, NULL, NULL},
        {{"cat", "Makefile"}, NULL, NULL, NULL},
        {{"cat", "docs/a.md"}, NULL, NULL, NULL},
        {{"make", "build"}, NULL, NULL, NULL},
        {{"cat", "--in=docs/a.md"}, NULL, NULL, NULL},
        {{"cat", "../x"}, PD_REASON_OUTSIDE_WS, "../x", NULL},
        {{"cat", "--in=/srv/x.txt"}, PD_REASON_OUTSIDE_WS, "/srv/x.txt", "/srv/x.txt"},
        {{"cat", "%/x.txt"}, PD_REASON_OUTSIDE_WS, "%/x.txt", "%/x.txt"},
        {{"cat", "docs/../.env"}, PD_REASON_SECRET, NULL, "@/.env"},
        {{"cp", "docs/a.md", "&/notes.txt"}, PD_REASON_OUTSIDE_WS, "&/notes.txt", NULL},
    };
    run_argv_cases("allow_paths=src/", cases, sizeof cases / sizeof cases[0]);
}

Test(gate_argv, binary_comes_first)
{
    setup("allow_binaries = [\"ls\"]\ndeny_globs = [\"*.log\"]");
    static const struct argv_case cases[] = {
        {{"cat", ".env"}, PD_REASON_BINARY, NULL, NULL},
        {{"ls", ".env"}, PD_REASON_SECRET, ".env", NULL},
        {{"ls", "x.log"}, PD_REASON_DENY_GLOB, "x.log", NULL},
        {{"ls", "src"}, NULL, NULL, NULL},
    };
    run_argv_cases("allow_binaries=ls", cases, sizeof cases / sizeof cases[0]);
}

/* The value of --opt=value is judged like a plain argument, so a name
 * that exists in the workspace counts as a path there too. */
Test(gate_argv, option_value_that_exists_in_the_workspace)
{
    setup("");
    char *plain[] = {"ssh-keygen", "id_rsa", NULL};
    char *opt[] = {"ssh-keygen", "--file=id_rsa", NULL};
    struct pd_verdict v;
    bool missing;
    pd_gate_argv(&ctx, 2, plain, &v, &missing);
    cr_expect(v.deny && tp_streq(v.reason, PD_REASON_SECRET), "argv ssh-keygen id_rsa: %s",
              v.deny ? v.message : "allowed");
    pd_gate_argv(&ctx, 2, opt, &v, &missing);
    cr_expect(v.deny, "argv ssh-keygen --file=id_rsa (ws/id_rsa exists): expected deny (secret), "
                      "got allow");
    cr_expect(tp_streq(v.reason, PD_REASON_SECRET), "reason %s", TP_S(v.reason));
}

Test(gate_argv, missing_program_is_reported)
{
    setup("");
    char *argv1[] = {"no-such-program", "a", NULL};
    char *argv2[] = {"ls", "src", NULL};
    struct pd_verdict v;
    bool missing = false;
    pd_gate_argv(&ctx, 2, argv1, &v, &missing);
    cr_expect_not(v.deny);
    cr_expect(missing);
    missing = true;
    pd_gate_argv(&ctx, 2, argv2, &v, &missing);
    cr_expect_not(v.deny);
    cr_expect_not(missing);
}
