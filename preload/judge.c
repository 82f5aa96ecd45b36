/* preload/judge.c - resolve the path a call names and decide.
 *
 * The decision is always pd_gate_path's (policy/gate_path.c). What this
 * file adds is a cheap way to know the physical path: an openat2 probe with
 * RESOLVE_NO_SYMLINKS. When it succeeds (or fails with ENOENT/ENOTDIR) no
 * symbolic link was crossed, so the lexically cleaned path is the physical
 * one, and the pattern index (match.h) can prove "allow" without the
 * lstat-per-component walk of pd_path_normalize. Anything else - a link on
 * the way, an old kernel, a seccomp filter refusing openat2 - takes the
 * full gate. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/channel.h"
#include "preload/guard.h"
#include "preload/judge.h"
#include "preload/match.h"

#define PD_REASON_NOT_LOADED "policy not loaded"

const struct pd_state *pd_enter(struct pd_call *call)
{
    call->saved_errno = errno;
    call->entered = false;
    if (pd_guard_busy())
        return NULL;
    call->guard = pd_guard_enter();
    call->entered = true;
    const struct pd_state *s = pd_state();
    if (s->mode == PD_MODE_PASS) {
        pd_leave(call);
        return NULL;
    }
    return s;
}

void pd_leave(struct pd_call *call)
{
    if (call->entered) {
        pd_guard_leave(call->guard);
        call->entered = false;
    }
    errno = call->saved_errno;
}

int pd_fail(struct pd_call *call, int err)
{
    pd_leave(call);
    errno = err;
    return -1;
}

/* getcwd is a system call, as costly as the open it would serve: the
 * working directory is kept per thread and taken again when the process
 * generation moved (chdir, fchdir, chroot or a rename in any thread). A
 * rename by another process is not seen; it passes through this gate too,
 * so it cannot move the directory to or from a denied name. */
static atomic_ulong cwd_generation = 1;
static __thread unsigned long cwd_seen __attribute__((tls_model("initial-exec")));
static __thread char cwd_cache[PD_PATH_MAX] __attribute__((tls_model("initial-exec")));

void pd_cwd_changed(void)
{
    atomic_fetch_add(&cwd_generation, 1);
}

int pd_base_dir(int dirfd, char *out, size_t len)
{
    if (dirfd == AT_FDCWD) {
        unsigned long gen = atomic_load(&cwd_generation);
        if (cwd_seen != gen) {
            if (!getcwd(cwd_cache, sizeof cwd_cache) || cwd_cache[0] != '/')
                return -1;
            cwd_seen = gen;
        }
        size_t n = strlen(cwd_cache);
        if (n + 1 > len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(out, cwd_cache, n + 1);
        return 0;
    }
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    if (out[0] != '/') {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

bool pd_verdict_ok(const struct pd_state *s, const char *op, const char *subject,
                   const struct pd_verdict *v)
{
    const struct pd_env *e = pd_env();
    if (!v->deny) {
        if (e->debug)
            pd_trace(op, subject, "allow", NULL, NULL);
        return true;
    }
    const char *pattern = v->pattern ? v->pattern : "";
    if (e->debug)
        pd_trace(op, subject, e->audit ? "audit" : "deny", v->reason, pattern);
    struct pd_event ev = {e->audit ? PD_REPORT_AUDIT : PD_REPORT_DENY,
                          op,
                          subject,
                          v->resolved,
                          v->key ? v->key : "",
                          pattern,
                          v->reason ? v->reason : ""};
    pd_emit(s, &ev, true);
    return e->audit;
}

bool pd_closed_ok(const struct pd_state *s, const char *op, const char *subject)
{
    (void)s;
    if (pd_env()->debug)
        pd_trace(op, subject ? subject : "", "deny", PD_REASON_NOT_LOADED, "");
    return false;
}

/* Judge an absolute physical path: the index first, the gate if needed. */
static bool abs_ok(const struct pd_state *s, enum pd_op op, const char *subject, const char *abs)
{
    if (!pd_match_maybe_denied(s->match, &s->ctx, op, abs)) {
        if (pd_env()->debug)
            pd_trace(pd_op_name(op), subject, "allow", NULL, NULL);
        return true;
    }
    struct pd_verdict v;
    pd_gate_path(&s->ctx, op, NULL, abs, &v);
    snprintf(v.subject, sizeof v.subject, "%s", subject);
    return pd_verdict_ok(s, pd_op_name(op), subject, &v);
}

/* 1: no symbolic link on the way (and *exists says whether the path is
 * there); 0: unknown, ask the full gate. */
static int probe(int dirfd, const char *path, bool *exists)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .mode = 0, .resolve = RESOLVE_NO_SYMLINKS};
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0) {
        close((int)fd);
        *exists = true;
        return 1;
    }
    if (errno == ENOENT || errno == ENOTDIR) {
        *exists = false;
        return 1;
    }
    return 0;
}

static void join_clean(const char *base, const char *path, char *out, size_t len)
{
    char joined[2 * PD_PATH_MAX + 2];
    if (path[0] == '/' || !base)
        snprintf(joined, sizeof joined, "%s", path);
    else
        snprintf(joined, sizeof joined, "%s/%s", base, path);
    pd_path_clean(joined, out, len);
}

bool pd_path_ok(const struct pd_state *s, enum pd_op op, int dirfd, const char *path,
                unsigned flags)
{
    if (!path || !path[0])
        return true; /* the call itself fails (ENOENT, EFAULT) */
    if (s->mode == PD_MODE_CLOSED)
        return pd_closed_ok(s, pd_op_name(op), path);
    char base[PD_PATH_MAX];
    const char *basep = NULL;
    if (path[0] != '/') {
        if (pd_base_dir(dirfd, base, sizeof base) != 0) {
            if (dirfd != AT_FDCWD && fcntl(dirfd, F_GETFD) < 0)
                return true; /* a bad descriptor: the call fails with EBADF */
            struct pd_verdict v;
            pd_verdict_allow(&v);
            v.deny = true;
            v.reason = PD_REASON_UNRESOLVABLE;
            v.key = "path";
            v.resolved[0] = '\0';
            return pd_verdict_ok(s, pd_op_name(op), path, &v);
        }
        basep = base;
    }
    bool exists = false;
    int exact = probe(dirfd, path, &exists);
    if (!exact) {
        struct stat st;
        exists = fstatat(dirfd, path, &st, 0) == 0;
    }
    if (op == PD_OP_WRITE && (flags & PD_J_CREATE_IF_MISSING) && !exists)
        op = PD_OP_CREATE;
    if (exact) {
        char abs[PD_PATH_MAX];
        join_clean(basep, path, abs, sizeof abs);
        if (!pd_match_maybe_denied(s->match, &s->ctx, op, abs)) {
            if (pd_env()->debug)
                pd_trace(pd_op_name(op), path, "allow", NULL, NULL);
            return true;
        }
    }
    struct pd_verdict v;
    pd_gate_path(&s->ctx, op, basep, path, &v);
    return pd_verdict_ok(s, pd_op_name(op), path, &v);
}

bool pd_opened_ok(const struct pd_state *s, int fd, int dirfd, const char *path, const char *abs)
{
    char real[PD_PATH_MAX];
    if (!abs) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, real, sizeof real - 1);
        if (n > 0 && real[0] == '/') {
            real[n] = '\0';
            abs = real;
        }
    }
    if (abs)
        return abs_ok(s, PD_OP_READ, path, abs);
    /* /proc is not there, or fd is not a file: judge the name as passed */
    return pd_path_ok(s, PD_OP_READ, dirfd, path, 0);
}
