/* platform/linux/proc_stat.c - what /proc says of a process, for the
 * processes a launcher keeps after its run (the watch keeper,
 * launcher/scan/scan_watch_keep.c; the namespace stock, ns_stock.c): who
 * one is (its start time and name, so that a pid used again is never taken
 * for it), whether it is confined as the caller is, and the command line
 * it shows. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/linux/backend.h"

bool pd_stat_fields(const char *buf, size_t n, int first, int count, unsigned long long *out)
{
    size_t close_paren = n;
    for (size_t k = 0; k < n; k++)
        if (buf[k] == ')')
            close_paren = k; /* the last: the name itself may hold one */
    for (int k = 0; k < count; k++)
        out[k] = 0;
    /* fields from 3 on follow ") ", one space apart */
    int field = 2;
    for (size_t k = close_paren + 1; close_paren < n && k < n && field < first + count; k++) {
        if (buf[k] == ' ')
            field++;
        else if (field >= first && buf[k] >= '0' && buf[k] <= '9')
            out[field - first] = out[field - first] * 10 + (unsigned long long)(buf[k] - '0');
    }
    return close_paren < n && field >= first + count - 1;
}

static ssize_t read_proc(pid_t pid, const char *what, char *buf, size_t len)
{
    char path[64];
    if (pid > 0)
        snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
    else
        snprintf(path, sizeof path, "/proc/self/%s", what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

unsigned long long pd_proc_start(pid_t pid, bool *paldron)
{
    char buf[1024];
    *paldron = false;
    ssize_t n = read_proc(pid, "stat", buf, sizeof buf);
    if (n <= 0)
        return 0;
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren < open_paren)
        return 0;
    *paldron = close_paren - open_paren - 1 == 7 && strncmp(open_paren + 1, "paldron", 7) == 0;
    unsigned long long start;
    return pd_stat_fields(buf, (size_t)n, 22, 1, &start) ? start : 0;
}

/* The value of the line "<key>:\t<value>" of a status text, up to its end. */
static bool status_value(const char *status, const char *key, char *out, size_t len)
{
    const size_t klen = strlen(key);
    for (const char *l = status; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, key, klen) != 0 || l[klen] != ':')
            continue;
        const char *v = l + klen + 1;
        v += strspn(v, " \t");
        size_t n = strcspn(v, "\n");
        if (n >= len)
            return false;
        memcpy(out, v, n);
        out[n] = '\0';
        return true;
    }
    return false;
}

bool pd_proc_same_confinement(pid_t pid)
{
    static const char *const keys[] = {"NoNewPrivs", "Seccomp", "Seccomp_filters"};
    char mine[4096], theirs[4096];
    if (read_proc(0, "status", mine, sizeof mine) <= 0 ||
        read_proc(pid, "status", theirs, sizeof theirs) <= 0)
        return false;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char a[32], b[32];
        const bool has_a = status_value(mine, keys[k], a, sizeof a);
        const bool has_b = status_value(theirs, keys[k], b, sizeof b);
        /* a kernel without the line has it for neither */
        if (has_a != has_b || (has_a && strcmp(a, b) != 0))
            return false;
    }
    return true;
}

#if PD_RAW_SYSCALL
#define TITLE_SYSCALL3(n, a, b, c) pd_raw_syscall3(n, (long)(a), (long)(b), (long)(c))
#else
#define TITLE_SYSCALL3(n, a, b, c) syscall(n, a, b, c)
#endif

static void blank(unsigned long long from, unsigned long long to, const char *text)
{
    char *start = (char *)(uintptr_t)from;
    const unsigned long long len = to > from ? to - from : 0;
    size_t tlen = 0;
    while (text[tlen])
        tlen++;
    for (unsigned long long k = 0; k < len; k++)
        start[k] = k < tlen && k + 1 < len ? text[k] : '\0';
}

/* Its memory may be the launcher's (ns_stock.c): raw system calls and no
 * library function but the pure pd_stat_fields. */
void pd_proc_retitle(const char *title)
{
    char buf[2048] = {0}; /* read by a raw system call the analyzer cannot see into */
    long fd = TITLE_SYSCALL3(SYS_openat, AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    long n = TITLE_SYSCALL3(SYS_read, fd, buf, sizeof buf);
    TITLE_SYSCALL3(SYS_close, fd, 0, 0);
    unsigned long long v[4];
    /* the argument and environment areas: their starts and ends, fields 48
     * to 51 */
    if (n <= 0 || !pd_stat_fields(buf, (size_t)n, 48, 4, v))
        return;
    if (v[1] > v[0] + 1)
        blank(v[0], v[1], title);
    blank(v[2], v[3], "");
}
