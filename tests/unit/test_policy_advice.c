/* tests/unit/test_policy_advice.c - pd_advice and pd_verdict_advice
 * (policy/advice.c): the policy change a deny line suggests. A table covers
 * every key and the narrowness rules (a relative top-level folder of the
 * workspace; a file at the top of the workspace has none; an absolute
 * folder outside is named unless it is "/", a top-level folder, the home
 * folder, a folder holding the workspace or a system folder); then real
 * verdicts of pd_gate_path and pd_gate_binary get the advice their deny
 * line shows. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

/*
 * base/                      a folder that holds the workspace
 * ├── loose.txt              a file of it (outside the workspace)
 * ├── ws/                    the workspace
 * │   ├── README.md, .npmrc, .env
 * │   ├── src/a/b.c, sub/.npmrc
 * │   └── build/             an empty folder
 * ├── data/x.txt, data/sub/  a narrow folder outside the workspace
 * └── home/notes.txt, home/notes/n.txt, home/.npmrc
 */
static char base[256], ws[300], home[300], data[300];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool have_pol, have_ctx;

static void tree_init(void)
{
    tp_mkdtemp(base, sizeof base, "advice");
    tp_join(ws, sizeof ws, base, "ws");
    tp_join(home, sizeof home, base, "home");
    tp_join(data, sizeof data, base, "data");
    tp_put(base, "loose.txt", "x", 0644);
    tp_put(base, "ws/README.md", "# r", 0644);
    tp_put(base, "ws/.npmrc", "//r/:_authToken=x", 0600);
    tp_put(base, "ws/.env", "K=1", 0600);
    tp_put(base, "ws/src/a/b.c", "int x;", 0644);
    tp_put(base, "ws/sub/.npmrc", "x", 0600);
    tp_mkdir(base, "ws/build");
    tp_put(base, "data/x.txt", "x", 0644);
    tp_mkdir(base, "data/sub");
    tp_put(base, "home/notes.txt", "n", 0644);
    tp_put(base, "home/notes/n.txt", "n", 0644);
    tp_put(base, "home/.npmrc", "x", 0600);
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

/* Bind a policy (TOML text; NULL = the defaults) to ws and home. */
static void setup(const char *toml)
{
    struct pd_error err;
    if (toml)
        cr_assert_eq(pd_policy_load_string(&pol, toml, "t.toml", &err), 0, "policy: %s", err.msg);
    else
        pd_policy_defaults(&pol);
    have_pol = true;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "ctx: %s", err.msg);
    have_ctx = true;
}

TestSuite(advice, .init = tree_init, .fini = tree_fini);
TestSuite(verdict_advice, .init = tree_init, .fini = tree_fini);

/* In a table path or want: "@" = ws, "&" = home, "%" = data, "^" = base
 * (at the start only). */
static void expand(const char *s, char *out, size_t len)
{
    const char *root = s[0] == '@'   ? ws
                       : s[0] == '&' ? home
                       : s[0] == '%' ? data
                       : s[0] == '^' ? base
                                     : NULL;
    if (root)
        snprintf(out, len, "%s%s", root, s + 1);
    else
        snprintf(out, len, "%s", s);
}

/* want: the whole advice, with one root marker expanded where it stands
 * after the first quote or after "none narrow: " / "none: ". */
static void expand_want(const char *w, char *out, size_t len)
{
    out[0] = '\0';
    const char *mark = strpbrk(w, "@&%^");
    if (!mark) {
        snprintf(out, len, "%s", w);
        return;
    }
    char rest[PD_PATH_MAX];
    expand(mark, rest, sizeof rest);
    snprintf(out, len, "%.*s%s", (int)(mark - w), w, rest);
}

struct advice_case {
    const char *key;
    const char *pattern;
    const char *abs; /* expanded */
    bool is_dir;
    const char *want; /* expanded; "" = no advice */
};

static const char *const TOP_FILE =
    "none narrow: README.md lies at the top of the workspace, and allowing the whole workspace "
    "would allow every file; put it in a folder of allow_paths";

