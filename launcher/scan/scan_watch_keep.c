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
 * (scan_reuse.c): its pid and start time; the next run signals it only if
 * it is still that paldron (launcher/kept.c). */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "launcher/scan/scan_int.h"

void pd_watch_keep(struct pd_watch *w, int basefd, const char *name)
{
    if (basefd < 0)
        return;
    pid_t pid = pd_watch_hand_over(w);
    if (pid <= 0)
        return;
    bool paldron = false;
    unsigned long long start = pd_proc_start(pid, &paldron);
    char line[64];
    int len = snprintf(line, sizeof line, "%d %llu\n", (int)pid, start);
    if (start != 0)
        (void)pd_reuse_put_file(basefd, name, line, (size_t)len);
}

void pd_watch_end_kept(int basefd, const char *name)
{
    pid_t pid;
    unsigned long long start;
    if (basefd < 0 || !pd_kept_read(basefd, name, &pid, &start))
        return;
    int pidfd = pd_kept_pidfd(pid, start);
    if (pidfd >= 0) {
        (void)pd_kept_signal(pidfd, SIGKILL);
        close(pidfd);
    }
}
