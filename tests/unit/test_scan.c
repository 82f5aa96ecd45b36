/* tests/unit/test_scan.c - the post-run scan (launcher/scan/scan.h): a real tree
 * in a temporary directory, a snapshot, the mutations a command could make,
 * and the findings the compare must (and must not) report. Also the run
 * directory's careful removal (launcher/exec/rundir.h). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"
#include "launcher/scan/scan.h"
#include "test_path_at.h"

/* Test paths are short; PATH_MAX buffers are plenty. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static char base[] = "/tmp/paldron-scan-XXXXXX";
static char ws[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;
static struct pd_scan *scan;
static struct pd_findings found, warn;

/* The example policy's lists (allow_paths set per test). */
#define DENY "deny_globs = [\".env\", \".env.*\", \"*.pem\", \"**/secrets/**\"]\n"

static void put(const char *rel, const char *text)
{
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "fopen %s: %s", p, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void dir(const char *rel)
{
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s: %s", p, strerror(errno));
}

static const char *at(const char *rel)
{
    return test_path_at(ws, rel);
}

/* Set an old mtime (and atime): what `touch -d` or a copied file has. */
static void backdate(const char *rel, time_t ago)
{
    struct timespec t[2] = {{time(NULL) - ago, 0}, {time(NULL) - ago, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, at(rel), t, AT_SYMLINK_NOFOLLOW), 0);
}

static void load(const char *policy_text)
{
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, policy_text, "test.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
}

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    snprintf(ws, sizeof ws, "%s/ws", base);
    cr_assert_eq(mkdir(ws, 0755), 0);
    memset(&found, 0, sizeof found);
    memset(&warn, 0, sizeof warn);
    scan = NULL;
}

static void teardown(void)
{
    pd_scan_free(scan);
    pd_findings_free(&found);
    pd_findings_free(&warn);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    /* Never chmod or remove through a link: the tests plant links to
     * system files. pd_remove_below works on descriptors only. */
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
}

static void snapshot(bool degraded)
{
    scan = pd_scan_snapshot(&ctx, degraded, &warn);
    cr_assert_not_null(scan);
    pd_scan_fence(scan);
}

static void compare(void)
{
    pd_scan_compare(scan, &found, &warn);
    pd_findings_sort(&found);
}

static bool has(const char *fragment)
{
    for (size_t k = 0; k < found.n; k++)
        if (strstr(found.v[k].message, fragment))
            return true;
    return false;
}

static char *all(void)
{
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < found.n && n < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "[%s] ", found.v[k].message);
    return buf;
}

#define EXPECT(fragment) cr_expect(has(fragment), "missing '%s' in: %s", fragment, all())

TestSuite(scan, .init = setup, .fini = teardown);

/* A tree every test starts from. */
static void tree(void)
{
    dir("src");
    dir("src/sub");
    dir(".git");
    dir(".git/hooks");
    put("old.txt", "old");
    put("src/a.txt", "a");
    put("src/x.pem", "key");
    put(".env", "SECRET=1");
    put(".git/config", "[core]");
    put(".git/hooks/pre-commit.sample", "#!/bin/sh");
}

Test(scan, clean_run_has_no_finding)
{
    load("allow_paths = [\"src/\"]\n" DENY);
    tree();
    snapshot(false);
    put("src/a.txt", "changed"); /* allowed names may change */
    put("src/new.txt", "new");   /* and be created */
    dir("src/newdir");
    put("src/newdir/b.c", "int x;");
    unlink(at("src/sub/../a.txt"));
    compare();
    cr_expect_eq(found.n, 0, "unexpected: %s", all());
    cr_expect_eq(warn.n, 0);
}

Test(scan, created_secret_is_found)
{
    load("allow_paths = [\"src/\"]\n" DENY);
    tree();
    snapshot(false);
    put("src/.env", "x=1");
    compare();
    EXPECT("run produced src/.env (policy deny_glob) [deny_globs: .env]");
    cr_expect_eq(found.n, 1, "%s", all());
}

