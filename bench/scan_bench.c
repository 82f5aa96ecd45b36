/* bench/scan_bench.c - cost of the post-run scan (launcher/scan/scan.h) on a
 * large workspace: DIRS directories of FILES files each (default 1000 x 100
 * = 100 000 files, a few denied names among them), the example policy's
 * deny list. Times the snapshot (with its fence), an unchanged compare, and
 * a compare after a run that wrote into one directory, each the median of
 * RUNS (page cache warm: what `paldron exec` pays on every run).
 *
 * usage: scan_bench [DIRS [FILES [RUNS]]]   (tree built in $TMPDIR or /tmp) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"
#include "launcher/scan/scan.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    close(fd);
}

int main(int argc, char **argv)
{
    int ndirs = argc > 1 ? atoi(argv[1]) : 1000;
    int nfiles = argc > 2 ? atoi(argv[2]) : 100;
    int runs = argc > 3 ? atoi(argv[3]) : 11;
    if (ndirs < 1 || nfiles < 1 || runs < 1 || runs > 101) {
        fputs("usage: scan_bench [DIRS [FILES [RUNS]]]\n", stderr);
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    char base[PD_PATH_MAX], path[PD_PATH_MAX + 64];
    snprintf(base, sizeof base, "%s/paldron-scan-bench-XXXXXX",
             tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/src", base);
    mkdir(path, 0755);
    for (int d = 0; d < ndirs; d++) {
        snprintf(path, sizeof path, "%s/src/pkg%04d", base, d);
        mkdir(path, 0755);
        for (int f = 0; f < nfiles; f++) {
            /* one denied name per hundred directories */
            if (f == 0 && d % 100 == 0)
                snprintf(path, sizeof path, "%s/src/pkg%04d/key%d.pem", base, d, f);
            else
                snprintf(path, sizeof path, "%s/src/pkg%04d/file%03d.c", base, d, f);
            touch(path);
        }
    }
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    if (pd_policy_load_string(&pol,
                              "allow_paths = [\"src/\"]\n"
                              "deny_globs = [\".env\", \".env.*\", \"*.pem\", \"**/secrets/**\"]\n",
                              "bench.toml", &err) != 0 ||
        pd_ctx_init(&ctx, &pol, base, getenv("HOME"), &err) != 0) {
        fprintf(stderr, "scan_bench: %s\n", err.msg);
        return 1;
    }
    double snap[101], same[101], changed[101];
    size_t found_same = 0, found_changed = 0, dirs = 0, recorded = 0;
    for (int r = 0; r < runs; r++) {
        struct pd_findings warn = {0}, found = {0};
        double t0 = now_ms();
        struct pd_scan *s = pd_scan_snapshot(&ctx, false, &warn);
        if (!s) {
            perror("snapshot");
            return 1;
        }
        pd_scan_fence(s);
        double t1 = now_ms();
        pd_scan_compare(s, &found, &warn);
        double t2 = now_ms();
        found_same = found.n;
        dirs = pd_scan_ndirs(s);
        recorded = pd_scan_nfiles(s);
        pd_findings_free(&found);
        /* a run that wrote: a new file and a secret in one directory */
        snprintf(path, sizeof path, "%s/src/pkg%04d/new%d.c", base, ndirs / 2, r);
        touch(path);
        snprintf(path, sizeof path, "%s/src/pkg%04d/.env.%d", base, ndirs / 2, r);
        touch(path);
        double t3 = now_ms();
        pd_scan_compare(s, &found, &warn);
        double t4 = now_ms();
        found_changed = found.n;
        pd_findings_free(&found);
        pd_findings_free(&warn);
        pd_scan_free(s);
        snap[r] = t1 - t0;
        same[r] = t2 - t1;
        changed[r] = t4 - t3;
    }
    qsort(snap, (size_t)runs, sizeof *snap, cmp);
    qsort(same, (size_t)runs, sizeof *same, cmp);
    qsort(changed, (size_t)runs, sizeof *changed, cmp);
    printf("workspace: %d dirs x %d files = %d files (%zu dirs, %zu denied files recorded)\n",
           ndirs, nfiles, ndirs * nfiles, dirs, recorded);
    printf("snapshot (+fence):          median %8.2f ms\n", snap[runs / 2]);
    printf("compare, nothing changed:   median %8.2f ms  (%zu findings)\n", same[runs / 2],
           found_same);
    printf("compare, one dir changed:   median %8.2f ms  (%zu finding(s))\n", changed[runs / 2],
           found_changed);
    printf("snapshot + compare:         median %8.2f ms per run\n",
           snap[runs / 2] + same[runs / 2]);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
    return 0;
}
