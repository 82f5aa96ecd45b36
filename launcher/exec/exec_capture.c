/* launcher/exec/exec_capture.c - one captured stream of `paldron exec`: at most
 * PD_CAPTURE_MAX bytes kept, the first PD_CAPTURE_HEAD of them and then the
 * most recent ones. A long build's start says what ran; its end holds the
 * errors it stopped on and the test summary, so the end gets the larger
 * share. The bytes between are counted, never kept; the cut falls between
 * two lines when one ends near it. What is captured has
 * already been through the output scan (exec_flow.c): a secret that straddles
 * a cut was redacted whole before the cut was made, so a cut can only split a
 * "[REDACTED:...]" tag, never a secret. */
#include <stdlib.h>
#include <string.h>

#include "launcher/exec/exec.h"

#define TAIL_MAX (PD_CAPTURE_MAX - PD_CAPTURE_HEAD)

/* Grow buf to hold need bytes (at most max); false when memory ran out. */
static bool grow(char **buf, size_t *cap, size_t need, size_t max)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 65536;
    while (n < need)
        n *= 2;
    if (n > max)
        n = max;
    char *nb = realloc(*buf, n);
    if (!nb)
        return false;
    *buf = nb;
    *cap = n;
    return true;
}

static void lose(struct pd_capture *c, size_t n)
{
    c->lost = true;
    c->dropped += n;
}

void pd_capture_add(struct pd_capture *c, const void *bytes, size_t n)
{
    const char *b = bytes;
    if (c->closed) {
        lose(c, n);
        return;
    }
    /* the head first */
    if (c->len < PD_CAPTURE_HEAD) {
        size_t take = PD_CAPTURE_HEAD - c->len;
        if (take > n)
            take = n;
        if (!grow(&c->buf, &c->cap, c->len + take, PD_CAPTURE_HEAD)) {
            lose(c, n);
            return;
        }
        memcpy(c->buf + c->len, b, take);
        c->len += take;
        b += take;
        n -= take;
    }
    if (n == 0)
        return;
    /* then the tail: only its last TAIL_MAX bytes can survive */
    if (n > TAIL_MAX) {
        c->dropped += c->ring_len + (n - TAIL_MAX);
        c->ring_len = c->ring_at = 0;
        b += n - TAIL_MAX;
        n = TAIL_MAX;
    }
    if (c->ring_len < TAIL_MAX) { /* filling: appended in order */
        size_t take = TAIL_MAX - c->ring_len;
        if (take > n)
            take = n;
        if (!grow(&c->ring, &c->ring_cap, c->ring_len + take, TAIL_MAX)) {
            lose(c, n);
            return;
        }
        memcpy(c->ring + c->ring_len, b, take);
        c->ring_len += take;
        b += take;
        n -= take;
    }
    /* full: the oldest bytes are overwritten (ring_at is the oldest) */
    while (n > 0) {
        size_t take = TAIL_MAX - c->ring_at;
        if (take > n)
            take = n;
        memcpy(c->ring + c->ring_at, b, take);
        c->ring_at = (c->ring_at + take) % TAIL_MAX;
        c->dropped += take;
        b += take;
        n -= take;
    }
}

/* Where a cut of text [0, n) at `at` falls on a line boundary: the head
 * ends after its last newline and the tail starts after its first, when one
 * is near (a partial line is noise; a long line is cut where it is). */
#define LINE_SLACK 4096

static size_t head_end(const char *b, size_t n)
{
    for (size_t k = n; k > 0 && n - k < LINE_SLACK; k--)
        if (b[k - 1] == '\n')
            return k;
    return n;
}

static size_t tail_start(const char *b, size_t n)
{
    for (size_t k = 0; k < n && k < LINE_SLACK; k++)
        if (b[k] == '\n')
            return k + 1;
    return 0;
}

void pd_capture_close(struct pd_capture *c)
{
    if (c->closed)
        return;
    c->closed = true;
    c->cut = c->len;
    if (c->ring_len == 0)
        goto done;
    if (!grow(&c->buf, &c->cap, c->len + c->ring_len, c->len + c->ring_len)) {
        lose(c, c->ring_len); /* the head alone is still right */
        goto done;
    }
    /* oldest first: [ring_at, ring_len) then [0, ring_at) */
    memcpy(c->buf + c->len, c->ring + c->ring_at, c->ring_len - c->ring_at);
    memcpy(c->buf + c->len + (c->ring_len - c->ring_at), c->ring, c->ring_at);
    c->len += c->ring_len;
    if (c->dropped) {
        /* whole lines on both sides of the cut; what goes is counted */
        size_t h = head_end(c->buf, c->cut);
        size_t t = c->cut + tail_start(c->buf + c->cut, c->len - c->cut);
        memmove(c->buf + h, c->buf + t, c->len - t);
        c->dropped += (c->cut - h) + (t - c->cut);
        c->len -= (c->cut - h) + (t - c->cut);
        c->cut = h;
    }
done:
    if (c->dropped == 0)
        c->cut = c->len; /* nothing between: one piece */
    free(c->ring);
    c->ring = NULL;
    c->ring_len = c->ring_at = c->ring_cap = 0;
}

void pd_capture_free(struct pd_capture *c)
{
    free(c->buf);
    free(c->ring);
    memset(c, 0, sizeof *c);
}
