/* launcher/scan/scan_watch.c - the kernel's change notification for the
 * post-run search of changed files (scan_changed.c), so that it reads the
 * directories where something happened instead of every file of the
 * writable roots.
 *
 * After the snapshot, when the writable roots hold many entries
 * (pd_scan_watch_min), an inotify watch goes on each directory of theirs
 * that the snapshot recorded (before the run: nothing of the run can happen
 * unseen). Adding a watch costs the kernel a pass over the directory's
 * cached entries (it marks them as watched), and closing the last one a
 * grace period, so small trees are cheaper to read whole. The watches are
 * added by two threads into two inotify instances (each instance takes its
 * own lock), and the last close is left to a child (release()). After the run the events name, per
 * watched directory, the entries that were written (IN_MODIFY, IN_CLOSE_WRITE: also a shared
 * mapping, which is opened for writing first), changed (IN_ATTRIB: a new
 * link, a mode), created or moved in (IN_CREATE, IN_MOVED_TO). Why that is
 * every change a run can make to a file it reaches: a write, truncate,
 * fallocate, copy_file_range or splice raises IN_MODIFY on the inode, seen
 * by the watch of the directory it was reached through; a run reaches the
 * files of a root only through the root's directories (Landlock grants
 * nothing else), and events come from the inode whatever the mount or the
 * namespace. A directory created or moved in during the run is not watched
 * and is walked whole. A new link to a file is heard as the creation of
 * its new name: the file is searched under that name (its link count is
 * an event of the inode alone, which no directory hears; its content is
 * the same under every name). io_uring, the one other way to write, is refused by
 * the seccomp filter.
 *
 * When anything makes the events incomplete - the queue overflowed, a
 * watch could not be added (max_user_watches, a directory the launcher
 * cannot read), more directories than MAX_WATCHES, out of memory - the
 * watch says so and the search reads every directory, as without it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/scan/scan_int.h"

#define MAX_WATCHES 65536 /* beyond this the walk is cheaper than the kernel memory */
#define WATCH_MASK                                                                                 \
    (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_MOVED_TO | IN_ONLYDIR |               \
     IN_DONT_FOLLOW | IN_EXCL_UNLINK)
#define NGROUPS 2
_Static_assert(NGROUPS == 2, "keeper_main holds two instances");

size_t pd_scan_watch_min = 10000;
unsigned pd_watch_keep_sec = 15;

/* One inotify instance and the paths of its watch descriptors. */
struct group {
    int fd;
    bool failed;
    char **paths; /* by watch descriptor */
    size_t npaths;
    size_t nwatches;
};

struct pd_watch {
    struct group g[NGROUPS];
    bool broken; /* the events may be incomplete */
    bool kept;   /* a keeper holds the watches (pd_watch_hand_over) */
};

/* Close an inotify descriptor off the caller's path. Its last close
 * frees every mark after a grace period of the kernel's (SRCU): 0.2 to
 * 18 ms measured here, paid by whoever drops the last reference. A child
 * made for it (exit signal 0: no SIGCHLD, no waitpid(-1) sees it) keeps
 * that reference, drops every other descriptor first (it must not hold
 * the caller's pipes open), waits out the grace period and exits; the
 * launcher goes on at once. Without the child, the close is made here. */
static void release(int fd)
{
    const bool valgrind = pd_exec_under_valgrind(); /* asked here, before the copy */
    pid_t pid = (pid_t)syscall(SYS_clone, 0UL, NULL, NULL, NULL, NULL);
    if (pid == 0) {
        /* retitled before the descriptors go: see shed_launcher (ns_stock.c) */
        if (!valgrind) /* valgrind's argument area is not the program's */
            pd_proc_retitle("paldron: releasing watches");
        if (fd > 0)
            syscall(SYS_close_range, 0U, (unsigned)fd - 1U, 0U);
        syscall(SYS_close_range, (unsigned)fd + 1U, ~0U, 0U);
        syscall(SYS_close, fd);
        syscall(SYS_exit, 0);
    }
    close(fd);
}

static void group_close(struct group *g, bool kept)
{
    if (g->fd >= 0 && g->nwatches > 0 && !kept)
        release(g->fd);
    else if (g->fd >= 0)
        close(g->fd);
    g->fd = -1;
}

