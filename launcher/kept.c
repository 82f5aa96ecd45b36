/* launcher/kept.c - the file that names a process a run left for the next
 * (the watch keeper, launcher/scan/scan_watch_keep.c; the namespace stock,
 * launcher/exec/exec_ns_stock.c), read by the next run.
 *
 * The file lies in the cache base, out of every run's reach; still, one
 * planted there could name any process of the user, so what it says is
 * believed only of a process that is still a paldron started at that time,
 * checked through a pidfd opened first: the process checked is the process
 * then used or signalled, never a pid used again meanwhile. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/launcher.h"

bool pd_kept_read(int basefd, const char *name, pid_t *pid, unsigned long long *start)
{
    int fd = openat(basefd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = pd_kept_parse_fd(fd, pid, start);
    close(fd);
    (void)unlinkat(basefd, name, 0);
    return ok;
}

bool pd_kept_parse_fd(int fd, pid_t *pid, unsigned long long *start)
{
    struct stat st;
    char buf[64];
    ssize_t n = -1;
    /* as the listings: the user's own, one link, written by no one else */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
        !(st.st_mode & 022))
        n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* "<pid> <start time>\n", nothing else */
    char *end;
    errno = 0;
    long p = strtol(buf, &end, 10);
    if (errno || end == buf || *end != ' ' || p <= 1 || p > INT_MAX || p == getpid())
        return false;
    const char *at = end + 1;
    unsigned long long s = strtoull(at, &end, 10);
    if (errno || end == at || *end != '\n' || end[1] != '\0' || s == 0)
        return false;
    *pid = (pid_t)p;
    *start = s;
    return true;
}

int pd_kept_pidfd(pid_t pid, unsigned long long start)
{
#ifdef SYS_pidfd_open
    long pidfd = syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0)
        return -1; /* gone, or a kernel before 5.3 */
    bool paldron = false;
    if (pd_proc_start(pid, &paldron) == start && paldron)
        return (int)pidfd;
    close((int)pidfd);
#else
    (void)pid;
    (void)start;
#endif
    return -1;
}

bool pd_kept_signal(int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
    return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) == 0;
#else
    (void)pidfd;
    (void)sig;
    return false;
#endif
}
