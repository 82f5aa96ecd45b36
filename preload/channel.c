/* preload/channel.c - records to the launcher, lines on stderr, the debug
 * trace. Everything here is written for any context a wrapper may run in:
 * no stdio, no allocation, no locks, only system calls on the stack's
 * buffers. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* The report socket of this process image, opened for its first record
 * and kept for the rest (never a socket per record). Not at load time: a
 * process that is never refused must have exactly the descriptors it has
 * bare (a child started with close_fds lists its fds). A program that has
 * used up its descriptors before its first refusal cannot open it; its
 * call is still refused and the fallback line on stderr is counted by the
 * launcher as the denial (launcher/exec/live.c).
 *
 * Descriptor + 1 in the low half, the socket's inode number in the high
 * half (sockfs numbers are 32-bit, get_next_ino), one word so that racing
 * threads and signal handlers never see one without the other; 0 is "none
 * yet". A fork child inherits it with the socket (every send names its
 * destination, so a shared datagram socket is safe); exec closes the
 * socket and the next image starts at 0. A vfork or posix_spawn child
 * shares the word but not the descriptor table: channel_intact sees that. */
static _Atomic uint64_t chan_word;

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

static int word_fd(uint64_t w)
{
    return (int)(w & 0xffffffffu) - 1;
}

/* The program may have closed the channel, or put another file at its
 * number (dup2, or a new open that reused it): sending there would write
 * into the program's own file or connection. */
static bool channel_intact(uint64_t w)
{
    struct stat st;
    return w != 0 && fstat(word_fd(w), &st) == 0 && S_ISSOCK(st.st_mode) &&
           (uint32_t)st.st_ino == (uint32_t)(w >> 32);
}

/* A new channel, moved to a high number; 0 when no descriptor is left. */
static uint64_t open_channel(void)
{
    struct stat st;
    int fd = new_socket();
    if (fd < 0)
        return 0;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        return 0;
    }
    return (uint64_t)(uint32_t)st.st_ino << 32 | (uint64_t)(uint32_t)(fd + 1);
}

/* The channel's descriptor, opened now if there is none (or the program
 * took it); -1 when none can be had. */
static int channel(void)
{
    uint64_t w = atomic_load(&chan_word);
    if (channel_intact(w))
        return word_fd(w);
    uint64_t mine = open_channel();
    if (!mine)
        return -1;
    /* A number the program took over is not ours to close: just forget it. */
    if (atomic_compare_exchange_strong(&chan_word, &w, mine))
        return word_fd(mine);
    /* another thread (or a signal handler) opened one meanwhile: use that */
    close(word_fd(mine));
    return channel_intact(w) ? word_fd(w) : -1;
}

static bool send_record(const char *sock_path, const char *buf, size_t n)
{
    int fd = channel();
    if (fd < 0)
        return false;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, sock_path, strlen(sock_path));
    /* the raw call: never our own sendto wrapper, nor another preload's */
    long w = syscall(SYS_sendto, fd, buf, n, 0, (struct sockaddr *)&addr, (socklen_t)sizeof addr);
    return w == (long)n;
}

/* A program the live gate cannot see runs on the kernel layers - where
 * there are some: only an isolated exec run has them (its temp home is
 * set then); under `paldron env` or a degraded run nothing else gates it. */
static void print_event(const struct pd_state *s, const struct pd_event *ev)
{
    bool layers = s && s->img && pd_image_str(s->img, s->img->temp_home)[0];
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
    add(&l, !coverage ? ") [live]"
            : layers  ? ") [kernel layers only]"
                      : ") [not gated: no kernel layers in this mode]");
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
    char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
    bool sent =
        n > 0 && pd_run_file(PD_REPORT_SOCK, sock, sizeof sock) && send_record(sock, buf, n);
    if (!sent && print_fallback)
        print_event(s, ev);
}
