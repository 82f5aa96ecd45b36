/* tests/unit/test_scan_watch.c - the post-run search of changed files with
 * the kernel's change notification (launcher/scan/scan_watch.c): every change
 * the walk of every directory finds is found from the events, only the
 * directories with events are read, and whatever makes the events
 * incomplete falls back to the walk. pd_scan_watch_min is 0 here, so that
 * small trees are watched. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"
#include "launcher/scan/scan.h"
#include "launcher/scan/scan_int.h"
#include "test_path_at.h"

static char base[] = "/tmp/paldron-scanwatch-XXXXXX";
static char ws[64];
static struct pd_policy pol;
static struct pd_ctx ctx;
static struct pd_scan *scan;
static struct pd_findings warn;

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

static void load(const char *policy)
{
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, policy, "test.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
}

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    snprintf(ws, sizeof ws, "%s/ws", base);
    cr_assert_eq(mkdir(ws, 0755), 0);
    memset(&warn, 0, sizeof warn);
    scan = NULL;
    pd_scan_watch_min = 0;
}

static void teardown(void)
{
    pd_scan_free(scan);
    pd_findings_free(&warn);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
}

TestSuite(watch, .init = setup, .fini = teardown);

#define MAXSEEN 64
struct seen {
    char path[MAXSEEN][PD_PATH_MAX];
    size_t n;
};

static void collect(const char *path, int fd, int err, const struct stat *st, void *user)
{
    (void)fd;
    (void)err;
    (void)st;
    struct seen *s = user;
    if (s->n < MAXSEEN)
        snprintf(s->path[s->n++], PD_PATH_MAX, "%s", path + strlen(ws) + 1);
}

static bool saw(const struct seen *s, const char *rel)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->path[k], rel) == 0)
            return true;
    return false;
}

/* ctime cannot be backdated: wait for the next second so that the files
 * laid out before the snapshot lie before its start. */
static void next_second(void)
{
    time_t t0 = time(NULL);
    while (time(NULL) == t0)
        usleep(10000);
}

static void snapshot(void)
{
    next_second();
    scan = pd_scan_snapshot(&ctx, false, &warn);
    cr_assert_not_null(scan);
    pd_scan_fence(scan);
}

/* Twenty directories nobody touches: the search must not read them. */
static void quiet_tree(void)
{
    dir("src/quiet");
    for (int k = 0; k < 20; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "src/quiet/d%02d", k);
        dir(rel);
        snprintf(rel, sizeof rel, "src/quiet/d%02d/f", k);
        put(rel, "x");
    }
}

/* Every kind of change a run can make, found from the events (watched) or
 * by reading every directory: the same files either way. */
