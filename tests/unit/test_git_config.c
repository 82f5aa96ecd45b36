/* tests/unit/test_git_config.c - git's configuration format as the post-run
 * git check reads it (launcher/scan/git_config.h), the entries that make git run
 * a program (launcher/scan/git_keys.h), and which config and hooks the gate
 * protects (policy/gate_git.c), and the post-run git check on repositories
 * laid out by hand (launcher/scan/scan_git.h). Expected values are what git 2.39's
 * `git config --list` prints for the same text. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/scan/git_config.h"
#include "launcher/scan/git_keys.h"
#include "launcher/scan/scan_git.h"
#include "policy/compiled_image.h"
#include "policy/policy.h"

/* Test paths are short; PATH_MAX buffers are plenty. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* Every entry as "name=value" ("name" alone for a bare key), joined by '|'. */
static char got[4096];

static int collect(const char *section, const char *subsection, const char *key, const char *value,
                   int line, void *user)
{
    (void)line;
    (void)user;
    size_t n = strlen(got);
    snprintf(got + n, sizeof got - n, "%s%s%s%s.%s%s%s", n ? "|" : "", section,
             subsection ? "." : "", subsection ? subsection : "", key, value ? "=" : "",
             value ? value : "");
    return 0;
}

static int parse(const char *text, char *err, size_t errlen)
{
    got[0] = '\0';
    return pd_git_config_parse(text, strlen(text), collect, NULL, err, errlen);
}

static void expect(const char *text, const char *want)
{
    char err[256] = "";
    cr_assert_eq(parse(text, err, sizeof err), 0, "%s: %s", text, err);
    cr_expect_str_eq(got, want, "%s", text);
}

static void expect_error(const char *text)
{
    char err[256] = "";
    cr_expect_eq(parse(text, err, sizeof err), -1, "%s: parsed as %s", text, got);
    cr_expect_neq(err[0], '\0', "%s: no message", text);
}

Test(git_config, sections_and_keys_fold_case)
{
    expect("[Core]\n\tFSMonitor = x\n", "core.fsmonitor=x");
    expect("[core]\nbare = true\n[user]\n\tname = A\n", "core.bare=true|user.name=A");
}

Test(git_config, subsections_keep_case_and_unescape)
{
    expect("[filter \"Lfs\"]\n\tclean = a\n", "filter.Lfs.clean=a");
    expect("[remote \"o\\\"r\\\\g\"]\n\turl = u\n", "remote.o\"r\\g.url=u");
    /* the old form folds the subsection */
    expect("[Branch.Main]\n\tremote = o\n", "branch.main.remote=o");
}

Test(git_config, entry_after_a_header_on_one_line)
{
    expect("[core] editor = vi\n", "core.editor=vi");
}

Test(git_config, bare_key_is_true)
{
    expect("[core]\n\tbare\n", "core.bare");
    expect("[core]\n\tbare", "core.bare");
}

Test(git_config, comments)
{
    expect("# c\n; c\n[core] # c\n\teditor = vi # c\n\tpager = less ; c\n",
           "core.editor=vi|core.pager=less");
    expect("[core]\n\teditor = \"vi # not a comment\"\n", "core.editor=vi # not a comment");
}

Test(git_config, quotes_and_spaces)
{
    expect("[a]\n\tk =   x   y  \n", "a.k=x   y");
    expect("[a]\n\tk = \"  x \" y\n", "a.k=  x  y");
    expect("[a]\n\tk =\n", "a.k=");
    expect("[a]\n\tk=v\n", "a.k=v");
}

Test(git_config, escapes_and_continuations)
{
    expect("[a]\n\tk = x\\ty\\\\z\\\"\n", "a.k=x\ty\\z\"");
    expect("[a]\n\tk = one \\\n two\n", "a.k=one  two");
    expect("[a]\r\n\tk = v\r\n", "a.k=v");
}

