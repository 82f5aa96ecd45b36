/* policy/path.c - the one path normaliser. Every decision judges the
 * physical path: "~" expanded, relative paths joined to their base, "." and
 * ".." resolved, and symlinks followed as far as the path exists, so that a
 * link src/link -> ../.env is judged as .env. A call that acts on a name
 * rather than on what it leads to (unlink, rename, mkdir, lchown...) is
 * judged on the name: its directory resolved, its last component kept. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

#define PD_MAX_LINKS 40

/* The length of path when it is clean already (no empty, "." or ".."
 * component, no trailing '/' but in "/" itself), or 0. One pass: the live
 * gate cleans a path on every call, and most are clean. */
static size_t clean_length(const char *path)
{
    const char *s = path + (path[0] == '/');
    if (!*s)
        return path[0] == '/' ? 1 : 0; /* "/", or "" (which is ".") */
    for (;;) {
        const char *c = s;
        while (*s && *s != '/')
            s++;
        size_t n = (size_t)(s - c);
        if (n == 0 || (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.'))))
            return 0;
        if (!*s)
            return (size_t)(s - path);
        s++;
        if (!*s)
            return 0; /* a trailing '/' */
    }
}

void pd_path_clean(const char *path, char *out, size_t outlen)
{
    size_t clean = clean_length(path);
    if (clean > 0 && clean < outlen) {
        memcpy(out, path, clean + 1);
        return;
    }
    size_t n = 0;
    bool abs = path[0] == '/';
    const char *s = path;
    if (outlen == 0)
        return;
    if (abs && n + 1 < outlen)
        out[n++] = '/';
    size_t root = n; /* ".." never climbs above this */
    while (*s) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 1 && s[0] == '.') {
            /* skip */
        } else if (len == 2 && s[0] == '.' && s[1] == '.') {
            /* drop the last component unless there is none, or it is ".." itself */
            size_t start = n;
            while (start > root && out[start - 1] != '/')
                start--;
            bool last_is_dotdot = n - start == 2 && out[start] == '.' && out[start + 1] == '.';
            if (n > root && !last_is_dotdot) {
                n = start > root ? start - 1 : root;
            } else if (!abs) {
                if (n > root && n + 1 < outlen)
                    out[n++] = '/';
                if (n + 2 < outlen) {
                    out[n++] = '.';
                    out[n++] = '.';
                }
            }
        } else {
            if (n > root && n + 1 < outlen)
                out[n++] = '/';
            for (size_t k = 0; k < len && n + 1 < outlen; k++)
                out[n++] = s[k];
        }
        s += len;
    }
    if (n == 0 && outlen > 1)
        out[n++] = '.';
    out[n] = '\0';
}

const char *pd_path_under(const char *abs, const char *dir)
{
    size_t len = strlen(dir);
    if (len == 1 && dir[0] == '/')
        return abs[0] == '/' ? abs + 1 : NULL;
    if (strncmp(abs, dir, len) != 0)
        return NULL;
    if (abs[len] == '\0')
        return abs + len;
    if (abs[len] == '/')
        return abs + len + 1;
    return NULL;
}

/* Remove the last component of an absolute path in place ("/" stays "/"). */
static void drop_last(char *res, size_t *n)
{
    while (*n > 1 && res[*n - 1] != '/')
        (*n)--;
    if (*n > 1)
        (*n)--;
    res[*n] = '\0';
}

