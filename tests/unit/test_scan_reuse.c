/* tests/unit/test_scan_reuse.c - directory listings kept between runs
 * (launcher/scan/scan_reuse.c): a snapshot that reuses them records exactly
 * what a full walk records, whatever changed between the runs; a damaged,
 * foreign or reachable file means a full walk. Directories are only kept
 * when their ctime is two seconds old, so each test waits that long once
 * after building its tree (a wait, not a timed assertion). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/exec/rundir.h"
#include "launcher/scan/scan.h"
#include "test_path_at.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static char base[] = "/tmp/paldron-reuse-XXXXXX";
static char ws[PD_PATH_MAX], snapfile[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool loaded;

#define DENY "deny_globs = [\".env\", \".env.*\", \"*.pem\", \"**/secrets/**\"]\n"

static const char *at(const char *rel)
{
    return test_path_at(ws, rel);
}

static void put(const char *rel, const char *text)
{
    FILE *f = fopen(at(rel), "w");
    cr_assert_not_null(f, "fopen %s: %s", rel, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void dir(const char *rel)
{
    cr_assert_eq(mkdir(at(rel), 0755), 0, "mkdir %s: %s", rel, strerror(errno));
}

static void load(const char *policy_text)
{
    struct pd_error err;
    if (loaded) {
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
    }
    cr_assert_eq(pd_policy_load_string(&pol, policy_text, "test.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
    loaded = true;
}

static void setup(void)
{
    char cache[PD_PATH_MAX], err[256];
    cr_assert_not_null(mkdtemp(base));
    snprintf(ws, sizeof ws, "%s/ws", base);
    cr_assert_eq(mkdir(ws, 0755), 0);
    snprintf(cache, sizeof cache, "%s/cache", base);
    setenv("XDG_CACHE_HOME", cache, 1);
    cr_assert_eq(pd_cache_prepare(ws, snapfile, sizeof snapfile, err, sizeof err), 0, "%s", err);
    strcat(snapfile, ".snap");
}

static void teardown(void)
{
    if (loaded) {
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        loaded = false;
    }
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
}

TestSuite(reuse, .init = setup, .fini = teardown);

/* Every directory is kept only once its ctime is SETTLED (2 s) old. */
static void settle(void)
{
    struct timespec t = {2, 200000000};
    nanosleep(&t, NULL);
}

static void tree(void)
{
    dir("src");
    dir("src/a");
    dir("src/a/deep");
    dir("src/b");
    dir("docs");
    dir("secrets");
    dir(".git");
    dir(".git/hooks");
    put("src/a/one.c", "x");
    put("src/a/key.pem", "k");
    put("src/a/deep/two.c", "y");
    put("src/b/three.c", "z");
    put("docs/readme", "r");
    put("secrets/token", "t");
    put(".env", "API_KEY=abcdefabcdef\n");
    put(".git/HEAD", "ref: refs/heads/main\n");
    cr_assert_eq(symlink("a/key.pem", at("src/link")), 0);
}

/* What a snapshot recorded, as one comparable text. */
static char text[65536];
static size_t tlen;

static void add_path(const char *path, void *user)
{
    (void)user;
    tlen += (size_t)snprintf(text + tlen, sizeof text - tlen, "%s\n", path);
}

static const char *record(const struct pd_scan *s)
{
    tlen = (size_t)snprintf(text, sizeof text, "dirs %zu files %zu\n", pd_scan_ndirs(s),
                            pd_scan_nfiles(s));
    pd_scan_each_denied_file(s, add_path, NULL);
    tlen += (size_t)snprintf(text + tlen, sizeof text - tlen, "tops\n");
    pd_scan_each_denied_top(s, add_path, NULL);
    return text;
}

/* A snapshot without listings from the last run. */
static char *full_walk(void)
{
    struct pd_findings warn = {0};
    struct pd_scan *s = pd_scan_snapshot(&ctx, false, &warn);
    cr_assert_not_null(s);
    char *out = strdup(record(s));
    pd_scan_free(s);
    pd_findings_free(&warn);
    return out;
}

