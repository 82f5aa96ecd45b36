/* launcher/scan/scan_fine.c - may the run begin without waiting for the
 * clock's next tick (pd_scan_fence)?
 *
 * The fence exists because a file system stamps a change with the clock's
 * last tick (4 ms at HZ=250): a change the run made in the tick the snapshot
 * was taken in could carry a ctime the snapshot had already recorded, and
 * pass unseen. The multigrain timestamps of Linux 6.13 and later
 * (Documentation/filesystems/multigrain-ts.rst) take both halves of that
 * away on the file systems that opt in:
 *  - once a process has read an inode's ctime, its next change gets a
 *    fine-grained time, later than the one read: every directory and file
 *    the walks before the run stat-ed moves on its next change;
 *  - no change gets a time earlier than the latest fine-grained time handed
 *    out (the floor, one for the whole machine): once the probe below has
 *    taken one, every later change on those file systems has a ctime not
 *    before it, and a change made before has an earlier one. So "changed by
 *    the run" is "ctime not before that stamp" (scan_changed.c).
 *
 * Whether a file system does this is a property of the running kernel and
 * of the mounted type, so it is observed, never assumed from a version or a
 * name: on each run, on a file of ours on the same device as each scanned
 * tree (an unnamed O_TMPFILE file, in no directory, so no listing moves: in
 * the run's temp home and in the cache base), its ctime is read and then
 * changed three times within a fraction of a tick. A file system stamped by
 * the tick alone cannot move it three times. tmpfs is observed on a memfd
 * (same type, so the same stamping). A tree on a device with no file of
 * ours, a probe that fails or is interrupted, and the run keeps the fence.
 *
 * What remains, beside what the fence left (a process outside Paldron that
 * changes the trees while the snapshot is taken is counted as the run): an
 * inode pushed out of memory between its stat and the run's change forgets
 * that it was read; only a change within the tick of its previous one
 * could then repeat its ctime, i.e. reclaim within a few milliseconds. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "launcher/scan/scan_int.h"

#define CHANGES     3
#define PROBE_MAXNS 500000L /* an eighth of a 250 Hz tick: longer, and it proves nothing */
#define MAX_DEVS    4

struct proof {
    dev_t devs[MAX_DEVS]; /* devices whose stamping was observed */
    size_t ndevs;
    bool tmpfs;            /* tmpfs was observed */
    struct timespec since; /* the latest stamp the probes took */
};

static long elapsed_ns(const struct timespec *a, const struct timespec *b)
{
    return (long)(b->tv_sec - a->tv_sec) * 1000000000L + (b->tv_nsec - a->tv_nsec);
}

enum probe_result { PROBE_FINE, PROBE_COARSE, PROBE_UNSURE };

/* Read fd's ctime, change it, read it again, CHANGES times. */
static enum probe_result probe_once(int fd, struct timespec *last)
{
    struct stat st;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (fstat(fd, &st) != 0)
        return PROBE_COARSE;
    struct timespec prev = st.st_ctim;
    for (off_t k = 1; k <= CHANGES; k++) {
        if (ftruncate(fd, k) != 0 || fstat(fd, &st) != 0)
            return PROBE_COARSE;
        if (!pd_ts_later(&st.st_ctim, &prev))
            return PROBE_COARSE; /* a change within the tick kept the time */
        prev = st.st_ctim;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (elapsed_ns(&t0, &t1) > PROBE_MAXNS)
        return PROBE_UNSURE; /* descheduled: a tick may have passed between the changes */
    *last = prev;
    return PROBE_FINE;
}

/* True when each change moved the time, quickly enough that no tick can
 * account for it; a probe the scheduler interrupted is made again. */
bool pd_fine_probe_fd(int fd, struct timespec *last)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        enum probe_result r = probe_once(fd, last);
        if (r != PROBE_UNSURE)
            return r == PROBE_FINE;
    }
    return false;
}

static void keep_stamp(struct proof *p, const struct timespec *t)
{
    if (pd_ts_later(t, &p->since))
        p->since = *t;
}

/* An unnamed file in dirfd's file system. */
static void probe_dir(struct proof *p, int dirfd)
{
    struct stat st;
    if (dirfd < 0 || fstat(dirfd, &st) != 0 || p->ndevs == MAX_DEVS)
        return;
    for (size_t k = 0; k < p->ndevs; k++)
        if (p->devs[k] == st.st_dev)
            return;
    int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    struct timespec t;
    if (pd_fine_probe_fd(fd, &t)) {
        p->devs[p->ndevs++] = st.st_dev;
        keep_stamp(p, &t);
    }
    close(fd);
}

static void probe_tmpfs(struct proof *p)
{
    int fd = memfd_create("paldron-clock", MFD_CLOEXEC);
    if (fd < 0)
        return;
    struct statfs sf;
    struct timespec t;
    if (fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC && pd_fine_probe_fd(fd, &t)) {
        p->tmpfs = true;
        keep_stamp(p, &t);
    }
    close(fd);
}

/* The device a tree is on, or will be on when the run creates it. */
static bool tree_fs(const char *path, dev_t *dev, long *type)
{
    char up[PD_PATH_MAX];
    if (snprintf(up, sizeof up, "%s", path) >= (int)sizeof up)
        return false;
    for (;;) {
        struct stat st;
        struct statfs sf;
        if (lstat(up, &st) == 0) {
            if (statfs(up, &sf) != 0)
                return false;
            *dev = st.st_dev;
            *type = (long)sf.f_type;
            return true;
        }
        char *slash = strrchr(up, '/');
        if (errno != ENOENT || !slash || slash == up)
            return false;
        *slash = '\0';
    }
}

static bool proven(const struct proof *p, const char *path)
{
    dev_t dev;
    long type;
    if (!tree_fs(path, &dev, &type))
        return false;
    if (type == TMPFS_MAGIC)
        return p->tmpfs;
    for (size_t k = 0; k < p->ndevs; k++)
        if (p->devs[k] == dev)
            return true;
    return false;
}

static bool prove(const struct pd_scan *s, struct timespec *since, const char **why)
{
    struct proof p = {.ndevs = 0};
    if (s->ctx->temp_home[0]) {
        int fd = open(s->ctx->temp_home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        probe_dir(&p, fd);
        if (fd >= 0)
            close(fd);
    }
    probe_dir(&p, pd_scan_reuse_basefd(s->reuse));
    probe_tmpfs(&p);
    if (p.since.tv_sec == 0) {
        *why = "no probe saw fine-grained times";
        return false;
    }
    for (size_t k = 0; k < s->ntrees; k++)
        if (!proven(&p, s->trees[k].path)) {
            *why = s->trees[k].path;
            return false;
        }
    *since = p.since;
    return true;
}

bool pd_fine_times(const struct pd_scan *s, struct timespec *since)
{
    const char *why = "";
    bool fine = prove(s, since, &why);
    const char *debug = getenv("PALDRON_DEBUG");
    if (debug && strcmp(debug, "scan") == 0) {
        if (fine)
            pd_err("scan: file times are fine-grained on every scanned file system: the run "
                   "starts without waiting for the clock's next tick");
        else
            pd_err("scan: the run waits for the clock's next tick (fine-grained file times not "
                   "seen: %s)",
                   why);
    }
    return fine;
}
