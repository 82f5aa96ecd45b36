/* launcher/scan/scan_watch_keep.c - the watches of one run kept for the next.
 *
 * Adding a watch on a directory costs the kernel a pass over its cached
 * entries, which it marks as watched - but only when the directory starts
 * to be watched (fsnotify_recalc_mask): 100 watches on directories of 1000
 * files take 10 ms of one CPU here, and 0.2 ms when another watch on their
 * children is already there. So after a run a keeper, a child of the
 * launcher that closed every descriptor but its two inotify instances
 * (scan_watch.c, pd_watch_hand_over), holds the run's watches for
 * pd_watch_keep_sec seconds (15); the next run of the workspace within that time
 * adds its own watches cheaply, then ends the keeper. Each run keeps its
 * own watches for what it decides: the keeper's only hold kernel objects,
 * are never read, and their queue is bounded by the kernel
 * (max_queued_events: an overflow drops events).
 *
 * Who the keeper is goes to <cache base>/<name>-<id>.watch, beside the
 * snapshot's listings and out of every run's reach like them
 * (scan_reuse.c): its pid and start time. A file planted there could name
 * any process of the user; the next run signals the pid only if it is
 * still a paldron started at that time (through a pidfd, so the process
 * checked is the one signalled). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/scan/scan_int.h"

/* The start time of pid (field 22 of /proc/<pid>/stat, clock ticks since
 * boot) and whether it runs paldron; 0 when it is gone. */
static unsigned long long start_of(pid_t pid, bool *paldron)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren < open_paren)
        return 0;
    *paldron = close_paren - open_paren - 1 == 7 && strncmp(open_paren + 1, "paldron", 7) == 0;
    unsigned long long start;
    return pd_stat_fields(buf, (size_t)n, 22, 1, &start) ? start : 0;
}

void pd_watch_keep(struct pd_watch *w, int basefd, const char *name)
{
    if (basefd < 0)
        return;
    pid_t pid = pd_watch_hand_over(w);
    if (pid <= 0)
        return;
    bool paldron = false;
    unsigned long long start = start_of(pid, &paldron);
    char line[64];
    int len = snprintf(line, sizeof line, "%d %llu\n", (int)pid, start);
    if (start != 0)
        (void)pd_reuse_put_file(basefd, name, line, (size_t)len);
}

void pd_watch_end_kept(int basefd, const char *name)
{
    if (basefd < 0)
        return;
    int fd = openat(basefd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    char buf[64];
    ssize_t n = -1;
    /* as the listings: the user's own, one link, written by no one else */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
        !(st.st_mode & 022))
        n = read(fd, buf, sizeof buf - 1);
    close(fd);
    (void)unlinkat(basefd, name, 0);
    if (n <= 0)
        return;
    buf[n] = '\0';
    /* "<pid> <start time>\n", nothing else */
    char *end;
    errno = 0;
    long pid = strtol(buf, &end, 10);
    if (errno || end == buf || *end != ' ' || pid <= 1 || pid > INT_MAX || pid == getpid())
        return;
    const char *at = end + 1;
    unsigned long long start = strtoull(at, &end, 10);
    if (errno || end == at || *end != '\n' || start == 0)
        return;
    /* through a pidfd opened before the check, as pd_tree_signal does: the
     * process checked is the process signalled, never a pid used again */
    bool paldron = false;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    long pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (pidfd < 0 && errno != ENOSYS)
        return; /* gone */
    if (pidfd >= 0) {
        if (start_of((pid_t)pid, &paldron) == start && paldron)
            (void)syscall(SYS_pidfd_send_signal, (int)pidfd, SIGKILL, NULL, 0);
        close((int)pidfd);
        return;
    }
#endif
    if (start_of((pid_t)pid, &paldron) == start && paldron)
        (void)kill((pid_t)pid, SIGKILL);
}
