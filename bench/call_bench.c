/* bench/call_bench.c - the loop of one gated call, for the per-call cost
 * of the live gate under `paldron exec` (bench/run): built dynamic
 * (call_bench: the preload gates every call) and static
 * (call_bench_static: the same calls under the same kernel layers, no
 * preload). Prints nanoseconds per iteration (the median of five rounds).
 *
 *   call_bench open|write ITERATIONS PATH
 *       open:  open(PATH, O_RDONLY) + close
 *       write: open(PATH, O_WRONLY) + close (an existing file: a write
 *              judged, nothing written) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "open") != 0 && strcmp(argv[1], "write") != 0)) {
        fprintf(stderr, "usage: call_bench open|write ITERATIONS PATH\n");
        return 2;
    }
    int flags = strcmp(argv[1], "open") == 0 ? O_RDONLY : O_WRONLY;
    long n = strtol(argv[2], NULL, 10);
    const char *path = argv[3];
    double round[5];
    for (int r = -1; r < 5; r++) { /* round -1 warms up */
        double t0 = now_ns();
        for (long k = 0; k < n; k++) {
            int fd = open(path, flags | O_CLOEXEC);
            if (fd < 0) {
                perror(path);
                return 1;
            }
            close(fd);
        }
        if (r >= 0)
            round[r] = (now_ns() - t0) / (double)n;
    }
    qsort(round, 5, sizeof round[0], cmp);
    printf("%.1f\n", round[2]);
    return 0;
}
