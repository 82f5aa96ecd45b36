/* platform/linux/ns_mount.c - the run's mount namespace: its own, empty,
 * writable /tmp and /dev/shm (two tmpfs that vanish with the last process
 * of the run), and what the command needs from beneath them bound back at
 * the same place: the workspace, writable roots or the run directory when
 * they live under /tmp. Those binds are read-only unless the spec says
 * writable: the private /tmp is a Landlock write root, and Landlock grants
 * what lies beneath a mount point too, so the mount flag is what keeps a
 * read-only workspace under /tmp read-only. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/linux/backend.h"

/* The flags a bind mount already has, as mount(2) flags (where
 * mount_setattr is refused): a remount in a user namespace must repeat the
 * locked ones (nosuid, nodev, noexec and
 * the atime mode) or fail with EPERM. */
static unsigned long current_flags(const char *path)
{
    struct statvfs sv;
    if (statvfs(path, &sv) != 0)
        return 0;
    static const struct {
        unsigned long st, ms;
    } map[] = {
        {ST_RDONLY, MS_RDONLY},     {ST_NOSUID, MS_NOSUID},   {ST_NODEV, MS_NODEV},
        {ST_NOEXEC, MS_NOEXEC},     {ST_NOATIME, MS_NOATIME}, {ST_NODIRATIME, MS_NODIRATIME},
        {ST_RELATIME, MS_RELATIME},
    };
    unsigned long f = 0;
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (sv.f_flag & map[k].st)
            f |= map[k].ms;
    return f;
}

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV  0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008
#endif

/* mount_setattr(2)'s argument (Linux 5.12), whatever the libc declares. */
struct pd_mount_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* Add extra's flags to the mount at dst in one call: mount_setattr only sets
 * what it is given and keeps the rest (the locked flags included), so the
 * mount's flags need not be read first. Returns 0, or -1 when the kernel
 * refuses it for any reason (too old, a container's seccomp profile, a
 * flag it cannot express): the remount below then decides. */
static int add_flags(const char *dst, unsigned long extra)
{
#ifdef SYS_mount_setattr
    static const struct {
        unsigned long ms;
        uint64_t attr;
    } map[] = {
        {MS_RDONLY, MOUNT_ATTR_RDONLY},
        {MS_NOSUID, MOUNT_ATTR_NOSUID},
        {MS_NODEV, MOUNT_ATTR_NODEV},
        {MS_NOEXEC, MOUNT_ATTR_NOEXEC},
    };
    struct pd_mount_attr attr = {0};
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
        if (extra & map[k].ms) {
            attr.attr_set |= map[k].attr;
            extra &= ~map[k].ms;
        }
    }
    if (extra != 0)
        return -1;
    return syscall(SYS_mount_setattr, AT_FDCWD, dst, 0U, &attr, sizeof attr) == 0 ? 0 : -1;
#else
    (void)dst;
    (void)extra;
    return -1;
#endif
}

int pd_ns_bind(const char *src, const char *dst, unsigned long extra, bool rec, char *err,
               size_t errlen)
{
    if (mount(src, dst, NULL, MS_BIND | (rec ? MS_REC : 0), NULL) != 0) {
        pd_errf(err, errlen, "mount namespace: bind %s: %s", dst, strerror(errno));
        return -1;
    }
    if (extra == 0 || add_flags(dst, extra) == 0)
        return 0;
    unsigned long flags = MS_REMOUNT | MS_BIND | current_flags(dst) | extra;
    if (mount(NULL, dst, NULL, flags, NULL) != 0) {
        pd_errf(err, errlen, "mount namespace: remount %s read-only: %s", dst, strerror(errno));
        return -1;
    }
    return 0;
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Create the directories leading to path in the new tmpfs mounted on root,
 * then path itself as a directory or an empty file (a mount point of the
 * same kind). A path that is there already was bound back by an earlier
 * entry (parents come first) and needs nothing. */
static int make_mount_point(const char *path, const char *root, bool dir, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return 0;
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        pd_errf(err, errlen, "mount namespace: path too long: %s", path);
        return -1;
    }
    /* root itself exists: the tmpfs was just mounted there */
    for (char *s = strchr(buf + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            pd_errf(err, errlen, "mount namespace: mkdir %s: %s", buf, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (dir) {
        rc = mkdir(path, 0755);
    } else {
        int fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        rc = fd < 0 ? -1 : close(fd);
    }
    if (rc != 0 && errno != EEXIST) {
        pd_errf(err, errlen, "mount namespace: create %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int mount_tmpfs(const char *where, char *err, size_t errlen)
{
    if (mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
        int e = errno;
        pd_errf(err, errlen, "mount namespace: mount a private %s: %s", where, strerror(e));
        return e == EPERM || e == EACCES ? PD_NS_REFUSE : -1;
    }
    return 0;
}

static const unsigned long keep_flags[] = {
    [PD_KEEP_READ] = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
    [PD_KEEP_EXEC] = MS_RDONLY | MS_NOSUID | MS_NODEV,
    [PD_KEEP_WRITE] = 0,
};

int pd_ns_private_tmp(const struct pd_ns_spec *ns, char *err, size_t errlen)
{
    /* Nothing mounted here may reach the host's namespace, and nothing the
     * host mounts later changes what the run sees. The first mount call:
     * a user namespace whose capabilities are withheld (Ubuntu's AppArmor
     * rule) refuses it. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        int e = errno;
        pd_errf(err, errlen, "mount namespace: make / private: %s", strerror(e));
        return e == EPERM || e == EACCES ? PD_NS_REFUSE : -1;
    }
    if (ns->nkeep > PD_NS_KEEP_MAX) {
        pd_errf(err, errlen, "mount namespace: %zu paths to keep, at most %d", ns->nkeep,
                PD_NS_KEEP_MAX);
        return -1;
    }
    /* Open what is kept before the tmpfs hides it. */
    int fds[PD_NS_KEEP_MAX];
    int rc = -1;
    size_t opened = 0;
    for (; opened < ns->nkeep; opened++) {
        const char *p = ns->keep[opened].path;
        fds[opened] = -1;
        if (!under(p, "/tmp") && !under(p, "/dev/shm"))
            continue;
        fds[opened] = open(p, O_PATH | O_CLOEXEC);
        if (fds[opened] < 0 && errno != ENOENT) {
            pd_errf(err, errlen, "mount namespace: open %s: %s", p, strerror(errno));
            goto out;
        }
    }
    if ((rc = mount_tmpfs("/tmp", err, errlen)) != 0 ||
        (rc = mount_tmpfs("/dev/shm", err, errlen)) != 0)
        goto out;
    rc = -1;
    for (size_t k = 0; k < ns->nkeep; k++) {
        if (fds[k] < 0)
            continue;
        struct stat st;
        char src[64];
        if (fstat(fds[k], &st) != 0) {
            pd_errf(err, errlen, "mount namespace: stat %s: %s", ns->keep[k].path, strerror(errno));
            goto out;
        }
        snprintf(src, sizeof src, "/proc/self/fd/%d", fds[k]);
        const char *root = under(ns->keep[k].path, "/tmp") ? "/tmp" : "/dev/shm";
        if (make_mount_point(ns->keep[k].path, root, S_ISDIR(st.st_mode), err, errlen) != 0 ||
            pd_ns_bind(src, ns->keep[k].path, keep_flags[ns->keep[k].mode], true, err, errlen) != 0)
            goto out;
    }
    rc = 0;
out:
    for (size_t k = 0; k < opened; k++)
        if (fds[k] >= 0)
            close(fds[k]);
    return rc;
}