static const struct advice_case cases[] = {
    /* writes in the workspace: the top-level folder, relative */
    {"allow_paths", NULL, "@/src/a/b.c", false, "add \"src/\" to allow_paths"},
    {"allow_paths", NULL, "@/src/a", true, "add \"src/\" to allow_paths"},
    {"allow_paths", NULL, "@/build", true, "add \"build/\" to allow_paths"},
    {"allow_paths", NULL, "@/build/new/obj.o", false, "add \"build/\" to allow_paths"},
    /* a file at the top: only the whole workspace would allow it */
    {"allow_paths", NULL, "@/README.md", false, NULL /* TOP_FILE */},
    {"allow_paths", NULL, "@", true,
     "none narrow: . lies at the top of the workspace, and allowing the whole workspace would "
     "allow every file; put it in a folder of allow_paths"},
    /* writes outside ("workspace" is the key of pd_gate_path's outside deny) */
    {"workspace", NULL, "%/x.txt", false, "add \"%\" to allow_paths"},
    {"workspace", NULL, "%/sub", true, "add \"%/sub\" to allow_paths"},
    {"allow_paths", NULL, "%/x.txt", false, "add \"%\" to allow_paths"},
    {"workspace", NULL, "/x.txt", false, "none narrow: / is the root folder"},
    {"workspace", NULL, "/srv/f", false, "none narrow: /srv is a top-level folder"},
    {"workspace", NULL, "&/notes.txt", false, "none narrow: & is the home folder"},
    {"workspace", NULL, "^/loose.txt", false,
     "none narrow: ^ is a folder that holds the workspace"},
    /* named paths outside the readable scope */
    {"read_paths", NULL, "%/x.txt", false, "add \"%\" to read_paths"},
    {"read_paths", NULL, "%", true, "add \"%\" to read_paths"},
    {"read_paths", NULL, "%/sub", true, "add \"%/sub\" to read_paths"},
    {"read_paths", NULL, "&/notes/n.txt", false, "add \"&/notes\" to read_paths"},
    {"read_paths", NULL, "/", true, "none narrow: / is the root folder"},
    {"read_paths", NULL, "/vmlinuz", false, "none narrow: / is the root folder"},
    {"read_paths", NULL, "/home", true, "none narrow: /home is a top-level folder"},
    {"read_paths", NULL, "/home/u.txt", false, "none narrow: /home is a top-level folder"},
    {"read_paths", NULL, "/tmp/x", false, "none narrow: /tmp is a top-level folder"},
    {"read_paths", NULL, "&", true, "none narrow: & is the home folder"},
    {"read_paths", NULL, "&/notes.txt", false, "none narrow: & is the home folder"},
    {"read_paths", NULL, "/usr/share/doc/README", false,
     "none narrow: /usr/share/doc is a system folder"},
    {"read_paths", NULL, "/etc/ssl", true, "none narrow: /etc/ssl is a system folder"},
    {"read_paths", NULL, "/opt/tool/bin/x", false, "none narrow: /opt/tool/bin is a system folder"},
    {"read_paths", NULL, "^/loose.txt", false,
     "none narrow: ^ is a folder that holds the workspace"},
    {"read_paths", NULL, "^", true, "none narrow: ^ is a folder that holds the workspace"},
    /* read_paths advice in the workspace is relative too */
    {"read_paths", NULL, "@/src/a/b.c", false, "add \"src/\" to read_paths"},
    /* secrets: in the workspace by their relative path, outside none */
    {"secrets", ".npmrc", "@/.npmrc", false, "add \".npmrc\" to allow_secrets"},
    {"secrets", ".npmrc", "@/sub/.npmrc", false, "add \"sub/.npmrc\" to allow_secrets"},
    {"secrets", ".npmrc", "&/.npmrc", false,
     "none: &/.npmrc is a built-in secret outside the workspace"},
    {"secrets", "~/.ssh/**", "&/.ssh/id_rsa", false,
     "none: &/.ssh/id_rsa is a built-in secret outside the workspace"},
    /* deny_globs: remove the user's own pattern, unless the path is also a
     * built-in secret: removing the glob would only uncover that rule */
    {"deny_globs", "*.log", "@/app.log", false, "remove \"*.log\" from deny_globs"},
    {"deny_globs", "build/**", "@/build/x", false, "remove \"build/**\" from deny_globs"},
    {"deny_globs", ".env", "@/.env", false, "none narrow: .env is also a built-in secret"},
    {"deny_globs", "**/secrets/**", "@/a/secrets/k", false,
     "none narrow: a/secrets/k is also a built-in secret"},
    {"deny_globs", "~/.npmrc", "&/.npmrc", false,
     "none narrow: &/.npmrc is also a built-in secret"},
    /* protected: built-in -> unprotect_paths, own -> protected_paths */
    {"protected_paths", ".claude/**", "@/.claude/settings.json", false,
     "add \".claude/**\" to unprotect_paths"},
    {"protected_paths", ".git/hooks/**", "@/.git/hooks/pre-commit", false,
     "add \".git/hooks/**\" to unprotect_paths"},
    {"protected_paths", ".vscode/**", "@/.vscode/tasks.json", false,
     "add \".vscode/**\" to unprotect_paths"},
    {"protected_paths", ".gitmodules", "@/.gitmodules", false,
     "add \".gitmodules\" to unprotect_paths"},
    {"protected_paths", "generated/**", "@/generated/x", false,
     "remove \"generated/**\" from protected_paths"},
    {"protected_paths", ".claude/", "@/.claude/x", false,
     "remove \".claude/\" from protected_paths"},
    /* the policy file and the network have no narrow change */
    {"policy_file", "@/p.toml", "@/p.toml", false,
     "none: the policy file is never writable through Paldron"},
    {"allow_network", NULL, NULL, false,
     "none narrow: the network is off, and allow_network = true would allow every host"},
    /* keys the caller words itself, and no key */
    {"allow_binaries", NULL, "/usr/bin/node", false, ""},
    {"tools", NULL, "@/x", false, ""},
    {"path", NULL, "@/loop", false, ""},
    {NULL, NULL, "@/x", false, ""},
};

