/* tests/probe/probe.c - perform exactly one operation named on the command
 * line and print "<ret> <errno>" on stdout (errno 0 on success), so that a
 * test can prove what a sandbox allows and refuses. Exit status 0 whatever
 * the operation did, 64 on a usage error. Built twice: dynamic (probe) and
 * static (probe_static, which LD_PRELOAD cannot reach).
 *
 * ret is -1 on failure and 0 on success: descriptors, pids and session ids
 * vary between runs, so they are not printed. read-file prints the number
 * of bytes read, then those bytes on a second line. exec prints only when
 * execv fails. Raw syscall() is used where a libc wrapper could be
 * interposed or missing. Operations that could harm the machine if allowed
 * use arguments that make them fail harmlessly in a distinguishable way
 * (tiocsti: fd -1 gives EBADF when allowed, EPERM when filtered; mount:
 * a target that does not exist gives ENOENT when allowed). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/io_uring.h>

#define EXIT_USAGE 64

static int report(long ret, int err)
{
    printf("%d %d\n", ret < 0 ? -1 : 0, ret < 0 ? err : 0);
    return 0;
}

/* Call once; errno captured right after. */
#define PROBE(call)                                                                                \
    do {                                                                                           \
        errno = 0;                                                                                 \
        long r_ = (long)(call);                                                                    \
        return report(r_, errno);                                                                  \
    } while (0)

static long parse_long(const char *s, int base, int *ok)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, base);
    *ok = errno == 0 && end != s && *end == '\0';
    return v;
}

static int ipv4(const char *host, const char *port, struct sockaddr_in *sa)
{
    int ok = 0;
    long p = parse_long(port, 10, &ok);
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)p);
    return ok && p > 0 && p < 65536 && inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

/* A fork-like call: reap the child (which exits at once) and report. */
static int report_child(long pid, int err)
{
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return report(pid, err);
}

static int op_connect_tcp(const char *host, const char *port)
{
    struct sockaddr_in sa;
    if (ipv4(host, port, &sa) < 0)
        return EXIT_USAGE;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return report(-1, errno);
    PROBE(connect(fd, (struct sockaddr *)&sa, sizeof sa));
}

static int op_udp_send(const char *host, const char *port)
{
    struct sockaddr_in sa;
    if (ipv4(host, port, &sa) < 0)
        return EXIT_USAGE;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return report(-1, errno);
    PROBE(sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, sizeof sa));
}

static int op_abstract_connect(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(name);
    if (n + 1 > sizeof sa.sun_path)
        return EXIT_USAGE;
    memcpy(sa.sun_path + 1, name, n); /* sun_path[0] == '\0': abstract */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return report(-1, errno);
    PROBE(connect(fd, (struct sockaddr *)&sa,
                  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)));
}

/* Connect to a pathname UNIX socket; on success send one byte, so the
 * server has something to receive. */
static int op_connect_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof sa.sun_path)
        return EXIT_USAGE;
    memcpy(sa.sun_path, path, n);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return report(-1, errno);
    errno = 0;
    long r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int err = errno;
    if (r == 0 && write(fd, "x", 1) != 1)
        err = errno;
    return report(r, err);
}

static int op_ptrace_attach(pid_t pid)
{
    errno = 0;
    long r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
    int err = errno;
    if (r == 0) {
        waitpid(pid, NULL, __WALL);
        ptrace(PTRACE_DETACH, pid, NULL, NULL);
    }
    return report(r, err);
}