Test(git_config, byte_order_mark)
{
    expect("\xef\xbb\xbf[a]\n\tk = v\n", "a.k=v");
}

Test(git_config, what_git_refuses)
{
    expect_error("k = v\n");             /* no section */
    expect_error("[a\n\tk = v\n");       /* unterminated header */
    expect_error("[a b]\n");             /* subsection without quotes */
    expect_error("[a \"b\"x]\n");        /* junk after the subsection */
    expect_error("[a]\n\tk = \"open\n"); /* unterminated quote */
    expect_error("[a]\n\tk = \\q\n");    /* unknown escape */
    expect_error("[a]\n\t1k = v\n");     /* a key starts with a letter */
    expect_error("[a]\n\tk v\n");        /* no '=' */
    expect_error("[a!]\n");              /* bad character in a name */
}

static int stop_at_second(const char *section, const char *subsection, const char *key,
                          const char *value, int line, void *user)
{
    (void)section;
    (void)subsection;
    (void)key;
    (void)value;
    (void)user;
    return line == 3 ? 7 : 0;
}

Test(git_config, callback_stops_the_parse)
{
    char err[64];
    const char *text = "[a]\nk=1\nj=2\nbroken line\n";
    cr_expect_eq(pd_git_config_parse(text, strlen(text), stop_at_second, NULL, err, sizeof err), 7);
}

/* ---- which entries run a program --------------------------------------- */

Test(git_keys, programs)
{
    cr_expect(pd_git_key_runs("core", NULL, "fsmonitor", "touch x"));
    cr_expect_not(pd_git_key_runs("core", NULL, "fsmonitor", "true"));
    cr_expect(pd_git_key_runs("core", NULL, "hookspath", ".husky"));
    cr_expect(pd_git_key_runs("core", NULL, "sshcommand", "ssh -i k"));
    cr_expect(pd_git_key_runs("filter", "x", "smudge", "cat"));
    cr_expect_not(pd_git_key_runs("filter", "x", "required", "true"));
    cr_expect(pd_git_key_runs("diff", "x", "textconv", "cat"));
    cr_expect(pd_git_key_runs("credential", NULL, "helper", "store"));
    cr_expect(pd_git_key_runs("credential", "https://h", "helper", "x"));
    cr_expect(pd_git_key_runs("include", NULL, "path", "x.cfg"));
    cr_expect(pd_git_key_runs("includeif", "gitdir:/x/", "path", "x.cfg"));
    cr_expect(pd_git_key_runs("uploadpack", NULL, "packobjectshook", "x"));
    cr_expect(pd_git_key_runs("pager", NULL, "log", "less -R"));
    cr_expect_not(pd_git_key_runs("pager", NULL, "log", "false"));
    cr_expect(pd_git_key_runs("gpg", "ssh", "program", "x"));
}

Test(git_keys, values_that_decide)
{
    cr_expect(pd_git_key_runs("alias", NULL, "st", " !touch x"));
    cr_expect_not(pd_git_key_runs("alias", NULL, "st", "status"));
    cr_expect(pd_git_key_runs("submodule", "s", "update", "!sh x"));
    cr_expect_not(pd_git_key_runs("submodule", "s", "update", "rebase"));
    cr_expect(pd_git_key_runs("remote", "o", "url", "ext::sh -c x"));
    cr_expect_not(pd_git_key_runs("remote", "o", "url", "https://h/r"));
    cr_expect(pd_git_key_runs("url", "ext::sh -c x", "insteadof", "https://h/"));
    cr_expect(pd_git_key_runs("protocol", NULL, "allow", "always"));
    cr_expect(pd_git_key_runs("protocol", "ext", "allow", "user"));
    cr_expect_not(pd_git_key_runs("protocol", "file", "allow", "never"));
    /* a subsection where git wants none is another key */
    cr_expect_not(pd_git_key_runs("core", "x", "editor", "vi"));
    cr_expect_not(pd_git_key_runs("user", NULL, "name", "A"));
}

