/* launcher/exec/exec_child.c - the child between its creation and execve. The
 * launcher is single-threaded, so every layer applied here binds the very
 * thread that calls execve (the original applied them from a goroutine
 * that could migrate). Every step is checked; a failure is written as one
 * line to the error pipe (close-on-exec: an empty pipe means execve
 * succeeded) and the child exits 127 without running anything. The child
 * shares the launcher's memory (pd_exec_spawn) while the launcher sleeps:
 * only system calls and string copies here, pd_platform_apply included
 * (its seccomp program is compiled into the binary). Under valgrind the
 * last step - layers, fence, execve - is made by a native process instead
 * (exec_valgrind.c), through the same pd_exec_last_step. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/exec/exec.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static void append(char *buf, size_t *n, size_t cap, const char *s)
{
    while (*s && *n + 1 < cap)
        buf[(*n)++] = *s++;
    buf[*n] = '\0';
}

void pd_exec_fail(int errfd, const char *step, const char *what, int err, const char *detail)
{
    char msg[PD_MSG_MAX];
    size_t n = 0;
    msg[0] = '\0';
    append(msg, &n, sizeof msg, step);
    if (what) {
        append(msg, &n, sizeof msg, " ");
        append(msg, &n, sizeof msg, what);
    }
    if (detail) {
        append(msg, &n, sizeof msg, ": ");
        append(msg, &n, sizeof msg, detail);
    } else if (err) {
        append(msg, &n, sizeof msg, ": ");
        append(msg, &n, sizeof msg, strerror(err));
    }
    for (size_t off = 0; off < n;) {
        ssize_t w = write(errfd, msg + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    _exit(127);
}

/* Close every descriptor above 2 at execve (the error pipe stays usable
 * until then). */
int pd_exec_cloexec_from_3(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return 0;
#endif
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    rlim_t top = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ? 65536 : rl.rlim_cur;
    for (int fd = 3; fd < (int)top; fd++) {
        int fl = fcntl(fd, F_GETFD);
        if (fl >= 0 && !(fl & FD_CLOEXEC) && fcntl(fd, F_SETFD, fl | FD_CLOEXEC) != 0)
            return -1;
    }
    return 0;
}

/* glibc's getrlimit takes an enum under _GNU_SOURCE; other libcs an int. */
#if defined(__GLIBC__) && defined(__USE_GNU)
typedef __rlimit_resource_t resource_t;
#else
typedef int resource_t;
#endif

/* Degraded mode has no kernel boundary, but the policy's resource limits
 * still apply (the original had none there): lowered, never raised. */
static int lower_limits(const struct pd_limits *lim, const char **which)
{
    const struct {
        resource_t res;
        unsigned long long want;
        const char *name;
    } t[] = {
        {RLIMIT_CPU, lim->cpu_sec, "CPU time"},      {RLIMIT_DATA, lim->mem_bytes, "data size"},
        {RLIMIT_NPROC, lim->nproc, "process count"}, {RLIMIT_FSIZE, lim->fsize_bytes, "file size"},
        {RLIMIT_NOFILE, lim->nofile, "open files"},  {RLIMIT_CORE, 1, "core dump"},
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        struct rlimit cur;
        *which = t[k].name;
        if (t[k].want == 0)
            continue;
        if (getrlimit(t[k].res, &cur) != 0)
            return -1;
        rlim_t v = t[k].res == RLIMIT_CORE ? 0 : (rlim_t)t[k].want;
        if (cur.rlim_max != RLIM_INFINITY && v > cur.rlim_max)
            v = cur.rlim_max;
        const struct rlimit next = {v, v};
        if (setrlimit(t[k].res, &next) != 0)
            return -1;
    }
    return 0;
}

void pd_exec_last_step(const struct pd_exec_last *l, int errfd)
{
    char err[PD_PLATFORM_ERR_MAX];
    const char *which = NULL;
    if (l->isolated) {
        err[0] = '\0';
        if (pd_platform_apply(l->spec, l->info, err, sizeof err) != 0)
            pd_exec_fail(errfd, err[0] ? err : "platform apply", NULL, 0, NULL);
    } else if (lower_limits(l->limits, &which) != 0) {
        pd_exec_fail(errfd, "rlimit", which, errno, NULL);
    }
    /* the private /tmp is there only if the namespaces were entered: the
     * report says, now that pd_platform_apply has filled it */
    const struct pd_ns_report *r = l->isolated ? l->spec->ns.report : NULL;
    char *const *envp = r && r->state == PD_NS_ACTIVE && l->ns_envp ? l->ns_envp : l->envp;
    /* every change from here on gets a ctime after the snapshot's */
    pd_fence_wait(l->fence);
    execve(l->program, l->argv, envp);
    pd_exec_fail(errfd, "execve", l->program, errno, NULL);
}

