/* preload/wrap_exec.c - every way to start a program: execve, execv,
 * execvp, execvpe, execl, execlp, execle, execveat, fexecve, posix_spawn,
 * posix_spawnp, system, popen (and their other names __libc_system,
 * _IO_popen, _IO_proc_open). vfork is in wrap_vfork.c. And memfd_create,
 * the one way to make an executable file no path rule judges.
 *
 * Before each start: find the file that will run (PATH search with the
 * caller's PATH for the p-forms, as glibc does, relative PATH entries
 * included), judge it, report a target the preload cannot follow (static,
 * set-uid, foreign), and hand the child a doctored environment (envdoc.h).
 * Nothing here allocates with malloc: the exec wrappers may run in any
 * context, the child of a real vfork included (wrap_vfork.c).
 *
 * The judgement: a program allow_binaries names, as the launcher resolved
 * it into the compiled image (the same inode, unchanged since, at the same
 * physical path: policy/compiled_image.h), is allowed from the file the
 * kernel resolves - one open, one fstat and one readlink, not a walk per
 * path component. Anything else takes pd_gate_exec (policy/gate_exec.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/gate_exec.h"
#include "policy/report.h"
#include "preload/channel.h"
#include "preload/envdoc.h"
#include "preload/exec_script.h"
#include "preload/judge.h"
#include "preload/kernel_refusal.h"
#include "preload/loader_started.h"
#include "preload/vfork.h"

#define PD_EXPORT       __attribute__((visibility("default")))
#define PD_SHELL        "/bin/sh" /* what system() and popen() run */
#define PD_ARGS_STACK   256
#define PD_ARGS_LIMIT   4096            /* execl* arguments; more: E2BIG */
#define PD_DEFAULT_PATH "/bin:/usr/bin" /* glibc's search path without PATH */

extern char **environ;

static bool is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The absolute path of what exec will run: path as given (relative to the
 * working directory), or for a name without '/' in a p-form the first
 * executable file on the caller's PATH (an empty entry is the working
 * directory). False: nothing will run, the real call fails by itself. */
static bool locate(const char *path, bool search, char *out, size_t len)
{
    char cwd[PD_PATH_MAX], cand[2 * PD_PATH_MAX + 2];
    if (!path || !path[0])
        return false;
    if (pd_base_dir(AT_FDCWD, cwd, sizeof cwd) != 0)
        cwd[0] = '\0';
    if (!search || strchr(path, '/')) {
        if (path[0] == '/')
            snprintf(cand, sizeof cand, "%s", path);
        else
            snprintf(cand, sizeof cand, "%s/%s", cwd, path);
        pd_path_clean(cand, out, len);
        return is_exec_file(out);
    }
    const char *p = getenv("PATH");
    if (!p)
        p = PD_DEFAULT_PATH;
    for (;;) {
        size_t l = strcspn(p, ":");
        char dir[PD_PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)l, p);
        if (!dir[0])
            snprintf(dir, sizeof dir, "%s", cwd);
        if (dir[0] == '/')
            snprintf(cand, sizeof cand, "%s/%s", dir, path);
        else
            snprintf(cand, sizeof cand, "%s/%s/%s", cwd, dir, path);
        if (is_exec_file(cand)) {
            pd_path_clean(cand, out, len);
            return true;
        }
        if (!p[l])
            return false;
        p += l + 1;
    }
}

/* Report a start the preload cannot follow (shown as shown, resolved). */
static void coverage(const struct pd_state *s, const char *shown, const char *resolved,
                     const char *why)
{
    struct pd_event ev = {PD_REPORT_COVERAGE, "exec", shown, resolved, "", "", why};
    if (pd_env()->debug)
        pd_trace("exec", shown, "unmonitored", why, NULL);
    pd_emit(s, &ev, true);
}

/* Is abs a program the image lists (struct pd_image_bin): the same inode,
 * unchanged, at the same physical path? The file is the one the kernel
 * resolves abs to (opened O_PATH: nothing is read, no access time), its
 * physical path what /proc says the descriptor holds. The dynamic loader's
 * names (ld-linux*, ld.so, ld-*.so*, ld64.so.*) all start with "ld": such
 * a name is judged by the full gate, which looks at the loader's argv. */
