/* preload/kernel_refusal.c - name the kernel layer that refused a call the
 * live gate allowed (kernel_refusal.h). Runs on the failure path only, in
 * any context a wrapper may run in: no allocation, no stdio, no locks. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/channel.h"
#include "preload/judge.h"
#include "preload/kernel_refusal.h"

/* Only an isolated exec run has kernel layers to blame. */
static const struct pd_state *enter_layers(struct pd_call *call)
{
    const struct pd_state *s = pd_enter(call);
    if (s && (s->mode != PD_MODE_ACTIVE || !(s->img->flags & PD_IMAGE_KERNEL) || !pd_full(s))) {
        pd_leave(call);
        return NULL;
    }
    return s;
}

/* What the kernel layers grant (enter_layers made sure there is one). */
static const struct pd_kernel_grants *grants(const struct pd_state *s)
{
    return &pd_full(s)->grants;
}

static void report(const struct pd_state *s, const char *op, const char *path, const char *resolved,
                   const char *layer, const char *pattern, const char *reason)
{
    if (pd_env()->debug)
        pd_trace(op, path, "blocked", reason, NULL);
    struct pd_event ev = {PD_REPORT_BLOCKED, op, path, resolved, layer, pattern, reason};
    pd_emit(s, &ev, true);
}

/* A mask of the namespace floor (platform/linux/ns_mask.c): its source
 * was unlinked once mounted and it has no mode bits. A path that leads to
 * an inode without links is a bind of a removed file, which only the floor
 * makes. */
static bool is_mask(const struct stat *st)
{
    return st->st_nlink == 0 && (st->st_mode & 07777) == 0;
}

/* The path could not be looked at (EACCES): is the nearest folder above it
 * that can be a mask (~/.ssh masked, ~/.ssh/id_rsa asked for)? */
static bool mask_above(int dirfd, const char *path)
{
    char p[PD_PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *slash; (slash = strrchr(p, '/')) != NULL && slash != p;) {
        *slash = '\0';
        struct stat st;
        if (fstatat(dirfd, p, &st, 0) == 0)
            return is_mask(&st);
        if (errno != EACCES)
            return false;
    }
    return false;
}

/* Do the file permissions (and the mount's flags) allow op on (dirfd,
 * path)? Asked with faccessat(AT_EACCESS), which Landlock leaves alone:
 * "allowed" here and EACCES from the call is the sandbox's refusal, not
 * the file's. st: the path's stat, NULL when it could not be had. */
static bool permissions_allow(enum pd_op op, int dirfd, const char *path, const struct stat *st)
{
    switch (op) {
    case PD_OP_READ:
    case PD_OP_NAME: /* a folder is always listable under Landlock here */
        return st && !S_ISDIR(st->st_mode) && faccessat(dirfd, path, R_OK, AT_EACCESS) == 0;
    case PD_OP_WRITE:
        return st && faccessat(dirfd, path, W_OK, AT_EACCESS) == 0;
    case PD_OP_EXEC:
        return st && S_ISREG(st->st_mode) && faccessat(dirfd, path, X_OK, AT_EACCESS) == 0;
    case PD_OP_CREATE:
    case PD_OP_DELETE: {
        /* the folder that holds the name, lexically (trailing '/' aside) */
        char parent[PD_PATH_MAX];
        snprintf(parent, sizeof parent, "%s", path);
        size_t n = strlen(parent);
        while (n > 1 && parent[n - 1] == '/')
            parent[--n] = '\0';
        char *slash = strrchr(parent, '/');
        if (!slash)
            snprintf(parent, sizeof parent, ".");
        else
            slash[slash == parent ? 1 : 0] = '\0';
        return faccessat(dirfd, parent, W_OK | X_OK, AT_EACCESS) == 0;
    }
    }
    return false;
}

static const char *landlock_reason(enum pd_op op)
{
    if (op == PD_OP_READ || op == PD_OP_NAME)
        return PD_KERNEL_READ;
    return op == PD_OP_EXEC ? PD_KERNEL_EXEC : PD_KERNEL_WRITE;
}

/* The absolute physical path of (dirfd, path) into abs (PD_PATH_MAX):
 * links followed, or for a create or delete (name) those of the folder
 * only. No "~" expansion: a system call takes the name as it is. */
static bool resolve(int dirfd, const char *path, bool name, char *abs)
{
    char base[PD_PATH_MAX];
    const char *basep = NULL;
    if (path[0] != '/') {
        if (pd_base_dir(dirfd, base, sizeof base) != 0)
            return false;
        basep = base;
    }
    int rc = name ? pd_path_normalize_name(basep, NULL, path, abs, PD_PATH_MAX)
                  : pd_path_normalize(basep, NULL, path, abs, PD_PATH_MAX);
    return rc == 0;
}

/* Which layer refused op on (dirfd, path) with err; report it (shown: the
 * path as the record names it). The cheap questions first: a refusal by
 * the permissions, the common case, costs a stat and a faccessat. */
