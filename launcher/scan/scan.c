/* launcher/scan/scan.c - snapshot and compare of the workspace and the writable
 * roots outside it (scan.h). One walk serves three modes:
 *   SNAPSHOT  before the run: record directories and denied entries (the
 *             entries of a directory unchanged since the last run come
 *             from its kept listing, scan_reuse.c);
 *   REREAD    after the run, a recorded directory whose times changed:
 *             judge the entries that have no record;
 *   FRESH     after the run, a directory that did not exist: every denied
 *             entry in it is new.
 * Directories are opened without following any link (openat2 with
 * RESOLVE_NO_SYMLINKS, or one component at a time without it:
 * pd_scan_open_nofollow) and read whole before the walk descends, so one
 * descriptor is open at a time whatever the depth. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "launcher/scan/scan_int.h"

enum mode { SNAPSHOT, REREAD, FRESH };

/* ---- helpers ------------------------------------------------------------ */

static void subject_of(const struct pd_scan *s, const char *abs, char *out, size_t outlen)
{
    const char *rel = pd_path_under(abs, s->ctx->workspace);
    snprintf(out, outlen, "%s", rel ? (rel[0] ? rel : ".") : abs);
}

static bool is_pattern_key(const char *key)
{
    return key && (strcmp(key, "deny_globs") == 0 || strcmp(key, "secrets") == 0 ||
                   strcmp(key, "protected_paths") == 0 || strcmp(key, "policy_file") == 0);
}

/* Judge the entry at abs as a write. pattern_only: only deny_globs, secrets
 * and protected paths count (the question "must the scan record it?");
 * otherwise every reason counts (the text of a finding). */
static bool judge(const struct pd_scan *s, const char *abs, unsigned char type, enum pd_op op,
                  bool pattern_only, char *msg, size_t msglen)
{
    char subject[PD_PATH_MAX];
    subject_of(s, abs, subject, sizeof subject);
    if (type == DT_LNK &&
        pd_names_judge_link(s->ctx, subject, pd_path_under(abs, s->ctx->workspace), abs, msg,
                            msglen))
        return true;
    struct pd_verdict v;
    pd_gate_path(s->ctx, op, NULL, subject, &v);
    if (!v.deny || (pattern_only && !is_pattern_key(v.key)))
        return false;
    snprintf(msg, msglen, "%s", v.message);
    return true;
}

/* A finding about the entry at abs: "run <verb> <gate message>". */
static void finding(struct pd_scan *s, const char *verb, const char *abs, unsigned char type)
{
    char msg[PD_MSG_MAX], subject[PD_PATH_MAX];
    enum pd_op op = strcmp(verb, "removed") == 0 ? PD_OP_DELETE : PD_OP_WRITE;
    subject_of(s, abs, subject, sizeof subject);
    if (strcmp(verb, "produced") == 0)
        pd_scan_note_produced(s, abs);
    if (!judge(s, abs, type, op, false, msg, sizeof msg))
        snprintf(msg, sizeof msg, "%s (denied by the post-run scan)", subject);
    pd_findings_add(s->found, subject, "run %s %s", verb, msg);
}

/* (noinline: walk calls it, see visit) */
__attribute__((noinline)) static void unscannable(struct pd_scan *s, const char *abs, int err)
{
    char subject[PD_PATH_MAX];
    subject_of(s, abs, subject, sizeof subject);
    pd_findings_add(s->found, subject, "run left %s unreadable to the post-run scan (%s)", subject,
                    strerror(err));
}

static bool in_roots(const struct pd_scan *s, const char *abs)
{
    for (size_t k = 0; k < s->ctx->npolicy_roots; k++)
        if (pd_path_under(abs, s->ctx->roots[k]))
            return true;
    return false;
}

static void note_ctime(struct pd_scan *s, const struct stat *st)
{
    if (pd_ts_later(&st->st_ctim, &s->max_ctime))
        s->max_ctime = st->st_ctim;
}

