/* platform/linux/ns_early.c - the run's user, IPC and network namespaces made
 * ahead of time, by a helper task, while the launcher prepares the rest of
 * the run (pd_ns_early_start .. pd_ns_early_finish); the child then joins
 * them (setns, ns_user.c) instead of making them.
 *
 * Why: a new network namespace costs the kernel about 0.5 ms here (its
 * loopback device and every protocol's per-namespace state), the largest
 * single step of starting a run, and nothing about it depends on what the
 * launcher prepares: started first, it is ready by the time the child is.
 *
 * How: clone(CLONE_VM | CLONE_FILES) without CLONE_VFORK, so the launcher
 * runs on while the helper works. Sharing the memory avoids copying the
 * launcher's page tables (and a copy-on-write fault on every page it
 * writes afterwards); sharing the descriptor table lets the helper open
 * /proc/self/ns/{user,net,ipc} straight into the launcher's table, so the
 * namespaces outlive the helper. The helper runs beside the launcher on the
 * same memory, so it calls no library function at all: raw system calls
 * (raw_syscall.h, no errno), its own stack, and only this file's struct.
 * Its steps are those of pd_ns_enter for the same namespaces (the identity
 * uid and gid maps included).
 *
 * Any failure (a host that refuses the namespaces, an architecture without
 * raw_syscall.h, a sanitizer build, valgrind) only means the child makes
 * its namespaces itself, as it always did, with the same refusal handling
 * and report. */
#include <errno.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform/linux/backend.h"
#include "platform/linux/raw_syscall.h"

#define EARLY_STACK (64 * 1024)

