/* launcher/exec/exec_flow.c - each output stream of `paldron exec` on its way
 * out. What the command writes goes through the output scan in stream mode
 * (launcher/outscan/outscan.h: released, redacted, as soon as no secret can still
 * cover it) and then into the capture (head and tail, exec_capture.c) and,
 * with --stream, to paldron's own stdout or stderr at once. So the capture
 * holds only redacted text, cut wherever it must be cut, and every byte the
 * command wrote was scanned, also the ones the capture drops.
 *
 * --stream writes with the run's deadline in mind: paldron's stdout may be a
 * pipe whose reader stalls, and a blocked write must not keep the launcher
 * from ending the run in time. When the reader went away (EPIPE) or stalled
 * past the deadline, that stream stops going out (the capture and the scan go
 * on) and the supervisor ends the run (exec_supervise.c). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/exec/exec_output.h"
#include "launcher/outscan/outscan.h"

/* Written in pieces of at most this: a pipe that polled writable takes one
 * without blocking. */
#define WRITE_PIECE 4096

static void write_out(struct pd_exec_flow *f, const char *b, size_t n)
{
    while (n > 0 && !f->gone) {
        long long left = f->give_up - pd_now_ms();
        struct pollfd pf = {.fd = f->fd, .events = POLLOUT};
        int r = left <= 0 ? 0 : poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            f->gone = true;
            f->gone_errno = ETIMEDOUT;
            return;
        }
        ssize_t w = write(f->fd, b, n < WRITE_PIECE ? n : WRITE_PIECE);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w <= 0) {
            f->gone = true;
            f->gone_errno = w < 0 ? errno : EIO;
            return;
        }
        f->wrote_any = true;
        f->last = b[w - 1];
        b += w;
        n -= (size_t)w;
    }
}

/* The output scan's emit: released bytes, redacted. */
static void release(void *arg, const void *bytes, size_t n)
{
    struct pd_exec_flow *f = arg;
    pd_capture_add(f->cap, bytes, n);
    if (f->fd >= 0)
        write_out(f, bytes, n);
}

int pd_exec_flow_open(struct pd_exec_plan *p, struct pd_exec_outcome *o, long long give_up)
{
    for (int k = 0; k < 2; k++) {
        struct pd_exec_flow *f = &o->flow[k];
        *f = (struct pd_exec_flow){.cap = k == 0 ? &o->out : &o->err,
                                   .fd = p->stream ? k + 1 : -1,
                                   .give_up = give_up,
                                   .base = p->outscan,
                                   .later = &p->outscan_later};
    }
    return 0;
}

/* The stream scan, made on the first byte with every known value loaded:
 * a run that prints nothing does not pay for it. -1: out of memory. */
static int scan_ready(struct pd_exec_flow *f)
{
    if (f->scan || !f->base)
        return 0;
    if (pd_exec_known_later_load(f->later) != 0 || !(f->scan = pd_outscan_stream_new(f->base)))
        return -1;
    return 0;
}

void pd_exec_flow_feed(struct pd_exec_outcome *o, int k, const void *buf, size_t n)
{
    struct pd_exec_flow *f = &o->flow[k];
    if (f->ended || o->scan_failed)
        return; /* after a failed scan nothing more is released */
    if (scan_ready(f) != 0) {
        o->scan_failed = true; /* withheld: the scan could not run */
        return;
    }
    if (!f->scan) {
        release(f, buf, n);
        return;
    }
    if (pd_outscan_stream_feed(f->scan, buf, n, release, f) != 0)
        o->scan_failed = true;
}

void pd_exec_flow_end(struct pd_exec_outcome *o, int k)
{
    struct pd_exec_flow *f = &o->flow[k];
    if (f->ended)
        return;
    f->ended = true;
    if (f->scan && !o->scan_failed && pd_outscan_stream_finish(f->scan, release, f) != 0)
        o->scan_failed = true;
    pd_capture_close(f->cap);
}