static bool same_dir(const struct rec *r, const struct stat *st)
{
    return S_ISDIR(st->st_mode) && r->dev == st->st_dev && r->ino == st->st_ino &&
           pd_ts_same(&r->mtime, &st->st_mtim) && pd_ts_same(&r->ctime, &st->st_ctim);
}

static bool same_file(const struct rec *r, const struct stat *st)
{
    return (r->mode & S_IFMT) == (st->st_mode & S_IFMT) && r->dev == st->st_dev &&
           r->ino == st->st_ino && r->size == st->st_size && pd_ts_same(&r->ctime, &st->st_ctim);
}

/* ---- reading a directory ------------------------------------------------ */

/* ---- the walk ----------------------------------------------------------- */

static void walk(struct pd_scan *s, char *path, size_t len, int flags, enum mode mode, dev_t dev);

/* Visit the entries of the open directory path (flags: the directory's).
 * Subdirectories to walk next are appended to subdirs with their flags and
 * mode. Not inlined, as walk's other helpers with PATH_MAX buffers: walk
 * recurses as deep as a path can go (2048 levels of "a/"), so its own frame
 * must stay small. */
__attribute__((noinline)) static void visit(struct pd_scan *s, int fd, const struct stat *st,
                                            bool may_keep, char *path, size_t len, int flags,
                                            enum mode mode, struct pd_entries *subdirs)
{
    struct pd_entries ents = {0};
    /* Before the run, an unchanged directory's entries may come from the
     * last run's listing (scan_reuse.c): it holds every entry this loop
     * acts on; every entry when the directory itself is denied. */
    size_t nents = 0;
    int rc = mode == SNAPSHOT
                 ? pd_reuse_entries(s->reuse, fd, path, len, st, (flags & F_DENIED) || s->degraded,
                                    may_keep, &ents, &nents)
                 : pd_read_entries(fd, &ents);
    if (!(flags & F_OUTSIDE))
        s->root_entries += nents;
    if (rc < 0) {
        int e = errno;
        if (mode == SNAPSHOT) {
            char subject[PD_PATH_MAX];
            subject_of(s, path, subject, sizeof subject);
            pd_findings_add(s->warn, subject,
                            "scan: cannot read %s (%s); changes in it are not checked", subject,
                            strerror(e));
        } else {
            unscannable(s, path, e);
        }
    }
    char msg[PD_MSG_MAX];
    for (size_t off = 0; off < ents.len;) {
        unsigned char type = (unsigned char)ents.buf[off];
        const char *name = ents.buf + off + 1;
        size_t nlen = strlen(name);
        off += nlen + 2;
        if (len + 1 + nlen >= PD_PATH_MAX) {
            /* Beyond PATH_MAX: cannot be judged by path. */
            char subject[PD_PATH_MAX];
            subject_of(s, path, subject, sizeof subject);
            if (mode == SNAPSHOT)
                pd_findings_add(s->warn, subject, "scan: a name in %s is too long to check",
                                subject);
            else
                pd_findings_add(s->found, subject, "run produced a path too long to check in %s",
                                subject);
            continue;
        }
        path[len] = '/';
        memcpy(path + len + 1, name, nlen + 1);
        size_t clen = len + 1 + nlen;
        struct stat cst;
        bool have_st = false;
        if (type == DT_UNKNOWN) {
            if (fstatat(fd, name, &cst, AT_SYMLINK_NOFOLLOW) != 0)
                goto next;
            have_st = true;
            type = S_ISDIR(cst.st_mode) ? DT_DIR : S_ISLNK(cst.st_mode) ? DT_LNK : DT_REG;
        }
        int cflags = flags & F_DENIED;
        if ((flags & F_OUTSIDE) && !in_roots(s, path))
            cflags |= F_OUTSIDE;
        if (!(cflags & F_DENIED) && (type == DT_LNK || pd_names_maybe(&s->names, name, nlen)) &&
            judge(s, path, type, PD_OP_WRITE, true, msg, sizeof msg))
            cflags |= F_DENIED;
        bool outside = s->degraded && (cflags & F_OUTSIDE);

        if (type == DT_DIR) {
            enum mode sub = mode == SNAPSHOT ? SNAPSHOT : FRESH;
            if (mode == REREAD) {
                long j = pd_store_find(&s->st, path, clen);
                if (j >= 0 && s->st.v[j].kind == REC_DIR &&
                    fstatat(fd, name, &cst, AT_SYMLINK_NOFOLLOW) == 0 &&
                    cst.st_ino == s->st.v[j].ino && cst.st_dev == s->st.v[j].dev)
                    goto next; /* a known directory: its own record covers it */
            }
            if (sub == FRESH && ((cflags & F_DENIED) || outside))
                finding(s, "produced", path, type);
            if (pd_entries_add(subdirs, (unsigned char)((unsigned)sub << 4 | (unsigned)cflags),
                               name, nlen) < 0)
                s->st.failed = true;
            goto next;
        }
        if (!(cflags & F_DENIED) && !outside)
            goto next;
        if (mode == SNAPSHOT) {
            if (!have_st && fstatat(fd, name, &cst, AT_SYMLINK_NOFOLLOW) != 0)
                goto next;
            pd_store_add(&s->st, path, clen, REC_FILE, cflags, &cst);
            note_ctime(s, &cst);
            s->nfiles++;
        } else if (mode == FRESH || pd_store_find(&s->st, path, clen) < 0) {
            /* REREAD: a recorded file is compared by compare_files. */
            finding(s, "produced", path, type);
        }
    next:
        path[len] = '\0';
    }
    free(ents.buf);
}

