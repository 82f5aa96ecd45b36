/* preload/wrap_open.c - open, open64, openat, openat64, their fortify
 * forms, creat, fopen, freopen, and posix_spawn_file_actions_addopen; and
 * glibc's other exported names for them (__open, __open64, the _nocancel
 * forms, _IO_fopen, the libio openers).
 *
 * An open only for reading (O_RDONLY without O_CREAT, O_TRUNC, O_APPEND,
 * O_TMPFILE) is judged after the kernel opened it, on the file it actually
 * opened: the open is done with openat2(RESOLVE_NO_SYMLINKS), so that the
 * cleaned path is the physical path; when a link is on the way the real
 * function opens and /proc/self/fd names the file. A denied read is closed
 * before anything is read. Every other open is judged before the call, as
 * PD_OP_WRITE, or PD_OP_CREATE when the file does not exist. O_PATH opens
 * are not judged: they give no access to the content. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/channel.h"
#include "preload/judge.h"
#include "preload/kernel_refusal.h"
#include "preload/match.h"

#define PD_EXPORT __attribute__((visibility("default")))

enum open_fn {
    FN_OPEN,
    FN_OPEN64,
    FN_OPENAT,
    FN_OPENAT64,
    FN_OPEN_2,
    FN_OPEN64_2,
    FN_OPENAT_2,
    FN_OPENAT64_2,
    FN_CREAT,
    FN_CREAT64,
    FN___OPEN,
    FN___OPEN64,
    FN___OPEN_NOCANCEL,
    FN___OPEN64_NOCANCEL,
};

/* The name of fn, for the message when libc lacks it (a switch, not a
 * table of pointers: no relocations to load the library). */
static const char *fn_name(enum open_fn fn)
{
    switch (fn) {
    case FN_OPEN:
        return "open";
    case FN_OPEN64:
        return "open64";
    case FN_OPENAT:
        return "openat";
    case FN_OPENAT64:
        return "openat64";
    case FN_OPEN_2:
        return "__open_2";
    case FN_OPEN64_2:
        return "__open64_2";
    case FN_OPENAT_2:
        return "__openat_2";
    case FN_OPENAT64_2:
        return "__openat64_2";
    case FN_CREAT:
        return "creat";
    case FN_CREAT64:
        return "creat64";
    case FN___OPEN:
        return "__open";
    case FN___OPEN64:
        return "__open64";
    case FN___OPEN_NOCANCEL:
        return "__open_nocancel";
    case FN___OPEN64_NOCANCEL:
        return "__open64_nocancel";
    }
    return "open";
}

/* The real function for fn, or NULL. */
static bool have_real(enum open_fn fn)
{
    pd_bind();
    switch (fn) {
    case FN_OPEN:
        return pd_real.open;
    case FN_OPEN64:
        return pd_real.open64;
    case FN_OPENAT:
        return pd_real.openat;
    case FN_OPENAT64:
        return pd_real.openat64;
    case FN_OPEN_2:
        return pd_real.__open_2;
    case FN_OPEN64_2:
        return pd_real.__open64_2;
    case FN_OPENAT_2:
        return pd_real.__openat_2;
    case FN_OPENAT64_2:
        return pd_real.__openat64_2;
    case FN_CREAT:
        return pd_real.creat;
    case FN_CREAT64:
        return pd_real.creat64;
    case FN___OPEN:
        return pd_real.__open;
    case FN___OPEN64:
        return pd_real.__open64;
    case FN___OPEN_NOCANCEL:
        return pd_real.__open_nocancel;
    case FN___OPEN64_NOCANCEL:
        return pd_real.__open64_nocancel;
    }
    return false;
}