/* ---- which config and hooks the gate protects ------------------------- */

static struct pd_ctx ctx;
static struct pd_policy pol;

static void setup_ctx(void)
{
    struct pd_error err;
    pd_policy_defaults(&pol);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, "/", NULL, &err), 0, "%s", err.msg);
    /* a workspace that needs no files: the rule is lexical */
    snprintf(ctx.workspace, sizeof ctx.workspace, "/ws");
    free(ctx.roots[0]);
    ctx.roots[0] = strdup("/ws");
}

static void teardown_ctx(void)
{
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
}

Test(gate_git, without_a_list_every_git_shaped_path, .init = setup_ctx, .fini = teardown_ctx)
{
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/.git/config"), ".git/config");
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/src/r/.git/hooks/pre-commit"), ".git/hooks/**");
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/.git/modules/a/modules/b/config"), ".git/config");
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/.GIT/CONFIG"), ".git/config");
    cr_expect_null(pd_git_protected(&ctx, "/ws/src/config"));
    cr_expect_null(pd_git_protected(&ctx, "/ws/.git/description"));
    cr_expect_null(pd_git_protected(&ctx, "/elsewhere/.git/config"));
}

Test(gate_git, with_a_list_only_the_listed, .init = setup_ctx, .fini = teardown_ctx)
{
    ctx.git_dirs_known = true;
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/src/e/.git"), 0);
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/.git/modules/sub"), 0);
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/src/e/.git/config"), ".git/config");
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/src/e/.git/hooks"), ".git/hooks/**");
    cr_expect_str_eq(pd_git_protected(&ctx, "/ws/.git/modules/sub/config.worktree"),
                     ".git/config.worktree");
    cr_expect_null(pd_git_protected(&ctx, "/ws/.git/config")); /* created by the run */
    cr_expect_null(pd_git_protected(&ctx, "/ws/src/n/.git/hooks/pre-commit"));
}

Test(gate_git, the_gate_lets_a_new_repository_be_created, .init = setup_ctx, .fini = teardown_ctx)
{
    struct pd_verdict v;
    ctx.git_dirs_known = true;
    pd_gate_path(&ctx, PD_OP_CREATE, NULL, "/ws/.git/config", &v);
    cr_expect_not(v.deny, "%s", v.message);
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/.git"), 0);
    pd_gate_path(&ctx, PD_OP_WRITE, NULL, "/ws/.git/config", &v);
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_PROTECTED);
}

Test(gate_git, the_list_survives_compilation, .init = setup_ctx, .fini = teardown_ctx)
{
    ctx.git_dirs_known = true;
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/a b/.git"), 0);
    void *img;
    size_t len;
    cr_assert_eq(pd_image_build(&ctx, NULL, NULL, &img, &len), 0);
    const char *why = pd_image_check(img, len);
    cr_assert_null(why, "%s", why);
    char **ptrs = calloc(pd_image_nptrs(img) + 1, sizeof *ptrs);
    cr_assert_not_null(ptrs);
    struct pd_policy p2;
    struct pd_ctx c2;
    pd_image_materialize(img, ptrs, &p2, &c2, NULL);
    cr_expect(c2.git_dirs_known);
    cr_assert_eq(c2.ngit_dirs, 1);
    cr_expect_str_eq(c2.git_dirs[0], "/ws/a b/.git");
    /* the gate protects the listed one only, as before the round trip */
    cr_expect_str_eq(pd_git_protected(&c2, "/ws/a b/.git/config"), ".git/config");
    cr_expect_null(pd_git_protected(&c2, "/ws/.git/config"));
    free(ptrs); /* the materialized lists point into img: nothing else to free */
    free(img);
}

/* ---- the post-run git check (launcher/scan/scan_git.h) ----------------------- */

static char gbase[] = "/tmp/paldron-git-XXXXXX";
static char gws[PD_PATH_MAX];