static int op_read_file(const char *path)
{
    static char buf[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return report(-1, errno);
    errno = 0;
    ssize_t n = read(fd, buf, sizeof buf);
    int err = errno;
    printf("%zd %d\n", n < 0 ? (ssize_t)-1 : n, n < 0 ? err : 0);
    if (n > 0)
        fwrite(buf, 1, (size_t)n, stdout);
    printf("\n");
    return 0;
}

/* copy: the whole of src into dst (created or truncated); write-text: text
 * into dst. Both report the last call that failed, or success. */
static int op_copy(const char *src, const char *dst)
{
    static char buf[1 << 20];
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return report(-1, errno);
    ssize_t n = read(in, buf, sizeof buf);
    int err = errno;
    close(in);
    if (n < 0)
        return report(-1, err);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return report(-1, errno);
    errno = 0;
    ssize_t w = write(out, buf, (size_t)n);
    err = errno;
    close(out);
    return report(w == n ? 0 : -1, w == n ? 0 : err ? err : EIO);
}

static int op_write_text(const char *dst, const char *text)
{
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return report(-1, errno);
    size_t n = strlen(text);
    errno = 0;
    ssize_t w = write(out, text, n);
    int err = errno;
    close(out);
    return report(w == (ssize_t)n ? 0 : -1, w == (ssize_t)n ? 0 : err ? err : EIO);
}

static int op_clone3(void)
{
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    errno = 0;
    long pid = syscall(SYS_clone3, &args, sizeof args);
    return report_child(pid, errno);
}

static int op_clone_newuser(void)
{
    errno = 0;
    /* Raw clone with a NULL stack behaves like fork (the child shares
     * nothing and continues on a copy of the stack). */
    long pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), NULL, NULL, NULL, NULL);
    return report_child(pid, errno);
}

static int op_bpf(void)
{
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 4;
    attr.max_entries = 1;
    PROBE(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr));
}

static int op_io_uring_setup(void)
{
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    PROBE(syscall(SYS_io_uring_setup, 1, &params));
}

static int op_x32_getpid(void)
{
#if defined(__x86_64__)
    PROBE(syscall(0x40000000 | SYS_getpid));
#else
    return report(-1, ENOSYS);
#endif
}

static int usage(void)
{
    fputs("usage: probe OPERATION [ARGS...]\n"
          "  open-read PATH | open-write PATH | open-append PATH | creat PATH\n"
          "  unlink PATH | rename OLD NEW | link OLD NEW | symlink TARGET LINK\n"
          "  mkdir PATH | rmdir PATH | truncate PATH LEN | chmod PATH OCTAL\n"
          "  exec PATH [ARGS...] | read-file PATH | copy SRC DST | write-text DST TEXT\n"
          "  connect-tcp HOST PORT | udp-send HOST PORT | socket-inet | socket-unix\n"
          "  socketpair | abstract-connect NAME | connect-unix PATH\n"
          "  ptrace-attach PID | kill PID SIG | setsid\n"
          "  unshare-user | clone-newuser | clone3 | io_uring_setup | bpf | mount\n"
          "  tiocsti | x32-getpid\n",
          stderr);
    return EXIT_USAGE;
}

