/* launcher/scan/scan_entries.c - the names of one directory as one buffer
 * ("<type byte><name>\0" after each other), read whole before a walk
 * descends; shared by the post-run scan (scan.c), the changed-file walk
 * (scan_changed.c) and the repository walk (scan_git.c). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/scan/scan_int.h"

int pd_entries_add(struct pd_entries *e, unsigned char type, const char *name, size_t nlen)
{
    if (e->len + nlen + 2 > e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 4096;
        while (cap < e->len + nlen + 2)
            cap *= 2;
        char *nb = realloc(e->buf, cap);
        if (!nb)
            return -1;
        e->buf = nb;
        e->cap = cap;
    }
    e->buf[e->len++] = (char)type;
    memcpy(e->buf + e->len, name, nlen + 1);
    e->len += nlen + 1;
    return 0;
}

/* Read every entry of fd (the descriptor stays open). getdents64 on the
 * descriptor itself: opendir would cost a dup and three more system calls
 * per directory. -1 with errno. */
int pd_read_entries(int fd, struct pd_entries *out)
{
    static _Alignas(struct dirent64) char buf[65536];
    for (;;) {
        ssize_t n = getdents64(fd, buf, sizeof buf);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (ssize_t off = 0; off < n;) {
            const struct dirent64 *de = (const struct dirent64 *)(const void *)(buf + off);
            off += de->d_reclen;
            const char *nm = de->d_name;
            if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
                continue;
            if (pd_entries_add(out, de->d_type, nm, strlen(nm)) < 0)
                return -1;
        }
    }
}
