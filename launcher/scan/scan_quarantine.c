/* launcher/scan/scan_quarantine.c - the denied entries a run left in place,
 * moved out of the way after the verdict (pd_scan_quarantine, scan.h).
 *
 * The live gate refuses these writes to every dynamic program, and the
 * namespace floor makes the protected files that exist read-only to every
 * program. A name that did not exist yet - .git/commondir, a new hook,
 * .git/config.worktree, an .env - can still be created by a static binary
 * or a raw system call: the post-run scan finds it and denies the run. Left
 * where it is, it would outlive the denial (the user's next `git status`
 * reads the commondir the run planted). Moving it away makes the end state
 * the one the live gate would have left. Moved, not deleted: the user can
 * look at what was tried.
 *
 * The run is over but a process it left behind may still race: every
 * parent is opened without following a link (pd_scan_open_nofollow:
 * the recorded paths are physical) and the entry is moved with renameat
 * from that descriptor, so a link swapped in on the way moves nothing
 * else. Another file system (the cache elsewhere): a file or link is
 * copied and then removed. Moved are new files and links: not folders
 * (harmless by themselves; what they hold is judged entry by entry), not a
 * file the snapshot recorded (the user's own, renamed or linked here by the
 * run: its content is no plant). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/scan/scan_int.h"

void pd_scan_note_produced(struct pd_scan *s, const char *abs)
{
    if (s->nproduced == s->cproduced) {
        size_t cap = s->cproduced ? 2 * s->cproduced : 8;
        char **v = realloc(s->produced, cap * sizeof *v);
        if (!v) {
            s->st.failed = true;
            return;
        }
        s->produced = v;
        s->cproduced = cap;
    }
    char *copy = strdup(abs);
    if (!copy) {
        s->st.failed = true;
        return;
    }
    s->produced[s->nproduced++] = copy;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void subject_of(const struct pd_scan *s, const char *abs, char *out, size_t len)
{
    const char *rel = pd_path_under(abs, s->ctx->workspace);
    snprintf(out, len, "%s", rel ? (rel[0] ? rel : ".") : abs);
}

static int open_dir_nofollow(int dirfd, const char *path)
{
    return pd_scan_open_nofollow(dirfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* mkdir -p of rel's folders below the descriptor top (ours, 0700); the
 * descriptor of the last one, or -1. rel is changed and restored. */
static int make_dirs(int top, char *rel)
{
    int fd = dup(top);
    for (char *p = rel; fd >= 0;) {
        char *slash = strchr(p, '/');
        if (!slash)
            return fd;
        *slash = '\0';
        int next = -1;
        if (mkdirat(fd, p, 0700) == 0 || errno == EEXIST)
            next = open_dir_nofollow(fd, p);
        *slash = '/';
        close(fd);
        fd = next;
        p = slash + 1;
    }
    return -1;
}

/* Copy the file or link name of dirfd to dst of dstfd (another file
 * system), then remove it. 0, or -1 with errno. */
