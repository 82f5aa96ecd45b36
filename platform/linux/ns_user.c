/* platform/linux/ns_user.c - enter the run's namespaces: user (unless
 * Paldron runs as real root, which needs none to mount), mount, IPC and,
 * with the network off, network. The user namespace maps the caller's uid
 * and gid to themselves, so that files keep their owners and the command
 * keeps its identity; every other id shows as the overflow id (65534), as
 * in bubblewrap. The capabilities the new namespace grants last until
 * execve, which drops them (the mapped uid is not 0). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/linux/backend.h"

/* Write text to a /proc/self file in one write (the kernel takes a map in
 * one go or not at all). */
static int write_proc(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = errno;
    close(fd);
    if (w != (ssize_t)n) {
        errno = w < 0 ? e : EIO;
        return -1;
    }
    return 0;
}

/* errno values that mean "this host does not give namespaces to us":
 * EPERM (Docker's seccomp profile, AppArmor, no CAP_SYS_ADMIN as root in
 * a container), ENOSPC / EUSERS (user.max_user_namespaces = 0 or nesting
 * too deep), EINVAL / ENOSYS (kernel built without them), EACCES. */
static bool refusal(int e)
{
    return e == EPERM || e == ENOSPC || e == EUSERS || e == EINVAL || e == ENOSYS || e == EACCES;
}

/* Join the namespaces made ahead, then make the mount namespace in them.
 * 1: the user namespace could not be joined, nothing changed (the caller
 * makes its own). */
static int join_early(const struct pd_ns_join *j, char *err, size_t errlen)
{
    if (j->user && setns(j->user_fd, CLONE_NEWUSER) != 0)
        return 1;
    if ((j->net && setns(j->net_fd, CLONE_NEWNET) != 0) || setns(j->ipc_fd, CLONE_NEWIPC) != 0) {
        pd_errf(err, errlen, "setns(%s): %s", j->net ? "net, ipc" : "ipc", strerror(errno));
        return -1;
    }
    if (unshare(CLONE_NEWNS) != 0) {
        pd_errf(err, errlen, "unshare(mount): %s", strerror(errno));
        return -1;
    }
    return 0;
}

void pd_ns_id_map(char *out, size_t len, unsigned long id)
{
    snprintf(out, len, "%lu %lu 1\n", id, id);
}

int pd_ns_enter(bool net, const struct pd_ns_join *join, bool *user_ns, char *err, size_t errlen)
{
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    const bool user = uid != 0;
    if (join && join->on && join->net == net && join->user == user) {
        /* the same namespaces pd_ns_early_start made, maps included */
        int rc = join_early(join, err, errlen);
        if (rc <= 0) {
            *user_ns = rc == 0 && user;
            return rc;
        }
    }
    int flags = CLONE_NEWNS | CLONE_NEWIPC | (net ? CLONE_NEWNET : 0);
    if (user)
        flags |= CLONE_NEWUSER;
    *user_ns = false;
    if (unshare(flags) != 0) {
        int e = errno;
        pd_errf(err, errlen, "unshare(%s%s%s): %s", user ? "user, " : "", "mount, ipc",
                net ? ", net" : "", strerror(e));
        return refusal(e) ? PD_NS_REFUSE : -1;
    }
    if (!user)
        return 0;
    *user_ns = true;
    char map[64];
    /* setgroups must be denied before an unprivileged gid_map is written. */
    if (write_proc("/proc/self/setgroups", "deny") != 0 && errno != ENOENT) {
        int e = errno;
        pd_errf(err, errlen, "user namespace: write /proc/self/setgroups: %s", strerror(e));
        return refusal(e) ? PD_NS_REFUSE : -1;
    }
    pd_ns_id_map(map, sizeof map, (unsigned long)uid);
    if (write_proc("/proc/self/uid_map", map) != 0) {
        int e = errno;
        pd_errf(err, errlen, "user namespace: write uid_map: %s", strerror(e));
        return refusal(e) ? PD_NS_REFUSE : -1;
    }
    pd_ns_id_map(map, sizeof map, (unsigned long)gid);
    if (write_proc("/proc/self/gid_map", map) != 0) {
        int e = errno;
        pd_errf(err, errlen, "user namespace: write gid_map: %s", strerror(e));
        return refusal(e) ? PD_NS_REFUSE : -1;
    }
    return 0;
}

bool pd_platform_ns_available(bool net, char *why, size_t whylen)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        pd_errf(why, whylen, "pipe: %s", strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        pd_errf(why, whylen, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        char err[256] = "";
        bool user;
        int rc = pd_ns_enter(net, NULL, &user, err, sizeof err);
        if (rc != 0 && write(fds[1], err, strlen(err)) < 0)
            _exit(2);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    char buf[256];
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    buf[n > 0 ? n : 0] = '\0';
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok)
        pd_errf(why, whylen, "%s", buf[0] ? buf : "the namespace probe failed");
    return ok;
}