static int call_real(enum open_fn fn, int dirfd, const char *path, int flags, mode_t mode)
{
    switch (fn) {
    case FN_OPEN:
        return pd_real.open(path, flags, mode);
    case FN_OPEN64:
        return pd_real.open64(path, flags, mode);
    case FN_OPENAT:
        return pd_real.openat(dirfd, path, flags, mode);
    case FN_OPENAT64:
        return pd_real.openat64(dirfd, path, flags, mode);
    case FN_OPEN_2:
        return pd_real.__open_2(path, flags);
    case FN_OPEN64_2:
        return pd_real.__open64_2(path, flags);
    case FN_OPENAT_2:
        return pd_real.__openat_2(dirfd, path, flags);
    case FN_OPENAT64_2:
        return pd_real.__openat64_2(dirfd, path, flags);
    case FN_CREAT:
        return pd_real.creat(path, mode);
    case FN_CREAT64:
        return pd_real.creat64(path, mode);
    case FN___OPEN:
        return pd_real.__open(path, flags, mode);
    case FN___OPEN64:
        return pd_real.__open64(path, flags, mode);
    case FN___OPEN_NOCANCEL:
        return pd_real.__open_nocancel(path, flags, mode);
    case FN___OPEN64_NOCANCEL:
        return pd_real.__open64_nocancel(path, flags, mode);
    }
    errno = ENOSYS;
    return -1;
}

static bool is_tmpfile(int flags)
{
    return (flags & O_TMPFILE) == O_TMPFILE;
}

static bool writes(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) ||
           is_tmpfile(flags);
}

/* O_CREAT|O_EXCL creates the name itself (a link there is not followed)
 * and fails with EEXIST when it exists: PD_J_NAME|PD_J_EXISTING_PASSES.
 * O_EXCL with O_TMPFILE means "never to be linked" instead. */
static unsigned excl(int flags)
{
    if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) && !is_tmpfile(flags))
        return PD_J_NAME | PD_J_EXISTING_PASSES;
    return 0;
}

/* errno values after which openat2 says nothing about the real open. */
static bool retry_plain(int err)
{
    return err == ELOOP || err == EINVAL || err == ENOSYS || err == EPERM || err == E2BIG ||
           err == EXDEV || err == EAGAIN || err == EOPNOTSUPP;
}

/* A read the kernel refused: the namespace floor masks the secrets that
 * existed when the run started (an empty mode-0 file), so the kernel says
 * EACCES before there is an opened file to judge. Judged by name then, so
 * that a refused secret is still reported as what it is. */
static int refused_read(const struct pd_state *s, struct pd_call *call, int dirfd, const char *path,
                        int err)
{
    if (err == EACCES && !pd_path_ok(s, PD_OP_READ, dirfd, path, 0))
        return pd_fail(call, EACCES);
    pd_leave(call);
    pd_kernel_refused_path(PD_OP_READ, dirfd, path, err); /* Landlock, a mask? */
    errno = err;
    return -1;
}

static int open_read(const struct pd_state *s, struct pd_call *call, enum open_fn fn, int dirfd,
                     const char *path, int flags, mode_t mode)
{
    struct open_how how = {
        .flags = (uint64_t)(unsigned)flags, .mode = 0, .resolve = RESOLVE_NO_SYMLINKS};
    int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    bool ok;
    if (fd >= 0) {
        char abs[PD_PATH_MAX];
        ok = pd_opened_ok(s, fd, dirfd, path,
                          pd_abs_path(dirfd, path, abs, sizeof abs) ? abs : NULL);
    } else if (!retry_plain(errno)) {
        return refused_read(s, call, dirfd, path, errno);
    } else {
        fd = call_real(fn, dirfd, path, flags, mode);
        if (fd < 0)
            return refused_read(s, call, dirfd, path, errno);
        ok = pd_opened_ok(s, fd, dirfd, path, NULL);
    }
    if (!ok) {
        close(fd);
        return pd_fail(call, EACCES);
    }
    pd_leave(call);
    return fd;
}

/* A write judged before the call on its lexical path, which the index
 * proves allowed (as a write, and as the create it is if the file is
 * missing), and then made with openat2(RESOLVE_NO_SYMLINKS): when it
 * succeeds no link was crossed, so the lexical path was the physical one
 * the gate judges. One system call, as bare. Returns the descriptor, or -1
 * with errno as the open failed; OPEN_SLOW when nothing was opened,
 * created or truncated and the full gate must judge (a link on the way,
 * a path the index cannot clear, flags openat2 refuses). */
#define OPEN_SLOW (-2)