static void gput(const char *rel, const char *text)
{
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", gws, rel);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

static void gdir(const char *rel)
{
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", gws, rel);
    cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
}

/* A git directory by hand: HEAD, objects/, refs/, config. */
static void grepo(const char *rel, const char *config)
{
    char p[PD_PATH_MAX];
    gdir(rel);
    snprintf(p, sizeof p, "%s/objects", rel);
    gdir(p);
    snprintf(p, sizeof p, "%s/refs", rel);
    gdir(p);
    snprintf(p, sizeof p, "%s/HEAD", rel);
    gput(p, "ref: refs/heads/main\n");
    snprintf(p, sizeof p, "%s/config", rel);
    gput(p, config);
}

static void gsetup(void)
{
    struct pd_error err;
    cr_assert_not_null(mkdtemp(gbase));
    snprintf(gws, sizeof gws, "%s/ws", gbase);
    cr_assert_eq(mkdir(gws, 0755), 0);
    pd_policy_defaults(&pol);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, gws, NULL, &err), 0, "%s", err.msg);
}

static void gteardown(void)
{
    char cmd[PD_PATH_MAX + 16];
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", gbase);
    cr_expect_eq(system(cmd), 0);
}

static char *joined(const struct pd_findings *f)
{
    static char all[8192];
    all[0] = '\0';
    for (size_t k = 0; k < f->n; k++)
        snprintf(all + strlen(all), sizeof all - strlen(all), "[%s] ", f->v[k].message);
    return all;
}

Test(scan_git, submodule_config_changed_in_place, .init = gsetup, .fini = gteardown)
{
    grepo(".git", "[core]\n");
    gdir(".git/modules");
    grepo(".git/modules/m", "[core]\n\teditor = vi\n");
    gdir("sub");
    gput("sub/.git", "gitdir: ../.git/modules/m\n");
    struct pd_git_scan *g = pd_git_scan_before(&ctx);
    cr_assert_not_null(g);
    cr_expect(ctx.git_dirs_known);
    cr_expect_eq(ctx.ngit_dirs, 2);
    gput(".git/modules/m/config", "[core]\n\teditor = vi\n\tfsmonitor = \"touch x\"\n");
    struct pd_findings found = {0};
    pd_git_scan_after(g, &found);
    cr_expect_eq(found.n, 1, "%s", joined(&found));
    cr_expect(strstr(joined(&found), "run set core.fsmonitor in .git/modules/m/config (git runs "
                                     "it as a program)"),
              "%s", joined(&found));
    pd_findings_free(&found);
    pd_git_scan_free(g);
}

Test(scan_git, gitfile_pointed_at_a_hidden_repository, .init = gsetup, .fini = gteardown)
{
    /* objects/ is not walked: only the gitdir file leads there */
    grepo(".git", "[core]\n");
    gdir("sub");
    gput("sub/.git", "gitdir: ../.git/modules/none\n");
    struct pd_git_scan *g = pd_git_scan_before(&ctx);
    cr_assert_not_null(g);
    grepo(".git/objects/ev", "[alias]\n\tst = !touch x\n");
    gput("sub/.git", "gitdir: ../.git/objects/ev\n");
    struct pd_findings found = {0};
    pd_git_scan_after(g, &found);
    cr_expect(strstr(joined(&found), "run set alias.st in .git/objects/ev/config"), "%s",
              joined(&found));
    pd_findings_free(&found);
    pd_git_scan_free(g);
}

Test(scan_git, entries_of_before_are_not_findings, .init = gsetup, .fini = gteardown)
{
    grepo(".git", "[core]\n\tpager = less\n[credential]\n\thelper = store\n");
    struct pd_git_scan *g = pd_git_scan_before(&ctx);
    cr_assert_not_null(g);
    gput(".git/config", "[core]\n\tpager = less\n");
    struct pd_findings found = {0};
    pd_git_scan_after(g, &found);
    cr_expect_eq(found.n, 0, "%s", joined(&found));
    pd_findings_free(&found);
    pd_git_scan_free(g);
}