/* A snapshot of an isolated run with the kept listings (which it keeps
 * again); its record must be the full walk's. Returns how many
 * directories came from the file. */
static size_t reuse_walk(void)
{
    char *want = full_walk();
    struct pd_findings warn = {0};
    struct pd_scan_reuse *r = pd_scan_reuse_open(&ctx, true);
    cr_assert_not_null(r);
    struct pd_scan *s = pd_scan_snapshot_reusing(&ctx, false, r, &warn);
    cr_assert_not_null(s);
    cr_expect_str_eq(record(s), want);
    size_t hits = pd_scan_reuse_hits(r);
    pd_scan_free(s);
    pd_scan_reuse_free(r);
    pd_findings_free(&warn);
    free(want);
    return hits;
}

static size_t ndirs(void)
{
    struct pd_findings warn = {0};
    struct pd_scan *s = pd_scan_snapshot(&ctx, false, &warn);
    size_t n = pd_scan_ndirs(s);
    pd_scan_free(s);
    pd_findings_free(&warn);
    return n;
}

Test(reuse, listings_are_reused_and_match_a_full_walk)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    cr_expect_eq(reuse_walk(), 0, "no file yet");
    cr_assert_eq(access(snapfile, F_OK), 0, "the first run keeps its listings");
    cr_expect_eq(reuse_walk(), ndirs(), "every directory from the file");
}

Test(reuse, changes_made_between_runs_are_seen)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    reuse_walk();
    /* outside Paldron: a new secret in a known directory, one changed in
     * place, one removed, a directory renamed, a new one with a key */
    put("src/b/.env", "NEW=1\n");
    put("src/a/key.pem", "changed in place");
    cr_assert_eq(unlink(at("secrets/token")), 0);
    cr_assert_eq(rename(at("src/a/deep"), at("src/a/moved")), 0);
    dir("src/c");
    put("src/c/id.pem", "k");
    size_t hits = reuse_walk(); /* equal to the full walk: checked inside */
    cr_expect_gt(hits, 0, "the unchanged directories still come from the file");
    cr_expect_lt(hits, ndirs(), "the changed ones are read");
}

Test(reuse, a_secret_added_in_place_after_reuse_is_found)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    reuse_walk();
    put("src/b/.env", "NEW=1\n"); /* outside Paldron, between runs */
    settle();
    reuse_walk(); /* src/b read again and kept with its .env */
    struct pd_findings found = {0}, warn = {0};
    struct pd_scan_reuse *r = pd_scan_reuse_open(&ctx, true);
    struct pd_scan *s = pd_scan_snapshot_reusing(&ctx, false, r, &warn);
    cr_assert_not_null(s);
    cr_expect_eq(pd_scan_reuse_hits(r), ndirs());
    pd_scan_fence(s);
    put("src/b/.env", "NEW=2, the run's\n"); /* the run, in place */
    pd_scan_compare(s, &found, &warn);
    cr_expect_eq(found.n, 1);
    cr_expect(found.n == 1 && strstr(found.v[0].message, "run modified src/b/.env"), "%s",
              found.n ? found.v[0].message : "(none)");
    pd_scan_free(s);
    pd_scan_reuse_free(r);
    pd_findings_free(&found);
    pd_findings_free(&warn);
}

static void damage(off_t at_off, int how)
{
    int fd = open(snapfile, O_RDWR);
    cr_assert(fd >= 0, "%s: %s", snapfile, strerror(errno));
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    unsigned char c;
    if (how == 0) { /* flip a byte */
        cr_assert_eq(pread(fd, &c, 1, at_off), 1);
        c ^= 0x20;
        cr_assert_eq(pwrite(fd, &c, 1, at_off), 1);
    } else if (how == 1) { /* cut */
        cr_assert_eq(ftruncate(fd, at_off), 0);
    } else { /* one byte more */
        c = 0;
        cr_assert_eq(pwrite(fd, &c, 1, st.st_size), 1);
    }
    close(fd);
}