static void judge(const struct pd_state *s, enum pd_op op, int dirfd, const char *path,
                  const char *shown, int err)
{
    const char *opname = pd_op_name(op);
    const bool name = op == PD_OP_CREATE || op == PD_OP_DELETE;
    char abs[PD_PATH_MAX];
    struct stat st;
    bool have = fstatat(dirfd, path, &st, 0) == 0;
    /* /proc/<pid>/fd/<n> of a deleted mode-0 file looks like a mask too */
    bool proc = strncmp(path, "/proc/", 6) == 0;
    if (err == EACCES && !proc &&
        (have ? is_mask(&st) : errno == EACCES && mask_above(dirfd, path))) {
        if (resolve(dirfd, path, false, abs))
            report(s, opname, shown, abs, PD_LAYER_NAMESPACE, "", PD_KERNEL_MASKED);
        return;
    }
    if (err == EROFS && op != PD_OP_READ && op != PD_OP_EXEC && resolve(dirfd, path, name, abs)) {
        const char *bind = pd_kernel_grants_readonly(grants(s), abs);
        if (bind)
            report(s, opname, shown, abs, PD_LAYER_NAMESPACE, bind, PD_KERNEL_READONLY);
        return;
    }
    if (err != EACCES || !permissions_allow(op, dirfd, path, have ? &st : NULL) ||
        !resolve(dirfd, path, name, abs) || pd_kernel_grants_allow(grants(s), op, abs))
        return;
    /* no terminal in a captured run: opening it fails bare too (ENXIO) */
    if (strcmp(abs, "/dev/tty") == 0)
        return;
    /* Runtimes probe /sys for their limits and tuning on every start (node
     * and the JVM read the cgroup's memory and CPU limits, the JVM and Go
     * the huge page size, ps the NUMA nodes) and go on without: a line per
     * run, and a denial under strict = true, for what the program expects
     * may fail. Traced only. */
    if ((op == PD_OP_READ || op == PD_OP_NAME) && pd_path_under(abs, "/sys")) {
        if (pd_env()->debug)
            pd_trace(opname, shown, "blocked", PD_KERNEL_READ " (/sys: not reported)", NULL);
        return;
    }
    report(s, opname, shown, abs, PD_LAYER_LANDLOCK, "", landlock_reason(op));
}

/* shown: the path as the record names it ("name/" for a folder's create:
 * judge.h, PD_J_DIR) */
static void refused_path(enum pd_op op, int dirfd, const char *path, const char *shown, int err)
{
    if ((err != EACCES && err != EROFS) || !path || !path[0])
        return;
    struct pd_call call;
    const struct pd_state *s = enter_layers(&call);
    if (!s)
        return;
    struct stat st;
    if (op == PD_OP_WRITE && fstatat(dirfd, path, &st, 0) != 0 && errno == ENOENT)
        op = PD_OP_CREATE;
    judge(s, op, dirfd, path, shown, err);
    pd_leave(&call);
}

void pd_kernel_refused_path(enum pd_op op, int dirfd, const char *path, int err)
{
    refused_path(op, dirfd, path, path, err);
}

int pd_kernel_after(int rc, enum pd_op op, int dirfd, const char *path)
{
    if (rc < 0) {
        int err = errno;
        refused_path(op, dirfd, path, path, err);
        errno = err;
    }
    return rc;
}

int pd_kernel_after_mkdir(int rc, int dirfd, const char *path)
{
    if (rc < 0 && path && path[0]) {
        int err = errno;
        char folder[PD_PATH_MAX];
        size_t n = strlen(path);
        const char *shown = path;
        if (path[n - 1] != '/' && n + 1 < sizeof folder) {
            snprintf(folder, sizeof folder, "%s/", path);
            shown = folder;
        }
        refused_path(PD_OP_CREATE, dirfd, path, shown, err);
        errno = err;
    }
    return rc;
}

void pd_kernel_refused_exec(const char *abs, int err)
{
    if (err != EACCES || !abs || abs[0] != '/')
        return;
    struct pd_call call;
    const struct pd_state *s = enter_layers(&call);
    if (!s)
        return;
    judge(s, PD_OP_EXEC, AT_FDCWD, abs, abs, err);
    pd_leave(&call);
}

/* One record per process image and family: a program that retries its
 * connection in a loop says it once (fork children inherit the flag). */
static atomic_bool socket_said[2];

void pd_kernel_refused_socket(int domain, int type, int err)
{
    int kind = type & 0xf; /* SOCK_NONBLOCK and SOCK_CLOEXEC are flags above */
    if (err != EPERM || (domain != AF_INET && domain != AF_INET6) ||
        (kind != SOCK_STREAM && kind != SOCK_DGRAM))
        return;
    struct pd_call call;
    const struct pd_state *s = enter_layers(&call);
    if (!s)
        return;
    if (!s->img->scalars[PD_IS_allow_network].i &&
        !atomic_exchange(&socket_said[domain == AF_INET6], true))
        report(s, "socket", domain == AF_INET6 ? "AF_INET6" : "AF_INET", "", PD_LAYER_SECCOMP, "",
               PD_KERNEL_NETWORK);
    pd_leave(&call);
}

void pd_kernel_refused_unix(const char *path, int err)
{
    if (err != EACCES || !path || !path[0])
        return;
    struct pd_call call;
    const struct pd_state *s = enter_layers(&call);
    if (!s)
        return;
    struct stat st;
    char abs[PD_PATH_MAX];
    if (fstatat(AT_FDCWD, path, &st, 0) == 0 && is_mask(&st) && resolve(AT_FDCWD, path, false, abs))
        report(s, "connect", path, abs, PD_LAYER_NAMESPACE, "", PD_KERNEL_HOST_SOCK);
    pd_leave(&call);
}