static const struct pd_image_bin *listed(const struct pd_image *im, const char *abs)
{
    size_t n;
    const struct pd_image_bin *bins = pd_image_bins(im, &n);
    const char *name = strrchr(abs, '/');
    name = name ? name + 1 : abs;
    if (n == 0 || strncmp(name, "ld", 2) == 0)
        return NULL;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, abs, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    const struct pd_image_bin *hit = NULL;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        for (size_t k = 0; k < n && !hit; k++)
            if (bins[k].ino == (uint64_t)st.st_ino && bins[k].dev == (uint64_t)st.st_dev &&
                bins[k].ctime_sec == (int64_t)st.st_ctim.tv_sec &&
                bins[k].ctime_nsec == (int64_t)st.st_ctim.tv_nsec &&
                bins[k].size == (uint64_t)st.st_size && bins[k].mode == (uint32_t)st.st_mode)
                hit = &bins[k];
    }
    if (hit) {
        char link[32], real[PD_PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, real, sizeof real - 1);
        if (len <= 0 || (size_t)len >= sizeof real - 1)
            hit = NULL;
        else if ((real[len] = '\0', strcmp(real, pd_image_str(im, hit->path)) != 0))
            hit = NULL;
    }
    close(fd);
    return hit;
}

/* no_new_privs, which only ever goes from off to on in a process (and is
 * inherited): once seen on, it is not asked again. */
static atomic_bool nnp_on;

static bool no_new_privs(void)
{
    if (atomic_load_explicit(&nnp_on, memory_order_relaxed))
        return true;
    bool on = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
    if (on)
        atomic_store_explicit(&nnp_on, true, memory_order_relaxed);
    return on;
}

/* Start a listed program: allowed; report it when the preload will not
 * follow it (the reasons the launcher recorded for the file). */
static bool start_listed(const struct pd_state *s, const char *shown,
                         const struct pd_image_bin *bin)
{
    if (pd_env()->debug)
        pd_trace("exec", shown, "allow", NULL, NULL);
    unsigned why = bin->why == bin->why_nnp ? bin->why : no_new_privs() ? bin->why_nnp : bin->why;
    if (why)
        coverage(s, shown, pd_image_str(s->img, bin->path), pd_image_why_text(why));
    return true;
}

/* Gate starting abs (shown as shown; fd >= 0: the file open at fd) with
 * argv; report what the preload cannot follow. Interpreters of scripts
 * are resolved against the working directory, as the kernel does. */
static bool start_ok(const struct pd_state *s, const char *shown, const char *abs, int fd,
                     char *const argv[], const struct pd_image_bin *bin)
{
    if (s->mode == PD_MODE_CLOSED)
        return pd_closed_ok(s, "exec", shown);
    if (bin)
        return start_listed(s, shown, bin);
    const struct pd_full *f = pd_full_or_refuse(s, "exec", shown);
    if (!f)
        return false;
    struct pd_verdict v;
    char cwd[PD_PATH_MAX], exe[PD_PATH_MAX];
    const char *base = pd_base_dir(AT_FDCWD, cwd, sizeof cwd) == 0 ? cwd : "/";
    const char *const *args = (const char *const *)argv;
    /* the caller's own program: helpers are allowed by who starts them */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *caller = exe[0] ? exe : NULL;
    bool named = true;
    if (fd >= 0)
        named = pd_gate_exec_fd(&f->ctx, fd, base, args, caller, &v);
    else
        pd_gate_exec(&f->ctx, abs, base, args, caller, &v);
    if (fd >= 0 && named) /* shown as the file the descriptor holds */
        shown = v.resolved[0] ? v.resolved : shown;
    snprintf(v.subject, sizeof v.subject, "%s", shown);
    if (!pd_verdict_ok(s, "exec", shown, &v))
        return false;
    if (!named) { /* allow_binaries empty: say that nothing names what runs */
        coverage(s, shown, v.resolved, PD_REPORT_NONAME);
        return true;
    }
    const char *why = pd_exec_unmonitored(fd >= 0 ? v.resolved : abs, no_new_privs());
    if (why)
        coverage(s, shown, v.resolved[0] ? v.resolved : abs, why);
    return true;
}

bool pd_exec_mapped_allowed(const char *path, int fd, char *const argv[])
{
    struct pd_call call;
    const struct pd_state *s = pd_enter(&call);
    if (!s)
        return true;
    bool ok = start_ok(s, path, path, fd, argv, NULL);
    pd_leave(&call);
    return ok;
}

/* Enter, locate, gate and build the environment. Returns NULL when the
 * call passes straight through (then env is untouched), else s; on a
 * denial *denied is set and errno holds the error. fd >= 0: the program
 * is the file open at fd (path is what to show). abs (PD_PATH_MAX bytes)
 * receives the file that will run, "" when unknown. */
