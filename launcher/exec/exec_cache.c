/* launcher/exec/exec_cache.c - the workspace's persistent cache folder. Every run
 * used to start with cold caches (the temp home is new each time); the
 * tools' caches (go, pip, npm, XDG) now live in one folder per workspace,
 * outside it, kept between runs:
 *   <$XDG_CACHE_HOME, or ~/.cache>/paldron/<name>-<hash>
 * where name is the workspace's last component (for the human who lists
 * the folder) and hash an FNV-1a 64 of its real path, device and inode (a
 * workspace moved or recreated at the same path gets a new folder). The
 * folder is a writable root of the run; docs/threat-model.md ("The cache
 * folder") says what a run can leave there for the next one. paldron/ and
 * the folder are made 0700 and opened without following links: the run
 * writes inside the folder, never beside it. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

__attribute__((format(printf, 3, 4))) static void say(char *err, size_t errlen, const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int pd_cache_base(char *out, size_t len, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    int n;
    if (xdg && xdg[0] == '/') { /* a relative one is to be ignored (XDG spec) */
        n = snprintf(out, len, "%s/paldron", xdg);
    } else {
        const char *home = getenv("HOME");
        if (!home || home[0] != '/') {
            // cppcheck-suppress getpwuidCalled ; no other thread of paldron calls getpw*
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home || home[0] != '/') {
            say(err, errlen, "no home directory to keep a cache in");
            return -1;
        }
        n = snprintf(out, len, "%s/.cache/paldron", home);
    }
    if (n < 0 || (size_t)n >= len) {
        say(err, errlen, "cache path too long");
        return -1;
    }
    return 0;
}

/* Open ~/.cache/paldron as pd_cache_prepare made it: a directory of the
 * user's, reached without following a link in its last component, that no
 * one else may write. -1 if it is not there (yet) or is not that. */
int pd_cache_base_open(const char *base)
{
    char parent[PD_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", base);
    char *slash = strrchr(parent, '/');
    if (!slash || slash == parent)
        return -1;
    *slash = '\0';
    int top = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return -1;
    int fd = openat(top, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(top);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++) {
        h ^= p[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int pd_cache_dir(const char *workspace, char *out, size_t len, char *err, size_t errlen)
{
    char real[PD_PATH_MAX], base[PD_PATH_MAX], name[33];
    struct stat st;
    if (!realpath(workspace, real) || stat(real, &st) != 0) {
        say(err, errlen, "%s: %s", workspace, strerror(errno));
        return -1;
    }
    if (pd_cache_base(base, sizeof base, err, errlen) != 0)
        return -1;
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, real, strlen(real) + 1);
    const uint64_t dev = (uint64_t)st.st_dev, ino = (uint64_t)st.st_ino;
    h = fnv1a(h, &dev, sizeof dev);
    h = fnv1a(h, &ino, sizeof ino);
    /* the last component, reduced to a safe name ("/" itself: "root") */
    const char *last = strrchr(real, '/');
    last = last && last[1] ? last + 1 : "root";
    size_t k = 0;
    for (; k < sizeof name - 1 && last[k]; k++) {
        char c = last[k];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        name[k] = ok && !(k == 0 && c == '.') ? c : '_';
    }
    name[k] = '\0';
    int n = snprintf(out, len, "%s/%s-%016llx", base, name, (unsigned long long)h);
    if (n < 0 || (size_t)n >= len) {
        say(err, errlen, "cache path too long");
        return -1;
    }
    return 0;
}

/* mkdir -p of a directory the user owns (the cache base's parents: made
 * 0700, as the XDG spec asks of $XDG_CACHE_HOME). */
static int make_parents(char *path)
{
    for (char *s = strchr(path + 1, '/');; s = strchr(s + 1, '/')) {
        if (s)
            *s = '\0';
        int rc = mkdir(path, 0700);
        if (s)
            *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
        if (!s)
            return 0;
    }
}

/* Create name in dirfd (0700) and open it without following a link; it
 * must be a directory of ours, and is made 0700 again if it was not. */
static int open_own_dir(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST)
        return -1;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        /* O_DIRECTORY on a link says ENOTDIR: name the link */
        if (errno == ENOTDIR && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            errno = ELOOP;
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int pd_cache_prepare(const char *workspace, char *out, size_t len, char *err, size_t errlen)
{
    if (pd_cache_dir(workspace, out, len, err, errlen) != 0)
        return -1;
    char parent[PD_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", out);
    char *id = strrchr(parent, '/');
    *id++ = '\0';
    char *paldron = strrchr(parent, '/');
    *paldron++ = '\0';
    int top = -1, mid = -1, leaf = -1;
    if (make_parents(parent) == 0 &&
        (top = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
        (mid = open_own_dir(top, paldron)) >= 0)
        leaf = open_own_dir(mid, id);
    int e = errno;
    if (top >= 0)
        close(top);
    if (mid >= 0)
        close(mid);
    if (leaf < 0) {
        say(err, errlen, "%s: %s", out, e == ELOOP ? "a symbolic link" : strerror(e));
        return -1;
    }
    close(leaf);
    return 0;
}

int pd_exec_cache_plan(struct pd_exec_plan *p, struct pd_ctx *ctx)
{
    char err[PD_MSG_MAX];
    p->cache[0] = '\0';
    if (!p->isolated)
        return 0; /* degraded mode keeps the real home and its caches */
    if (pd_cache_prepare(ctx->workspace, p->cache, sizeof p->cache, err, sizeof err) != 0) {
        pd_err("warning: no persistent cache (%s): the tools' caches start empty in the temp "
               "home",
               err);
        p->cache[0] = '\0';
        return 0;
    }
    return pd_ctx_add_root(ctx, p->cache);
}
