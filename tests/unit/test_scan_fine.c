/* tests/unit/test_scan_fine.c - the run starts without the clock fence where
 * every scanned file system stamps each change after a read anew
 * (launcher/scan/scan_fine.c), and what the run changes in the very tick of
 * the snapshot is still seen (issue 15, item 5). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"
#include "launcher/scan/scan_int.h"
#include "test_path_at.h"

static char base[] = "/tmp/paldron-scanfine-XXXXXX";
static char ws[64], home[64];
static struct pd_policy pol;
static struct pd_ctx ctx;
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

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    snprintf(ws, sizeof ws, "%s/ws", base);
    snprintf(home, sizeof home, "%s/home", base);
    cr_assert_eq(mkdir(ws, 0755), 0);
    cr_assert_eq(mkdir(home, 0700), 0);
    cr_assert_eq(mkdir(at("src"), 0755), 0);
    memset(&found, 0, sizeof found);
    memset(&warn, 0, sizeof warn);
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, "allow_paths = [\"src/\"]\ndeny_globs = [\".env\"]\n",
                                       "test.toml", &err),
                 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
}

static void teardown(void)
{
    pd_findings_free(&found);
    pd_findings_free(&warn);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
}

TestSuite(fine, .init = setup, .fini = teardown);

/* Multigrain timestamps came with Linux 6.13 (ext4, xfs, btrfs, tmpfs). */
static bool kernel_has_multigrain(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    cr_assert_eq(uname(&u), 0);
    cr_assert_eq(sscanf(u.release, "%d.%d", &major, &minor), 2, "release %s", u.release);
    return major > 6 || (major == 6 && minor >= 13);
}

Test(fine, a_memfd_shows_fine_grained_times_exactly_when_the_kernel_has_them)
{
    int fd = memfd_create("test", MFD_CLOEXEC);
    cr_assert_geq(fd, 0);
    struct timespec last = {0, 0};
    bool fine = pd_fine_probe_fd(fd, &last);
    cr_assert_eq(fine, kernel_has_multigrain(), "probe says %d", fine);
    if (fine)
        cr_assert_gt(last.tv_sec, 0);
    close(fd);
}

/* ramfs stamps changes with the clock's tick alone: the probe must not take
 * it for fine-grained (mounted in a private mount namespace, root only). */
Test(fine, a_file_system_stamped_by_the_tick_is_not_taken_for_fine_grained)
{
    if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0) {
        printf("SKIP: mounting ramfs needs root (and a mount namespace): %s\n", strerror(errno));
        return;
    }
    cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
    cr_assert_eq(mount("ramfs", home, "ramfs", 0, NULL), 0, "%s", strerror(errno));
    char p[128];
    snprintf(p, sizeof p, "%s/probe", home);
    for (int k = 0; k < 20; k++) {
        int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0);
        struct timespec last;
        cr_assert_not(pd_fine_probe_fd(fd, &last), "ramfs seen as fine-grained (try %d)", k);
        close(fd);
    }
    /* a snapshot whose probe directory is on ramfs keeps the fence (when
     * the workspace is not on tmpfs, which a memfd proves) */
    struct statfs sf;
    cr_assert_eq(statfs(ws, &sf), 0);
    if (sf.f_type == TMPFS_MAGIC) {
        printf("SKIP: the workspace is on tmpfs: a memfd proves its times\n");
        return;
    }
    snprintf(ctx.temp_home, sizeof ctx.temp_home, "%s", home);
    struct pd_scan *s = pd_scan_snapshot(&ctx, false, &warn);
    cr_assert_not_null(s);
    cr_assert_not(s->fine, "the workspace's file system was not observed; no fence is wrong");
    pd_scan_free(s);
}

static bool has(const char *fragment)
{
    for (size_t k = 0; k < found.n; k++)
        if (strstr(found.v[k].message, fragment))
            return true;
    return false;
}

struct seen {
    bool in_place, before;
};

static void collect(const char *path, int fd, int err, const struct stat *st, void *user)
{
    (void)fd;
    (void)err;
    (void)st;
    struct seen *s = user;
    if (strstr(path, "/src/in-place.txt"))
        s->in_place = true;
    if (strstr(path, "/src/before.txt"))
        s->before = true;
}

static bool same_tick(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The escape the fence was there for: a directory changed just before the
 * snapshot, changed again by the run in the same tick. Without the fence,
 * many times over, so that many of the changes fall in the snapshot's tick
 * (counted: the test fails if none did). */
Test(fine, changes_in_the_snapshots_own_tick_are_seen_without_the_fence)
{
    snprintf(ctx.temp_home, sizeof ctx.temp_home, "%s", home);
    put("src/in-place.txt", "0");
    int ticks_shared = 0, unsure = 0;
    const int rounds = 200;
    for (int k = 0; k < rounds; k++) {
        char d[64], env[80];
        snprintf(d, sizeof d, "src/d%03d", k);
        snprintf(env, sizeof env, "%s/.env", d);
        cr_assert_eq(mkdir(at(d), 0755), 0);
        put("src/before.txt", "written just before the snapshot");
        struct timespec t0, t1;
        clock_gettime(CLOCK_REALTIME_COARSE, &t0);
        struct pd_scan *s = pd_scan_snapshot(&ctx, false, &warn);
        cr_assert_not_null(s);
        if (!kernel_has_multigrain()) {
            cr_assert_not(s->fine);
            printf("SKIP: the kernel has no multigrain timestamps: the fence stays\n");
            pd_scan_free(s);
            return;
        }
        struct pd_fence f;
        pd_scan_fence_target(s, &f);
        if (!s->fine) {
            /* a probe the scheduler kept interrupting (a loaded machine):
             * the fence stays, as it must */
            cr_assert_neq(f.after.tv_sec, 0, "round %d: neither fine times nor a fence", k);
            pd_fence_wait(&f);
            unsure++;
        } else {
            cr_assert_eq(f.after.tv_sec, 0, "fine-grained times need no fence");
        }
        /* the run: no wait */
        put(env, "SECRET=1");
        put("src/in-place.txt", k % 2 ? "1" : "2");
        clock_gettime(CLOCK_REALTIME_COARSE, &t1);
        if (s->fine && same_tick(&t0, &t1))
            ticks_shared++;
        pd_scan_compare(s, &found, &warn);
        cr_assert(has(".env"), "round %d: the new %s was not seen", k, env);
        struct seen seen = {false, false};
        pd_scan_each_changed_file(s, collect, &seen);
        cr_assert(seen.in_place, "round %d: the file written in place was not seen", k);
        cr_assert_not(seen.before, "round %d: a file written before the snapshot counted", k);
        pd_scan_free(s);
        pd_findings_free(&found);
        memset(&found, 0, sizeof found);
        cr_assert_eq(unlink(at(env)), 0);
    }
    cr_assert_lt(unsure, rounds / 2, "%d of %d probes were interrupted", unsure, rounds);
    cr_assert_gt(ticks_shared, 0, "no round fell within the snapshot's tick: nothing was tested");
    printf("%d of %d rounds changed the workspace within the snapshot's tick\n", ticks_shared,
           rounds);
}