static const struct pd_state *prepare(struct pd_call *call, const char *path, int fd, bool search,
                                      char *const argv[], char *const envp[], struct pd_envbuf *env,
                                      bool *denied, struct pd_script_run *script, char *abs)
{
    *denied = false;
    script->argv = NULL;
    abs[0] = '\0';
    const struct pd_state *s = pd_enter(call);
    if (!s)
        return NULL;
    const struct pd_image_bin *bin = NULL;
    bool found = fd >= 0;
    if (!found && s->mode == PD_MODE_ACTIVE && path && path[0] && (!search || strchr(path, '/')) &&
        pd_abs_path(AT_FDCWD, path, abs, PD_PATH_MAX))
        found = (bin = listed(s->img, abs)) != NULL; /* the common case, without a walk */
    if (!found && path) {
        found = locate(path, search, abs, PD_PATH_MAX);
        if (found && s->mode == PD_MODE_ACTIVE && search && !strchr(path, '/'))
            bin = listed(s->img, abs);
    }
    if ((found || s->mode == PD_MODE_CLOSED) &&
        !start_ok(s, path ? path : "", abs, fd, argv, bin)) {
        *denied = true;
        pd_fail(call, EACCES);
        return s;
    }
    if (fd < 0 && found && s->mode != PD_MODE_CLOSED && !bin)
        pd_script_prepare(s, path, abs, argv, script);
    if (pd_envbuf_build(env, envp) != 0) {
        pd_script_release(script);
        *denied = true;
        pd_fail(call, errno);
        return s;
    }
    pd_leave(call);
    return s;
}

/* A start the gate allowed failed with err: did a kernel layer (the exec
 * floor) refuse the file that was to run (abs, or the interpreter the
 * script is started with)? */
static void refused(const struct pd_script_run *script, const char *abs, int err)
{
    pd_kernel_refused_exec(script->argv ? script->interp : abs, err);
}

/* What a failed exec returns, after the environment (and a script's
 * argument vector) is released. */
static int failed(struct pd_envbuf *env, struct pd_script_run *script, const char *abs, int rc)
{
    int err = errno;
    refused(script, abs, err);
    pd_envbuf_release(env);
    pd_script_release(script);
    errno = err;
    return rc;
}

int pdw_execve(const char *path, char *const argv[], char *const envp[])
{
    PD_NEED(execve, -1);
    struct pd_call call;
    struct pd_envbuf env;
    struct pd_script_run sr;
    char abs[PD_PATH_MAX];
    bool denied;
    if (!prepare(&call, path, -1, false, argv, envp, &env, &denied, &sr, abs))
        return pd_real.execve(path, argv, envp);
    if (denied)
        return -1;
    if (sr.argv)
        return failed(&env, &sr, abs, pd_real.execve(sr.interp, sr.argv, env.v));
    return failed(&env, &sr, abs, pd_real.execve(path, argv, env.v));
}

int pdw_execv(const char *path, char *const argv[])
{
    return pdw_execve(path, argv, environ);
}

int pdw_execvpe(const char *file, char *const argv[], char *const envp[])
{
    PD_NEED(execvpe, -1);
    struct pd_call call;
    struct pd_envbuf env;
    struct pd_script_run sr;
    char abs[PD_PATH_MAX];
    bool denied;
    if (!prepare(&call, file, -1, true, argv, envp, &env, &denied, &sr, abs))
        return pd_real.execvpe(file, argv, envp);
    if (denied)
        return -1;
    if (sr.argv)
        return failed(&env, &sr, abs, pd_real.execvpe(sr.interp, sr.argv, env.v));
    return failed(&env, &sr, abs, pd_real.execvpe(file, argv, env.v));
}

int pdw_execvp(const char *file, char *const argv[])
{
    return pdw_execvpe(file, argv, environ);
}