/* Walk the subdirectories collected by visit, then free the list. */
static void descend(struct pd_scan *s, char *path, size_t len, struct pd_entries *subdirs,
                    dev_t dev)
{
    for (size_t off = 0; off < subdirs->len;) {
        unsigned char tag = (unsigned char)subdirs->buf[off];
        const char *name = subdirs->buf + off + 1;
        size_t nlen = strlen(name);
        off += nlen + 2;
        path[len] = '/';
        memcpy(path + len + 1, name, nlen + 1);
        walk(s, path, len + 1 + nlen, tag & 0x0f, (enum mode)(tag >> 4), dev);
        path[len] = '\0';
    }
    free(subdirs->buf);
    subdirs->buf = NULL;
    subdirs->len = subdirs->cap = 0;
}

/* A directory still unreadable after pd_scan_open_dir: what the run could
 * have written there cannot be checked. Accepted only when the command could
 * not have reached into it either: not searchable by the user (and not the
 * user's to chmod), or outside the writable roots of an isolated run. */
static bool may_stay_unread(const struct pd_scan *s, const char *path, int flags)
{
    if ((flags & F_OUTSIDE) && !s->degraded)
        return true;
    return !pd_scan_searchable(path);
}

static bool may_grant(const struct pd_scan *s, int flags)
{
    return !(flags & F_OUTSIDE) || s->degraded;
}

/* The directory the scan made readable gets its mode back; at the snapshot
 * its record takes the times that change gave it, so that the compare does
 * not see the scan's own chmod as the run's. */
static void ungrant_dir(struct pd_scan *s, struct dir_grant *g, const char *path, long rec)
{
    if (g->fd < 0)
        return;
    pd_scan_ungrant(g);
    struct stat st;
    if (rec >= 0 && lstat(path, &st) == 0) {
        s->st.v[rec].mtime = st.st_mtim;
        s->st.v[rec].ctime = st.st_ctim;
        note_ctime(s, &st);
    }
}

/* walk's warnings, out of its frame (see visit) */
__attribute__((noinline)) static void warn_unread(struct pd_scan *s, const char *path, int flags,
                                                  int e)
{
    char subject[PD_PATH_MAX];
    subject_of(s, path, subject, sizeof subject);
    pd_findings_add(s->warn, subject, "scan: cannot read %s (%s); changes in it are not checked%s",
                    subject, strerror(e),
                    may_stay_unread(s, path, flags) ? ""
                                                    : " (a run that can reach into it is "
                                                      "denied)");
}

