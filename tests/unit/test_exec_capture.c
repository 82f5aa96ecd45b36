/* tests/unit/test_exec_capture.c - one captured stream (launcher/exec/exec_capture.c):
 * the first PD_CAPTURE_HEAD bytes and the last ones up to PD_CAPTURE_MAX, cut
 * between lines when a newline is near, with the exact count of what was
 * dropped, whatever the sizes of the pieces that came. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/exec/exec.h"

/* n bytes of numbered lines ("%07zu\n": 8 bytes each), or of 'x' with lines=false. */
static char *make(size_t n, bool lines)
{
    char *t = malloc(n + 16);
    cr_assert_not_null(t);
    for (size_t k = 0; k < n; k += 8) {
        /* seven digits of the line number, then a newline */
        size_t v = k / 8;
        for (int d = 6; d >= 0; d--, v /= 10)
            t[k + (size_t)d] = lines ? (char)('0' + v % 10) : 'x';
        t[k + 7] = lines ? '\n' : 'x';
    }
    return t;
}

/* Feed t[0..n) in pieces of the sizes in steps[] (cycled), then close. */
static void feed(struct pd_capture *c, const char *t, size_t n, const size_t *steps, size_t nsteps)
{
    size_t at = 0;
    for (size_t k = 0; at < n; k++) {
        size_t step = steps[k % nsteps];
        if (step > n - at)
            step = n - at;
        pd_capture_add(c, t + at, step);
        at += step;
    }
    pd_capture_close(c);
}

static void expect_cut(const struct pd_capture *c, const char *t, size_t n)
{
    cr_assert_gt(c->dropped, 0);
    cr_assert_leq(c->cut, (size_t)PD_CAPTURE_HEAD);
    cr_assert_leq(c->len - c->cut, (size_t)(PD_CAPTURE_MAX - PD_CAPTURE_HEAD));
    /* head: the start; tail: the end; the count: exactly what is not shown */
    cr_assert(memcmp(c->buf, t, c->cut) == 0);
    cr_assert(memcmp(c->buf + c->cut, t + n - (c->len - c->cut), c->len - c->cut) == 0);
    cr_assert_eq(c->len + c->dropped, n, "kept %zu + dropped %llu != %zu", c->len, c->dropped, n);
}

Test(exec_capture, numbered_lines_in_odd_pieces)
{
    const size_t n = 3u << 20;
    char *t = make(n, true);
    const size_t steps[][3] = {
        {65536, 65536, 65536}, {1, 7, 4093}, {999999, 3, 1 << 20}, {n, n, n}};
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        struct pd_capture c = {0};
        feed(&c, t, n, steps[s], 3);
        expect_cut(&c, t, n);
        /* whole lines on both sides */
        cr_assert_eq(c.buf[c.cut - 1], '\n');
        cr_assert_eq((n - (c.len - c.cut)) % 8, 0, "the tail starts a line");
        cr_assert_gt(c.cut + 4096, (size_t)PD_CAPTURE_HEAD);
        pd_capture_free(&c);
    }
    free(t);
}

Test(exec_capture, one_long_line_is_cut_where_it_is)
{
    const size_t n = 2000000;
    char *t = make(n, false);
    const size_t steps[] = {65536};
    struct pd_capture c = {0};
    feed(&c, t, n, steps, 1);
    expect_cut(&c, t, n);
    cr_assert_eq(c.cut, (size_t)PD_CAPTURE_HEAD);
    cr_assert_eq(c.len, (size_t)PD_CAPTURE_MAX);
    cr_assert_eq(c.dropped, n - PD_CAPTURE_MAX);
    pd_capture_free(&c);
    free(t);
}

Test(exec_capture, at_or_under_the_cap_nothing_is_dropped)
{
    const size_t sizes[] = {0, 1, PD_CAPTURE_HEAD, PD_CAPTURE_HEAD + 1, PD_CAPTURE_MAX};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        char *t = make(sizes[s], true);
        const size_t steps[] = {4096, 13};
        struct pd_capture c = {0};
        feed(&c, t, sizes[s], steps, 2);
        cr_assert_eq(c.dropped, 0);
        cr_assert_eq(c.len, sizes[s]);
        cr_assert_eq(c.cut, c.len);
        cr_assert(sizes[s] == 0 || memcmp(c.buf, t, sizes[s]) == 0);
        pd_capture_free(&c);
        free(t);
    }
}