Test(scan, rename_of_an_old_file_is_found)
{
    /* mtime says "long before the run"; the original's scan missed it */
    load(DENY);
    tree();
    backdate("old.txt", 3600);
    snapshot(false);
    cr_assert_eq(rename(at("old.txt"), at("src/.env.local")), 0);
    backdate("src/.env.local", 3600);
    compare();
    EXPECT("run produced src/.env.local (policy deny_glob)");
}

Test(scan, hard_link_to_a_denied_name_is_found)
{
    load(DENY);
    tree();
    backdate("src/a.txt", 7200);
    snapshot(false);
    cr_assert_eq(link(at("src/a.txt"), at("src/sub/k.pem")), 0);
    compare();
    EXPECT("run produced src/sub/k.pem (policy deny_glob) [deny_globs: *.pem]");
}

Test(scan, modified_existing_secret_is_found)
{
    load(DENY);
    tree();
    snapshot(false);
    put("src/x.pem", "KEY"); /* same size, new content */
    backdate("src/x.pem", 86400);
    compare();
    EXPECT("run modified src/x.pem (policy deny_glob)");
}

Test(scan, untouched_existing_secret_is_not_a_finding)
{
    load(DENY);
    tree();
    snapshot(false);
    put("src/a.txt", "touched");
    compare();
    cr_expect_eq(found.n, 0, "%s", all());
}

Test(scan, git_hook_is_found)
{
    load(DENY);
    tree();
    snapshot(false);
    put(".git/hooks/pre-commit", "#!/bin/sh\ncurl evil");
    put(".git/config", "[core]\n\thooksPath = x");
    compare();
    EXPECT("run produced .git/hooks/pre-commit (protected)");
    EXPECT("run modified .git/config (protected)");
    cr_expect_eq(found.n, 2, "%s", all());
}

Test(scan, nested_repository_hooks_are_not_protected)
{
    /* git init inside src/ is everyday work: in a run, only the git
     * directories that existed at the start are protected (an empty list
     * here; policy/gate_git.c), and launcher/scan/scan_git.c judges the rest */
    load("allow_paths = [\"src/\"]\n" DENY);
    ctx.git_dirs_known = true;
    tree();
    snapshot(false);
    dir("src/repo");
    dir("src/repo/.git");
    dir("src/repo/.git/hooks");
    put("src/repo/.git/hooks/pre-commit.sample", "#!/bin/sh");
    put("src/repo/.git/config", "[core]");
    compare();
    cr_expect_eq(found.n, 0, "%s", all());
}

Test(scan, existing_nested_repository_config_is_protected)
{
    load("allow_paths = [\"src/\"]\n" DENY);
    tree();
    dir("src/old");
    dir("src/old/.git");
    put("src/old/.git/config", "[core]");
    ctx.git_dirs_known = true;
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, at("src/old/.git")), 0);
    snapshot(false);
    put("src/old/.git/config", "[core]\n\tfsmonitor = x\n");
    compare();
    cr_expect_eq(found.n, 1, "%s", all());
    cr_expect(strstr(all(), "run modified src/old/.git/config (protected)"), "%s", all());
}

Test(scan, new_directory_with_secret_inside_is_found)
{
    load(DENY);
    tree();
    snapshot(false);
    dir("src/a");
    dir("src/a/b");
    dir("src/a/b/secrets");
    put("src/a/b/secrets/token", "t");
    put("src/a/b/deep.pem", "k");
    compare();
    EXPECT("run produced src/a/b/secrets (policy deny_glob)");
    EXPECT("run produced src/a/b/secrets/token (policy deny_glob)");
    EXPECT("run produced src/a/b/deep.pem (policy deny_glob)");
    cr_expect_eq(found.n, 3, "%s", all());
}

Test(scan, touch_in_the_past_does_not_hide_a_write)
{
    load(DENY);
    tree();
    snapshot(false);
    put("src/sub/.env.prod", "x");
    backdate("src/sub/.env.prod", 10 * 365 * 86400);
    backdate("src/sub", 10 * 365 * 86400); /* and the directory's mtime */
    compare();
    EXPECT("run produced src/sub/.env.prod");
}

