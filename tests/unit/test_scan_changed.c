/* tests/unit/test_scan_changed.c - the files a run created or changed
 * (pd_scan_each_changed_file) and the post-run scan's handling of
 * directories its owner cannot read (issue 10, item 6). */
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

static char base[] = "/tmp/paldron-scanchg-XXXXXX";
static char ws[64];
static struct pd_policy pol;
static struct pd_ctx ctx;
static struct pd_scan *scan;
static struct pd_findings found, warn;

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

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    snprintf(ws, sizeof ws, "%s/ws", base);
    cr_assert_eq(mkdir(ws, 0755), 0);
    memset(&found, 0, sizeof found);
    memset(&warn, 0, sizeof warn);
    scan = NULL;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol,
                                       "allow_paths = [\"src/\"]\n"
                                       "deny_globs = [\".env\", \"**/secrets/**\"]\n",
                                       "test.toml", &err),
                 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
}

static void teardown(void)
{
    pd_scan_free(scan);
    pd_findings_free(&found);
    pd_findings_free(&warn);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
}

TestSuite(changed, .init = setup, .fini = teardown);

#define MAXSEEN 16
struct seen {
    char path[MAXSEEN][PD_PATH_MAX];
    int fd_ok[MAXSEEN];
    size_t n;
};

static void collect(const char *path, int fd, int err, const struct stat *st, void *user)
{
    (void)err;
    (void)st;
    struct seen *s = user;
    if (s->n < MAXSEEN) {
        snprintf(s->path[s->n], PD_PATH_MAX, "%s", path + strlen(ws) + 1);
        s->fd_ok[s->n] = fd >= 0;
        s->n++;
    }
}

static bool saw(const struct seen *s, const char *rel)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->path[k], rel) == 0)
            return true;
    return false;
}

/* Files older than the snapshot's second: what a workspace holds before. */
static void backdate(const char *rel)
{
    struct timespec t[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, at(rel), t, AT_SYMLINK_NOFOLLOW), 0);
}

/* ctime cannot be backdated: wait for the next second so that the files
 * laid out before the snapshot lie before its start. */
static void next_second(void)
{
    time_t t0 = time(NULL);
    while (time(NULL) == t0)
        usleep(10000);
}

Test(changed, created_modified_and_linked_files_are_listed)
{
    dir("src");
    dir("src/deep");
    put("src/keep.txt", "same");
    put("src/append.txt", "a");
    put("src/deep/in-place.txt", "x");
    put("outside.txt", "o");
    backdate("src/append.txt");
    next_second();
    scan = pd_scan_snapshot(&ctx, false, &warn);
    cr_assert_not_null(scan);
    pd_scan_fence(scan);

    put("src/new.txt", "new");
    FILE *f = fopen(at("src/append.txt"), "a");
    fputs("more", f);
    fclose(f);
    put("src/deep/in-place.txt", "y"); /* the directory's times do not move */
    cr_assert_eq(link(at("src/keep.txt"), at("src/deep/hard.txt")), 0);
    put("outside.txt", "changed"); /* not a writable root: an isolated run cannot */

    struct seen s = {0};
    size_t n = pd_scan_each_changed_file(scan, collect, &s);
    cr_expect(saw(&s, "src/new.txt"));
    cr_expect(saw(&s, "src/append.txt"));
    cr_expect(saw(&s, "src/deep/in-place.txt"));
    cr_expect(saw(&s, "src/deep/hard.txt"));
    cr_expect(saw(&s, "src/keep.txt"), "a new link moves the file's ctime");
    cr_expect(!saw(&s, "outside.txt"));
    cr_expect_eq(n, s.n);
    for (size_t k = 0; k < s.n; k++)
        cr_expect(s.fd_ok[k], "%s not opened", s.path[k]);
}

Test(changed, unchanged_files_are_not_listed)
{
    dir("src");
    put("src/a.txt", "a");
    next_second();
    scan = pd_scan_snapshot(&ctx, false, &warn);
    cr_assert_not_null(scan);
    struct seen s = {0};
    cr_expect_eq(pd_scan_each_changed_file(scan, collect, &s), 0);
}

Test(changed, degraded_mode_walks_the_whole_workspace)
{
    dir("src");
    next_second();
    scan = pd_scan_snapshot(&ctx, true, &warn);
    cr_assert_not_null(scan);
    put("outside.txt", "o");
    struct seen s = {0};
    pd_scan_each_changed_file(scan, collect, &s);
    cr_expect(saw(&s, "outside.txt"));
}

/* Item 6: a directory of the user's at mode 0100 is read by the scan (its
 * mode given back), so a secret name written below it is found. Needs a
 * user the permission bits apply to: root reads everything anyway. */
Test(changed, unreadable_directory_is_scanned_and_restored)
{
    if (geteuid() == 0)
        cr_skip_test("root reads a 0100 directory anyway");
    dir("src");
    dir("src/hide");
    dir("src/hide/sub");
    cr_assert_eq(chmod(at("src/hide"), 0100), 0);
    scan = pd_scan_snapshot(&ctx, false, &warn);
    cr_assert_not_null(scan);
    cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].message : "");
    struct stat st;
    cr_assert_eq(lstat(at("src/hide"), &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0100, "mode put back after the snapshot");
    pd_scan_fence(scan);
    put("src/hide/sub/.env", "x");
    pd_scan_compare(scan, &found, &warn);
    bool hit = false;
    for (size_t k = 0; k < found.n; k++)
        hit = hit || strstr(found.v[k].message, "run produced src/hide/sub/.env") != NULL;
    cr_expect(hit, "the secret below the 0100 directory is found");
    cr_assert_eq(lstat(at("src/hide"), &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0100, "mode put back after the compare");
    chmod(at("src/hide"), 0755);
}