struct pd_watch *pd_watch_open(void)
{
    struct pd_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    for (size_t k = 0; k < NGROUPS; k++) {
        w->g[k].fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->g[k].fd < 0) {
            pd_watch_free(w);
            return NULL;
        }
    }
    return w;
}

static void broken(struct pd_watch *w)
{
    w->broken = true;
    for (size_t k = 0; k < NGROUPS; k++) /* the kernel's memory for the watches goes now */
        group_close(&w->g[k], false);
}

/* Watch path in g; false on any failure (the watch is then unusable). */
static bool group_add(struct group *g, const char *path)
{
    int wd = inotify_add_watch(g->fd, path, WATCH_MASK);
    if (wd < 0)
        return false;
    size_t k = (size_t)wd;
    if (k >= g->npaths) {
        size_t n = g->npaths ? g->npaths : 64;
        while (n <= k)
            n *= 2;
        char **p = realloc(g->paths, n * sizeof *p);
        if (!p)
            return false;
        memset(p + g->npaths, 0, (n - g->npaths) * sizeof *p);
        g->paths = p;
        g->npaths = n;
    }
    if (g->paths[k]) /* the same directory twice (a root inside a root) */
        return true;
    g->paths[k] = strdup(path);
    if (!g->paths[k])
        return false;
    g->nwatches++;
    return true;
}

/* What one thread adds: every NGROUPS-th path, from first. */
struct share {
    struct group *g;
    const char *const *paths;
    size_t n, first;
};

static void *add_share(void *arg)
{
    struct share *sh = arg;
    for (size_t k = sh->first; k < sh->n && !sh->g->failed; k += NGROUPS)
        sh->g->failed = !group_add(sh->g, sh->paths[k]);
    return NULL;
}

void pd_watch_add_all(struct pd_watch *w, const char *const *paths, size_t n)
{
    if (!w || w->broken)
        return;
    if (n > MAX_WATCHES) {
        broken(w);
        return;
    }
    struct share sh[NGROUPS];
    for (size_t k = 0; k < NGROUPS; k++)
        sh[k] = (struct share){&w->g[k], paths, n, k};
    /* the second thread is an aid, not a need: without it this one adds all */
    pthread_t t;
    bool helper = n >= 64 && pthread_create(&t, NULL, add_share, &sh[1]) == 0;
    add_share(&sh[0]);
    if (helper)
        pthread_join(t, NULL);
    else
        add_share(&sh[1]);
    for (size_t k = 0; k < NGROUPS; k++)
        if (w->g[k].failed)
            broken(w);
}

void pd_watch_miss(struct pd_watch *w)
{
    if (w && !w->broken)
        broken(w);
}

bool pd_watch_usable(const struct pd_watch *w)
{
    return w && !w->broken;
}

bool pd_watch_has(const struct pd_watch *w, const char *path)
{
    for (size_t k = 0; w && k < NGROUPS; k++)
        for (size_t i = 0; i < w->g[k].npaths; i++)
            if (w->g[k].paths[i] && strcmp(w->g[k].paths[i], path) == 0)
                return true;
    return false;
}

/* One change: the directory's path, the entry's name, a directory? */
struct change {
    const char *dir;
    char *name;
    bool is_dir;
};

struct changes {
    struct change *v;
    size_t n, cap;
};

static int by_place(const void *a, const void *b)
{
    const struct change *x = a, *y = b;
    int c = strcmp(x->dir, y->dir);
    return c ? c : strcmp(x->name, y->name);
}

