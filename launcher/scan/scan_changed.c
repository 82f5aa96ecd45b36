/* launcher/scan/scan_changed.c - which regular files did the run create or
 * change? Every file in the scanned trees whose ctime is after the
 * snapshot began: ctime cannot be set back by the command, and writing,
 * truncating, renaming or linking a file all move it, so no per-file record
 * is needed (the snapshot stays as small as it was) and a file changed in
 * place, in a directory whose own times did not move, is found too.
 * pd_scan_fence waits before the run until the clock has passed the start,
 * so every change the run makes has a later ctime, and a file written just
 * before the snapshot (a setup step in the same second) does not count.
 * Where every tree's file times are fine-grained (scan_fine.c) there is no
 * wait: the run's changes are those not before the probe's stamp.
 * Same walk rules as scan.c: no link followed, one file system per tree,
 * unreadable directories of the user's opened for the scan (the compare
 * already judged those it could not). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "launcher/scan/scan_int.h"

struct changed_walk {
    const struct pd_scan *s;
    struct timespec since;
    bool inclusive; /* fine-grained times: a ctime equal to since is the run's */
    pd_scan_changed_fn fn;
    void *user;
    size_t n;
    size_t dirs; /* directories opened */
};

struct pd_scan_changed_stats pd_scan_changed_last;

static bool in_writable_root(const struct pd_scan *s, const char *abs)
{
    for (size_t k = 0; k < s->ctx->npolicy_roots; k++)
        if (pd_path_under(abs, s->ctx->roots[k]))
            return true;
    return false;
}

static bool changed_since(const struct timespec *t, const struct changed_walk *w)
{
    const struct timespec *b = &w->since;
    return pd_ts_later(t, b) || (w->inclusive && pd_ts_same(t, b));
}

static void visit_file(struct changed_walk *w, int dirfd, const char *name, char *path)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        !changed_since(&st.st_ctim, w))
        return;
    struct dir_grant g;
    int fd = pd_scan_open_file(path, &g);
    int err = fd < 0 ? errno : 0;
    w->fn(path, fd, err, &st, w->user);
    if (fd >= 0)
        close(fd);
    pd_scan_ungrant(&g);
    w->n++;
}

static void walk_changed(struct changed_walk *w, char *path, size_t len, dev_t dev)
{
    struct dir_grant g;
    int fd = pd_scan_open_dir(path, in_writable_root(w->s, path) || w->s->degraded, &g);
    struct stat st;
    if (fd < 0)
        return; /* the compare has judged a directory it could not read */
    w->dirs++;
    struct pd_entries ents = {0};
    /* a read error keeps what was read; out of memory, nothing (a partial
     * list would skip files silently) */
    if (fstat(fd, &st) == 0 && st.st_dev == dev && pd_read_entries(fd, &ents) != 0 &&
        errno == ENOMEM)
        ents.len = 0;
    const char *names = ents.buf;
    const size_t nlen = ents.len;
    for (size_t off = 0; names && off < nlen;) {
        unsigned char type = (unsigned char)names[off];
        const char *name = names + off + 1;
        size_t nl = strlen(name);
        off += nl + 2;
        if (len + 1 + nl >= PD_PATH_MAX)
            continue; /* the compare reports paths too long to check */
        path[len] = '/';
        memcpy(path + len + 1, name, nl + 1);
        if (type == DT_UNKNOWN) {
            struct stat cst;
            if (fstatat(fd, name, &cst, AT_SYMLINK_NOFOLLOW) == 0)
                type = S_ISDIR(cst.st_mode) ? DT_DIR : S_ISREG(cst.st_mode) ? DT_REG : DT_LNK;
        }
        if (type == DT_REG)
            visit_file(w, fd, name, path);
        path[len] = '\0';
    }
    close(fd);
    /* Subdirectories after the descriptor is closed: one open at a time. */
    for (size_t off = 0; names && off < nlen;) {
        unsigned char type = (unsigned char)names[off];
        const char *name = names + off + 1;
        size_t nl = strlen(name);
        off += nl + 2;
        if (type != DT_DIR && type != DT_UNKNOWN)
            continue;
        if (len + 1 + nl >= PD_PATH_MAX)
            continue;
        path[len] = '/';
        memcpy(path + len + 1, name, nl + 1);
        struct stat cst;
        if (type == DT_DIR || (lstat(path, &cst) == 0 && S_ISDIR(cst.st_mode)))
            walk_changed(w, path, len + 1 + nl, dev);
        path[len] = '\0';
    }
    free(ents.buf);
    pd_scan_ungrant(&g);
}

