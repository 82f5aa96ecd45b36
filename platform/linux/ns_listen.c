/* platform/linux/ns_listen.c - the listeners of a run whose policy names
 * hosts (allow_hosts; platform.h, struct pd_ns_listen). They are made here,
 * in the child, because a socket belongs to the network namespace it was
 * made in: listening sockets of the run's namespace, held by the launcher,
 * are how the run reaches the launcher's proxy and DNS server without any
 * route out, relay process or socket file. Port 53 needs
 * CAP_NET_BIND_SERVICE, which the child holds over its own namespace until
 * execve. Nothing here allocates (the child of a vfork). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "platform/linux/backend.h"

#define BACKLOG 4096 /* package managers open many connections at once */

/* One listener: a socket of type on addr:port (IPv4 dotted or IPv6), bound
 * and (for TCP) listening. -1 with errno. */
static int listener(int family, int type, const char *addr, uint16_t port)
{
    union {
        struct sockaddr sa;
        struct sockaddr_in in;
        struct sockaddr_in6 in6;
    } u;
    socklen_t len;
    memset(&u, 0, sizeof u);
    if (family == AF_INET) {
        u.in.sin_family = AF_INET;
        u.in.sin_port = htons(port);
        inet_pton(AF_INET, addr, &u.in.sin_addr);
        len = sizeof u.in;
    } else {
        u.in6.sin6_family = AF_INET6;
        u.in6.sin6_port = htons(port);
        inet_pton(AF_INET6, addr, &u.in6.sin6_addr);
        len = sizeof u.in6;
    }
    int fd = socket(family, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    if (family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, &u.sa, len) != 0 || (type == SOCK_STREAM && listen(fd, BACKLOG) != 0)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int pd_ns_listen_send(const struct pd_ns_listen *l, char *err, size_t errlen)
{
    static const struct {
        unsigned bit;
        int family, type;
        const char *addr;
        bool dns;
        bool required;
    } want[PD_LISTEN_MAX] = {
        {PD_LISTEN_PROXY4, AF_INET, SOCK_STREAM, "127.0.0.1", false, true},
        {PD_LISTEN_PROXY6, AF_INET6, SOCK_STREAM, "::1", false, false},
        {PD_LISTEN_DNS_UDP, AF_INET, SOCK_DGRAM, "127.0.0.53", true, true},
        {PD_LISTEN_DNS_TCP, AF_INET, SOCK_STREAM, "127.0.0.53", true, true},
        {PD_LISTEN_DNS_UDP1, AF_INET, SOCK_DGRAM, "127.0.0.1", true, false},
        {PD_LISTEN_DNS_TCP1, AF_INET, SOCK_STREAM, "127.0.0.1", true, false},
    };
    int fds[PD_LISTEN_MAX];
    size_t n = 0;
    unsigned char mask = 0;
    int rc = 0;
    for (size_t k = 0; k < PD_LISTEN_MAX; k++) {
        int fd =
            listener(want[k].family, want[k].type, want[k].addr, want[k].dns ? 53 : l->proxy_port);
        if (fd < 0 && want[k].required) {
            pd_errf(err, errlen, "network namespace: listen on %s:%u for allow_hosts: %s",
                    want[k].addr, want[k].dns ? 53u : (unsigned)l->proxy_port, strerror(errno));
            rc = -1;
            break;
        }
        if (fd >= 0) {
            fds[n++] = fd;
            mask = (unsigned char)(mask | want[k].bit);
        }
    }
    if (rc == 0) {
        union {
            char buf[CMSG_SPACE(sizeof(int) * PD_LISTEN_MAX)];
            struct cmsghdr align;
        } ctl;
        memset(&ctl, 0, sizeof ctl);
        struct iovec iov = {&mask, 1};
        struct msghdr m = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = ctl.buf,
                           .msg_controllen = CMSG_SPACE(sizeof(int) * n)};
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        ssize_t sent = -1;
        errno = EINVAL;
        if (c) {
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int) * n);
            memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
            do
                sent = sendmsg(l->chan, &m, MSG_NOSIGNAL);
            while (sent < 0 && errno == EINTR);
        }
        if (sent != 1) {
            pd_errf(err, errlen, "network namespace: hand the listeners to the launcher: %s",
                    sent < 0 ? strerror(errno) : "short message");
            rc = -1;
        }
    }
    /* the run keeps none of them: only the launcher serves them */
    for (size_t k = 0; k < n; k++)
        close(fds[k]);
    close(l->chan);
    return rc;
}

int pd_ns_resolv_conf(const struct pd_ns_listen *l, char *err, size_t errlen)
{
    struct stat st;
    if (!l->resolv_conf)
        return 0;
    /* no /etc/resolv.conf: glibc asks 127.0.0.1, which is served too */
    if (stat("/etc/resolv.conf", &st) != 0 && errno == ENOENT)
        return 0;
    char why[PD_PLATFORM_ERR_MAX];
    if (pd_ns_bind(l->resolv_conf, "/etc/resolv.conf", MS_RDONLY | MS_NOSUID | MS_NODEV, false, why,
                   sizeof why) != 0) {
        pd_errf(err, errlen, "network namespace: the run's resolv.conf: %s", why);
        return -1;
    }
    return 0;
}