Test(advice, every_key_and_the_narrowness_rules)
{
    setup(NULL);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct advice_case *c = &cases[k];
        char abs[PD_PATH_MAX], want[PD_PATH_MAX + 256], got[PD_PATH_MAX + 256];
        if (c->abs)
            expand(c->abs, abs, sizeof abs);
        expand_want(c->want ? c->want : TOP_FILE, want, sizeof want);
        snprintf(got, sizeof got, "(unset)");
        pd_advice(&ctx, c->key, c->pattern, c->abs ? abs : NULL, c->is_dir, got, sizeof got);
        cr_expect_str_eq(got, want, "case %zu: key %s, %s%s\n  got:  %s\n  want: %s", k,
                         TP_S(c->key), c->abs ? abs : "(null)", c->is_dir ? " (folder)" : "", got,
                         want);
    }
}

/* Advice never names a folder that holds more than the refused path's own
 * folder: no "add" advice may end in "/" alone, the home folder, a parent
 * of the workspace, or a top-level folder. */
Test(advice, add_advice_is_never_wide)
{
    setup(NULL);
    static const char *const paths[] = {"/a",         "/home/x",       "/tmp/f",
                                        "/usr/lib/x", "/etc/hostname", "/opt/x/y"};
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
        for (int key = 0; key < 2; key++) {
            char got[PD_PATH_MAX];
            pd_advice(&ctx, key ? "read_paths" : "workspace", NULL, paths[k], false, got,
                      sizeof got);
            cr_expect(tp_starts_with(got, "none narrow: "), "%s: %s", paths[k], got);
        }
    }
    char abs[PD_PATH_MAX], got[PD_PATH_MAX];
    tp_join(abs, sizeof abs, home, "notes.txt");
    pd_advice(&ctx, "read_paths", NULL, abs, false, got, sizeof got);
    cr_expect(tp_starts_with(got, "none narrow: "), "%s", got);
}

/* The home folder is named as such even when it is not /home/<user>. */
Test(advice, home_is_the_context_home)
{
    setup(NULL);
    char abs[PD_PATH_MAX], got[PD_PATH_MAX], want[PD_PATH_MAX + 64];
    tp_join(abs, sizeof abs, home, "notes.txt");
    pd_advice(&ctx, "read_paths", NULL, abs, false, got, sizeof got);
    snprintf(want, sizeof want, "none narrow: %s is the home folder", home);
    cr_expect_str_eq(got, want);
    /* without a home, the same folder is narrow */
    pd_ctx_free(&ctx);
    struct pd_error err;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    pd_advice(&ctx, "read_paths", NULL, abs, false, got, sizeof got);
    snprintf(want, sizeof want, "add \"%s\" to read_paths", home);
    cr_expect_str_eq(got, want);
}

/* A buffer too small truncates, never overflows. */
Test(advice, truncates_to_the_buffer)
{
    setup(NULL);
    char abs[PD_PATH_MAX], got[12];
    memset(got, 'Z', sizeof got);
    tp_join(abs, sizeof abs, ws, "src/a/b.c");
    pd_advice(&ctx, "allow_paths", NULL, abs, false, got, sizeof got);
    cr_expect_str_eq(got, "add \"src/\" ");
}

/* ---- pd_verdict_advice: advice for what the gates really decided ------- */

static void gate_advice(enum pd_op op, const char *path, const char *program, char *got, size_t len,
                        struct pd_verdict *v)
{
    char abs[PD_PATH_MAX];
    expand(path, abs, sizeof abs);
    pd_gate_path(&ctx, op, NULL, abs, v);
    snprintf(got, len, "(unset)");
    pd_verdict_advice(&ctx, v, program, got, len);
}

static void expect_gate_advice(enum pd_op op, const char *path, const char *key,
                               const char *want_marked)
{
    struct pd_verdict v;
    char got[PD_PATH_MAX + 256], want[PD_PATH_MAX + 256];
    gate_advice(op, path, NULL, got, sizeof got, &v);
    cr_expect(v.deny, "%s %s: expected a deny", pd_op_name(op), path);
    cr_expect(tp_streq(v.key, key), "%s %s: key %s, want %s", pd_op_name(op), path, TP_S(v.key),
              key);
    expand_want(want_marked, want, sizeof want);
    cr_expect_str_eq(got, want, "%s %s (%s)\n  got:  %s\n  want: %s", pd_op_name(op), path,
                     v.message, got, want);
}

