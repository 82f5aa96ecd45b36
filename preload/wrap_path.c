/* preload/wrap_path.c - every other libc call that changes the file system
 * through a path: rename, link, symlink, unlink, rmdir, remove, mkdir,
 * mknod (and its old name __xmknod), mkfifo, truncate, chmod, chown, utime and the mk*temp family.
 *
 * Each path the call touches is judged before the call: the source of a
 * rename as PD_OP_DELETE and its destination as PD_OP_CREATE (so a rename
 * or a link *into* a denied name is refused), the source of a hard link as
 * PD_OP_WRITE (the new name writes the same file), new names as
 * PD_OP_CREATE, removals as PD_OP_DELETE, changes of content, mode, owner
 * or times as PD_OP_WRITE (updwtmp appends a record to the file it
 * names). Calls on a descriptor instead of a path (AT_EMPTY_PATH, utimensat
 * with a NULL path) were judged when the descriptor was opened. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "preload/channel.h"
#include "preload/ids.h"
#include "preload/judge.h"
#include "preload/kernel_refusal.h"

/* Judge one or two paths (flags: PD_J_*); true when the call may go ahead. */
static bool gate2(struct pd_call *call, enum pd_op op1, int fd1, const char *p1, unsigned f1,
                  enum pd_op op2, int fd2, const char *p2, unsigned f2)
{
    const struct pd_state *s = pd_enter(call);
    if (!s)
        return true;
    return pd_path_ok(s, op1, fd1, p1, f1) && (!p2 || pd_path_ok(s, op2, fd2, p2, f2));
}

static bool gate1(struct pd_call *call, enum pd_op op, int fd, const char *p, unsigned flags)
{
    return gate2(call, op, fd, p, flags, op, AT_FDCWD, NULL, 0);
}

/* A new name: judged as itself, and one that exists goes to the kernel,
 * which refuses it with EEXIST and creates nothing. */
#define NEW_NAME (PD_J_NAME | PD_J_EXISTING_PASSES)

/* A call that follows a link unless flags hold AT_SYMLINK_NOFOLLOW. */
static unsigned nofollow(int flags)
{
    return (flags & AT_SYMLINK_NOFOLLOW) ? PD_J_NAME : 0;
}

/* link and linkat: 0 (go ahead) or the error to fail with. The old name is
 * judged as a write (the new name writes the same file; a link itself
 * unless AT_SYMLINK_FOLLOW), the new name as a create. When the new name
 * exists the kernel would refuse with EEXIST, so the call fails so, with
 * nothing judged; it is not passed on, since a name removed meanwhile would
 * let a hard link to an old name nobody judged come into being. An old name
 * that is missing goes to the kernel, which says ENOENT as it would. */
