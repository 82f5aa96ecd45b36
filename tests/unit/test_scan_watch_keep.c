/* tests/unit/test_scan_watch_keep.c - the watches of one run kept for the
 * next (launcher/scan/scan_watch_keep.c): the keeper holds its two inotify
 * instances and nothing else, ends by itself, does not change what a run's
 * own watch hears, and the file naming it makes the next run signal that
 * process only - never another process a planted file names. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"
#include "launcher/scan/scan_int.h"
#include "test_path_at.h"

static char base[] = "/tmp/paldron-watchkeep-XXXXXX";
static int basefd = -1;

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    cr_assert_geq(basefd, 0);
}

static void teardown(void)
{
    if (basefd >= 0)
        pd_remove_below(basefd);
    basefd = -1;
    rmdir(base);
}

TestSuite(keep, .init = setup, .fini = teardown);

static const char *at(const char *rel)
{
    return test_path_at(base, rel);
}

/* A watch on one new directory of base. */
static struct pd_watch *watch_dir(const char *rel)
{
    mkdir(at(rel), 0755);
    struct pd_watch *w = pd_watch_open();
    cr_assert_not_null(w);
    const char *paths[] = {at(rel)};
    pd_watch_add_all(w, paths, 1);
    cr_assert(pd_watch_usable(w));
    return w;
}

/* w's keeper, or SKIP where the emulator refuses a copy of the process
 * without an exit signal (qemu-user: "custom termination signals"). */
static pid_t hand_over_or_skip(struct pd_watch *w)
{
    errno = 0;
    pid_t pid = pd_watch_hand_over(w);
    if (pid < 0 && errno == EINVAL)
        cr_skip_test("SKIP: clone without an exit signal refused here (an emulator?): %s",
                     strerror(errno));
    return pid;
}

static bool alive(pid_t pid)
{
    char p[64], state = 0;
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return false;
    int ok = fscanf(f, "%*d (%*[^)]) %c", &state);
    fclose(f);
    return ok == 1 && state != 'Z';
}

/* /proc/<pid>/<what> into buf, terminated; its length. */
static size_t read_proc(pid_t pid, const char *what, char *buf, size_t len)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, what);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n;
}

static void reap(pid_t pid)
{
    int st;
    kill(pid, SIGKILL);
    waitpid(pid, &st, __WALL);
}

Test(keep, the_keeper_holds_two_inotify_instances_and_nothing_else)
{
    struct pd_watch *w = watch_dir("d");
    pid_t pid = hand_over_or_skip(w);
    cr_assert_gt(pid, 0);
    pd_watch_free(w);
    cr_assert(alive(pid));
    /* its working directory is the last of its set-up (the title is the
     * first): once it is /, the rest is done (on a busy machine the keeper
     * may not have run yet) */
    static const char title[] = "paldron: watches kept for the next run";
    char p[64], link[256], cmd[512] = "";
    snprintf(p, sizeof p, "/proc/%d/cwd", (int)pid);
    for (int tries = 0; tries < 500; tries++) {
        ssize_t n = readlink(p, link, sizeof link - 1);
        link[n > 0 ? n : 0] = '\0';
        if (strcmp(link, "/") == 0)
            break;
        usleep(10000);
    }
    cr_expect_str_eq(link, "/", "the keeper keeps %s busy", link);
    size_t got = read_proc(pid, "cmdline", cmd, sizeof cmd);
    /* what ps shows: what it is (as much as the argument area holds), not
     * the launcher's command line */
    cr_expect(got > 8 && strncmp(cmd, title, strlen(cmd)) == 0, "the keeper shows '%s'", cmd);
    snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
    int n = 0, inotify = 0;
    DIR *d = opendir(p);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char fdp[sizeof p + sizeof e->d_name + 2];
        snprintf(fdp, sizeof fdp, "%s/%s", p, e->d_name);
        ssize_t len = readlink(fdp, link, sizeof link - 1);
        link[len > 0 ? len : 0] = '\0';
        n++;
        inotify += strcmp(link, "anon_inode:inotify") == 0;
    }
    closedir(d);
    cr_expect_eq(n, 2, "the keeper holds %d descriptors", n);
    cr_expect_eq(inotify, 2, "the keeper holds %d inotify instances", inotify);
    cr_expect_eq(getsid(pid), pid, "the keeper is not in a session of its own");
    reap(pid);
}

Test(keep, the_keeper_ends_by_itself, .timeout = 30)
{
    pd_watch_keep_sec = 1;
    struct pd_watch *w = watch_dir("d");
    pid_t pid = hand_over_or_skip(w);
    pd_watch_free(w);
    cr_assert_gt(pid, 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, __WALL), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the keeper did not end by itself");
}

Test(keep, nothing_watched_nothing_kept)
{
    struct pd_watch *w = pd_watch_open();
    cr_assert_not_null(w);
    cr_expect_eq(pd_watch_hand_over(w), -1);
    pd_watch_miss(w);
    cr_expect_eq(pd_watch_hand_over(w), -1, "an unusable watch is never kept");
    pd_watch_free(w);
}

static void heard(const char *dir, const char *name, bool is_dir, void *user)
{
    (void)dir;
    (void)is_dir;
    if (strcmp(name, "f") == 0)
        (*(int *)user)++;
}

/* The next run's own watch, added while the keeper holds one on the same
 * directory, hears every change - before and after the keeper ends. */
