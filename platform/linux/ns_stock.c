/* platform/linux/ns_stock.c - the namespaces of the next run, made after
 * this one (platform.h, pd_ns_stock_make and pd_ns_stock_adopt).
 *
 * Why: a new network namespace costs the kernel 0.5 to 0.7 ms here (lo and
 * every protocol's per-namespace state, sysctl tables), and the ns_early
 * helper that makes it while the launcher prepares the run finishes after
 * the launcher on a machine of two CPUs: the run waits for it. Made after
 * a run, when the agent reads the output, the next run only joins them.
 *
 * Fresh for each run: the kept process makes them, and nothing else ever
 * enters them - it runs no program, and the one launcher that takes them
 * (by locking the file, launcher/exec/exec_ns_stock.c) ends it once its
 * child has started, and lets the lock go only when it is gone. A run's
 * processes cannot reach the kept one
 * (Landlock's signal scope and ptrace rules, seccomp's setns refusal), nor
 * join its namespaces (setns needs CAP_SYS_ADMIN over a user namespace that
 * is not theirs).
 *
 * The kept process is a clone of the launcher on its memory
 * (CLONE_VM, without CLONE_FILES: its own copy of the descriptor table):
 * no page-table copy on the launcher's path, as for the ns_early helper,
 * so it calls no library function (raw_syscall.h) and touches only its own
 * mapping - the launcher never unmaps it, as it cannot know when the
 * process is done with it, and exits soon after. Once the launcher has
 * exited, the memory is the kept process's alone. */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "platform/linux/backend.h"

#define STOCK_STACK (64 * 1024)
#define STOCK_TITLE "paldron: namespaces made for the next run"

#if PD_EARLY
struct stock_task {
    int dirfd;
    bool user, net, replace;
    unsigned keep_sec;
    char uid_map[48], gid_map[48];
    char name[128];
};

/* Decimal digits of v at out (no terminator); how many. */
static size_t put_num(char *out, unsigned long long v)
{
    char rev[24];
    size_t n = 0;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof rev);
    for (size_t k = 0; k < n; k++)
        out[k] = rev[n - 1 - k];
    return n;
}

static size_t put_str(char *out, const char *s)
{
    size_t n = 0;
    while (s[n]) {
        out[n] = s[n];
        n++;
    }
    return n;
}