void pd_exec_child(const struct pd_exec_plan *p, pid_t parent, int out_w, int err_w, int errfd)
{
    /* Interactive: the command stays in paldron's process group, so that it
     * is the terminal's foreground job with paldron (it may read the
     * terminal; Ctrl-C and Ctrl-Z reach both, and the shell's job control
     * stops and continues both). Capture: a session of its own, with no
     * controlling terminal, so that opening /dev/tty fails (ENXIO) and
     * nothing reaches the user's terminal past the output scan. The
     * session is also a new process group, as setpgid gave before. */
    if (!p->interactive && setsid() < 0)
        pd_exec_fail(errfd, "setsid", NULL, errno, NULL);
    if (sigprocmask(SIG_SETMASK, &p->child_mask, NULL) != 0)
        pd_exec_fail(errfd, "sigprocmask", NULL, errno, NULL);
    /* If the launcher dies, so does the command: nothing would supervise
     * it. The check closes the race with a launcher that died first. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        pd_exec_fail(errfd, "prctl PDEATHSIG", NULL, errno, NULL);
    if (getppid() != parent)
        _exit(127);
    if (!p->interactive) { /* interactive: paldron's stdin, stdout and stderr */
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0)
            pd_exec_fail(errfd, "open", "/dev/null", errno, NULL);
        if (dup2(null, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
            pd_exec_fail(errfd, "dup2", NULL, errno, NULL);
    }
    const char *dir = p->cwd[0] ? p->cwd : p->ctx->workspace;
    if (chdir(dir) != 0)
        pd_exec_fail(errfd, "chdir", dir, errno, NULL);
    if (pd_exec_cloexec_from_3() != 0)
        pd_exec_fail(errfd, "close descriptors", NULL, errno, NULL);
    const struct pd_exec_last last = {
        .isolated = p->isolated,
        .spec = &p->spec,
        .info = &p->info,
        .limits = &p->limits,
        .fence = &p->fence,
        .program = p->program,
        .argv = p->argv,
        .envp = p->envp,
        .ns_envp = p->isolated ? p->ns.envp : NULL,
    };
    if (p->valgrind)
        pd_exec_valgrind_handoff(p, &last, errfd);
    pd_exec_last_step(&last, errfd);
}

/* ---- starting the child ------------------------------------------------- */

#define CHILD_STACK (1024 * 1024)

/* Under AddressSanitizer the child must not share the parent's memory: the
 * sanitizer's allocator and thread registry are not made for a second task
 * on the same memory, and a lock the child leaves taken deadlocks the
 * parent's leak check at exit. Those builds fork. */
#if defined(__SANITIZE_ADDRESS__)
#define PD_CLONE_VM 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PD_CLONE_VM 0
#endif
#endif
#ifndef PD_CLONE_VM
#define PD_CLONE_VM CLONE_VM
#endif

struct spawn_args {
    const struct pd_exec_plan *p;
    pid_t parent;
    int out_w, err_w, errfd;
};

static int child_main(void *arg)
{
    const struct spawn_args *a = arg;
    pd_exec_child(a->p, a->parent, a->out_w, a->err_w, a->errfd);
}

/* Unmap a stack no child ran on, keeping errno for the caller. */
static void drop_stack(char *stack, size_t len)
{
    int e = errno;
    munmap(stack, len);
    errno = e;
}

pid_t pd_exec_spawn(const struct pd_exec_plan *p, int out_w, int err_w, int errfd)
{
#if PD_CLONE_VM == 0
    /* sanitizer builds: a plain fork (no stack switch for the sanitizer to
     * warn about); the caller's blocking read of errfd waits for execve */
    struct spawn_args fa = {p, getpid(), out_w, err_w, errfd};
    pid_t fpid = fork();
    if (fpid == 0)
        child_main(&fa);
    return fpid;
#endif
    /* clone(CLONE_VM | CLONE_VFORK), as posix_spawn does: the child borrows
     * the parent's memory instead of copying its page tables, and the
     * parent sleeps until the child has called execve or exited, so the
     * two never run on the same memory at once. The child gets its own
     * stack with a guard page. Everything the child changes that is not
     * memory (credentials, Landlock domain, seccomp filter, rlimits, signal
     * mask, descriptors, directory, process group) is its own: no
     * CLONE_THREAD, CLONE_FILES, CLONE_FS or CLONE_SIGHAND. */
    const size_t guard = (size_t)sysconf(_SC_PAGESIZE);
    char *stack = mmap(NULL, CHILD_STACK + guard, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    if (mprotect(stack, guard, PROT_NONE) != 0) {
        drop_stack(stack, CHILD_STACK + guard);
        return -1;
    }
    struct spawn_args a = {p, getpid(), out_w, err_w, errfd};
    pid_t pid =
        clone(child_main, stack + guard + CHILD_STACK, PD_CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
    /* A started child's stack stays mapped (one per process: a launcher or
     * a keeper spawns one command): the child ran on it on another CPU, so
     * unmapping it costs a TLB shootdown, an interrupt of that CPU waited
     * for (0.15 ms of the launcher's time in a VM here), while the process
     * exits soon after, when unmapping is free. No child, no such cost. */
    if (pid < 0)
        drop_stack(stack, CHILD_STACK + guard);
    return pid;
}