__attribute__((noinline)) static void warn_other_fs(struct pd_scan *s, const char *path)
{
    char subject[PD_PATH_MAX];
    subject_of(s, path, subject, sizeof subject);
    pd_findings_add(s->warn, subject, "scan: %s is another file system; it is not scanned",
                    subject);
}

static void walk(struct pd_scan *s, char *path, size_t len, int flags, enum mode mode, dev_t dev)
{
    struct dir_grant g;
    int fd = pd_scan_open_dir(path, may_grant(s, flags), &g);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        pd_scan_ungrant(&g);
        if (mode != SNAPSHOT) {
            if (e != ENOENT)
                unscannable(s, path, e);
            return;
        }
        warn_unread(s, path, flags, e);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            pd_store_add(&s->st, path, len, REC_DIR, flags | F_UNREADABLE, &st);
            note_ctime(s, &st);
        }
        return;
    }
    if (st.st_dev != dev) {
        /* Another file system mounted here (/proc under a workspace "/",
         * a network share): not walked, and said so. */
        warn_other_fs(s, path);
        close(fd);
        pd_scan_ungrant(&g);
        return;
    }
    long rec = -1;
    if (mode == SNAPSHOT) {
        rec = pd_store_add(&s->st, path, len, REC_DIR, flags, &st);
        note_ctime(s, &st);
    }
    struct pd_entries subdirs = {0};
    visit(s, fd, &st, g.fd < 0, path, len, flags, mode, &subdirs);
    close(fd);
    /* The mode goes back after the subtree: a directory without search
     * permission would keep the walk out of its subdirectories. */
    descend(s, path, len, &subdirs, dev);
    ungrant_dir(s, &g, path, rec);
}

/* ---- snapshot ------------------------------------------------------------ */

static void add_tree(struct pd_scan *s, const char *path)
{
    for (size_t k = 0; k < s->ntrees; k++)
        if (pd_path_under(path, s->trees[k].path))
            return; /* already inside a tree */
    /* Trees inside the new one (allow_paths = [".."]) are walked with it. */
    size_t out = 0;
    for (size_t k = 0; k < s->ntrees; k++)
        if (!pd_path_under(s->trees[k].path, path))
            s->trees[out++] = s->trees[k];
    s->ntrees = out;
    if (s->ntrees == MAX_TREES) {
        pd_findings_add(s->warn, path, "scan: more than %d writable roots; %s is not scanned",
                        MAX_TREES, path);
        return;
    }
    struct tree *t = &s->trees[s->ntrees++];
    memset(t, 0, sizeof *t);
    t->path = path;
}

static int root_flags(struct pd_scan *s, const char *path)
{
    char msg[PD_MSG_MAX];
    int flags = in_roots(s, path) ? 0 : F_OUTSIDE;
    if (pd_path_under(path, s->ctx->workspace) == NULL &&
        judge(s, path, DT_DIR, PD_OP_WRITE, true, msg, sizeof msg))
        flags |= F_DENIED;
    return flags;
}

/* An isolated run writes only the writable roots: when they are large, a
 * watch on each of their directories tells the post-run search where to
 * look (scan_watch.c). A directory of theirs the snapshot could not read
 * cannot be watched, and the search reads everything then. */
static void watch_roots(struct pd_scan *s)
{
    if (s->degraded || s->root_entries < pd_scan_watch_min)
        return;
    s->watch = pd_watch_open();
    const char **dirs = s->watch ? malloc(s->st.n * sizeof *dirs) : NULL;
    size_t n = 0;
    for (size_t i = 0; dirs && i < s->st.n; i++) {
        const struct rec *r = &s->st.v[i];
        if (r->kind != REC_DIR || (r->flags & F_OUTSIDE))
            continue;
        if (r->flags & F_UNREADABLE)
            pd_watch_miss(s->watch);
        else
            dirs[n++] = pd_store_path(&s->st, i);
    }
    if (dirs)
        pd_watch_add_all(s->watch, dirs, n);
    else
        pd_watch_miss(s->watch);
    free(dirs);
    /* ours are in place: the last run's keeper may go (scan_watch_keep.c) */
    char kept[PD_PATH_MAX];
    if (pd_scan_reuse_sibling(s->reuse, ".watch", kept, sizeof kept))
        pd_watch_end_kept(pd_scan_reuse_basefd(s->reuse), kept);
}