static long raw_lo_up(void)
{
    long fd = pd_raw_syscall3(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fd;
    struct ifreq ifr;
    for (size_t k = 0; k < sizeof ifr; k++)
        ((volatile char *)&ifr)[k] = 0;
    ifr.ifr_name[0] = 'l';
    ifr.ifr_name[1] = 'o';
    long rc = pd_raw_syscall3(SYS_ioctl, fd, SIOCGIFFLAGS, (long)&ifr);
    if (rc == 0) {
        ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
        rc = pd_raw_syscall3(SYS_ioctl, fd, SIOCSIFFLAGS, (long)&ifr);
    }
    pd_raw_syscall3(SYS_close, fd, 0, 0);
    return rc;
}

/* Nothing of the launcher: no descriptor but dirfd, no handler of its
 * (one would run on the launcher's memory), no blocked signal, no
 * directory, no session or terminal of its. */
static void shed_launcher(int dirfd)
{
    /* first: whoever waits for the launcher's output to end (the
     * descriptors closed below) then finds no process with the run's
     * command line or environment */
    pd_proc_retitle(STOCK_TITLE);
    if (dirfd > 0)
        pd_raw_syscall3(SYS_close_range, 0, dirfd - 1, 0);
    pd_raw_syscall3(SYS_close_range, dirfd + 1, ~0U, 0);
    const unsigned long dfl[4] = {0, 0, 0, 0}; /* SIG_DFL, no flags, empty mask */
    for (long sig = 1; sig <= 64; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            pd_raw_syscall4(SYS_rt_sigaction, sig, (long)dfl, 0, 8);
    const unsigned long none = 0;
    pd_raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, sizeof none);
    pd_raw_syscall3(SYS_setsid, 0, 0, 0);
    pd_raw_syscall3(SYS_chdir, (long)"/", 0, 0);
}

/* "<pid> <start time>\n" into line; its length, 0 when unknown. */
static size_t who_am_i(char *line)
{
    char buf[1024] = {0}; /* read by a raw system call the analyzer cannot see into */
    long fd = pd_raw_open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long n = pd_raw_syscall3(SYS_read, fd, (long)buf, sizeof buf);
    pd_raw_syscall3(SYS_close, fd, 0, 0);
    unsigned long long start;
    if (n <= 0 || !pd_stat_fields(buf, (size_t)n, 22, 1, &start) || start == 0)
        return 0;
    size_t len = put_num(line, (unsigned long long)pd_raw_syscall3(SYS_getpid, 0, 0, 0));
    line[len++] = ' ';
    len += put_num(line + len, start);
    line[len++] = '\n';
    return len;
}

/* Name this process in dirfd's t->name, never over another's file: written
 * under a name of its own, then linked (link fails where the name is) -
 * or, when the launcher took the stock the file names (t->replace),
 * renamed over that spent one. */
static bool publish(const struct stock_task *t, const char *line, size_t len, char *tmp)
{
    size_t n = put_str(tmp, t->name);
    n += put_str(tmp + n, ".");
    n += put_num(tmp + n, (unsigned long long)pd_raw_syscall3(SYS_getpid, 0, 0, 0));
    tmp[n] = '\0';
    long fd = pd_raw_syscall4(SYS_openat, t->dirfd, (long)tmp,
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    long w = pd_raw_syscall3(SYS_write, fd, (long)line, (long)len);
    pd_raw_syscall3(SYS_close, fd, 0, 0);
    if (w != (long)len) {
        pd_raw_syscall3(SYS_unlinkat, t->dirfd, (long)tmp, 0);
        return false;
    }
    if (t->replace &&
        pd_raw_syscall4(SYS_renameat, t->dirfd, (long)tmp, t->dirfd, (long)t->name) == 0)
        return true;
    long rc = pd_raw_syscall5(SYS_linkat, t->dirfd, (long)tmp, t->dirfd, (long)t->name, 0);
    pd_raw_syscall3(SYS_unlinkat, t->dirfd, (long)tmp, 0);
    return rc == 0;
}

/* At the end of the wait: the file goes if it still names this process
 * (after a launcher took this stock, the next kept process's file is
 * there). */
static void withdraw(const struct stock_task *t, const char *line, size_t len)
{
    char buf[64] = {0}; /* as in who_am_i */
    long fd =
        pd_raw_syscall4(SYS_openat, t->dirfd, (long)t->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return;
    long n = pd_raw_syscall3(SYS_read, fd, (long)buf, sizeof buf);
    pd_raw_syscall3(SYS_close, fd, 0, 0);
    if (n != (long)len)
        return;
    for (size_t k = 0; k < len; k++)
        if (buf[k] != line[k])
            return;
    pd_raw_syscall3(SYS_unlinkat, t->dirfd, (long)t->name, 0);
}

static int stock_main(void *arg)
{
    const struct stock_task *t = arg;
    char line[64], tmp[sizeof t->name + 24];
    shed_launcher(t->dirfd);
    long rc = pd_ns_make_raw(t->user, t->net, t->uid_map, t->gid_map, NULL);
    if (rc == 0 && t->net)
        rc = raw_lo_up();
    size_t len = rc == 0 ? who_am_i(line) : 0;
    if (len > 0 && publish(t, line, len, tmp)) {
        struct timespec left = {(time_t)t->keep_sec, 0};
        while (pd_raw_syscall3(SYS_nanosleep, (long)&left, (long)&left, 0) == -EINTR)
            ;
        withdraw(t, line, len);
    }
    pd_raw_syscall3(SYS_exit_group, 0, 0, 0);
    return 0; /* not reached */
}
#endif

pid_t pd_ns_stock_make(int dirfd, const char *name, bool net, bool replace, unsigned keep_sec)
{
#if PD_EARLY
    const size_t namelen = strlen(name);
    if (dirfd < 0 || namelen == 0 || namelen >= sizeof((struct stock_task *)0)->name ||
        strchr(name, '/'))
        return -1;
    /* the task's arguments below its stack, in one mapping of its own */
    const size_t size = STOCK_STACK + sizeof(struct stock_task);
    char *map =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return -1;
    struct stock_task *t = (struct stock_task *)map;
    t->dirfd = dirfd;
    t->user = geteuid() != 0;
    t->net = net;
    t->replace = replace;
    t->keep_sec = keep_sec;
    pd_ns_id_map(t->uid_map, sizeof t->uid_map, (unsigned long)geteuid());
    pd_ns_id_map(t->gid_map, sizeof t->gid_map, (unsigned long)getegid());
    memcpy(t->name, name, namelen + 1);
    /* exit signal 0: no SIGCHLD, and no wait of the launcher's sees it */
    pid_t pid = clone(stock_main, map + size, CLONE_VM, t);
    if (pid < 0)
        munmap(map, size);
    return pid;
#else
    (void)dirfd;
    (void)name;
    (void)net;
    (void)replace;
    (void)keep_sec;
    return -1;
#endif
}

/* ---- taking them ------------------------------------------------------------- */

static bool same_file(int a, int b)
{
    struct stat sa, sb;
    return a >= 0 && b >= 0 && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Is the namespace at fd owned by the user namespace at owner? */
static bool owned_by(int fd, int owner)
{
    int u = ioctl(fd, NS_GET_USERNS);
    bool ok = same_file(u, owner);
    if (u >= 0)
        close(u);
    return ok;
}

static int open_ns(pid_t pid, const char *kind)
{
    char path[64];
    if (pid > 0)
        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, kind);
    else
        snprintf(path, sizeof path, "/proc/self/ns/%s", kind);
    return open(path, O_RDONLY | O_CLOEXEC);
}

static bool check_stock(int user_fd, int net_fd, int ipc_fd, bool user, bool net)
{
    int mine = open_ns(0, "user");
    int owner = user ? user_fd : mine;
    bool ok = mine >= 0 && owner >= 0 && ipc_fd >= 0 && (!net || net_fd >= 0);
    if (ok && user) {
        int parent = ioctl(user_fd, NS_GET_PARENT);
        uid_t uid = (uid_t)-1;
        ok = same_file(parent, mine) && ioctl(user_fd, NS_GET_OWNER_UID, &uid) == 0 &&
             uid == geteuid();
        if (parent >= 0)
            close(parent);
    }
    ok = ok && owned_by(ipc_fd, owner) && (!net || owned_by(net_fd, owner));
    if (ok && !user) { /* root: new ones, not the launcher's own */
        int my_ipc = open_ns(0, "ipc"), my_net = net ? open_ns(0, "net") : -1;
        ok = my_ipc >= 0 && !same_file(ipc_fd, my_ipc) && (!net || !same_file(net_fd, my_net));
        if (my_ipc >= 0)
            close(my_ipc);
        if (my_net >= 0)
            close(my_net);
    }
    if (mine >= 0)
        close(mine);
    return ok;
}

bool pd_ns_stock_adopt(struct pd_ns_early *e, pid_t pid, bool net)
{
    const bool user = geteuid() != 0;
    int user_fd = user ? open_ns(pid, "user") : -1;
    int net_fd = net ? open_ns(pid, "net") : -1;
    int ipc_fd = open_ns(pid, "ipc");
    if (pid <= 0 || !check_stock(user_fd, net_fd, ipc_fd, user, net)) {
        const int fds[] = {user_fd, net_fd, ipc_fd};
        for (size_t k = 0; k < 3; k++)
            if (fds[k] >= 0)
                close(fds[k]);
        return false;
    }
    *e = (struct pd_ns_early){.started = true,
                              .adopted = true,
                              .user = user,
                              .net = net,
                              .user_fd = user_fd,
                              .net_fd = net_fd,
                              .ipc_fd = ipc_fd};
    return true;
}