/* Append the events of g to c; false when they are incomplete. */
static bool read_group(struct group *g, struct changes *c)
{
    char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t got = read(g->fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            return true;
        if (got <= 0)
            return false;
        for (char *p = buf; p < buf + got;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW)
                return false;
            if ((ev->mask & IN_IGNORED) || ev->len == 0 || !ev->name[0])
                continue; /* a watch removed, or an event of the directory itself */
            if (ev->wd < 0 || (size_t)ev->wd >= g->npaths || !g->paths[ev->wd])
                return false;
            /* a directory that is already watched (its mode changed): its
             * own watch covers what is in it */
            bool new_dir = (ev->mask & (IN_CREATE | IN_MOVED_TO)) != 0;
            if ((ev->mask & IN_ISDIR) && !new_dir)
                continue;
            if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 256;
                struct change *nv = realloc(c->v, cap * sizeof *nv);
                if (!nv)
                    return false;
                c->v = nv;
                c->cap = cap;
            }
            struct change *ch = &c->v[c->n];
            ch->dir = g->paths[ev->wd];
            ch->is_dir = (ev->mask & IN_ISDIR) != 0;
            ch->name = strdup(ev->name);
            if (!ch->name)
                return false;
            c->n++;
        }
    }
}

bool pd_watch_changes(struct pd_watch *w, pd_watch_fn fn, void *user)
{
    if (!pd_watch_usable(w))
        return false;
    struct changes c = {0};
    bool ok = true;
    for (size_t k = 0; k < NGROUPS && ok; k++)
        ok = read_group(&w->g[k], &c);
    if (ok) {
        /* one call per entry, directories by directory */
        if (c.n)
            qsort(c.v, c.n, sizeof *c.v, by_place);
        for (size_t k = 0; k < c.n; k++) {
            if (k > 0 && by_place(&c.v[k - 1], &c.v[k]) == 0 && c.v[k - 1].is_dir == c.v[k].is_dir)
                continue;
            fn(c.v[k].dir, c.v[k].name, c.v[k].is_dir, user);
        }
    }
    for (size_t k = 0; k < c.n; k++)
        free(c.v[k].name);
    free(c.v);
    return ok;
}

/* The keeper (scan_watch_keep.c): a child that holds both instances, and
 * nothing else, for pd_watch_keep_sec seconds. Made with exit signal 0, as
 * release()'s; a session of its own, out of the terminal's signals; no
 * working directory that would keep a file system busy; signals unblocked
 * (the launcher blocks some while it runs). Only raw system calls: it is a
 * copy of a process that may have threads. */
static void keeper_main(const int *fds)
{
    /* before the descriptors go: whoever waits for the launcher's output to
     * end then finds no process with the run's command line */
    pd_proc_retitle("paldron: watches kept for the next run");
    int lo = fds[0] < fds[1] ? fds[0] : fds[1], hi = fds[0] < fds[1] ? fds[1] : fds[0];
    if (lo > 0)
        syscall(SYS_close_range, 0U, (unsigned)lo - 1U, 0U);
    if (hi > lo + 1)
        syscall(SYS_close_range, (unsigned)lo + 1U, (unsigned)hi - 1U, 0U);
    syscall(SYS_close_range, (unsigned)hi + 1U, ~0U, 0U);
    const unsigned long none = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof none);
    syscall(SYS_setsid);
    syscall(SYS_chdir, "/");
    struct timespec t = {(time_t)pd_watch_keep_sec, 0};
    while (syscall(SYS_nanosleep, &t, &t) != 0 && errno == EINTR)
        ;
    syscall(SYS_exit_group, 0);
}

pid_t pd_watch_hand_over(struct pd_watch *w)
{
    /* under valgrind the keeper would not be a paldron that the next run
     * recognises, and its argument area is valgrind's: none */
    if (!pd_watch_usable(w) || w->g[0].nwatches + w->g[1].nwatches == 0 || pd_exec_under_valgrind())
        return -1;
    const int fds[NGROUPS] = {w->g[0].fd, w->g[1].fd};
    pid_t pid = (pid_t)syscall(SYS_clone, 0UL, NULL, NULL, NULL, NULL);
    if (pid == 0)
        keeper_main(fds);
    if (pid > 0)
        w->kept = true; /* our descriptors are copies now: closed plainly */
    return pid;
}

void pd_watch_free(struct pd_watch *w)
{
    if (!w)
        return;
    for (size_t k = 0; k < NGROUPS; k++) {
        group_close(&w->g[k], w->kept);
        for (size_t i = 0; i < w->g[k].npaths; i++)
            free(w->g[k].paths[i]);
        free(w->g[k].paths);
    }
    free(w);
}