struct pd_scan *pd_scan_snapshot(const struct pd_ctx *ctx, bool degraded, struct pd_findings *warn)
{
    return pd_scan_snapshot_reusing(ctx, degraded, NULL, warn);
}

struct pd_scan *pd_scan_snapshot_reusing(const struct pd_ctx *ctx, bool degraded,
                                         struct pd_scan_reuse *r, struct pd_findings *warn)
{
    struct pd_scan *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ctx = ctx;
    s->degraded = degraded;
    s->reuse = r;
    clock_gettime(CLOCK_REALTIME_COARSE, &s->start);
    s->warn = warn;
    s->found = warn; /* not used while taking the snapshot */
    if (pd_names_init(&s->names, ctx) < 0) {
        free(s);
        errno = ENOMEM;
        return NULL;
    }
    add_tree(s, ctx->workspace);
    for (size_t k = 0; k < ctx->npolicy_roots; k++)
        add_tree(s, ctx->roots[k]);
    char path[PD_PATH_MAX];
    for (size_t k = 0; k < s->ntrees; k++) {
        struct tree *t = &s->trees[k];
        struct stat st;
        t->flags = root_flags(s, t->path);
        if (lstat(t->path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue; /* compared again after the run: it may appear */
        t->existed = true;
        t->dev = st.st_dev;
        size_t len = strlen(t->path);
        memcpy(path, t->path, len + 1);
        walk(s, path, len, t->flags, SNAPSHOT, t->dev);
    }
    if (s->st.failed) {
        pd_scan_free(s);
        errno = ENOMEM;
        return NULL;
    }
    pd_reuse_finish(r, ctx);
    s->fine = pd_fine_times(s, &s->since);
    watch_roots(s);
    return s;
}

void pd_scan_fence_target(const struct pd_scan *s, struct pd_fence *f)
{
    /* The later of every recorded ctime and the snapshot's start: a change
     * the run makes must get a ctime after both (scan_changed.c tells the
     * run's files by a ctime after the start). A ctime with no nanoseconds
     * suggests a file system with whole-second times. */
    if (s->fine) {
        *f = (struct pd_fence){.after = {0, 0}, .coarse_fs = false};
        return; /* every change from now on gets a ctime later than any recorded */
    }
    struct timespec max = s->max_ctime;
    if (pd_ts_later(&s->start, &max))
        max = s->start;
    f->after = max;
    f->coarse_fs = s->max_ctime.tv_sec != 0 && s->max_ctime.tv_nsec == 0;
}

void pd_fence_wait(const struct pd_fence *f)
{
    const struct timespec max = f->after;
    if (max.tv_sec == 0)
        return;
    /* File times come from the coarse clock (or finer): once it has passed
     * every recorded ctime, a later change cannot repeat one. */
    for (int k = 0; k < 3000; k++) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        if (now.tv_sec > max.tv_sec + 2)
            return; /* also: a ctime in the future is a clock step, not ours to wait out */
        if (f->coarse_fs ? now.tv_sec > max.tv_sec : pd_ts_later(&now, &max))
            return;
        if (max.tv_sec > now.tv_sec + 2)
            return;
        /* a quarter of a tick: no more than that is lost past it */
        const struct timespec step = {0, 250000};
        nanosleep(&step, NULL);
    }
}

void pd_scan_fence(const struct pd_scan *s)
{
    struct pd_fence f;
    pd_scan_fence_target(s, &f);
    pd_fence_wait(&f);
}

/* ---- compare ------------------------------------------------------------- */

/* Re-stat the file records [i, j) of the open directory fd. */
static void compare_files(struct pd_scan *s, int fd, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++) {
        const struct rec *r = &s->st.v[k];
        const char *p = pd_store_path(&s->st, k);
        const char *name = strrchr(p, '/') + 1;
        struct stat st;
        unsigned char type = S_ISLNK(r->mode) ? DT_LNK : DT_REG;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            finding(s, errno == ENOENT ? "removed" : "produced", p, type);
        else if (!same_file(r, &st))
            finding(s, st.st_ino == r->ino && st.st_dev == r->dev ? "modified" : "produced", p,
                    S_ISLNK(st.st_mode) ? DT_LNK : DT_REG);
    }
}

