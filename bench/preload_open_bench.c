/* bench/preload_open_bench.c - the preload's hottest path: a loop of
 * open(O_RDONLY) + close of an allowed file, with libpaldron_preload.so
 * (and a compiled policy) against the same loop without it, alternating, in
 * one invocation. Prints the median time per iteration of each side and the
 * median of the per-pair ratios. Goal (issue 4): at most 1.5x.
 *
 *   preload_open_bench [-n ITERATIONS] [-r RUNS] [-l PRELOAD.so] [-R] [-m MAX-RATIO]
 *       -R: open the file by a relative path (the working directory is the
 *           workspace) instead of an absolute one
 *   preload_open_bench --compile WORKSPACE RUNDIR
 *       write RUNDIR/policy.compiled for WORKSPACE with the default policy
 *       (used by bench/preload_workload.sh)
 *
 * The library is <dir of this program>/../launcher/libpaldron_preload.so
 * unless -l or PALDRON_PRELOAD_LIB names another. Exit 0 when the ratio is at
 * most MAX-RATIO (default 1.5), 1 when above, 2 on errors. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/compiled_image.h"
#include "policy/policy.h"

extern char **environ;

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

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The measured loop; prints nanoseconds per iteration. */
static int child(const char *file, long iterations)
{
    for (long k = 0; k < iterations / 10; k++) { /* warm up */
        int fd = open(file, O_RDONLY);
        if (fd < 0) {
            fprintf(stderr, "preload_open_bench: open %s: %s\n", file, strerror(errno));
            return 2;
        }
        close(fd);
    }
    double t0 = now_ns();
    for (long k = 0; k < iterations; k++) {
        int fd = open(file, O_RDONLY);
        if (fd < 0) {
            fprintf(stderr, "preload_open_bench: open %s: %s\n", file, strerror(errno));
            return 2;
        }
        close(fd);
    }
    printf("%.1f\n", (now_ns() - t0) / (double)iterations);
    return 0;
}

