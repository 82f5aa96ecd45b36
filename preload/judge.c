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
#include <sys/mman.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/channel.h"
#include "preload/guard.h"
#include "preload/judge.h"
#include "preload/kernel_would_refuse.h"
#include "preload/match.h"

#define PD_REASON_NOT_LOADED "policy not loaded"
#define PD_REASON_NO_MEMORY  "no memory for the policy"

const struct pd_state *pd_enter(struct pd_call *call)
{
    call->saved_errno = errno;
    call->entered = false;
    if (pd_guard_busy())
        return NULL;
    call->guard = pd_guard_enter();
    call->entered = true;
    pd_state_load(&call->state);
    if (call->state.mode == PD_MODE_PASS) {
        pd_leave(call);
        return NULL;
    }
    return &call->state;
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
 * working directory is kept and taken again when the generation moved
 * (chdir, fchdir, chroot or a rename in any thread). A rename by another
 * process is not seen; it passes through this gate too, so it cannot move
 * the directory to or from a denied name.
 *
 * One copy per process (threads share the working directory), not one per
 * thread: static TLS comes out of every thread's stack, and node's 32 KiB
 * threads did not fit a 4 KiB copy. Wrappers take no lock they could wait
 * on (they run in signal handlers and in fork children), so the copy is a
 * sequence lock: cwd_seq is odd while one thread writes, a reader copies
 * and keeps the copy only if cwd_seq did not move, and a thread that finds
 * the copy stale or busy asks getcwd and publishes what it got unless
 * another thread is publishing. The bytes are relaxed atomics, so a torn
 * read is detected, never undefined. */
static atomic_ulong cwd_generation = 1;
static atomic_long cwd_writer; /* pid of the publishing thread's process, 0: none */
static atomic_ulong cwd_seq;   /* odd: being written */
static atomic_ulong cwd_gen;   /* generation the copy was taken in */
static atomic_size_t cwd_len;  /* strlen of the copy */
/* The copy's bytes: a page mapped on first use (PD_PATH_MAX bytes), so
 * that a process that never resolves a relative path does not carry it,
 * and a library whose data fits its file needs no extra mapping to load. */
static _Atomic(_Atomic char *) cwd_path;

/* The copy's bytes, mapped now if they are not yet. */
static _Atomic char *cwd_bytes(void)
{
    _Atomic char *p = atomic_load_explicit(&cwd_path, memory_order_acquire);
    if (p)
        return p;
    void *m = mmap(NULL, PD_PATH_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    _Atomic char *seen = NULL;
    if (!atomic_compare_exchange_strong(&cwd_path, &seen, (_Atomic char *)m)) {
        munmap(m, PD_PATH_MAX);
        return seen;
    }
    return m;
}

void pd_cwd_changed(void)
{
    atomic_fetch_add(&cwd_generation, 1);
}

/* Copy the cached working directory of generation gen into out. */
static bool cwd_read(unsigned long gen, char *out, size_t len)
{
    unsigned long s1 = atomic_load_explicit(&cwd_seq, memory_order_acquire);
    _Atomic char *bytes = atomic_load_explicit(&cwd_path, memory_order_acquire);
    if (!bytes || s1 & 1 || atomic_load_explicit(&cwd_gen, memory_order_relaxed) != gen)
        return false;
    size_t n = atomic_load_explicit(&cwd_len, memory_order_relaxed);
    if (n == 0 || n >= len || n >= PD_PATH_MAX)
        return false;
    for (size_t k = 0; k < n; k++)
        out[k] = atomic_load_explicit(&bytes[k], memory_order_relaxed);
    out[n] = '\0';
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&cwd_seq, memory_order_relaxed) == s1;
}

/* Publish path as the working directory of generation gen. The writer slot
 * holds a pid: one of this process means a thread here is publishing (leave
 * it to that one); another pid is a writer that fork interrupted, which
 * will never finish in this process (take the slot over). */
static void cwd_publish(unsigned long gen, const char *path)
{
    size_t n = strlen(path);
    _Atomic char *bytes = cwd_bytes();
    if (n >= PD_PATH_MAX || !bytes)
        return;
    long self = (long)getpid();
    long owner = 0;
    if (!atomic_compare_exchange_strong(&cwd_writer, &owner, self) &&
        (owner == self || !atomic_compare_exchange_strong(&cwd_writer, &owner, self)))
        return;
    /* odd, and changed even if an interrupted writer left it odd */
    unsigned long seq = (atomic_load_explicit(&cwd_seq, memory_order_relaxed) | 1) + 2;
    atomic_store_explicit(&cwd_seq, seq, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (size_t k = 0; k < n; k++)
        atomic_store_explicit(&bytes[k], path[k], memory_order_relaxed);
    atomic_store_explicit(&cwd_len, n, memory_order_relaxed);
    atomic_store_explicit(&cwd_gen, gen, memory_order_relaxed);
    atomic_store_explicit(&cwd_seq, seq + 1, memory_order_release);
    atomic_store_explicit(&cwd_writer, 0, memory_order_release);
}

int pd_base_dir(int dirfd, char *out, size_t len)
{
    if (dirfd == AT_FDCWD) {
        unsigned long gen = atomic_load(&cwd_generation);
        if (cwd_read(gen, out, len))
            return 0;
        if (!getcwd(out, len)) {
            if (errno == ERANGE)
                errno = ENAMETOOLONG;
            return -1;
        }
        if (out[0] != '/')
            return -1;
        cwd_publish(gen, out);
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
    const char *why = "";
    const char *kind = pd_refusal_kind(s->img, v, e->audit, &why); /* kernel_would_refuse.h */
    if (!kind) {
        if (e->debug)
            pd_trace(op, subject, "pass", why, pattern);
        return true;
    }
    if (e->debug)
        pd_trace(op, subject, e->audit ? "audit" : "deny", v->reason, pattern);
    struct pd_event ev = {
        kind, op, subject, v->resolved, v->key ? v->key : "", pattern, v->reason ? v->reason : ""};
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

const struct pd_full *pd_full_or_refuse(const struct pd_state *s, const char *op,
                                        const char *subject)
{
    const struct pd_full *f = pd_full(s);
    if (!f && pd_env()->debug)
        pd_trace(op, subject ? subject : "", "deny", PD_REASON_NO_MEMORY, "");
    return f;
}

/* Judge an absolute physical path: the index first, the gate if needed. */
static bool abs_ok(const struct pd_state *s, enum pd_op op, const char *subject, const char *abs)
{
    if (!pd_match_maybe_denied(s->img, op, abs)) {
        if (pd_env()->debug)
            pd_trace(pd_op_name(op), subject, "allow", NULL, NULL);
        return true;
    }
    const struct pd_full *f = pd_full_or_refuse(s, pd_op_name(op), subject);
    if (!f)
        return false;
    struct pd_verdict v;
    pd_gate_path(&f->ctx, op, NULL, abs, &v);
    snprintf(v.subject, sizeof v.subject, "%s", subject);
    return pd_verdict_ok(s, pd_op_name(op), subject, &v);
}

/* 1: no symbolic link on the way (and *exists says whether the path is
 * there); 0: unknown, ask the full gate. */
static int probe(int dirfd, const char *path, bool name, bool *exists)
{
    /* name: a link as the last component is opened as the link (O_NOFOLLOW
     * with O_PATH), so that it counts as there and as no link crossed */
    struct open_how how = {.flags = O_PATH | O_CLOEXEC | (name ? O_NOFOLLOW : 0),
                           .mode = 0,
                           .resolve = RESOLVE_NO_SYMLINKS};
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
    size_t b = 0, n = strnlen(path, PD_PATH_MAX);
    if (path[0] != '/' && base) { /* no stdio on the hot path: "base/path" by hand */
        b = strnlen(base, PD_PATH_MAX);
        memcpy(joined, base, b);
        joined[b++] = '/';
    }
    memcpy(joined + b, path, n);
    joined[b + n] = '\0';
    pd_path_clean(joined, out, len);
}

bool pd_abs_path(int dirfd, const char *path, char *out, size_t len)
{
    char base[PD_PATH_MAX];
    if (path[0] == '/') {
        pd_path_clean(path, out, len);
        return true;
    }
    if (pd_base_dir(dirfd, base, sizeof base) != 0)
        return false;
    join_clean(base, path, out, len);
    return true;
}

/* pd_verdict_ok for a folder's create (PD_J_DIR): reported as "path/".
 * Out of line, so that pd_path_ok's frame does not carry the copy (small
 * thread stacks). */
__attribute__((noinline)) static bool folder_verdict_ok(const struct pd_state *s, enum pd_op op,
                                                        const char *path,
                                                        const struct pd_verdict *v)
{
    char folder[PD_PATH_MAX + 1];
    size_t n = strlen(path);
    if (path[n - 1] != '/' && n + 1 < sizeof folder) {
        snprintf(folder, sizeof folder, "%s/", path);
        path = folder;
    }
    return pd_verdict_ok(s, pd_op_name(op), path, v);
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
    bool name = flags & PD_J_NAME;
    bool exists = false;
    int exact = probe(dirfd, path, name, &exists);
    if (!exact) {
        struct stat st;
        exists = fstatat(dirfd, path, &st, name ? AT_SYMLINK_NOFOLLOW : 0) == 0;
    }
    if ((flags & PD_J_EXISTING_PASSES) && exists) {
        /* the kernel refuses to create a name that exists (EEXIST) and
         * creates nothing: let it say so, as it would without us */
        if (pd_env()->debug)
            pd_trace(pd_op_name(op), path, "allow", "exists", "");
        return true;
    }
    if (op == PD_OP_WRITE && (flags & PD_J_CREATE_IF_MISSING) && !exists)
        op = PD_OP_CREATE;
    if (exact) {
        char abs[PD_PATH_MAX];
        join_clean(basep, path, abs, sizeof abs);
        if (!pd_match_maybe_denied(s->img, op, abs)) {
            if (pd_env()->debug)
                pd_trace(pd_op_name(op), path, "allow", NULL, NULL);
            return true;
        }
    }
    const struct pd_full *f = pd_full_or_refuse(s, pd_op_name(op), path);
    if (!f)
        return false;
    struct pd_verdict v;
    if (name)
        pd_gate_name(&f->ctx, op, basep, path, &v);
    else
        pd_gate_path(&f->ctx, op, basep, path, &v);
    if ((flags & PD_J_DIR) && v.deny)
        return folder_verdict_ok(s, op, path, &v);
    return pd_verdict_ok(s, pd_op_name(op), path, &v);
}

/* The name of an opened procfs file when /proc/self cannot say it: a
 * sandbox such as bwrap, between its pivot_root and the mount of its own
 * /proc, opens "self/mountinfo" at a descriptor of the new procfs. The
 * file's identity (on a procfs) and the directory's (the root of a procfs
 * mount: inode 1) make the name /proc/<path>; a file reached through such
 * a name that is not itself a procfs file (a /proc/<pid>/fd or root link)
 * gets no name here, and is judged as before. */
static bool procfs_name(int fd, int dirfd, const char *path, char *out, size_t len)
{
    struct statfs fs;
    struct stat st;
    if (fstatfs(fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC)
        return false;
    if (path[0] == '/') {
        pd_path_clean(path, out, len);
        return strncmp(out, "/proc/", 6) == 0;
    }
    if (dirfd == AT_FDCWD || fstatfs(dirfd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC ||
        fstat(dirfd, &st) != 0 || st.st_ino != 1)
        return false;
    char joined[PD_PATH_MAX + 8];
    if ((size_t)snprintf(joined, sizeof joined, "/proc/%s", path) >= sizeof joined)
        return false;
    pd_path_clean(joined, out, len);
    return strncmp(out, "/proc/", 6) == 0;
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
        } else if (procfs_name(fd, dirfd, path, real, sizeof real)) {
            abs = real;
        }
    }
    if (abs)
        return abs_ok(s, PD_OP_READ, path, abs);
    /* /proc is not there, or fd is not a file: judge the name as passed */
    return pd_path_ok(s, PD_OP_READ, dirfd, path, 0);
}