/* The directory record i (its files are [i+1, j)) is gone. */
static void dir_gone(struct pd_scan *s, size_t i, size_t j)
{
    const struct rec *d = &s->st.v[i];
    if ((d->flags & F_DENIED) || (s->degraded && (d->flags & F_OUTSIDE)))
        finding(s, "removed", pd_store_path(&s->st, i), DT_DIR);
    for (size_t k = i + 1; k < j; k++)
        finding(s, "removed", pd_store_path(&s->st, k), DT_REG);
}

static void keep_grant(struct pd_scan *s, struct dir_grant *g)
{
    if (g->fd < 0)
        return;
    if (s->ngrants == s->cgrants) {
        size_t cap = s->cgrants ? s->cgrants * 2 : 8;
        struct dir_grant *nv = realloc(s->grants, cap * sizeof *nv);
        if (!nv) {
            pd_scan_ungrant(g);
            return;
        }
        s->grants = nv;
        s->cgrants = cap;
    }
    s->grants[s->ngrants++] = *g;
    g->fd = -1;
}

/* The directory at path (a record) cannot be reached: an ancestor inside a
 * writable root lacks its owner's search permission (src/box at 0600 while
 * src/box/inner is compared). Grant it, top down, until the end of the
 * compare. */
static void grant_ancestors(struct pd_scan *s, char *path, size_t len, int flags)
{
    if (!may_grant(s, flags))
        return;
    for (size_t k = 1; k < len; k++) {
        if (path[k] != '/')
            continue;
        path[k] = '\0';
        if (in_roots(s, path) || s->degraded) {
            struct dir_grant g;
            if (pd_scan_grant_dir(path, &g) == 0)
                keep_grant(s, &g);
        }
        path[k] = '/';
    }
}

static void compare_dir(struct pd_scan *s, size_t i, size_t j, char *path)
{
    const struct rec *d = &s->st.v[i];
    size_t len = strlen(pd_store_path(&s->st, i));
    memcpy(path, pd_store_path(&s->st, i), len + 1);
    struct stat st;
    /* Fast path: an unchanged directory without recorded files (one that
     * could not be read at the snapshot is never taken as unchanged). */
    if (j == i + 1 && !(d->flags & F_UNREADABLE) && lstat(path, &st) == 0 && same_dir(d, &st))
        return;
    const int flags = d->flags & ~F_UNREADABLE;
    struct dir_grant g;
    int fd = pd_scan_open_dir(path, may_grant(s, flags), &g);
    if (fd < 0 && errno == EACCES) {
        grant_ancestors(s, path, len, flags);
        fd = pd_scan_open_dir(path, may_grant(s, flags), &g);
    }
    keep_grant(s, &g);
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (e == ENOENT || e == ENOTDIR || e == ELOOP)
            dir_gone(s, i, j);
        else if (!(d->flags & F_UNREADABLE) || lstat(path, &st) != 0 || !same_dir(d, &st) ||
                 !may_stay_unread(s, path, flags))
            unscannable(s, path, e);
        return;
    }
    if (st.st_dev != d->dev || st.st_ino != d->ino || (d->flags & F_UNREADABLE)) {
        /* Another directory sits here now (or one we could not read
         * before): all of it is new. */
        close(fd);
        if ((flags & F_DENIED) || (s->degraded && (flags & F_OUTSIDE)))
            finding(s, "produced", path, DT_DIR);
        for (size_t k = i + 1; k < j; k++)
            finding(s, "removed", pd_store_path(&s->st, k), DT_REG);
        walk(s, path, len, flags, FRESH, st.st_dev);
        return;
    }
    struct pd_entries subdirs = {0};
    if (!same_dir(d, &st))
        visit(s, fd, &st, false, path, len, flags, REREAD, &subdirs);
    compare_files(s, fd, i + 1, j);
    close(fd);
    descend(s, path, len, &subdirs, d->dev);
}