/* Dispatch on argv[1]; args are argv[2...], nargs of them. */
static int run(const char *op, char **args, int nargs)
{
    int ok = 1, ok2 = 1;
#define ARGS(n)                                                                                    \
    do {                                                                                           \
        if (nargs != (n))                                                                          \
            return usage();                                                                        \
    } while (0)

    if (strcmp(op, "open-read") == 0) {
        ARGS(1);
        PROBE(open(args[0], O_RDONLY | O_CLOEXEC));
    }
    if (strcmp(op, "open-write") == 0) {
        ARGS(1);
        PROBE(open(args[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    }
    if (strcmp(op, "open-append") == 0) {
        ARGS(1);
        PROBE(open(args[0], O_WRONLY | O_APPEND | O_CLOEXEC));
    }
    if (strcmp(op, "creat") == 0) {
        ARGS(1);
        PROBE(creat(args[0], 0644));
    }
    if (strcmp(op, "unlink") == 0) {
        ARGS(1);
        PROBE(unlink(args[0]));
    }
    if (strcmp(op, "rename") == 0) {
        ARGS(2);
        PROBE(rename(args[0], args[1]));
    }
    if (strcmp(op, "link") == 0) {
        ARGS(2);
        PROBE(link(args[0], args[1]));
    }
    if (strcmp(op, "symlink") == 0) {
        ARGS(2);
        PROBE(symlink(args[0], args[1]));
    }
    if (strcmp(op, "mkdir") == 0) {
        ARGS(1);
        PROBE(mkdir(args[0], 0755));
    }
    if (strcmp(op, "rmdir") == 0) {
        ARGS(1);
        PROBE(rmdir(args[0]));
    }
    if (strcmp(op, "truncate") == 0) {
        ARGS(2);
        long len = parse_long(args[1], 10, &ok);
        if (!ok || len < 0)
            return usage();
        PROBE(truncate(args[0], (off_t)len));
    }
    if (strcmp(op, "chmod") == 0) {
        ARGS(2);
        long mode = parse_long(args[1], 8, &ok);
        if (!ok || mode < 0 || mode > 07777)
            return usage();
        PROBE(chmod(args[0], (mode_t)mode));
    }
    if (strcmp(op, "exec") == 0) {
        if (nargs < 1)
            return usage();
        execv(args[0], args);
        return report(-1, errno);
    }
    if (strcmp(op, "read-file") == 0) {
        ARGS(1);
        return op_read_file(args[0]);
    }
    if (strcmp(op, "copy") == 0) {
        ARGS(2);
        return op_copy(args[0], args[1]);
    }
    if (strcmp(op, "write-text") == 0) {
        ARGS(2);
        return op_write_text(args[0], args[1]);
    }
    if (strcmp(op, "connect-tcp") == 0) {
        ARGS(2);
        return op_connect_tcp(args[0], args[1]);
    }
    if (strcmp(op, "udp-send") == 0) {
        ARGS(2);
        return op_udp_send(args[0], args[1]);
    }
    if (strcmp(op, "socket-inet") == 0) {
        ARGS(0);
        PROBE(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    }
    if (strcmp(op, "socket-unix") == 0) {
        ARGS(0);
        PROBE(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    }
    if (strcmp(op, "socketpair") == 0) {
        ARGS(0);
        int sv[2];
        PROBE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
    }
    if (strcmp(op, "abstract-connect") == 0) {
        ARGS(1);
        return op_abstract_connect(args[0]);
    }
    if (strcmp(op, "connect-unix") == 0) {
        ARGS(1);
        return op_connect_unix(args[0]);
    }
    if (strcmp(op, "ptrace-attach") == 0) {
        ARGS(1);
        long pid = parse_long(args[0], 10, &ok);
        if (!ok || pid <= 0)
            return usage();
        return op_ptrace_attach((pid_t)pid);
    }
    if (strcmp(op, "kill") == 0) {
        ARGS(2);
        long pid = parse_long(args[0], 10, &ok);
        long sig = parse_long(args[1], 10, &ok2);
        if (!ok || !ok2 || sig < 0 || sig > 64)
            return usage();
        PROBE(kill((pid_t)pid, (int)sig));
    }
    if (strcmp(op, "setsid") == 0) {
        ARGS(0);
        PROBE(setsid());
    }
    if (strcmp(op, "unshare-user") == 0) {
        ARGS(0);
        PROBE(syscall(SYS_unshare, CLONE_NEWUSER));
    }
    if (strcmp(op, "clone-newuser") == 0) {
        ARGS(0);
        return op_clone_newuser();
    }
    if (strcmp(op, "clone3") == 0) {
        ARGS(0);
        return op_clone3();
    }
    if (strcmp(op, "io_uring_setup") == 0) {
        ARGS(0);
        return op_io_uring_setup();
    }
    if (strcmp(op, "bpf") == 0) {
        ARGS(0);
        return op_bpf();
    }
    if (strcmp(op, "mount") == 0) {
        ARGS(0);
        PROBE(syscall(SYS_mount, "none", "/nonexistent-paldron-probe", "tmpfs", 0UL, NULL));
    }
    if (strcmp(op, "tiocsti") == 0) {
        ARGS(0);
        char c = 'x';
        PROBE(syscall(SYS_ioctl, -1, (unsigned long)TIOCSTI, &c));
    }
    if (strcmp(op, "x32-getpid") == 0) {
        ARGS(0);
        return op_x32_getpid();
    }
#undef ARGS
    return usage();
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    int rc = run(argv[1], argv + 2, argc - 2);
    fflush(stdout);
    return rc;
}
