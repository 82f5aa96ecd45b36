/* preload/channel.c - records to the launcher, lines on stderr, the debug
 * trace. Everything here is written for any context a wrapper may run in:
 * no stdio, no allocation, no locks, only system calls on the stack's
 * buffers. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/channel.h"
#include "preload/state.h"

#define SEND_TIMEOUT_SEC 2 /* a launcher that does not read must not hang us */
#define LINE_MAX_BYTES   4096
/* The channel's descriptor is moved at or above this number, out of the
 * way of shells and programs that use small numbers by name (exec 3>f). */
#define CHANNEL_FD_MIN 100

/* The report socket of this process image, opened when the library loads
 * (pd_channel_open): a program that has used up its descriptors by the
 * time it is refused must still be reported. Written once, before main
 * and before any thread, and read-only afterwards. A fork child shares it
 * (every send names its destination, so a shared datagram socket is
 * safe); exec closes it (the next image opens its own). */
static int chan_fd = -1;
static dev_t chan_dev;
static ino_t chan_ino;

struct line {
    char buf[LINE_MAX_BYTES];
    size_t n;
};

static void add(struct line *l, const char *s)
{
    for (; s && *s && l->n + 1 < sizeof l->buf; s++)
        l->buf[l->n++] = *s;
}

static void add_long(struct line *l, long v)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%ld", v);
    add(l, tmp);
}

static void flush(struct line *l)
{
    l->buf[l->n++] = '\n';
    size_t off = 0;
    while (off < l->n) {
        ssize_t w = write(STDERR_FILENO, l->buf + off, l->n - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
}

void pd_say(const char *first, ...)
{
    struct line l = {.n = 0};
    va_list ap;
    va_start(ap, first);
    for (const char *s = first; s; s = va_arg(ap, const char *))
        add(&l, s);
    va_end(ap);
    flush(&l);
}

void pd_trace(const char *op, const char *path, const char *what, const char *reason,
              const char *pattern)
{
    struct line l = {.n = 0};
    add(&l, "paldron-preload[");
    add_long(&l, (long)getpid());
    add(&l, "]: ");
    add(&l, pd_program());
    add(&l, " ");
    add(&l, op);
    add(&l, " ");
    add(&l, path);
    add(&l, " -> ");
    add(&l, what);
    if (reason) {
        add(&l, " (");
        add(&l, reason);
        if (pattern && pattern[0]) {
            add(&l, " ");
            add(&l, pattern);
        }
        add(&l, ")");
    }
    flush(&l);
}

static int new_socket(void)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = SEND_TIMEOUT_SEC, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return fd;
}

void pd_channel_open(void)
{
    struct stat st;
    int fd = new_socket();
    if (fd < 0)
        return; /* send_record tries again, then falls back to stderr */
    int high = fcntl(fd, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    chan_dev = st.st_dev;
    chan_ino = st.st_ino;
    chan_fd = fd;
}

/* The program may have closed the channel, or put another file at its
 * number (dup2, or a new open that reused it): sending there would write
 * into the program's own file or connection. */
static bool channel_intact(void)
{
    struct stat st;
    return chan_fd >= 0 && fstat(chan_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
           st.st_dev == chan_dev && st.st_ino == chan_ino;
}

static bool send_record(const char *sock_path, const char *buf, size_t n)
{
    /* the channel, or else a socket for this record only */
    bool own = !channel_intact();
    int fd = own ? new_socket() : chan_fd;
    if (fd < 0)
        return false;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, sock_path, strlen(sock_path));
    /* the raw call: never our own sendto wrapper, nor another preload's */
    long w = syscall(SYS_sendto, fd, buf, n, 0, (struct sockaddr *)&addr, (socklen_t)sizeof addr);
    if (own)
        close(fd);
    return w == (long)n;
}

static void print_event(const struct pd_event *ev)
{
    struct line l = {.n = 0};
    bool coverage = strcmp(ev->kind, PD_REPORT_COVERAGE) == 0;
    add(&l, "paldron: ");
    add(&l, coverage ? "unmonitored" : ev->kind);
    add(&l, ": ");
    add(&l, pd_program());
    add(&l, " ");
    add(&l, ev->op);
    add(&l, " ");
    add(&l, ev->path);
    add(&l, " (");
    add(&l, ev->reason);
    if (ev->pattern && ev->pattern[0]) {
        add(&l, " ");
        add(&l, ev->pattern);
    }
    add(&l, coverage ? ") [kernel layers only]" : ") [live]");
    flush(&l);
}

void pd_emit(const struct pd_state *s, const struct pd_event *ev, bool print_fallback)
{
    struct pd_report r = {
        .kind = ev->kind,
        .op = ev->op,
        .path = ev->path,
        .resolved = ev->resolved,
        .key = ev->key,
        .pattern = ev->pattern,
        .reason = ev->reason,
        .pid = (long)getpid(),
        .program = pd_program(),
        .argc = pd_prog_argc() > 0 ? (size_t)pd_prog_argc() : 0,
        .argv = (const char *const *)pd_prog_argv(),
    };
    char buf[PD_REPORT_MAX];
    size_t n = pd_report_encode(&r, buf, sizeof buf);
    bool sent = n > 0 && s->sock_path[0] && send_record(s->sock_path, buf, n);
    if (!sent && print_fallback)
        print_event(ev);
}