void pd_scan_compare(struct pd_scan *s, struct pd_findings *found, struct pd_findings *warn)
{
    char path[PD_PATH_MAX];
    s->found = found;
    s->warn = warn;
    pd_reuse_after_run(s->reuse);
    for (size_t k = 0; k < s->ntrees; k++) {
        const struct tree *t = &s->trees[k];
        struct stat st;
        if (t->existed || lstat(t->path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        size_t len = strlen(t->path);
        memcpy(path, t->path, len + 1);
        if ((t->flags & F_DENIED) || (s->degraded && (t->flags & F_OUTSIDE)))
            finding(s, "produced", path, DT_DIR);
        walk(s, path, len, t->flags, FRESH, st.st_dev);
    }
    /* Records are in walk order: a directory, then its files. Directories
     * found by FRESH walks are not recorded, so the loop bound is fixed. */
    const size_t n = s->st.n;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s->st.v[j].kind == REC_FILE)
            j++;
        compare_dir(s, i, j, path);
        i = j;
    }
    if (s->st.failed)
        pd_findings_add(found, "", "the post-run scan ran out of memory; its result is incomplete");
    /* Modes back, innermost first. */
    while (s->ngrants > 0)
        pd_scan_ungrant(&s->grants[--s->ngrants]);
}

size_t pd_scan_ndirs(const struct pd_scan *s)
{
    return s->st.n - s->nfiles;
}

size_t pd_scan_nfiles(const struct pd_scan *s)
{
    return s->nfiles;
}

size_t pd_scan_each_denied_file(const struct pd_scan *s, void (*fn)(const char *path, void *user),
                                void *user)
{
    size_t n = 0;
    for (size_t k = 0; k < s->st.n; k++) {
        const struct rec *r = &s->st.v[k];
        if (r->kind == REC_FILE && (r->flags & F_DENIED) && S_ISREG(r->mode)) {
            fn(pd_store_path(&s->st, k), user);
            n++;
        }
    }
    return n;
}

size_t pd_scan_each_denied_top(const struct pd_scan *s, void (*fn)(const char *path, void *user),
                               void *user)
{
    size_t n = 0;
    for (size_t k = 0; k < s->st.n; k++) {
        const struct rec *r = &s->st.v[k];
        if (!(r->flags & F_DENIED))
            continue;
        const char *path = pd_store_path(&s->st, k);
        const char *slash = strrchr(path, '/');
        long parent =
            slash && slash != path ? pd_store_find(&s->st, path, (size_t)(slash - path)) : -1;
        if (parent >= 0 && (s->st.v[parent].flags & F_DENIED))
            continue;
        fn(path, user);
        n++;
    }
    return n;
}

void pd_scan_free(struct pd_scan *s)
{
    if (!s)
        return;
    while (s->ngrants > 0)
        pd_scan_ungrant(&s->grants[--s->ngrants]);
    free(s->grants);
    for (size_t k = 0; k < s->nproduced; k++)
        free(s->produced[k]);
    free(s->produced);
    pd_store_free(&s->st);
    pd_names_free(&s->names);
    /* the watches stay for the next run of the workspace (scan_watch_keep.c) */
    char kept[PD_PATH_MAX];
    if (s->watch && pd_scan_reuse_sibling(s->reuse, ".watch", kept, sizeof kept))
        pd_watch_keep(s->watch, pd_scan_reuse_basefd(s->reuse), kept);
    pd_watch_free(s->watch);
    free(s);
}