static int copy_across(int dirfd, const char *name, const struct stat *st, int dstfd,
                       const char *dst)
{
    if (S_ISLNK(st->st_mode)) {
        char target[PD_PATH_MAX];
        ssize_t n = readlinkat(dirfd, name, target, sizeof target - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        if (symlinkat(target, dstfd, dst) != 0)
            return -1;
        return unlinkat(dirfd, name, 0);
    }
    if (!S_ISREG(st->st_mode)) {
        errno = EXDEV;
        return -1;
    }
    int in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int out = in < 0 ? -1 : openat(dstfd, dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int rc = in < 0 || out < 0 ? -1 : 0;
    char buf[1 << 16];
    for (ssize_t n; rc == 0 && (n = read(in, buf, sizeof buf)) != 0;) {
        if (n < 0 || write(out, buf, (size_t)n) != n)
            rc = -1;
    }
    int e = errno;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    if (rc == 0)
        return unlinkat(dirfd, name, 0);
    if (out >= 0)
        unlinkat(dstfd, dst, 0);
    errno = e;
    return -1;
}

/* Move abs to rel below the quarantine folder qfd. 0, or -1 with errno. */
static int move_one(const char *abs, int qfd, const char *rel)
{
    char parent[PD_PATH_MAX], dst[PD_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", abs);
    char *slash = strrchr(parent, '/');
    if (!slash || !slash[1]) {
        errno = EINVAL;
        return -1;
    }
    *slash = '\0';
    const char *name = slash + 1;
    int pfd = open_dir_nofollow(AT_FDCWD, parent[0] ? parent : "/");
    if (pfd < 0)
        return -1;
    snprintf(dst, sizeof dst, "%s", rel);
    int dfd = make_dirs(qfd, dst);
    const char *leaf = strrchr(dst, '/') ? strrchr(dst, '/') + 1 : dst;
    struct stat st;
    int rc = -1;
    if (dfd >= 0 && fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        rc = renameat(pfd, name, dfd, leaf);
        if (rc != 0 && errno == EXDEV)
            rc = copy_across(pfd, name, &st, dfd, leaf);
        /* a hook stays a file to look at, not a program to run */
        if (rc == 0 && S_ISREG(st.st_mode) &&
            fchmodat(dfd, leaf, st.st_mode & 0666 & ~(mode_t)022, 0) != 0)
            rc = 0; /* moved all the same; it lies in a 0700 folder */
    }
    int e = errno;
    if (dfd >= 0)
        close(dfd);
    close(pfd);
    errno = e;
    return rc;
}

/* The folder of this run's moves: <cache>/quarantine/<UTC time>-<pid>,
 * made 0700; its descriptor and path, or -1 with err. */
static int open_quarantine(const char *workspace, char *path, size_t len, char *err, size_t errlen)
{
    char cache[PD_PATH_MAX];
    if (pd_cache_prepare(workspace, cache, sizeof cache, err, errlen) != 0)
        return -1;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    if ((size_t)snprintf(path, len, "%s/quarantine/%s-%ld", cache, stamp, (long)getpid()) >= len) {
        snprintf(err, errlen, "%s/quarantine: path too long", cache);
        return -1;
    }
    int cfd = open_dir_nofollow(AT_FDCWD, cache);
    char rel[64];
    snprintf(rel, sizeof rel, "quarantine/%s-%ld/x", stamp, (long)getpid());
    int fd = cfd < 0 ? -1 : make_dirs(cfd, rel);
    int e = errno;
    if (cfd >= 0)
        close(cfd);
    if (fd < 0)
        snprintf(err, errlen, "%s: %s", path, strerror(e));
    return fd;
}

/* Say the move in the post-run finding of the entry (one line per entry:
 * the file scan's "run produced", or the git check's word on the same
 * file), or as a warning when there is none. */
static void say_moved(struct pd_findings *found, struct pd_findings *warn, const char *key,
                      const char *subject, const char *dst)
{
    for (size_t k = 0; k < found->n; k++) {
        struct pd_finding *f = &found->v[k];
        if (strcmp(f->path, subject) != 0 || strncmp(f->message, "run ", 4) != 0)
            continue;
        size_t n = strlen(f->message), add = strlen(dst) + 32;
        char *m = realloc(f->message, n + add);
        if (!m)
            break;
        snprintf(m + n, add, "; moved to %s", dst);
        f->message = m;
        return;
    }
    pd_findings_add(warn, key, "moved %s, which the run produced, out of the way to %s", subject,
                    dst);
}

/* Is st one of the entries the snapshot recorded (a denied file of the
 * user's that the run moved or linked here)? Its content is the user's:
 * it stays, and its finding says what happened to it. */
static bool recorded(const struct pd_scan *s, const struct stat *st)
{
    for (size_t k = 0; k < s->st.n; k++)
        if (s->st.v[k].ino == st->st_ino && s->st.v[k].dev == st->st_dev)
            return true;
    return false;
}

void pd_scan_quarantine(struct pd_scan *s, struct pd_findings *found, struct pd_findings *warn)
{
    if (!s || s->nproduced == 0)
        return;
    qsort(s->produced, s->nproduced, sizeof *s->produced, cmp_path);
    char qdir[PD_PATH_MAX] = "", err[PD_PATH_MAX + 64] = "", subject[PD_PATH_MAX];
    int qfd = -2; /* made on the first move */
    for (size_t k = 0; k < s->nproduced; k++) {
        const char *abs = s->produced[k];
        if (k > 0 && strcmp(abs, s->produced[k - 1]) == 0)
            continue;
        /* files and links: a folder is harmless by itself, and what it
         * holds has findings of its own */
        struct stat st;
        if (lstat(abs, &st) != 0 || S_ISDIR(st.st_mode) || recorded(s, &st))
            continue;
        if (qfd == -2)
            qfd = open_quarantine(s->ctx->workspace, qdir, sizeof qdir, err, sizeof err);
        subject_of(s, abs, subject, sizeof subject);
        /* the key of the warning: not the scan's own one for the path */
        char key[PD_PATH_MAX + 16];
        snprintf(key, sizeof key, "%s\tquarantine", subject);
        const char *rel = pd_path_under(abs, s->ctx->workspace);
        char where[PD_PATH_MAX];
        /* outside the workspace: below "outside/", by its absolute path */
        snprintf(where, sizeof where, "%s%s", rel ? "" : "outside", rel ? rel : abs);
        if (qfd < 0) {
            pd_findings_add(warn, key,
                            "left %s, which the run produced, in place (no quarantine folder: "
                            "%s); remove it yourself",
                            subject, err);
        } else if (move_one(abs, qfd, where) == 0) {
            char dst[2 * PD_PATH_MAX + 2];
            snprintf(dst, sizeof dst, "%s/%s", qdir, where);
            say_moved(found, warn, key, subject, dst);
        } else if (errno != ENOENT) {
            pd_findings_add(warn, key,
                            "left %s, which the run produced, in place (%s); remove it yourself",
                            subject, strerror(errno));
        }
    }
    if (qfd >= 0)
        close(qfd);
}