int pdw_execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    PD_NEED(execveat, -1);
    char target[PD_PATH_MAX], base[PD_PATH_MAX], joined[2 * PD_PATH_MAX + 2];
    const char *t = path;
    int fd = -1;
    struct pd_call call;
    /* AT_EMPTY_PATH: the descriptor's file runs (judged by its identity);
     * a relative path is resolved against dirfd before prepare(), which
     * only knows the cwd */
    if (path && !path[0] && (flags & AT_EMPTY_PATH)) {
        fd = dirfd;
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
        t = target;
    } else if (path && path[0] != '/' && dirfd != AT_FDCWD &&
               pd_base_dir(dirfd, base, sizeof base) == 0) {
        snprintf(joined, sizeof joined, "%s/%s", base, path);
        pd_path_clean(joined, target, sizeof target);
        t = target;
    }
    struct pd_envbuf env;
    struct pd_script_run sr;
    char abs[PD_PATH_MAX];
    bool denied;
    if (!prepare(&call, t, fd, false, argv, envp, &env, &denied, &sr, abs))
        return pd_real.execveat(dirfd, path, argv, envp, flags);
    if (denied)
        return -1;
    if (sr.argv)
        return failed(&env, &sr, abs, pd_real.execveat(AT_FDCWD, sr.interp, sr.argv, env.v, 0));
    return failed(&env, &sr, abs, pd_real.execveat(dirfd, path, argv, env.v, flags));
}

int pdw_fexecve(int fd, char *const argv[], char *const envp[])
{
    PD_NEED(fexecve, -1);
    char shown[64];
    snprintf(shown, sizeof shown, "/proc/self/fd/%d", fd);
    struct pd_call call;
    struct pd_envbuf env;
    struct pd_script_run sr;
    char abs[PD_PATH_MAX];
    bool denied;
    if (!prepare(&call, shown, fd, false, argv, envp, &env, &denied, &sr, abs))
        return pd_real.fexecve(fd, argv, envp);
    if (denied)
        return -1;
    return failed(&env, &sr, abs, pd_real.fexecve(fd, argv, env.v));
}

int pdw_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    PD_NEED(posix_spawn, ENOSYS);
    struct pd_call call;
    struct pd_envbuf env;
    struct pd_script_run sr;
    char abs[PD_PATH_MAX];
    bool denied;
    if (!prepare(&call, path, -1, false, argv, envp, &env, &denied, &sr, abs))
        return pd_real.posix_spawn(pid, path, fa, attr, argv, envp);
    if (denied)
        return errno;
    int rc = sr.argv ? pd_real.posix_spawn(pid, sr.interp, fa, attr, sr.argv, env.v)
                     : pd_real.posix_spawn(pid, path, fa, attr, argv, env.v);
    if (rc)
        refused(&sr, abs, rc);
    pd_envbuf_release(&env);
    pd_script_release(&sr);
    return rc;
}

int pdw_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    PD_NEED(posix_spawnp, ENOSYS);
    struct pd_call call;
    struct pd_envbuf env;
    struct pd_script_run sr;
    char abs[PD_PATH_MAX];
    bool denied;
    if (!prepare(&call, file, -1, true, argv, envp, &env, &denied, &sr, abs))
        return pd_real.posix_spawnp(pid, file, fa, attr, argv, envp);
    if (denied)
        return errno;
    int rc = sr.argv ? pd_real.posix_spawnp(pid, sr.interp, fa, attr, sr.argv, env.v)
                     : pd_real.posix_spawnp(pid, file, fa, attr, argv, env.v);
    if (rc)
        refused(&sr, abs, rc);
    pd_envbuf_release(&env);
    pd_script_release(&sr);
    return rc;
}

/* system() and popen() run PD_SHELL through glibc's internal spawn, with
 * `environ`: gate the shell and fix `environ` first. */
static bool shell_ok(struct pd_call *call)
{
    const struct pd_state *s = pd_enter(call);
    if (!s)
        return true;
    const struct pd_image_bin *bin = s->mode == PD_MODE_ACTIVE ? listed(s->img, PD_SHELL) : NULL;
    if (!start_ok(s, PD_SHELL, PD_SHELL, -1, NULL, bin))
        return false;
    pd_environ_fix();
    return true;
}

int pdw_system(const char *command)
{
    PD_NEED(system, -1);
    struct pd_call call;
    if (command && !shell_ok(&call))
        return pd_fail(&call, EACCES);
    if (command)
        pd_leave(&call);
    return pd_real.system(command);
}