int pd_path_normalize(const char *base, const char *home, const char *path, char *out,
                      size_t outlen)
{
    /* rest holds what is left to walk; it grows when a link is spliced in */
    char rest[2 * PD_PATH_MAX], res[PD_PATH_MAX], link[PD_PATH_MAX];
    size_t n = 1, rlen;
    int links = 0;
    bool exists = true;

    if (!path || !path[0]) {
        errno = EINVAL;
        return -1;
    }
    if (path[0] == '~' && (path[1] == '/' || path[1] == '\0') && home && home[0]) {
        rlen = (size_t)snprintf(rest, sizeof rest, "%s/%s", home, path + 1);
    } else if (path[0] == '/') {
        rlen = (size_t)snprintf(rest, sizeof rest, "%s", path);
    } else {
        if (!base || base[0] != '/') {
            errno = EINVAL;
            return -1;
        }
        rlen = (size_t)snprintf(rest, sizeof rest, "%s/%s", base, path);
    }
    if (rlen >= sizeof rest) {
        errno = ENAMETOOLONG;
        return -1;
    }
    res[0] = '/';
    res[1] = '\0';
    size_t pos = 0;
    while (pos < rlen) {
        while (pos < rlen && rest[pos] == '/')
            pos++;
        if (pos >= rlen)
            break;
        size_t start = pos;
        while (pos < rlen && rest[pos] != '/')
            pos++;
        size_t len = pos - start;
        if (len == 1 && rest[start] == '.')
            continue;
        if (len == 2 && rest[start] == '.' && rest[start + 1] == '.') {
            drop_last(res, &n);
            /* back in an existing directory after a missing one: a program
             * that cleans paths lexically (Python's normpath) goes on from
             * here, so links must be followed again */
            struct stat dst;
            if (!exists)
                exists = lstat(res, &dst) == 0;
            continue;
        }
        if (n + (n > 1) + len + 1 > sizeof res) {
            errno = ENAMETOOLONG;
            return -1;
        }
        size_t before = n;
        if (n > 1)
            res[n++] = '/';
        memcpy(res + n, rest + start, len);
        n += len;
        res[n] = '\0';
        if (!exists)
            continue;
        struct stat st;
        if (lstat(res, &st) != 0) {
            exists = false; /* ENOENT, ENOTDIR, EACCES: the rest is judged as written */
            continue;
        }
        if (!S_ISLNK(st.st_mode))
            continue;
        if (++links > PD_MAX_LINKS) {
            errno = ELOOP;
            return -1;
        }
        ssize_t ll = readlink(res, link, sizeof link - 1);
        if (ll < 0) {
            exists = false;
            continue;
        }
        link[ll] = '\0';
        /* splice: rest = link + "/" + remaining */
        size_t remain = rlen - pos;
        if ((size_t)ll + 1 + remain + 1 > sizeof rest) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memmove(rest + ll + 1, rest + pos, remain);
        memcpy(rest, link, (size_t)ll);
        rest[ll] = '/';
        rlen = (size_t)ll + 1 + remain;
        rest[rlen] = '\0';
        pos = 0;
        if (link[0] == '/') {
            n = 1;
            res[1] = '\0';
        } else {
            n = before;
            if (n == 0)
                n = 1;
            res[n] = '\0';
        }
    }
    if (n + 1 > outlen) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(out, res, n + 1);
    return 0;
}

int pd_path_normalize_name(const char *base, const char *home, const char *path, char *out,
                           size_t outlen)
{
    if (!path || !path[0]) {
        errno = EINVAL;
        return -1;
    }
    /* the last component, trailing slashes aside ("dir/" names dir) */
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t len = end - start;
    /* "/", "." and ".." name a directory through the walk itself: there is
     * no name of its own to keep, so the whole path is resolved */
    bool dots = (len == 1 && path[start] == '.') ||
                (len == 2 && path[start] == '.' && path[start + 1] == '.');
    if (len == 0 || dots)
        return pd_path_normalize(base, home, path, out, outlen);
    char dir[PD_PATH_MAX];
    if (start == 0) {
        dir[0] = '.';
        dir[1] = '\0';
    } else if (start < sizeof dir) {
        memcpy(dir, path, start);
        dir[start] = '\0';
    } else {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* the directory straight into out (the preload runs on thread stacks
     * that may be small), the name after it */
    if (pd_path_normalize(base, home, dir, out, outlen) != 0)
        return -1;
    size_t n = strlen(out);
    bool root = n == 1; /* "/": no separator to add */
    if (n + !root + len + 1 > outlen) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!root)
        out[n++] = '/';
    memcpy(out + n, path + start, len);
    out[n + len] = '\0';
    return 0;
}
