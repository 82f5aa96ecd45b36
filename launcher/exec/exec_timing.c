/* launcher/exec/exec_timing.c - where a run's time goes, for the performance
 * notes (docs/performance.md): with PALDRON_DEBUG=timing, `paldron exec`
 * prints one line before it exits with the time of each phase of
 * exec_run.c since the previous mark, in microseconds, from main on (the
 * loader's share before main is measured apart: bench/run compares
 * `paldron version` with `true`). Off, a mark costs one branch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "launcher/exec/exec.h"

#define MARKS_MAX 32

static struct {
    int on; /* -1: not asked yet */
    size_t n;
    const char *name[MARKS_MAX];
    struct timespec at[MARKS_MAX];
} timing = {.on = -1};

static long long us_between(const struct timespec *a, const struct timespec *b)
{
    return (b->tv_sec - a->tv_sec) * 1000000LL + (b->tv_nsec - a->tv_nsec) / 1000;
}

void pd_timing_mark(const char *phase)
{
    if (timing.on < 0) {
        const char *d = getenv("PALDRON_DEBUG");
        timing.on = d && strcmp(d, "timing") == 0;
    }
    if (!timing.on || timing.n == MARKS_MAX)
        return;
    timing.name[timing.n] = phase;
    clock_gettime(CLOCK_MONOTONIC, &timing.at[timing.n++]);
}

void pd_timing_print(FILE *out)
{
    if (timing.on <= 0 || timing.n < 2)
        return;
    char line[1024];
    size_t len = (size_t)snprintf(line, sizeof line, "paldron: timing (us):");
    for (size_t k = 1; k < timing.n && len < sizeof line; k++)
        len += (size_t)snprintf(line + len, sizeof line - len, " %s %lld", timing.name[k],
                                us_between(&timing.at[k - 1], &timing.at[k]));
    if (len < sizeof line)
        snprintf(line + len, sizeof line - len, " total %lld",
                 us_between(&timing.at[0], &timing.at[timing.n - 1]));
    fprintf(out, "%s\n", line);
}