static int open_write(const struct pd_state *s, int dirfd, const char *path, int flags, mode_t mode)
{
    char abs[PD_PATH_MAX];
    /* (the index asks the same of a write and a create) */
    if (!pd_abs_path(dirfd, path, abs, sizeof abs) ||
        pd_match_maybe_denied(s->img, PD_OP_WRITE, abs))
        return OPEN_SLOW;
    struct open_how how = {.flags = (uint64_t)(unsigned)flags,
                           .mode = (flags & O_CREAT) ? (uint64_t)mode : 0,
                           .resolve = RESOLVE_NO_SYMLINKS};
    int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd < 0 && retry_plain(errno))
        return OPEN_SLOW;
    if (pd_env()->debug)
        pd_trace("write", path, "allow", NULL, NULL);
    return fd;
}

static int open_gated(enum open_fn fn, int dirfd, const char *path, int flags, mode_t mode)
{
    if (!have_real(fn)) {
        pd_missing(fn_name(fn));
        return -1;
    }
    struct pd_call call;
    const struct pd_state *s = pd_enter(&call);
    if (!s || !path || (flags & O_PATH)) {
        pd_leave(&call);
        return call_real(fn, dirfd, path, flags, mode);
    }
    if (s->mode == PD_MODE_CLOSED) {
        pd_closed_ok(s, writes(flags) ? "write" : "read", path);
        return pd_fail(&call, EACCES);
    }
    if (!writes(flags) && path[0])
        return open_read(s, &call, fn, dirfd, path, flags, mode);
    enum pd_op op = is_tmpfile(flags) ? PD_OP_CREATE : PD_OP_WRITE;
    if (op == PD_OP_WRITE && path[0]) {
        int fd = open_write(s, dirfd, path, flags, mode);
        if (fd != OPEN_SLOW) {
            int err = errno;
            pd_leave(&call); /* errno as on entry, unless the open failed */
            if (fd < 0)
                errno = err;
            return pd_kernel_after(fd, op, dirfd, path);
        }
    }
    if (!pd_path_ok(s, op, dirfd, path, PD_J_CREATE_IF_MISSING | excl(flags)))
        return pd_fail(&call, EACCES);
    pd_leave(&call);
    int fd = call_real(fn, dirfd, path, flags, mode);
    /* O_TMPFILE names a folder, whose own right Landlock checks: not said */
    return is_tmpfile(flags) ? fd : pd_kernel_after(fd, op, dirfd, path);
}

static mode_t mode_arg(int flags, va_list ap)
{
    if ((flags & O_CREAT) || is_tmpfile(flags))
        return (mode_t)va_arg(ap, int);
    return 0;
}

PD_EXPORT int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN_OPEN, AT_FDCWD, path, flags, mode);
}

PD_EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN_OPEN64, AT_FDCWD, path, flags, mode);
}

PD_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN_OPENAT, dirfd, path, flags, mode);
}

PD_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN_OPENAT64, dirfd, path, flags, mode);
}

PD_EXPORT int __open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN___OPEN, AT_FDCWD, path, flags, mode);
}

PD_EXPORT int __open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN___OPEN64, AT_FDCWD, path, flags, mode);
}

PD_EXPORT int __open_nocancel(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN___OPEN_NOCANCEL, AT_FDCWD, path, flags, mode);
}

PD_EXPORT int __open64_nocancel(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_gated(FN___OPEN64_NOCANCEL, AT_FDCWD, path, flags, mode);
}

int pdw___open_2(const char *path, int flags)
{
    return open_gated(FN_OPEN_2, AT_FDCWD, path, flags, 0);
}

int pdw___open64_2(const char *path, int flags)
{
    return open_gated(FN_OPEN64_2, AT_FDCWD, path, flags, 0);
}

int pdw___openat_2(int dirfd, const char *path, int flags)
{
    return open_gated(FN_OPENAT_2, dirfd, path, flags, 0);
}

int pdw___openat64_2(int dirfd, const char *path, int flags)
{
    return open_gated(FN_OPENAT64_2, dirfd, path, flags, 0);
}