Test(scan, every_finding_is_reported_sorted)
{
    load(DENY);
    tree();
    snapshot(false);
    put("src/z.pem", "z");
    put("src/b.pem", "b");
    put("src/sub/.env", "e");
    compare();
    cr_assert_eq(found.n, 3, "%s", all());
    cr_expect_str_eq(found.v[0].path, "src/b.pem");
    cr_expect_str_eq(found.v[1].path, "src/sub/.env");
    cr_expect_str_eq(found.v[2].path, "src/z.pem");
}

Test(scan, removed_secret_is_found)
{
    load(DENY);
    tree();
    snapshot(false);
    cr_assert_eq(unlink(at("src/x.pem")), 0);
    compare();
    EXPECT("run removed src/x.pem (policy deny_glob)");
}

Test(scan, symlinks_are_judged_by_name_and_target)
{
    load(DENY);
    tree();
    snapshot(false);
    char outside[PD_PATH_MAX];
    snprintf(outside, sizeof outside, "%s/outside.txt", base);
    cr_assert_eq(symlink(outside, at("src/.env")), 0);       /* denied name */
    cr_assert_eq(symlink("../.env", at("src/innocent")), 0); /* denied target */
    cr_assert_eq(symlink(outside, at("src/python")), 0);     /* fine */
    compare();
    EXPECT("run produced src/.env (policy deny_glob)");
    EXPECT("run produced src/innocent (policy deny_glob)");
    cr_expect_eq(found.n, 2, "%s", all());
}

Test(scan, replaced_directory_is_rescanned)
{
    load(DENY);
    tree();
    snapshot(false);
    cr_assert_eq(rename(at("src/sub"), at("gone")), 0);
    dir("src/sub");
    put("src/sub/id_rsa", "k");
    compare();
    EXPECT("run produced src/sub/id_rsa (secret)");
}

Test(scan, directory_renamed_into_a_denied_name_is_found)
{
    load(DENY);
    tree();
    put("src/sub/token", "t");
    snapshot(false);
    cr_assert_eq(rename(at("src/sub"), at("src/secrets")), 0);
    compare();
    EXPECT("run produced src/secrets (policy deny_glob)");
    EXPECT("run produced src/secrets/token (policy deny_glob)");
}

Test(scan, unreadable_new_directory_fails_closed)
{
    load(DENY);
    tree();
    snapshot(false);
    dir("src/hide");
    put("src/hide/.env", "x");
    chmod(at("src/hide"), 0);
    compare();
    /* root reads it anyway and finds the file; anyone else cannot read
     * it, which is itself a finding */
    cr_expect(has("run produced src/hide/.env") || has("run left src/hide unreadable"), "%s",
              all());
}

Test(scan, workspace_entered_through_a_symlink_is_scanned)
{
    char link[PD_PATH_MAX], real[PD_PATH_MAX];
    snprintf(real, sizeof real, "%s", ws);
    snprintf(link, sizeof link, "%s/ws-link", base);
    cr_assert_eq(symlink(real, link), 0);
    snprintf(ws, sizeof ws, "%s", link); /* bind the policy to the link */
    load(DENY);
    snprintf(ws, sizeof ws, "%s", real);
    tree();
    snapshot(false);
    put(".env.local", "x");
    compare();
    EXPECT("run produced .env.local (policy deny_glob)");
}

Test(scan, degraded_mode_reports_writes_outside_allow_paths)
{
    load("allow_paths = [\"src/\"]\n" DENY);
    tree();
    put("notes.txt", "n");
    snapshot(true);
    put("canary.txt", "c");      /* created outside src/ */
    put("notes.txt", "changed"); /* modified outside src/ */
    put("src/fine.txt", "ok");   /* inside: fine */
    compare();
    EXPECT("run produced canary.txt (outside allow_paths)");
    EXPECT("run modified notes.txt (outside allow_paths)");
    cr_expect_eq(found.n, 2, "%s", all());
}

Test(scan, isolated_mode_leaves_scope_to_the_kernel)
{
    /* Landlock keeps the command out of the rest of the workspace; the
     * scan only looks for denied names there. */
    load("allow_paths = [\"src/\"]\n" DENY);
    tree();
    snapshot(false);
    put("canary.txt", "c");
    compare();
    cr_expect_eq(found.n, 0, "%s", all());
}

