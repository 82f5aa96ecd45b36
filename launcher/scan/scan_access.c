/* launcher/scan/scan_access.c - opening what the post-run scan must read. The
 * scan fails closed: a directory (or a changed file) inside a writable root
 * that its owner cannot read would hide what a run wrote there (run 1 leaves
 * src/hide at mode 0100, run 2 writes below it). The launcher runs as the
 * user who owns such entries, so it gives the owner the missing rights for
 * the time of the read and puts the exact mode back afterwards. The mode is
 * changed through an O_PATH descriptor of the entry itself (via
 * /proc/self/fd), never by path, so a link swapped in meanwhile is not
 * followed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "launcher/scan/scan_int.h"

/* Without openat2 (Linux < 5.6, valgrind 3.19): one component at a time,
 * each opened O_NOFOLLOW, which is what RESOLVE_NO_SYMLINKS asks; the last
 * with the caller's flags. */
static int open_by_components(int dirfd, const char *path, int flags)
{
    char buf[PD_PATH_MAX];
    if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    const bool abs = buf[0] == '/';
    char *save = NULL;
    char *c = strtok_r(buf, "/", &save);
    if (!c) /* "/" itself, or "" */
        return openat(abs ? AT_FDCWD : dirfd, abs ? "/" : "", flags);
    int fd = openat(abs ? AT_FDCWD : dirfd, abs ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    while (fd >= 0 && c) {
        char *rest = strtok_r(NULL, "/", &save);
        int next = openat(
            fd, c, rest ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : flags | O_NOFOLLOW);
        int e = errno;
        close(fd);
        errno = e;
        fd = next;
        c = rest;
    }
    return fd;
}

int pd_scan_open_nofollow(int dirfd, const char *path, int flags)
{
    static bool no_openat2;
#ifdef SYS_openat2
    if (!no_openat2) {
        struct open_how how = {.flags = (unsigned long long)flags,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        if (fd >= 0 || errno != ENOSYS)
            return (int)fd;
        no_openat2 = true;
    }
#endif
    return open_by_components(dirfd, path, flags);
}

static int chmod_fd(int pathfd, mode_t mode)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", pathfd);
    return chmod(proc, mode);
}

/* Give the owner `want` on the entry at path (O_PATH, no link followed)
 * when the launcher's user owns it and lacks them. Returns the O_PATH
 * descriptor with g filled, or -1 (nothing changed). */
static int grant(const char *path, bool dir, mode_t want, struct dir_grant *g)
{
    int pfd = pd_scan_open_nofollow(AT_FDCWD, path,
                                    O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
    struct stat st;
    if (pfd < 0)
        return -1;
    if (fstat(pfd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & want) == want ||
        (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
        chmod_fd(pfd, (st.st_mode & 07777) | want) != 0) {
        close(pfd);
        return -1;
    }
    g->fd = pfd;
    g->mode = st.st_mode & 07777;
    return pfd;
}

/* Open the entry behind the O_PATH descriptor for reading: a directory as
 * "." relative to itself, a file through its /proc/self/fd link (followed:
 * it is the descriptor's own entry, not a path that could be swapped). */
static int reopen(struct dir_grant *g, int flags)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", g->fd);
    flags &= ~O_NOFOLLOW;
    int fd = (flags & O_DIRECTORY) ? openat(g->fd, ".", flags) : open(proc, flags);
    if (fd < 0) {
        int e = errno;
        pd_scan_ungrant(g);
        errno = e;
    }
    return fd;
}

int pd_scan_open_dir(const char *path, bool may_grant, struct dir_grant *g)
{
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    g->fd = -1;
    int fd = pd_scan_open_nofollow(AT_FDCWD, path, flags);
    if (fd >= 0) {
        /* Readable but not searchable (0600): its entries could be listed
         * but not one of them opened. */
        struct stat st;
        if (may_grant && fstat(fd, &st) == 0 && !(st.st_mode & S_IXUSR) && st.st_uid == geteuid()) {
            close(fd);
            if (grant(path, true, S_IRUSR | S_IXUSR, g) >= 0)
                return reopen(g, flags);
            return pd_scan_open_nofollow(AT_FDCWD, path, flags);
        }
        return fd;
    }
    if (errno != EACCES || !may_grant)
        return -1;
    if (grant(path, true, S_IRUSR | S_IXUSR, g) < 0) {
        errno = EACCES;
        return -1;
    }
    return reopen(g, flags);
}

int pd_scan_open_file(const char *path, struct dir_grant *g)
{
    const int flags = O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
    g->fd = -1;
    int fd = pd_scan_open_nofollow(AT_FDCWD, path, flags);
    if (fd >= 0 || errno != EACCES)
        return fd;
    if (grant(path, false, S_IRUSR, g) < 0) {
        errno = EACCES;
        return -1;
    }
    return reopen(g, flags);
}

void pd_scan_ungrant(struct dir_grant *g)
{
    if (g->fd < 0)
        return;
    /* Best effort: should it fail, the entry keeps the owner's rights,
     * which only ever widens what the owner may do with their own file. */
    (void)chmod_fd(g->fd, g->mode);
    close(g->fd);
    g->fd = -1;
}

int pd_scan_grant_dir(const char *path, struct dir_grant *g)
{
    g->fd = -1;
    return grant(path, true, S_IRUSR | S_IXUSR, g) >= 0 ? 0 : -1;
}

bool pd_scan_searchable(const char *path)
{
    return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}
