/* preload/kernel_would_refuse.c - the verdict of a write outside the
 * writable roots (kernel_would_refuse.h).
 *
 * Programs try writes they expect to fail: python3 -I caches bytecode next
 * to the standard library, man updates /var/cache/man, and both carry on
 * when the kernel says EACCES. Refusing those in the gate and denying the
 * run turned ordinary work into denials. When the file permissions (or a
 * read-only mount, or a missing directory) would refuse the call anyway,
 * the call goes to the kernel: it fails exactly as it would bare, and
 * Landlock still stands behind it. What the permissions would allow is
 * refused here and reported as "blocked". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/kernel_would_refuse.h"
#include "preload/sandbox_view.h"

bool pd_outside_roots_only(const struct pd_verdict *v)
{
    /* the key first: verdicts of other gates may leave op and resolved unset */
    if (!v->deny || !v->key ||
        (strcmp(v->key, "workspace") != 0 && strcmp(v->key, "allow_paths") != 0))
        return false;
    return v->resolved[0] == '/' &&
           (v->op == PD_OP_WRITE || v->op == PD_OP_CREATE || v->op == PD_OP_DELETE);
}

/* path cannot be looked up (stat says EACCES): is the directory on the way
 * that stops the lookup one the caller may not search and does not own?
 * Then no chmod of the caller's can open the way (/sys/kernel/debug, mode
 * 0700 root, in front of tracing/trace_marker). */
static bool lookup_refused(const char *path)
{
    char dir[PD_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash; (slash = strrchr(dir, '/')) != NULL;) {
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        struct stat st;
        if (stat(dir, &st) == 0)
            return S_ISDIR(st.st_mode) && st.st_uid != geteuid() &&
                   faccessat(AT_FDCWD, dir, X_OK, 0) != 0;
        if (errno != EACCES || slash == dir)
            return false;
    }
    return false;
}

/* Did faccessat's error (err, about path) say "the kernel refuses" in a way
 * the caller cannot undo between this check and the call? A missing or
 * read-only place is that; a permission is that only on a file the caller
 * does not own (an owner may chmod it back in another thread, and without
 * the kernel layers nothing else would stop the call), or on a directory on
 * the way that the caller may not search and does not own. */
static bool refused(int err, const char *path)
{
    if (err == EROFS || err == ENOENT || err == ENOTDIR)
        return true;
    if ((err != EACCES && err != EPERM) || geteuid() == 0)
        return false;
    struct stat st;
    if (stat(path, &st) == 0)
        return st.st_uid != geteuid();
    return errno == EACCES && lookup_refused(path);
}

bool pd_kernel_would_refuse(enum pd_op op, const char *abs)
{
    struct stat st;
    /* the real and effective ids are the same here: set-uid programs run
     * without the preload (a coverage record), so plain faccessat asks
     * what the call itself would be asked */
    if (op == PD_OP_WRITE && fstatat(AT_FDCWD, abs, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        /* the owner may change mode, owner or times of a file it may not
         * write (chmod u+w is a write too): refused() asks who owns it */
        return faccessat(AT_FDCWD, abs, W_OK, 0) != 0 && refused(errno, abs);
    }
    /* create, delete, or a write that creates: the parent directory decides */
    char parent[PD_PATH_MAX];
    const char *slash = strrchr(abs, '/');
    if (!slash || (size_t)(slash - abs) >= sizeof parent)
        return false;
    if (slash == abs)
        snprintf(parent, sizeof parent, "/");
    else
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - abs), abs);
    if (op == PD_OP_DELETE && fstatat(AT_FDCWD, abs, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
        errno == ENOENT)
        return true; /* nothing to remove: ENOENT */
    return faccessat(AT_FDCWD, parent, W_OK | X_OK, 0) != 0 && refused(errno, parent);
}

const char *pd_refusal_kind(const struct pd_image *im, const struct pd_verdict *v, bool audit,
                            const char **why)
{
    if (pd_outside_roots_only(v)) {
        int saved = errno;
        bool kernel = pd_kernel_would_refuse(v->op, v->resolved);
        errno = saved;
        *why = "the kernel refuses it anyway";
        if (kernel)
            return NULL;
        *why = "a tmpfs of a sandbox the program made";
        if (pd_private_tmpfs(im, v->op, v->resolved))
            return NULL;
        *why = "a writable root under another name";
        if (pd_in_root_by_identity(im, v->op, v->resolved))
            return NULL;
        return audit ? PD_REPORT_AUDIT : PD_REPORT_BLOCKED;
    }
    return audit ? PD_REPORT_AUDIT : PD_REPORT_DENY;
}