int pdw_creat(const char *path, mode_t mode)
{
    return open_gated(FN_CREAT, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int pdw_creat64(const char *path, mode_t mode)
{
    return open_gated(FN_CREAT64, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* fopen modes: "r" reads; "r+", "w", "a" (and "x") write. */
static bool mode_writes(const char *mode)
{
    return mode && (mode[0] != 'r' || strchr(mode, '+'));
}

/* After a stdio open: a kernel layer's refusal is said (pd_kernel_after). */
static FILE *stdio_after(FILE *f, const char *path, const char *mode)
{
    if (!f && path)
        pd_kernel_after(-1, mode_writes(mode) ? PD_OP_WRITE : PD_OP_READ, AT_FDCWD, path);
    return f;
}

/* Judge a stdio open before the call. */
static bool stdio_ok(struct pd_call *call, const char *path, const char *mode)
{
    const struct pd_state *s = pd_enter(call);
    if (!s || !path)
        return true;
    if (s->mode == PD_MODE_CLOSED)
        return pd_closed_ok(s, mode_writes(mode) ? "write" : "read", path);
    /* "x" (C11 "wx"): O_CREAT|O_EXCL */
    unsigned x = mode && mode[0] == 'w' && strchr(mode, 'x') ? excl(O_CREAT | O_EXCL) : 0;
    if (mode_writes(mode))
        return pd_path_ok(s, PD_OP_WRITE, AT_FDCWD, path, PD_J_CREATE_IF_MISSING | x);
    return pd_path_ok(s, PD_OP_READ, AT_FDCWD, path, 0);
}

FILE *pdw_fopen(const char *path, const char *mode)
{
    PD_NEED(fopen, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, mode)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real.fopen(path, mode), path, mode);
}

FILE *pdw_fopen64(const char *path, const char *mode)
{
    PD_NEED(fopen64, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, mode)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real.fopen64(path, mode), path, mode);
}

FILE *pdw_freopen(const char *path, const char *mode, FILE *stream)
{
    PD_NEED(freopen, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, mode)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real.freopen(path, mode, stream), path, mode);
}

FILE *pdw_freopen64(const char *path, const char *mode, FILE *stream)
{
    PD_NEED(freopen64, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, mode)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real.freopen64(path, mode, stream), path, mode);
}

FILE *pdw__IO_fopen(const char *path, const char *mode)
{
    PD_NEED(_IO_fopen, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, mode)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real._IO_fopen(path, mode), path, mode);
}

/* libio's openers take a FILE the caller set up; glibc's own fopen reaches
 * them internally (not through this library), a program only by name. */
FILE *pdw__IO_file_fopen(FILE *fp, const char *path, const char *mode, int is32)
{
    PD_NEED(_IO_file_fopen, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, mode)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real._IO_file_fopen(fp, path, mode, is32), path, mode);
}

FILE *pdw__IO_file_open(FILE *fp, const char *path, int flags, int prot, int read_write, int is32)
{
    PD_NEED(_IO_file_open, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, writes(flags) ? "w" : "r")) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real._IO_file_open(fp, path, flags, prot, read_write, is32), path,
                       writes(flags) ? "w" : "r");
}

FILE *pdw___nss_files_fopen(const char *path)
{
    PD_NEED(__nss_files_fopen, NULL);
    struct pd_call call;
    if (!stdio_ok(&call, path, "r")) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return stdio_after(pd_real.__nss_files_fopen(path), path, "r");
}

/* The open happens later, in the child, inside glibc (out of reach): judge
 * it now, against the working directory of the caller. Returns an error
 * number, as the function does. */
int pdw_posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path,
                                         int flags, mode_t mode)
{
    PD_NEED(posix_spawn_file_actions_addopen, ENOSYS);
    struct pd_call call;
    const struct pd_state *s = pd_enter(&call);
    if (s && path && !(flags & O_PATH)) {
        bool ok;
        if (s->mode == PD_MODE_CLOSED)
            ok = pd_closed_ok(s, writes(flags) ? "write" : "read", path);
        else if (writes(flags))
            ok = pd_path_ok(s, PD_OP_WRITE, AT_FDCWD, path, PD_J_CREATE_IF_MISSING | excl(flags));
        else
            ok = pd_path_ok(s, PD_OP_READ, AT_FDCWD, path, 0);
        if (!ok) {
            pd_leave(&call);
            return EACCES;
        }
    }
    pd_leave(&call);
    return pd_real.posix_spawn_file_actions_addopen(fa, fd, path, flags, mode);
}