#if PD_EARLY
long pd_ns_make_raw(bool user, bool net, const char *uid_map, const char *gid_map, int *admitted)
{
    /* The user and IPC namespaces first: whether the host lets the run have
     * namespaces at all is known after this one quick call (the launcher
     * waits for that answer, pd_ns_early_admitted); the network namespace,
     * the slow one, follows. Made in two calls or in one, each is owned by
     * the new user namespace. */
    long rc = pd_raw_syscall3(SYS_unshare, CLONE_NEWIPC | (user ? CLONE_NEWUSER : 0), 0, 0);
    if (rc == 0 && user) {
        rc = pd_raw_write_file("/proc/self/setgroups", "deny");
        if (rc == -ENOENT)
            rc = 0;
        if (rc == 0)
            rc = pd_raw_write_file("/proc/self/uid_map", uid_map);
        if (rc == 0)
            rc = pd_raw_write_file("/proc/self/gid_map", gid_map);
    }
    if (admitted) {
        __atomic_store_n(admitted, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
        pd_raw_syscall4(SYS_futex, (long)admitted, FUTEX_WAKE_PRIVATE, 1, 0);
    }
    if (rc == 0 && net)
        rc = pd_raw_syscall3(SYS_unshare, CLONE_NEWNET, 0, 0);
    return rc;
}

/* The helper: everything it touches is *e and its own stack. */
static int helper(void *arg)
{
    struct pd_ns_early *e = arg;
    /* Wait until the launcher has sent this task to another CPU: started
     * on the launcher's own, ahead of it, it would hold the launcher up
     * for all its work instead of running beside it. */
    while (__atomic_load_n(&e->go, __ATOMIC_ACQUIRE) == 0)
        pd_raw_syscall4(SYS_futex, (long)&e->go, FUTEX_WAIT_PRIVATE, 0, 0);
    long rc = pd_ns_make_raw(e->user, e->net, e->uid_map, e->gid_map, &e->admitted);
    if (rc == 0 && e->user)
        rc = e->user_fd = (int)pd_raw_open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
    if (rc >= 0 && e->net)
        rc = e->net_fd = (int)pd_raw_open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (rc >= 0)
        rc = e->ipc_fd = (int)pd_raw_open("/proc/self/ns/ipc", O_RDONLY | O_CLOEXEC);
    __atomic_store_n(&e->result, rc < 0 ? (int)rc : 1, __ATOMIC_RELEASE);
    pd_raw_syscall3(SYS_exit, rc < 0 ? 1 : 0, 0, 0);
    return 0; /* not reached */
}

/* The scheduler tends to start a new task on its parent's CPU, where it
 * waits for the launcher to block (or the launcher waits for it): send the
 * helper to the others, so that the two really run at once. */
static void away_from_here(pid_t pid)
{
    cpu_set_t mine, others;
    int here = sched_getcpu();
    if (here < 0 || sched_getaffinity(0, sizeof mine, &mine) != 0)
        return;
    others = mine;
    CPU_CLR((size_t)here, &others);
    if (CPU_COUNT(&others) > 0)
        (void)sched_setaffinity(pid, sizeof others, &others);
}
#endif

void pd_ns_early_start(struct pd_ns_early *e, bool net)
{
    memset(e, 0, sizeof *e);
    e->started = true;
    e->user_fd = e->net_fd = e->ipc_fd = -1;
#if PD_EARLY
    e->net = net;
    e->user = geteuid() != 0;
    pd_ns_id_map(e->uid_map, sizeof e->uid_map, (unsigned long)geteuid());
    pd_ns_id_map(e->gid_map, sizeof e->gid_map, (unsigned long)getegid());
    e->stack = mmap(NULL, EARLY_STACK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (e->stack == MAP_FAILED) {
        e->stack = NULL;
        return;
    }
    /* No signal on exit that a handler could see: it is reaped by pid
     * (__WCLONE) in pd_ns_early_finish, before the run's own children. */
    pid_t pid = clone(helper, (char *)e->stack + EARLY_STACK, CLONE_VM | CLONE_FILES, e);
    if (pid < 0) {
        munmap(e->stack, EARLY_STACK);
        e->stack = NULL;
        return;
    }
    e->pid = pid;
    away_from_here(pid);
    __atomic_store_n(&e->go, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &e->go, FUTEX_WAKE_PRIVATE, 1, NULL);
#else
    (void)net;
#endif
}

bool pd_ns_early_built(void)
{
    return PD_EARLY;
}

bool pd_ns_early_admitted(struct pd_ns_early *e)
{
    if (e->started && e->adopted)
        return true;
    if (!e->started || e->pid <= 0)
        return false;
    /* bounded: a helper that never answers (stopped, killed) is a "no" */
    const struct timespec slice = {0, 10 * 1000 * 1000};
    int a = 0;
    for (int k = 0; k < 100 && (a = __atomic_load_n(&e->admitted, __ATOMIC_ACQUIRE)) == 0; k++)
        syscall(SYS_futex, &e->admitted, FUTEX_WAIT_PRIVATE, 0, &slice);
    return a == 1;
}

void pd_ns_early_finish(struct pd_ns_early *e, struct pd_ns_join *j)
{
    memset(j, 0, sizeof *j);
    j->user_fd = j->net_fd = j->ipc_fd = -1;
    if (e->started && e->adopted)
        goto made;
    if (!e->started || e->pid <= 0)
        return;
    int st;
    while (waitpid(e->pid, &st, (int)__WCLONE) < 0 && errno == EINTR)
        ;
    e->pid = 0;
    munmap(e->stack, EARLY_STACK);
    e->stack = NULL;
    if (__atomic_load_n(&e->result, __ATOMIC_ACQUIRE) != 1) {
        pd_ns_early_close(e); /* what it opened before it failed */
        return;
    }
made:
    *j = (struct pd_ns_join){.on = true,
                             .user = e->user,
                             .net = e->net,
                             .user_fd = e->user_fd,
                             .net_fd = e->net_fd,
                             .ipc_fd = e->ipc_fd};
}

void pd_ns_early_close(struct pd_ns_early *e)
{
    if (!e->started)
        return;
    if (e->pid > 0) {
        struct pd_ns_join unused;
        pd_ns_early_finish(e, &unused); /* reaped, then closed below */
    }
    int *fds[] = {&e->user_fd, &e->net_fd, &e->ipc_fd};
    for (size_t k = 0; k < 3; k++)
        if (*fds[k] >= 0) {
            close(*fds[k]);
            *fds[k] = -1;
        }
}