static int compile(const char *ws, const char *run)
{
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    pd_policy_defaults(&pol);
    if (pd_ctx_init(&ctx, &pol, ws, getenv("HOME"), &err) != 0) {
        fprintf(stderr, "preload_open_bench: %s\n", err.msg);
        return 2;
    }
    pd_ctx_set_path_env(&ctx, getenv("PATH"));
    char path[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s/policy.compiled", run);
    if (pd_image_write(&ctx, NULL, NULL, path, 0400) != 0) {
        fprintf(stderr, "preload_open_bench: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return 0;
}

/* Run this program as a child (with or without the preload); returns ns/iteration. */
static double measure(const char *self, const char *ws, const char *file, long iterations,
                      char **env)
{
    char iters[32];
    snprintf(iters, sizeof iters, "%ld", iterations);
    char *argv[] = {(char *)(uintptr_t)self, "--child", (char *)(uintptr_t)file, iters, NULL};
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_addchdir_np(&fa, ws);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        return -1;
    }
    char buf[64] = "";
    ssize_t n = read(pipefd[0], buf, sizeof buf - 1);
    close(pipefd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    buf[n] = '\0';
    return strtod(buf, NULL);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], strtol(argv[3], NULL, 10));
    if (argc == 4 && strcmp(argv[1], "--compile") == 0)
        return compile(argv[2], argv[3]);

    long iterations = 1000000;
    int runs = 7;
    double max_ratio = 1.5;
    int relative = 0;
    const char *lib = getenv("PALDRON_PRELOAD_LIB");
    int opt;
    while ((opt = getopt(argc, argv, "n:r:l:m:R")) != -1) {
        switch (opt) {
        case 'n':
            iterations = strtol(optarg, NULL, 10);
            break;
        case 'r':
            runs = (int)strtol(optarg, NULL, 10);
            break;
        case 'l':
            lib = optarg;
            break;
        case 'm':
            max_ratio = strtod(optarg, NULL);
            break;
        case 'R':
            relative = 1;
            break;
        default:
            fprintf(stderr, "usage: preload_open_bench [-n ITERATIONS] [-r RUNS] [-l PRELOAD.so] "
                            "[-R] [-m MAX-RATIO]\n");
            return 2;
        }
    }
    if (runs < 1 || runs > 99 || iterations < 1)
        return 2;
    char self[PATH_MAX], libbuf[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0)
        return 2;
    self[sl] = '\0';
    if (!lib) {
        snprintf(libbuf, sizeof libbuf, "%.*s/../launcher/libpaldron_preload.so",
                 (int)(strrchr(self, '/') - self), self);
        lib = libbuf;
    }
    char libreal[PATH_MAX];
    if (!realpath(lib, libreal)) {
        fprintf(stderr, "preload_open_bench: %s: %s\n", lib, strerror(errno));
        return 2;
    }

    /* a workspace with the file, a run directory with the compiled policy */
    char base[] = "/tmp/pd-bench-XXXXXX";
    if (!mkdtemp(base))
        return 2;
    char ws[PATH_MAX], run[PATH_MAX], file[PATH_MAX + 32], cmd[PATH_MAX + 16];
    snprintf(ws, sizeof ws, "%s/ws", base);
    snprintf(run, sizeof run, "%s/run", base);
    snprintf(file, sizeof file, "%s/src/lib/module.py", ws);
    snprintf(cmd, sizeof cmd, "%s/src", ws);
    if (mkdir(ws, 0755) || mkdir(run, 0755) || mkdir(cmd, 0755))
        return 2;
    snprintf(cmd, sizeof cmd, "%s/src/lib", ws);
    if (mkdir(cmd, 0755))
        return 2;
    FILE *f = fopen(file, "w");
    if (!f || fputs("x = 1\n", f) == EOF || fclose(f) != 0 || compile(ws, run) != 0)
        return 2;
    const char *target = relative ? "src/lib/module.py" : file;

    char ld[PATH_MAX + 16], pl[PATH_MAX + 32], pr[PATH_MAX + 16];
    snprintf(ld, sizeof ld, "LD_PRELOAD=%s", libreal);
    snprintf(pl, sizeof pl, "PALDRON_PRELOAD=%s", libreal);
    snprintf(pr, sizeof pr, "PALDRON_RUN=%s", run);
    char *with[] = {ld, pl, pr, "PATH=/usr/bin:/bin", NULL};
    char *without[] = {"PATH=/usr/bin:/bin", NULL};

    double a[100], b[100], ratio[100];
    for (int r = 0; r < runs; r++) {
        /* alternate which side goes first */
        if (r % 2) {
            b[r] = measure(self, ws, target, iterations, without);
            a[r] = measure(self, ws, target, iterations, with);
        } else {
            a[r] = measure(self, ws, target, iterations, with);
            b[r] = measure(self, ws, target, iterations, without);
        }
        if (a[r] <= 0 || b[r] <= 0) {
            fprintf(stderr, "preload_open_bench: a run failed\n");
            return 2;
        }
        ratio[r] = a[r] / b[r];
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", base);
    if (system(cmd) != 0)
        fprintf(stderr, "preload_open_bench: could not remove %s\n", base);
    double ma = median(a, (size_t)runs), mb = median(b, (size_t)runs);
    double mr = median(ratio, (size_t)runs);
    printf("open(O_RDONLY)+close of %s path, %ld iterations x %d runs\n",
           relative ? "a relative" : "an absolute", iterations, runs);
    printf("  with preload:    %.0f ns/iteration (median)\n", ma);
    printf("  without preload: %.0f ns/iteration (median)\n", mb);
    printf("  ratio:           %.2fx (median of pairs; goal <= %.2fx)\n", mr, max_ratio);
    return mr <= max_ratio ? 0 : 1;
}