Test(scan, policy_file_in_the_workspace_is_protected)
{
    char text[PD_PATH_MAX];
    snprintf(text, sizeof text, "%s/policy.toml", ws);
    FILE *f = fopen(text, "w");
    cr_assert_not_null(f);
    fputs(DENY, f);
    fclose(f);
    struct pd_error err;
    cr_assert_eq(pd_policy_load(&pol, text, &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    snapshot(false);
    put("policy.toml", "deny_globs = []\n");
    compare();
    EXPECT("run modified policy.toml (protected) [the policy file in use]");
}

Test(scan, writable_root_outside_the_workspace_is_scanned)
{
    char outside[PD_PATH_MAX], text[PD_PATH_MAX * 2];
    snprintf(outside, sizeof outside, "%s/build", base);
    cr_assert_eq(mkdir(outside, 0755), 0);
    snprintf(text, sizeof text, "allow_paths = [\"%s\"]\n" DENY, outside);
    load(text);
    snapshot(false);
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s/server.key", outside);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fclose(f);
    compare();
    char want[PD_PATH_MAX + 64];
    snprintf(want, sizeof want, "run produced %s (secret)", p);
    EXPECT(want);
}

Test(scan, large_tree_costs_little)
{
    /* 200 directories x 50 files: the snapshot and an unchanged compare
     * together must stay far below the 100 000-file budget of bench/. */
    load("allow_paths = [\"src/\"]\n" DENY);
    dir("src");
    char rel[64];
    for (int d = 0; d < 200; d++) {
        snprintf(rel, sizeof rel, "src/d%d", d);
        dir(rel);
        for (int k = 0; k < 50; k++) {
            snprintf(rel, sizeof rel, "src/d%d/f%d.txt", d, k);
            put(rel, "x");
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snapshot(false);
    compare();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    cr_expect_eq(found.n, 0, "%s", all());
    cr_expect_eq(pd_scan_ndirs(scan), 202);
    cr_expect_lt(ms, 500.0, "10 000 files took %.1f ms", ms);
}

/* ---- the run directory -------------------------------------------------- */

Test(scan, rundir_removal_follows_no_link_and_copes_with_hostile_trees)
{
    struct pd_rundir rd;
    char err[PD_MSG_MAX];
    char victim[PD_PATH_MAX];
    cr_assert_eq(pd_rundir_create(&rd, base, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(rd.home, "reeve-sandbox-") != NULL);
    struct stat st;
    cr_assert_eq(stat(rd.path, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0700);

    /* a file outside that a link points to: must survive */
    snprintf(victim, sizeof victim, "%s/victim", base);
    FILE *f = fopen(victim, "w");
    cr_assert_not_null(f);
    fclose(f);
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s/link", rd.home);
    cr_assert_eq(symlink(victim, p), 0);
    snprintf(p, sizeof p, "%s/dirlink", rd.home);
    cr_assert_eq(symlink(base, p), 0);
    /* a deep chain (deeper than the remover recurses) */
    char deep[PD_PATH_MAX];
    size_t n = (size_t)snprintf(deep, sizeof deep, "%s", rd.home);
    for (int k = 0; k < 300 && n + 4 < sizeof deep; k++) {
        n += (size_t)snprintf(deep + n, sizeof deep - n, "/d%d", k % 10);
        cr_assert_eq(mkdir(deep, 0700), 0, "%s", strerror(errno));
    }
    /* directories without permissions */
    snprintf(p, sizeof p, "%s/locked", rd.home);
    cr_assert_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/locked/f", rd.home);
    f = fopen(p, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(p, sizeof p, "%s/locked", rd.home);
    chmod(p, 0);

    char path[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s", rd.path);
    cr_expect_eq(pd_rundir_remove(&rd, err, sizeof err), 0, "%s", err);
    cr_expect_neq(lstat(path, &st), 0, "run directory still there");
    cr_expect_eq(stat(victim, &st), 0, "a link was followed");
    cr_expect_eq(stat(base, &st), 0);
}