static void walk_top(struct changed_walk *w, const char *top)
{
    char path[PD_PATH_MAX];
    struct stat st;
    size_t len = strlen(top);
    if (len >= sizeof path || lstat(top, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    memcpy(path, top, len + 1);
    walk_changed(w, path, len, st.st_dev);
}

/* Is root k of c inside no other root (the first of equal ones)? */
static bool outermost(const struct pd_ctx *c, size_t k)
{
    for (size_t r = 0; r < c->npolicy_roots; r++)
        if (r != k && pd_path_under(c->roots[k], c->roots[r]) &&
            (strcmp(c->roots[k], c->roots[r]) != 0 || r < k))
            return false;
    return true;
}

/* The device of the tree (writable root) that holds path, 0 if none. */
static dev_t root_dev(const struct pd_scan *s, const char *path)
{
    const struct pd_ctx *c = s->ctx;
    for (size_t k = 0; k < c->npolicy_roots; k++) {
        struct stat st;
        if (pd_path_under(path, c->roots[k]) && lstat(c->roots[k], &st) == 0)
            return st.st_dev;
    }
    return 0;
}

/* The entries the watch's events name (scan_watch.c): a file is visited
 * as the walk visits it (its directory opened without following a link);
 * a directory created or moved in is walked whole. Calls come directory
 * by directory, so each directory is opened once. */
struct event_walk {
    struct changed_walk *w;
    char dir[PD_PATH_MAX]; /* the directory open as fd */
    int fd;
    struct dir_grant g;
};

static void close_dir(struct event_walk *e)
{
    if (e->fd >= 0)
        close(e->fd);
    pd_scan_ungrant(&e->g);
    e->fd = -1;
    e->dir[0] = '\0';
}

static void on_event(const char *dir, const char *name, bool is_dir, void *user)
{
    struct event_walk *e = user;
    char path[PD_PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return; /* the compare reports paths too long to check */
    if (is_dir) {
        struct stat st;
        dev_t dev = root_dev(e->w->s, path);
        if (dev && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            walk_changed(e->w, path, strlen(path), dev);
        return;
    }
    if (strcmp(e->dir, dir) != 0) {
        close_dir(e);
        snprintf(e->dir, sizeof e->dir, "%s", dir);
        e->fd = pd_scan_open_dir(dir, in_writable_root(e->w->s, dir), &e->g);
        e->w->dirs += e->fd >= 0;
    }
    if (e->fd >= 0)
        visit_file(e->w, e->fd, name, path);
}

/* PALDRON_DEBUG=scan: how the run's changed files were found. */
static size_t done(const struct changed_walk *w, bool watched)
{
    pd_scan_changed_last = (struct pd_scan_changed_stats){watched, w->dirs};
    const char *debug = getenv("PALDRON_DEBUG");
    if (debug && strcmp(debug, "scan") == 0)
        pd_err("scan: changed files found %s, %zu directories read",
               watched ? "by the kernel's change notification" : "by reading every directory",
               w->dirs);
    return w->n;
}

size_t pd_scan_each_changed_file(const struct pd_scan *s, pd_scan_changed_fn fn, void *user)
{
    struct changed_walk w = {s, s->fine ? s->since : s->start, s->fine, fn, user, 0, 0};
    if (!s->degraded && pd_watch_usable(s->watch)) {
        struct event_walk e = {.w = &w, .fd = -1, .g = {.fd = -1}};
        bool ok = pd_watch_changes(s->watch, on_event, &e);
        close_dir(&e);
        if (ok) {
            /* a writable root that did not exist before the run: no watch
             * saw what it holds now */
            const struct pd_ctx *c = s->ctx;
            for (size_t k = 0; k < c->npolicy_roots; k++)
                if (outermost(c, k) && !pd_watch_has(s->watch, c->roots[k]))
                    walk_top(&w, c->roots[k]);
            return done(&w, true);
        }
        w.n = w.dirs = 0; /* incomplete events: read every directory */
    }
    if (s->degraded) {
        /* No kernel layer kept the command in the writable roots. */
        for (size_t k = 0; k < s->ntrees; k++)
            walk_top(&w, s->trees[k].path);
        return done(&w, false);
    }
    /* An isolated run writes only in the writable roots: walk each
     * outermost one (not the rest of the workspace). */
    const struct pd_ctx *c = s->ctx;
    for (size_t k = 0; k < c->npolicy_roots; k++)
        if (outermost(c, k))
            walk_top(&w, c->roots[k]);
    return done(&w, false);
}
