/* preload/sandbox_view.c - a sandbox's own tmpfs and the host's roots
 * bound elsewhere (sandbox_view.h).
 *
 * Told by identity, never by name. A private tmpfs: the device of the file
 * (a write to it) or of its directory (a create or a delete) is a tmpfs
 * (statfs) whose st_dev is none of the host's mounts, and this process is
 * not in the host's mount namespace. When /proc/self/ns/mnt cannot be read
 * (a sandbox between its pivot_root and the mount of its own /proc) the
 * namespace is taken to differ: the host's namespace has /proc where
 * paldron env read it, and the device rule alone keeps every host mount
 * out. A root by identity: the directory of the call, or one of its
 * ancestors by name in this process's view, has a root's device and inode
 * (what is below a directory is below it under any name). */
#include <errno.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "preload/sandbox_view.h"

static bool host_dev(const struct pd_image *im, dev_t dev)
{
    size_t n;
    const uint64_t *devs = pd_image_host_devs(im, &n);
    for (size_t k = 0; k < n; k++)
        if (devs[k] == (uint64_t)dev)
            return true;
    return false;
}

/* The directory abs lies in ("/" for "/x"); false when it does not fit. */
static bool parent_of(const char *abs, char *out, size_t len)
{
    const char *slash = strrchr(abs, '/');
    if (!slash || (size_t)(slash - abs) >= len)
        return false;
    if (slash == abs)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - abs), abs);
    return true;
}

/* The file whose device decides: abs itself for a write to a file that
 * exists, else its directory. */
static bool subject(enum pd_op op, const char *abs, char *out, size_t len)
{
    struct stat st;
    if (op == PD_OP_WRITE && stat(abs, &st) == 0)
        return (size_t)snprintf(out, len, "%s", abs) < len;
    return parent_of(abs, out, len);
}

bool pd_private_tmpfs(const struct pd_image *im, enum pd_op op, const char *abs)
{
    if (!im || !im->host_mnt_ns || abs[0] != '/')
        return false;
    int saved = errno;
    bool yes = false;
    struct stat ns, st;
    struct statfs fs;
    char file[PD_PATH_MAX];
    if ((stat("/proc/self/ns/mnt", &ns) != 0 || (uint64_t)ns.st_ino != im->host_mnt_ns) &&
        subject(op, abs, file, sizeof file) && statfs(file, &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
        stat(file, &st) == 0 && !host_dev(im, st.st_dev))
        yes = true;
    errno = saved;
    return yes;
}

static bool is_root(const struct pd_image *im, const struct stat *st)
{
    size_t n;
    const struct pd_image_id *ids = pd_image_root_ids(im, &n);
    for (size_t k = 0; k < n; k++)
        if (ids[k].dev == (uint64_t)st->st_dev && ids[k].ino == (uint64_t)st->st_ino)
            return true;
    return false;
}

bool pd_in_root_by_identity(const struct pd_image *im, enum pd_op op, const char *abs)
{
    (void)op;
    if (!im || !im->host_mnt_ns || im->root_ids.n == 0 || abs[0] != '/')
        return false;
    int saved = errno;
    bool yes = false;
    char dir[PD_PATH_MAX];
    struct stat st;
    /* from the call's directory up to "/": every one exists (abs is
     * physical), so a failing stat ends the walk */
    for (bool more = parent_of(abs, dir, sizeof dir); more && !yes;) {
        if (stat(dir, &st) != 0)
            break;
        yes = is_root(im, &st);
        if (strcmp(dir, "/") == 0)
            break;
        char up[PD_PATH_MAX];
        more = parent_of(dir, up, sizeof up);
        memcpy(dir, up, sizeof dir);
    }
    errno = saved;
    return yes;
}
