/* bench/ratio.c - time two commands alternately and print the median ratio.
 *
 *   ratio [-n RUNS] [-w WARMUP] [-g GAP-MS] [-i STDIN-FILE] -- CMD-A ARGS... ::: CMD-B ARGS...
 *
 * Runs A and B one after the other RUNS times (after WARMUP untimed pairs),
 * each with stdin on /dev/null (or STDIN-FILE), stdout and stderr on /dev/null, and prints the
 * median wall time of each and the median of the per-pair ratios A/B. Alternating keeps slow drifts
 * of the machine from favouring either side. posix_spawn keeps the driver's own cost out of the
 * figures. With -g, the driver sleeps GAP-MS milliseconds before each command, untimed: what
 * a command leaves running in the background (paldron's kept processes) then does its work
 * in the pause, as between an agent's commands, instead of inside the other command's time. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static const char *stdin_file = "/dev/null";
static long gap_ms;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double run(char **argv, int *status)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, stdin_file, O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    if (gap_ms > 0) {
        const struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
        nanosleep(&gap, NULL);
    }
    double t0 = now_ms();
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "ratio: cannot run %s: %s\n", argv[0], strerror(rc));
        exit(1);
    }
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return now_ms() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int runs = 200, warm = 10, k = 1;
    for (; k < argc && strcmp(argv[k], "--") != 0; k++) {
        if (strcmp(argv[k], "-n") == 0 && k + 1 < argc)
            runs = atoi(argv[++k]);
        else if (strcmp(argv[k], "-w") == 0 && k + 1 < argc)
            warm = atoi(argv[++k]);
        else if (strcmp(argv[k], "-g") == 0 && k + 1 < argc)
            gap_ms = atol(argv[++k]);
        else if (strcmp(argv[k], "-i") == 0 && k + 1 < argc)
            stdin_file = argv[++k];
    }
    char **a = argv + k + 1, **b = NULL;
    for (int i = k + 1; i < argc; i++)
        if (strcmp(argv[i], ":::") == 0) {
            argv[i] = NULL;
            b = argv + i + 1;
        }
    if (k >= argc || !b || !a[0] || !b[0] || runs < 1) {
        fputs("usage: ratio [-n RUNS] [-w WARMUP] [-g GAP-MS] [-i STDIN-FILE] -- CMD-A ARGS... "
              "::: CMD-B ARGS...\n",
              stderr);
        return 2;
    }
    double *ta = calloc((size_t)runs, sizeof *ta), *tb = calloc((size_t)runs, sizeof *tb);
    double *tr = calloc((size_t)runs, sizeof *tr);
    int sa = 0, sb = 0;
    for (int i = 0; i < warm; i++) {
        run(a, &sa);
        run(b, &sb);
    }
    for (int i = 0; i < runs; i++) {
        ta[i] = run(a, &sa);
        tb[i] = run(b, &sb);
        tr[i] = ta[i] / tb[i];
    }
    printf("A: %s ... median %.3f ms (last exit status %d)\n", a[0], median(ta, runs),
           WIFEXITED(sa) ? WEXITSTATUS(sa) : -1);
    printf("B: %s ... median %.3f ms (last exit status %d)\n", b[0], median(tb, runs),
           WIFEXITED(sb) ? WEXITSTATUS(sb) : -1);
    printf("median ratio A/B over %d alternating pairs: %.2f\n", runs, median(tr, runs));
    free(ta);
    free(tb);
    free(tr);
    return 0;
}
