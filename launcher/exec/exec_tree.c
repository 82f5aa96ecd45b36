/* launcher/exec/exec_tree.c - every descendant of the launcher, and how to end
 * them. The launcher is a child subreaper, so a process whose parent dies
 * is re-parented to it instead of to init: double forks and setsid do not
 * take anything out of reach. The tree is read from
 * /proc/<pid>/task/<tid>/children (each thread has its own list). Pids are
 * recycled, so a process is signalled through a pidfd opened after it was
 * listed, and only if it is still the child of the parent it was listed
 * under. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/exec.h"

long long pd_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int push(struct pd_pids *l, pid_t pid, pid_t parent)
{
    for (size_t k = 0; k < l->n; k++)
        if (l->pid[k] == pid)
            return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        pid_t *np = realloc(l->pid, cap * sizeof *np);
        if (!np)
            return -1;
        l->pid = np;
        pid_t *pp = realloc(l->parent, cap * sizeof *pp);
        if (!pp)
            return -1;
        l->parent = pp;
        l->cap = cap;
    }
    l->pid[l->n] = pid;
    l->parent[l->n] = parent;
    l->n++;
    return 0;
}

/* Append the children of every thread of pid. A process that is gone (or
 * a zombie) simply has none. */
static int add_children(struct pd_pids *l, pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%s/children", (int)pid, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* The file is a space-separated list; read it whole (a large list
         * spans several reads). A number cut at the buffer's end is kept
         * for the next read. */
        size_t have = 0;
        for (;;) {
            ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                r = 0;
            size_t len = have + (size_t)r;
            buf[len] = '\0';
            size_t used = 0;
            char *p = buf;
            while (*p) {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p)
                    break;
                if (*end == '\0' && r > 0)
                    break; /* maybe cut: keep for the next read */
                if (v > 0 && push(l, (pid_t)v, pid) < 0)
                    rc = -1;
                while (*end == ' ' || *end == '\n')
                    end++;
                p = end;
            }
            used = (size_t)(p - buf);
            memmove(buf, buf + used, len - used);
            have = len - used;
            if (r == 0)
                break;
        }
        close(fd);
    }
    closedir(d);
    return rc;
}

int pd_tree_list(struct pd_pids *out)
{
    out->n = 0;
    if (add_children(out, getpid()) < 0)
        return -1;
    /* Breadth first: out grows while it is walked. */
    for (size_t k = 0; k < out->n; k++)
        if (add_children(out, out->pid[k]) < 0)
            return -1;
    return 0;
}

/* The parent pid in /proc/<pid>/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "pid (comm) S ppid ...": comm may hold anything, so parse from the
     * last ')'. */
    char *p = strrchr(buf, ')');
    int ppid;
    char state;
    // NOLINTNEXTLINE(cert-err34-c): the kernel writes the line; a pid fits an int
    if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* Is pid still the child of the parent it was listed under, or ours (its
 * parent died since, and it came to us, the subreaper)? Anything else is a
 * recycled pid. */
static bool still_ours(pid_t pid, pid_t listed_parent)
{
    pid_t ppid = parent_of(pid);
    return ppid == listed_parent || ppid == getpid();
}

size_t pd_tree_signal(const struct pd_pids *pids, int sig)
{
    size_t sent = 0;
    for (size_t k = 0; k < pids->n; k++) {
        pid_t pid = pids->pid[k];
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
        long fd = syscall(SYS_pidfd_open, pid, 0);
        if (fd >= 0) {
            if (still_ours(pid, pids->parent[k]) &&
                syscall(SYS_pidfd_send_signal, (int)fd, sig, NULL, 0) == 0)
                sent++;
            close((int)fd);
            continue;
        }
        if (errno != ENOSYS)
            continue; /* gone */
#endif
        if (still_ours(pid, pids->parent[k]) && kill(pid, sig) == 0)
            sent++;
    }
    return sent;
}

void pd_pids_free(struct pd_pids *pids)
{
    free(pids->pid);
    free(pids->parent);
    memset(pids, 0, sizeof *pids);
}

size_t pd_tree_end(int grace_ms, void (*idle)(void *arg, int ms), void *arg)
{
    struct pd_pids l = {0};
    idle(arg, 0); /* reap what already ended */
    /* No child at all means no descendant (orphans come to us), and spares
     * the /proc walk in the common case. */
    siginfo_t si;
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD)
        return 0;
    /* A failed listing (no memory) still ends what it found. */
    if (pd_tree_list(&l) == 0 && l.n == 0) {
        pd_pids_free(&l);
        return 0;
    }
    /* SIGTERM to everyone listed, and during the grace to every newcomer
     * (forked meanwhile, or missed while it changed parents). */
    struct pd_pids termed = {0};
    size_t nterm = 0;
    long long until = pd_now_ms() + grace_ms;
    for (;;) {
        struct pd_pids fresh = {0};
        for (size_t k = 0; k < l.n; k++) {
            bool seen = false;
            for (size_t j = 0; j < termed.n && !seen; j++)
                seen = termed.pid[j] == l.pid[k];
            if (!seen && push(&fresh, l.pid[k], l.parent[k]) == 0)
                push(&termed, l.pid[k], l.parent[k]);
        }
        nterm += pd_tree_signal(&fresh, SIGTERM);
        /* A stopped process only acts on SIGTERM once continued. */
        pd_tree_signal(&fresh, SIGCONT);
        pd_pids_free(&fresh);
        if (pd_now_ms() >= until)
            break;
        idle(arg, 10);
        if (pd_tree_list(&l) == 0 && l.n == 0)
            break;
    }
    pd_pids_free(&termed);
    /* SIGKILL until nothing is left. A killed process cannot fork any more
     * (a pending SIGKILL aborts fork), so each round only finds children
     * born before the previous one; the bound is for safety. */
    for (int round = 0; round < 1000; round++) {
        if (pd_tree_list(&l) == 0 && l.n == 0)
            break;
        pd_tree_signal(&l, SIGKILL);
        idle(arg, round < 10 ? 1 : 10);
    }
    pd_pids_free(&l);
    return nterm;
}