static int gate_link(struct pd_call *call, int fromfd, const char *from, int at_flags, int tofd,
                     const char *to)
{
    const struct pd_state *s = pd_enter(call);
    if (!s)
        return 0;
    bool follow = at_flags & AT_SYMLINK_FOLLOW;
    struct stat st;
    if (s->mode == PD_MODE_ACTIVE && to && to[0] && from &&
        fstatat(tofd, to, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (!from[0] || fstatat(fromfd, from, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0)) {
        if (pd_env()->debug)
            pd_trace("create", to, "allow", "exists", "");
        return EEXIST;
    }
    bool ok = pd_path_ok(s, PD_OP_WRITE, fromfd, from, follow ? 0 : PD_J_NAME) &&
              pd_path_ok(s, PD_OP_CREATE, tofd, to, NEW_NAME);
    return ok ? 0 : EACCES;
}

/* As GATED, and a failure of the real call on (fd, p) is looked at for a
 * kernel layer's refusal (kernel_refusal.h): for the calls Landlock has a
 * right for (create, remove, truncate), not for chmod, chown or utime. */
#define GATED_KERNEL(gate_expr, real_call, op, fd, p)                                              \
    GATED(gate_expr, pd_kernel_after(real_call, op, fd, p))

/* A new folder: judged as a new name, reported as a folder. */
#define NEW_DIR (NEW_NAME | PD_J_DIR)

/* A rename may have renamed an ancestor of the working directory. */
static int renamed(int rc)
{
    pd_cwd_changed();
    return rc;
}

/* Run the real call when the gate allows; else -1 with EACCES. */
#define GATED(gate_expr, real_call)                                                                \
    do {                                                                                           \
        struct pd_call call;                                                                       \
        if (!(gate_expr))                                                                          \
            return pd_fail(&call, EACCES);                                                         \
        pd_leave(&call);                                                                           \
        return real_call;                                                                          \
    } while (0)

int pdw_rename(const char *from, const char *to)
{
    PD_NEED(rename, -1);
    GATED(gate2(&call, PD_OP_DELETE, AT_FDCWD, from, PD_J_NAME, PD_OP_CREATE, AT_FDCWD, to,
                PD_J_NAME),
          renamed(pd_real.rename(from, to)));
}

int pdw_renameat(int fromfd, const char *from, int tofd, const char *to)
{
    PD_NEED(renameat, -1);
    GATED(gate2(&call, PD_OP_DELETE, fromfd, from, PD_J_NAME, PD_OP_CREATE, tofd, to, PD_J_NAME),
          renamed(pd_real.renameat(fromfd, from, tofd, to)));
}

int pdw_renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags)
{
    PD_NEED(renameat2, -1);
    GATED(gate2(&call, PD_OP_DELETE, fromfd, from, PD_J_NAME, PD_OP_CREATE, tofd, to, PD_J_NAME),
          renamed(pd_real.renameat2(fromfd, from, tofd, to, flags)));
}

int pdw_link(const char *from, const char *to)
{
    PD_NEED(link, -1);
    struct pd_call call;
    int err = gate_link(&call, AT_FDCWD, from, 0, AT_FDCWD, to);
    if (err)
        return pd_fail(&call, err);
    pd_leave(&call);
    return pd_real.link(from, to);
}

int pdw_linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
    PD_NEED(linkat, -1);
    /* AT_EMPTY_PATH with "": the source is fromfd itself, judged at its open */
    struct pd_call call;
    int err = gate_link(&call, fromfd, from, flags, tofd, to);
    if (err)
        return pd_fail(&call, err);
    pd_leave(&call);
    return pd_real.linkat(fromfd, from, tofd, to, flags);
}

int pdw_symlink(const char *target, const char *path)
{
    PD_NEED(symlink, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, AT_FDCWD, path, NEW_NAME),
                 pd_real.symlink(target, path), PD_OP_CREATE, AT_FDCWD, path);
}

int pdw_symlinkat(const char *target, int dirfd, const char *path)
{
    PD_NEED(symlinkat, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, dirfd, path, NEW_NAME),
                 pd_real.symlinkat(target, dirfd, path), PD_OP_CREATE, dirfd, path);
}

int pdw_unlink(const char *path)
{
    PD_NEED(unlink, -1);
    GATED_KERNEL(gate1(&call, PD_OP_DELETE, AT_FDCWD, path, PD_J_NAME), pd_real.unlink(path),
                 PD_OP_DELETE, AT_FDCWD, path);
}

int pdw_unlinkat(int dirfd, const char *path, int flags)
{
    PD_NEED(unlinkat, -1);
    GATED_KERNEL(gate1(&call, PD_OP_DELETE, dirfd, path, PD_J_NAME),
                 pd_real.unlinkat(dirfd, path, flags), PD_OP_DELETE, dirfd, path);
}

int pdw_rmdir(const char *path)
{
    PD_NEED(rmdir, -1);
    GATED_KERNEL(gate1(&call, PD_OP_DELETE, AT_FDCWD, path, PD_J_NAME), pd_real.rmdir(path),
                 PD_OP_DELETE, AT_FDCWD, path);
}