Test(keep, a_watch_added_beside_the_keepers_hears_the_run)
{
    struct pd_watch *old = watch_dir("d");
    pid_t pid = hand_over_or_skip(old);
    pd_watch_free(old);
    cr_assert_gt(pid, 0);
    struct pd_watch *w = pd_watch_open();
    const char *paths[] = {at("d")};
    pd_watch_add_all(w, paths, 1);
    FILE *f = fopen(at("d/f"), "w");
    cr_assert_not_null(f);
    fclose(f);
    reap(pid);
    int fd = open(at("d/f"), O_WRONLY | O_APPEND | O_CLOEXEC);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "x", 1), 1);
    close(fd);
    int n = 0;
    cr_assert(pd_watch_changes(w, heard, &n));
    cr_expect_eq(n, 1, "f heard %d times (once per entry)", n);
    pd_watch_free(w);
    /* a change made after the keeper ended alone */
    w = pd_watch_open();
    pd_watch_add_all(w, paths, 1);
    fd = open(at("d/f"), O_WRONLY | O_TRUNC | O_CLOEXEC);
    cr_assert_geq(fd, 0);
    close(fd);
    n = 0;
    cr_assert(pd_watch_changes(w, heard, &n));
    cr_expect_eq(n, 1);
    pd_watch_free(w);
}

/* ---- the file that names the keeper ------------------------------------- */

/* A child that waits, called name (its comm). */
static pid_t waiter(const char *name)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_NAME, name);
        for (;;)
            pause();
    }
    for (int k = 0; k < 200; k++) { /* until the name is set */
        char p[64], comm[32] = "";
        snprintf(p, sizeof p, "/proc/%d/comm", (int)pid);
        FILE *f = fopen(p, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                comm[0] = '\0';
            fclose(f);
        }
        if (strncmp(comm, name, strlen(name)) == 0)
            break;
        usleep(5000);
    }
    return pid;
}

static unsigned long long start_time(pid_t pid)
{
    char buf[1024];
    read_proc(pid, "stat", buf, sizeof buf);
    char *s = strrchr(buf, ')');
    cr_assert_not_null(s);
    s += 2; /* field 3 */
    for (int field = 3; field < 22; field++)
        s = strchr(s, ' ') + 1;
    return strtoull(s, NULL, 10);
}

static void name_file(const char *text, mode_t mode)
{
    unlinkat(basefd, "k.watch", 0);
    int fd = openat(basefd, "k.watch", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    fchmod(fd, mode);
    close(fd);
}

static void say(pid_t pid, unsigned long long start, mode_t mode)
{
    char line[64];
    snprintf(line, sizeof line, "%d %llu\n", (int)pid, start);
    name_file(line, mode);
}

Test(keep, the_named_keeper_is_ended_and_the_file_goes)
{
    pid_t pid = waiter("paldron");
    say(pid, start_time(pid), 0600);
    pd_watch_end_kept(basefd, "k.watch");
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the keeper was not ended");
    cr_expect_eq(faccessat(basefd, "k.watch", F_OK, 0), -1, "the file stayed");
}

Test(keep, a_planted_file_ends_no_other_process)
{
    /* not a paldron */
    pid_t other = waiter("editor");
    say(other, start_time(other), 0600);
    pd_watch_end_kept(basefd, "k.watch");
    usleep(20000);
    cr_expect(alive(other), "a process that is not a paldron was signalled");
    cr_expect_eq(faccessat(basefd, "k.watch", F_OK, 0), -1, "the file stayed");
    /* a paldron, but not the one started then (a pid used again) */
    pid_t again = waiter("paldron");
    say(again, start_time(again) + 1, 0600);
    pd_watch_end_kept(basefd, "k.watch");
    /* a file others may write */
    say(again, start_time(again), 0622);
    pd_watch_end_kept(basefd, "k.watch");
    /* a link to a good file is not followed */
    say(again, start_time(again), 0600);
    cr_assert_eq(renameat(basefd, "k.watch", basefd, "real.watch"), 0);
    cr_assert_eq(symlinkat("real.watch", basefd, "k.watch"), 0);
    pd_watch_end_kept(basefd, "k.watch");
    /* garbage, and no file */
    name_file("not a pid\n", 0600);
    pd_watch_end_kept(basefd, "k.watch");
    pd_watch_end_kept(basefd, "k.watch");
    usleep(20000);
    cr_expect(alive(again), "a paldron the file did not name rightly was signalled");
    reap(other);
    reap(again);
}

/* ---- /proc/<pid>/stat, read without the library ---------------------------- */

Test(keep, stat_fields_are_counted_after_the_name)
{
    /* a name with spaces and parentheses of its own */
    char line[1024];
    int n = snprintf(line, sizeof line, "4242 (a) b (c) S 1");
    for (int field = 5; field <= 52; field++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %d", field * 10);
    unsigned long long v[2] = {0, 0};
    cr_assert(pd_stat_fields(line, (size_t)n, 22, 1, v));
    cr_expect_eq(v[0], 220);
    cr_assert(pd_stat_fields(line, (size_t)n, 48, 2, v));
    cr_expect_eq(v[0], 480);
    cr_expect_eq(v[1], 490);
    cr_assert(pd_stat_fields(line, (size_t)n, 4, 1, v));
    cr_expect_eq(v[0], 1, "the parent, field 4");
    /* the text ends before the field; no name at all */
    cr_expect_not(pd_stat_fields(line, 40, 48, 2, v));
    cr_expect_not(pd_stat_fields("4242 no name", 12, 3, 1, v));
    /* the real thing: our own start time is the kernel's */
    FILE *f = fopen("/proc/self/stat", "r");
    cr_assert_not_null(f);
    char buf[2048];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(pd_stat_fields(buf, got, 4, 1, v));
    cr_expect_eq(v[0], (unsigned long long)getppid());
}