static void every_kind_of_change(bool watched)
{
    if (!watched)
        pd_scan_watch_min = 1000000;
    load("allow_paths = [\"src/\"]\n");
    dir("src");
    dir("src/deep");
    dir("src/moved");
    quiet_tree();
    put("src/keep.txt", "same");
    put("src/append.txt", "a");
    put("src/deep/in-place.txt", "x");
    put("src/deep/mapped.txt", "0123456789");
    put("src/deep/trunc.txt", "long content");
    put("src/deep/mode.txt", "m");
    put("src/moved/inside.txt", "i");
    put("from-outside.txt", "o");
    put("outside.txt", "o");
    snapshot();
    cr_assert_eq(pd_watch_usable(scan->watch), watched);

    put("src/new.txt", "new");
    FILE *f = fopen(at("src/append.txt"), "a");
    fputs("more", f);
    fclose(f);
    put("src/deep/in-place.txt", "y"); /* the directory's times do not move */
    cr_assert_eq(link(at("src/keep.txt"), at("src/deep/hard.txt")), 0);
    /* a shared mapping, written after the descriptor is closed */
    int fd = open(at("src/deep/mapped.txt"), O_RDWR);
    cr_assert_geq(fd, 0);
    char *m = mmap(NULL, 10, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    cr_assert_neq(m, MAP_FAILED);
    close(fd);
    memcpy(m, "abcdefghij", 10);
    cr_assert_eq(msync(m, 10, MS_SYNC), 0);
    munmap(m, 10);
    cr_assert_eq(truncate(at("src/deep/trunc.txt"), 2), 0);
    cr_assert_eq(chmod(at("src/deep/mode.txt"), 0600), 0);
    /* into the root from the workspace; a directory renamed; a new one */
    cr_assert_eq(rename(at("from-outside.txt"), at("src/arrived.txt")), 0);
    cr_assert_eq(rename(at("src/moved"), at("src/renamed")), 0);
    dir("src/fresh");
    dir("src/fresh/sub");
    put("src/fresh/sub/born.txt", "b");
    put("src/gone.txt", "g");
    cr_assert_eq(unlink(at("src/gone.txt")), 0);
    put("outside.txt", "changed"); /* not a writable root: an isolated run cannot */

    struct seen s = {0};
    size_t n = pd_scan_each_changed_file(scan, collect, &s);
    cr_expect_eq(pd_scan_changed_last.watched, watched);
    const char *want[] = {"src/new.txt",
                          "src/append.txt",
                          "src/deep/in-place.txt",
                          "src/deep/hard.txt",
                          "src/deep/mapped.txt",
                          "src/deep/trunc.txt",
                          "src/deep/mode.txt",
                          "src/arrived.txt",
                          "src/fresh/sub/born.txt",
                          NULL};
    for (size_t k = 0; want[k]; k++)
        cr_expect(saw(&s, want[k]), "%s not found", want[k]);
    /* the old name of a new link: the link count is an event of the inode
     * alone (no directory hears it), so the events list the file by its
     * new name only - the same file, the same content */
    cr_expect(watched ? !saw(&s, "src/keep.txt") : saw(&s, "src/keep.txt"));
    cr_expect(!saw(&s, "outside.txt"));
    cr_expect(!saw(&s, "src/gone.txt"));
    /* a file in a renamed directory keeps its ctime: not the run's */
    cr_expect(!saw(&s, "src/renamed/inside.txt"));
    cr_expect_eq(n, s.n);
    cr_expect_eq(n, watched ? 9 : 10, "%zu files", n);
    /* src, src/deep, src/renamed, src/fresh and src/fresh/sub: not the
     * twenty quiet ones */
    if (watched)
        cr_expect_leq(pd_scan_changed_last.dirs, 6, "%zu directories read",
                      pd_scan_changed_last.dirs);
}

Test(watch, every_kind_of_change_is_found_from_the_events)
{
    every_kind_of_change(true);
}

Test(watch, every_kind_of_change_is_found_by_the_walk)
{
    every_kind_of_change(false);
}

Test(watch, no_change_reads_no_directory)
{
    load("allow_paths = [\"src/\"]\n");
    dir("src");
    quiet_tree();
    snapshot();
    struct seen s = {0};
    cr_expect_eq(pd_scan_each_changed_file(scan, collect, &s), 0);
    cr_expect(pd_scan_changed_last.watched);
    cr_expect_eq(pd_scan_changed_last.dirs, 0);
}

Test(watch, below_the_threshold_every_directory_is_read)
{
    pd_scan_watch_min = 1000000;
    load("allow_paths = [\"src/\"]\n");
    dir("src");
    quiet_tree();
    snapshot();
    cr_expect_null(scan->watch);
    put("src/quiet/d03/f", "changed");
    struct seen s = {0};
    cr_expect_eq(pd_scan_each_changed_file(scan, collect, &s), 1);
    cr_expect(saw(&s, "src/quiet/d03/f"));
    cr_expect(!pd_scan_changed_last.watched);
    cr_expect_geq(pd_scan_changed_last.dirs, 22);
}

/* More events than the kernel queues (max_queued_events, 16384 by
 * default): the queue overflows and every directory is read. */
Test(watch, an_overflowing_queue_falls_back_to_the_walk, .timeout = 120)
{
    load("allow_paths = [\"src/\"]\n");
    dir("src");
    snapshot();
    FILE *q = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
    long max = 16384;
    if (q) {
        if (fscanf(q, "%ld", &max) != 1)
            max = 16384;
        fclose(q);
    }
    long files = max / 2 + 100; /* two events each: create, close-write */
    char rel[64];
    for (long k = 0; k < files; k++) {
        snprintf(rel, sizeof rel, "src/f%06ld", k);
        put(rel, "x");
    }
    struct seen s = {0};
    size_t n = pd_scan_each_changed_file(scan, collect, &s);
    cr_expect(!pd_scan_changed_last.watched, "the overflow is seen");
    cr_expect_eq(n, (size_t)files);
}

/* A writable root that did not exist at the snapshot has no watch: what
 * the run put in it is found all the same. */
Test(watch, a_root_made_by_the_run_is_walked)
{
    load("allow_paths = [\"src/\", \"build/\"]\n");
    dir("src");
    quiet_tree();
    snapshot();
    dir("build");
    dir("build/obj");
    put("build/obj/a.o", "o");
    struct seen s = {0};
    pd_scan_each_changed_file(scan, collect, &s);
    cr_expect(pd_scan_changed_last.watched);
    cr_expect(saw(&s, "build/obj/a.o"));
}

/* Degraded mode walks every tree, never from a watch. */
Test(watch, degraded_mode_is_never_watched)
{
    load("allow_paths = [\"src/\"]\n");
    dir("src");
    next_second();
    scan = pd_scan_snapshot(&ctx, true, &warn);
    cr_assert_not_null(scan);
    cr_expect_null(scan->watch);
    put("outside.txt", "o");
    struct seen s = {0};
    pd_scan_each_changed_file(scan, collect, &s);
    cr_expect(saw(&s, "outside.txt"));
    cr_expect(!pd_scan_changed_last.watched);
}