int pdw_remove(const char *path)
{
    PD_NEED(remove, -1);
    GATED_KERNEL(gate1(&call, PD_OP_DELETE, AT_FDCWD, path, PD_J_NAME), pd_real.remove(path),
                 PD_OP_DELETE, AT_FDCWD, path);
}

int pdw_mkdir(const char *path, mode_t mode)
{
    PD_NEED(mkdir, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, path, NEW_DIR),
          pd_kernel_after_mkdir(pd_real.mkdir(path, mode), AT_FDCWD, path));
}

int pdw_mkdirat(int dirfd, const char *path, mode_t mode)
{
    PD_NEED(mkdirat, -1);
    GATED(gate1(&call, PD_OP_CREATE, dirfd, path, NEW_DIR),
          pd_kernel_after_mkdir(pd_real.mkdirat(dirfd, path, mode), dirfd, path));
}

int pdw_mknod(const char *path, mode_t mode, dev_t dev)
{
    PD_NEED(mknod, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, AT_FDCWD, path, NEW_NAME),
                 pd_real.mknod(path, mode, dev), PD_OP_CREATE, AT_FDCWD, path);
}

int pdw_mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
    PD_NEED(mknodat, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, dirfd, path, NEW_NAME),
                 pd_real.mknodat(dirfd, path, mode, dev), PD_OP_CREATE, dirfd, path);
}

/* mknod's name before glibc 2.33: programs built then still call it. */
int pdw___xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
    PD_NEED(__xmknod, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, AT_FDCWD, path, NEW_NAME),
                 pd_real.__xmknod(ver, path, mode, dev), PD_OP_CREATE, AT_FDCWD, path);
}

int pdw___xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev)
{
    PD_NEED(__xmknodat, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, dirfd, path, NEW_NAME),
                 pd_real.__xmknodat(ver, dirfd, path, mode, dev), PD_OP_CREATE, dirfd, path);
}

int pdw_mkfifo(const char *path, mode_t mode)
{
    PD_NEED(mkfifo, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, AT_FDCWD, path, NEW_NAME), pd_real.mkfifo(path, mode),
                 PD_OP_CREATE, AT_FDCWD, path);
}

int pdw_mkfifoat(int dirfd, const char *path, mode_t mode)
{
    PD_NEED(mkfifoat, -1);
    GATED_KERNEL(gate1(&call, PD_OP_CREATE, dirfd, path, NEW_NAME),
                 pd_real.mkfifoat(dirfd, path, mode), PD_OP_CREATE, dirfd, path);
}

int pdw_truncate(const char *path, off_t length)
{
    PD_NEED(truncate, -1);
    GATED_KERNEL(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, 0), pd_real.truncate(path, length),
                 PD_OP_WRITE, AT_FDCWD, path);
}

int pdw_truncate64(const char *path, off64_t length)
{
    PD_NEED(truncate64, -1);
    GATED_KERNEL(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, 0), pd_real.truncate64(path, length),
                 PD_OP_WRITE, AT_FDCWD, path);
}

int pdw_chmod(const char *path, mode_t mode)
{
    PD_NEED(chmod, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, 0), pd_real.chmod(path, mode));
}

int pdw_lchmod(const char *path, mode_t mode)
{
    PD_NEED(lchmod, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, PD_J_NAME), pd_real.lchmod(path, mode));
}

int pdw_fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
    PD_NEED(fchmodat, -1);
    GATED(gate1(&call, PD_OP_WRITE, dirfd, path, nofollow(flags)),
          pd_real.fchmodat(dirfd, path, mode, flags));
}

int pdw_chown(const char *path, uid_t owner, gid_t group)
{
    PD_NEED(chown, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, 0),
          pd_chown_as_bare(pd_real.chown(path, owner, group), owner, group, 0));
}

int pdw_lchown(const char *path, uid_t owner, gid_t group)
{
    PD_NEED(lchown, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, PD_J_NAME),
          pd_chown_as_bare(pd_real.lchown(path, owner, group), owner, group, 0));
}