Test(reuse, damaged_file_means_a_full_walk)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    reuse_walk();
    struct stat st;
    cr_assert_eq(stat(snapfile, &st), 0);
    const off_t spots[] = {0, 9, 20, 60, 100, st.st_size / 2, st.st_size - 1};
    for (size_t k = 0; k < sizeof spots / sizeof spots[0]; k++) {
        damage(spots[k], 0);
        cr_expect_eq(reuse_walk(), 0, "byte %lld flipped", (long long)spots[k]);
        cr_expect_eq(reuse_walk(), ndirs(), "a good file was written again");
    }
    damage(st.st_size / 2, 1);
    cr_expect_eq(reuse_walk(), 0, "cut short");
    damage(0, 2);
    cr_expect_eq(reuse_walk(), 0, "one byte more");
    damage(0, 1);
    cr_expect_eq(reuse_walk(), 0, "empty");
    cr_expect_eq(reuse_walk(), ndirs());
}

Test(reuse, a_file_someone_else_could_write_is_ignored)
{
    char other[PD_PATH_MAX + 8];
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    reuse_walk();
    cr_assert_eq(chmod(snapfile, 0620), 0);
    cr_expect_eq(reuse_walk(), 0, "group-writable");
    snprintf(other, sizeof other, "%s.lnk", snapfile);
    cr_assert_eq(link(snapfile, other), 0);
    cr_expect_eq(reuse_walk(), 0, "a second name");
    /* the file written again by that run: move it aside, link to it */
    cr_assert_eq(rename(snapfile, other), 0);
    cr_assert_eq(symlink(other, snapfile), 0);
    cr_expect_eq(reuse_walk(), 0, "a symbolic link");
}

Test(reuse, another_policy_means_a_full_walk)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    reuse_walk();
    cr_expect_eq(reuse_walk(), ndirs());
    load("allow_paths = [\"src/\"]\ndeny_globs = [\"*.c\"]\n");
    cr_expect_eq(reuse_walk(), 0, "other patterns decide the kept names");
    cr_expect_eq(reuse_walk(), ndirs());
}

Test(reuse, young_directories_are_read_every_time)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    dir("src/new"); /* src and src/new changed within the last two seconds */
    reuse_walk();
    cr_expect_eq(reuse_walk(), ndirs() - 2);
}

Test(reuse, a_run_that_could_write_the_file_removes_it)
{
    tree();
    load("allow_paths = [\"src/\"]\n" DENY);
    settle();
    reuse_walk();
    cr_assert_eq(access(snapfile, F_OK), 0);
    /* not isolated: nothing keeps the command out of ~/.cache/paldron */
    struct pd_findings found = {0}, warn = {0};
    struct pd_scan_reuse *r = pd_scan_reuse_open(&ctx, false);
    cr_expect_neq(access(snapfile, F_OK), 0, "removed before the run");
    struct pd_scan *s = pd_scan_snapshot_reusing(&ctx, true, r, &warn);
    cr_expect_eq(pd_scan_reuse_hits(r), 0);
    cr_expect_neq(access(snapfile, F_OK), 0, "not written");
    put("../cache/paldron/forged", "");
    cr_assert_eq(rename(at("../cache/paldron/forged"), snapfile), 0); /* the run */
    pd_scan_compare(s, &found, &warn);
    cr_expect_neq(access(snapfile, F_OK), 0, "removed after the run");
    pd_scan_free(s);
    pd_scan_reuse_free(r);
    pd_findings_free(&found);
    pd_findings_free(&warn);
    /* isolated, with a writable root that covers the file */
    reuse_walk();
    cr_assert_eq(access(snapfile, F_OK), 0);
    char cache[PD_PATH_MAX];
    snprintf(cache, sizeof cache, "%s/cache", base);
    cr_assert_eq(pd_ctx_add_root(&ctx, cache), 0);
    cr_expect_eq(reuse_walk(), 0);
    cr_expect_neq(access(snapfile, F_OK), 0, "removed");
}