Test(verdict_advice, named_paths_outside_the_readable_scope)
{
    setup("allow_paths = [\"src/\"]\n");
    expect_gate_advice(PD_OP_NAME, "%/x.txt", "read_paths", "add \"%\" to read_paths");
    /* an existing folder is advised as itself (stat), not as its parent,
     * which here would be a folder holding the workspace */
    expect_gate_advice(PD_OP_NAME, "%", "read_paths", "add \"%\" to read_paths");
    expect_gate_advice(PD_OP_NAME, "&/notes.txt", "read_paths",
                       "none narrow: & is the home folder");
    expect_gate_advice(PD_OP_NAME, "&/notes/n.txt", "read_paths", "add \"&/notes\" to read_paths");
    expect_gate_advice(PD_OP_NAME, "^/loose.txt", "read_paths",
                       "none narrow: ^ is a folder that holds the workspace");
}

Test(verdict_advice, writes_outside_the_writable_roots)
{
    setup("allow_paths = [\"src/\"]\n");
    expect_gate_advice(PD_OP_WRITE, "@/build/out.o", "allow_paths",
                       "add \"build/\" to allow_paths");
    expect_gate_advice(PD_OP_CREATE, "@/build", "allow_paths", "add \"build/\" to allow_paths");
    expect_gate_advice(PD_OP_WRITE, "@/README.md", "allow_paths", TOP_FILE);
    expect_gate_advice(PD_OP_WRITE, "%/x.txt", "workspace", "add \"%\" to allow_paths");
}

Test(verdict_advice, secrets_and_globs_and_protected)
{
    setup("deny_globs = [\".env\", \"*.log\"]\nprotected_paths = [\"generated/**\"]\n");
    expect_gate_advice(PD_OP_READ, "@/.npmrc", "secrets", "add \".npmrc\" to allow_secrets");
    expect_gate_advice(PD_OP_NAME, "@/sub/.npmrc", "secrets",
                       "add \"sub/.npmrc\" to allow_secrets");
    expect_gate_advice(PD_OP_NAME, "&/.npmrc", "secrets",
                       "none: &/.npmrc is a built-in secret outside the workspace");
    expect_gate_advice(PD_OP_NAME, "@/.env", "deny_globs",
                       "none narrow: .env is also a built-in secret");
    expect_gate_advice(PD_OP_NAME, "@/app.log", "deny_globs", "remove \"*.log\" from deny_globs");
    expect_gate_advice(PD_OP_WRITE, "@/.claude/settings.json", "protected_paths",
                       "add \".claude/**\" to unprotect_paths");
    expect_gate_advice(PD_OP_WRITE, "@/generated/x", "protected_paths",
                       "remove \"generated/**\" from protected_paths");
}

/* Where allow_secrets already lifts the built-in rule, the glob is the
 * only rule left: removing it is the advice. */
Test(verdict_advice, deny_glob_over_a_lifted_secret)
{
    setup("deny_globs = [\".env\"]\nallow_secrets = [\".env\"]\n");
    expect_gate_advice(PD_OP_NAME, "@/.env", "deny_globs", "remove \".env\" from deny_globs");
}

Test(verdict_advice, programs_and_allows)
{
    setup("allow_binaries = [\"ls\"]\n");
    struct pd_verdict v;
    char got[PD_PATH_MAX];
    pd_verdict_deny(&v, PD_REASON_BINARY, "allow_binaries", "binary 'node' not in allow_binaries");
    v.resolved[0] = '\0';
    pd_verdict_advice(&ctx, &v, "node", got, sizeof got);
    cr_expect_str_eq(got, "add \"node\" to allow_binaries");
    snprintf(got, sizeof got, "(unset)");
    pd_verdict_advice(&ctx, &v, NULL, got, sizeof got);
    cr_expect_str_eq(got, "", "no program, no advice");
    /* an allow has no advice */
    gate_advice(PD_OP_READ, "@/README.md", NULL, got, sizeof got, &v);
    cr_expect(!v.deny, "%s", v.message);
    cr_expect_str_eq(got, "");
    /* the network */
    pd_verdict_deny(&v, PD_REASON_NETWORK, "allow_network", "network disabled");
    v.resolved[0] = '\0';
    pd_verdict_advice(&ctx, &v, "curl", got, sizeof got);
    cr_expect_str_eq(got,
                     "none narrow: the network is off, and allow_network = true would allow every "
                     "host");
}
