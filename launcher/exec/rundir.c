/* launcher/exec/rundir.c - create and remove the run directory (rundir.h).
 *
 * The command could fill its temp home with anything: deep trees, links to
 * the user's files, directories without permissions. Removal therefore works
 * on descriptors only (openat/unlinkat/fdopendir, O_NOFOLLOW): a link is
 * unlinked, never followed. Depth is bounded: a directory found deeper than
 * MAX_DEPTH is moved up to the top of the tree and removed from there, so an
 * arbitrarily deep tree costs neither stack nor descriptors. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"

#define HOME_NAME "reeve-sandbox-home"
#define MAX_DEPTH 64

int pd_rundir_create(struct pd_rundir *r, const char *tmpdir, char *err, size_t errlen)
{
    char tmpl[PD_PATH_MAX];
    r->path[0] = r->home[0] = '\0';
    if (!tmpdir || tmpdir[0] != '/' ||
        (size_t)snprintf(tmpl, sizeof tmpl, "%s/paldron-run-XXXXXX", tmpdir) >= sizeof tmpl - 64)
        snprintf(tmpl, sizeof tmpl, "/tmp/paldron-run-XXXXXX");
    if (!mkdtemp(tmpl)) {
        snprintf(err, errlen, "create run directory %s: %s", tmpl, strerror(errno));
        return -1;
    }
    /* The real path: Landlock rules and the scan compare physical paths. */
    if (!realpath(tmpl, r->path)) {
        snprintf(err, errlen, "resolve run directory %s: %s", tmpl, strerror(errno));
        rmdir(tmpl);
        return -1;
    }
    snprintf(r->home, sizeof r->home, "%s/%s", r->path, HOME_NAME);
    if (mkdir(r->home, 0700) != 0) {
        snprintf(err, errlen, "create temp home %s: %s", r->home, strerror(errno));
        rmdir(r->path);
        r->path[0] = r->home[0] = '\0';
        return -1;
    }
    return 0;
}

struct remover {
    int top;        /* descriptor of the tree's top directory */
    unsigned moved; /* directories moved up to the top */
    bool again;     /* the top holds moved directories: walk it again */
    int err;        /* first errno */
};

static void note(struct remover *rm, int e)
{
    if (!rm->err)
        rm->err = e;
}

/* Open the subdirectory name of dirfd for reading, without following a
 * link; make it readable first if the command took its permissions away. */
static int open_subdir(int dirfd, const char *name)
{
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(dirfd, name, flags);
    if (fd < 0 && errno == EACCES) {
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
            fchmodat(dirfd, name, 0700, 0) == 0)
            fd = openat(dirfd, name, flags);
    }
    return fd;
}

static void empty_dir(struct remover *rm, int fd, int depth);

/* unlinkat, once more after giving the directory its write permission back
 * (the command may have taken it away). */
static int unlink_in(int dirfd, const char *name, int flags)
{
    if (unlinkat(dirfd, name, flags) == 0)
        return 0;
    if (errno != EACCES)
        return -1;
    if (fchmod(dirfd, 0700) != 0) {
        errno = EACCES;
        return -1;
    }
    return unlinkat(dirfd, name, flags);
}

static void remove_entry(struct remover *rm, int dirfd, const char *name, unsigned char type,
                         int depth)
{
    if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT)
                note(rm, errno);
            return;
        }
        type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    if (type != DT_DIR) {
        if (unlink_in(dirfd, name, 0) != 0 && errno != ENOENT)
            note(rm, errno);
        return;
    }
    if (depth >= MAX_DEPTH) {
        /* Too deep to recurse: move it to the top, finish it later. */
        char up[64];
        snprintf(up, sizeof up, ".paldron-deep-%u", rm->moved++);
        if (renameat(dirfd, name, rm->top, up) == 0) {
            rm->again = true;
            return;
        }
        note(rm, errno);
        return;
    }
    int sub = open_subdir(dirfd, name);
    if (sub < 0) {
        if (errno != ENOENT)
            note(rm, errno);
        return;
    }
    empty_dir(rm, sub, depth + 1);
    if (unlink_in(dirfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        note(rm, errno);
}

/* Remove every entry of fd (consumed). getdents64 on the descriptor
 * itself (opendir would dup it); removing entries while reading is safe:
 * an entry not yet removed is still returned once. */
static void empty_dir(struct remover *rm, int fd, int depth)
{
    _Alignas(struct dirent64) char buf[8192];
    /* A dup shares the offset: a later round reads the top again from 0. */
    if (depth == 0)
        lseek(fd, 0, SEEK_SET);
    for (;;) {
        ssize_t n = getdents64(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            note(rm, errno);
        if (n <= 0)
            break;
        for (ssize_t off = 0; off < n;) {
            const struct dirent64 *de = (const struct dirent64 *)(const void *)(buf + off);
            off += de->d_reclen;
            const char *nm = de->d_name;
            if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
                continue;
            remove_entry(rm, fd, nm, de->d_type, depth);
        }
    }
    close(fd);
}

int pd_remove_below(int fd)
{
    struct remover rm = {.top = fd};
    /* Each round removes what is reachable within MAX_DEPTH and moves the
     * rest up; every round strictly shortens the deepest chain. */
    for (int round = 0; round < 100000; round++) {
        rm.again = false;
        int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (dup < 0) {
            note(&rm, errno);
            break;
        }
        empty_dir(&rm, dup, 0);
        if (!rm.again)
            break;
    }
    close(fd);
    if (rm.err) {
        errno = rm.err;
        return -1;
    }
    return 0;
}

int pd_rundir_remove(struct pd_rundir *r, char *err, size_t errlen)
{
    if (!r->path[0])
        return 0;
    int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = 0;
    if (fd < 0) {
        snprintf(err, errlen, "remove %s: %s", r->path, strerror(errno));
        return -1;
    }
    if (pd_remove_below(fd) != 0) {
        snprintf(err, errlen, "remove %s: %s", r->path, strerror(errno));
        rc = -1;
    }
    if (rmdir(r->path) != 0 && rc == 0) {
        snprintf(err, errlen, "remove %s: %s", r->path, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        r->path[0] = r->home[0] = '\0';
    return rc;
}
