/* launcher/init/init_files.c - reading the settings files and writing them back
 * without ever leaving half a file: the new text goes to a temporary file
 * beside the old one, which is renamed over it (a client reading the file
 * at that moment sees the old or the new one, whole). A settings file that
 * is a link (dotfile managers link ~/.claude/settings.json into a git
 * repository) is written where the link leads, so the link stays. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/init/init.h"

#define MAX_FILE (16u << 20)

char *pd_file_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_FILE) {
        close(fd);
        errno = S_ISREG(st.st_mode) ? EFBIG : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap > MAX_FILE) {
                free(buf);
                close(fd);
                errno = EFBIG;
                return NULL;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            errno = e;
            return NULL;
        }
        if (r == 0) {
            buf[n] = '\0';
            *len = n;
            close(fd);
            return buf;
        }
        n += (size_t)r;
    }
    free(buf);
    close(fd);
    errno = ENOMEM;
    return NULL;
}

/* Create the folders of path's parent that are missing (mode dir_mode). */
static int make_parents(const char *path, unsigned dir_mode, char *why, size_t whylen)
{
    char dir[PD_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, (mode_t)dir_mode) != 0 && errno != EEXIST) {
            snprintf(why, whylen, "cannot create the folder %s: %s", dir, strerror(errno));
            return -1;
        }
        *p = c;
        if (!c)
            return 0;
    }
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

int pd_file_write(const char *path, const char *text, unsigned mode, unsigned dir_mode, char *why,
                  size_t whylen)
{
    char target[PATH_MAX];
    struct stat st;
    bool exists = false;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, target) || stat(target, &st) != 0) {
            snprintf(why, whylen, "%s is a link to a missing file", path);
            return -1;
        }
        exists = true;
    } else {
        snprintf(target, sizeof target, "%s", path);
        exists = lstat(path, &st) == 0;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s is not a regular file", target);
        return -1;
    }
    if (!exists && make_parents(target, dir_mode, why, whylen) != 0)
        return -1;
    char tmp[PATH_MAX + 32];
    const char *base = strrchr(target, '/');
    snprintf(tmp, sizeof tmp, "%.*s.%s.paldron-XXXXXX", base ? (int)(base - target + 1) : 0, target,
             base ? base + 1 : target);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "cannot write beside %s: %s", target, strerror(errno));
        return -1;
    }
    mode_t m = exists ? st.st_mode & 07777 : (mode_t)mode;
    int rc =
        write_all(fd, text, strlen(text)) == 0 && fchmod(fd, m) == 0 && fsync(fd) == 0 ? 0 : -1;
    int e = errno;
    if (rc == 0 && exists && geteuid() == 0 && (st.st_uid != 0 || st.st_gid != 0))
        (void)!fchown(fd, st.st_uid, st.st_gid); /* root editing a user's file: still theirs */
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, target) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        snprintf(why, whylen, "cannot write %s: %s", target, strerror(e));
    }
    return rc;
}