FILE *pdw_popen(const char *command, const char *type)
{
    PD_NEED(popen, NULL);
    struct pd_call call;
    if (!shell_ok(&call)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return pd_real.popen(command, type);
}

/* glibc's other names for system and popen; _IO_proc_open is popen's
 * opener into a FILE the caller set up. */
int pdw___libc_system(const char *command)
{
    PD_NEED(__libc_system, -1);
    struct pd_call call;
    if (command && !shell_ok(&call))
        return pd_fail(&call, EACCES);
    if (command)
        pd_leave(&call);
    return pd_real.__libc_system(command);
}

FILE *pdw__IO_popen(const char *command, const char *type)
{
    PD_NEED(_IO_popen, NULL);
    struct pd_call call;
    if (!shell_ok(&call)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return pd_real._IO_popen(command, type);
}

FILE *pdw__IO_proc_open(FILE *fp, const char *command, const char *type)
{
    PD_NEED(_IO_proc_open, NULL);
    struct pd_call call;
    if (!shell_ok(&call)) {
        pd_fail(&call, EACCES);
        return NULL;
    }
    pd_leave(&call);
    return pd_real._IO_proc_open(fp, command, type);
}

/* ---- execl, execlp, execle: variadic, written out here ---- */

struct argbuf {
    char **v;
    void *map;
    size_t maplen;
    char *small[PD_ARGS_STACK];
};

/* Collect arg and the NULL-terminated list after it; for execle also the
 * envp that follows the NULL. 0, or -1 with errno E2BIG / ENOMEM. */
static int collect(struct argbuf *b, const char *arg, va_list ap, char *const **envp)
{
    va_list count;
    size_t n = 0;
    va_copy(count, ap);
    if (arg) {
        n = 1;
        while (va_arg(count, const char *)) {
            if (++n > PD_ARGS_LIMIT) {
                va_end(count);
                errno = E2BIG;
                return -1;
            }
        }
    }
    va_end(count);
    b->map = NULL;
    b->v = b->small;
    if (n + 1 > PD_ARGS_STACK) {
        b->maplen = (n + 1) * sizeof(char *);
        void *m = pd_scratch_map(b->maplen);
        if (!m)
            return -1;
        b->map = m;
        b->v = m;
    }
    if (n) {
        b->v[0] = (char *)(uintptr_t)arg;
        for (size_t k = 1; k < n; k++)
            b->v[k] = (char *)(uintptr_t)va_arg(ap, const char *);
        (void)va_arg(ap, const char *); /* the NULL */
    }
    b->v[n] = NULL;
    if (envp)
        *envp = va_arg(ap, char *const *);
    return 0;
}

static int release(struct argbuf *b, int rc)
{
    int err = errno;
    if (b->map)
        pd_scratch_unmap(b->map, b->maplen);
    errno = err;
    return rc;
}

PD_EXPORT int execl(const char *path, const char *arg, ...)
{
    struct argbuf b;
    va_list ap;
    va_start(ap, arg);
    int rc = collect(&b, arg, ap, NULL);
    va_end(ap);
    if (rc)
        return -1;
    return release(&b, pdw_execv(path, b.v));
}

PD_EXPORT int execlp(const char *file, const char *arg, ...)
{
    struct argbuf b;
    va_list ap;
    va_start(ap, arg);
    int rc = collect(&b, arg, ap, NULL);
    va_end(ap);
    if (rc)
        return -1;
    return release(&b, pdw_execvp(file, b.v));
}

PD_EXPORT int execle(const char *path, const char *arg, ...)
{
    struct argbuf b;
    char *const *envp = NULL;
    va_list ap;
    va_start(ap, arg);
    int rc = collect(&b, arg, ap, &envp);
    va_end(ap);
    if (rc)
        return -1;
    return release(&b, pdw_execve(path, b.v, envp));
}

/* Under an exec floor (allow_binaries) the seccomp filter refuses a memfd
 * that could be executed: a program copied into one and started with
 * execveat(AT_EMPTY_PATH) or /proc/self/fd/N lies on no path Landlock
 * judges. A caller that did not ask for MFD_EXEC gets MFD_NOEXEC_SEAL added,
 * so its memfd works as bare (read, write, mmap, seals) except that it can
 * never be made executable. A kernel without the flag (before 6.3) says
 * EINVAL; the launcher then loaded no such rule, and the call is repeated
 * as the caller made it. */
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

int pdw_memfd_create(const char *name, unsigned int flags)
{
    PD_NEED(memfd_create, -1);
    struct pd_call call;
    const struct pd_state *s = pd_enter(&call);
    const bool floor = s && s->mode == PD_MODE_ACTIVE && (s->img->flags & PD_IMAGE_NO_EXEC_WRITES);
    pd_leave(&call);
    if (!floor || (flags & (MFD_EXEC | MFD_NOEXEC_SEAL)))
        return pd_real.memfd_create(name, flags);
    int fd = pd_real.memfd_create(name, flags | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL)
        fd = pd_real.memfd_create(name, flags);
    return fd;
}