int pdw_fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
    PD_NEED(fchownat, -1);
    GATED(
        gate1(&call, PD_OP_WRITE, dirfd, path, nofollow(flags)),
        pd_chown_as_bare(pd_real.fchownat(dirfd, path, owner, group, flags), owner, group, flags));
}

int pdw_utime(const char *path, const struct utimbuf *times)
{
    PD_NEED(utime, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, 0), pd_real.utime(path, times));
}

int pdw_utimes(const char *path, const struct timeval times[2])
{
    PD_NEED(utimes, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, 0), pd_real.utimes(path, times));
}

int pdw_lutimes(const char *path, const struct timeval times[2])
{
    PD_NEED(lutimes, -1);
    GATED(gate1(&call, PD_OP_WRITE, AT_FDCWD, path, PD_J_NAME), pd_real.lutimes(path, times));
}

int pdw_futimesat(int dirfd, const char *path, const struct timeval times[2])
{
    PD_NEED(futimesat, -1);
    GATED(gate1(&call, PD_OP_WRITE, dirfd, path, 0), pd_real.futimesat(dirfd, path, times));
}

int pdw_utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
    PD_NEED(utimensat, -1);
    GATED(gate1(&call, PD_OP_WRITE, dirfd, path, nofollow(flags)),
          pd_real.utimensat(dirfd, path, times, flags));
}

/* mk*temp: the template names the new file (its XXXXXX become random
 * letters, which every pattern treats like any other letters). */
int pdw_mkstemp(char *tmpl)
{
    PD_NEED(mkstemp, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkstemp(tmpl));
}

int pdw_mkstemp64(char *tmpl)
{
    PD_NEED(mkstemp64, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkstemp64(tmpl));
}

int pdw_mkostemp(char *tmpl, int flags)
{
    PD_NEED(mkostemp, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkostemp(tmpl, flags));
}

int pdw_mkostemp64(char *tmpl, int flags)
{
    PD_NEED(mkostemp64, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkostemp64(tmpl, flags));
}

int pdw_mkstemps(char *tmpl, int suffixlen)
{
    PD_NEED(mkstemps, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkstemps(tmpl, suffixlen));
}

int pdw_mkstemps64(char *tmpl, int suffixlen)
{
    PD_NEED(mkstemps64, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkstemps64(tmpl, suffixlen));
}

int pdw_mkostemps(char *tmpl, int suffixlen, int flags)
{
    PD_NEED(mkostemps, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0), pd_real.mkostemps(tmpl, suffixlen, flags));
}

int pdw_mkostemps64(char *tmpl, int suffixlen, int flags)
{
    PD_NEED(mkostemps64, -1);
    GATED(gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0),
          pd_real.mkostemps64(tmpl, suffixlen, flags));
}

char *pdw_mkdtemp(char *tmpl)
{
    PD_NEED(mkdtemp, NULL);
    struct pd_call call;
    if (!gate1(&call, PD_OP_CREATE, AT_FDCWD, tmpl, 0)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return pd_real.mkdtemp(tmpl);
}

/* They return nothing: a refused call leaves errno at EACCES, as a failed
 * one leaves its error. */
void pdw_updwtmp(const char *file, const struct utmp *ut)
{
    pd_bind();
    struct pd_call call;
    if (!pd_real.updwtmp) {
        pd_missing("updwtmp");
        return;
    }
    if (!gate1(&call, PD_OP_WRITE, AT_FDCWD, file, 0)) {
        pd_fail(&call, EACCES);
        return;
    }
    pd_leave(&call);
    pd_real.updwtmp(file, ut);
}

void pdw_updwtmpx(const char *file, const struct utmpx *ut)
{
    pd_bind();
    struct pd_call call;
    if (!pd_real.updwtmpx) {
        pd_missing("updwtmpx");
        return;
    }
    if (!gate1(&call, PD_OP_WRITE, AT_FDCWD, file, 0)) {
        pd_fail(&call, EACCES);
        return;
    }
    pd_leave(&call);
    pd_real.updwtmpx(file, ut);
}
