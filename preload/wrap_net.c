/* preload/wrap_net.c - connect (and its alias __connect), bind, sendto and
 * sendmsg on IP sockets, and getaddrinfo, while allow_network is false.
 * Under exec with namespaces (ctx.private_net) the run has a network
 * namespace of its own with only lo, so loopback and the wildcard addresses
 * are the run's own and pass (where the host refused the namespace,
 * seccomp refuses the IP socket itself); for the live gate alone (paldron
 * env) they are the host's. What the kernel layers would
 * say is what the caller sees: EACCES for connect and bind (Landlock's
 * answer for TCP), EPERM for sendto and sendmsg (seccomp's), EAI_FAIL for a
 * name lookup (glibc's resolver talks to the DNS server through internal
 * calls no preload can see, so the lookup itself is refused; numeric hosts
 * and localhost need no network and pass). UNIX sockets are not network;
 * binding one creates a file and is judged as PD_OP_CREATE. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "preload/judge.h"
#include "preload/kernel_refusal.h"

static bool is_ip(const struct sockaddr *sa, socklen_t len)
{
    return sa && len >= (socklen_t)sizeof(sa_family_t) &&
           (sa->sa_family == AF_INET || sa->sa_family == AF_INET6);
}

/* "1.2.3.4:80" or "[::1]:80" */
static void addr_text(const struct sockaddr *sa, socklen_t len, char *out, size_t outlen)
{
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
        snprintf(out, outlen, "%s:%u", host, port);
    } else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        port = ntohs(in6->sin6_port);
        snprintf(out, outlen, "[%s]:%u", host, port);
    } else {
        snprintf(out, outlen, "%s", "?");
    }
}

/* 127.0.0.0/8, ::1, 0.0.0.0, :: and their IPv4-mapped forms. */
static bool is_local(const struct sockaddr *sa, socklen_t len)
{
    if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        uint32_t a = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
        return (a >> 24) == 127 || a == 0;
    }
    if (sa->sa_family != AF_INET6 || len < (socklen_t)sizeof(struct sockaddr_in6))
        return false;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_UNSPECIFIED(a))
        return true;
    return IN6_IS_ADDR_V4MAPPED(a) &&
           (a->s6_addr[12] == 127 ||
            (a->s6_addr[12] | a->s6_addr[13] | a->s6_addr[14] | a->s6_addr[15]) == 0);
}

static bool net_ok(const struct pd_state *s, const char *op, const char *subject)
{
    if (s->mode == PD_MODE_CLOSED)
        return pd_closed_ok(s, op, subject);
    struct pd_verdict v;
    pd_verdict_allow(&v);
    snprintf(v.subject, sizeof v.subject, "%s", subject);
    snprintf(v.resolved, sizeof v.resolved, "%s", subject);
    if (!s->img->scalars[PD_IS_allow_network].i) {
        v.deny = true;
        v.reason = PD_REASON_NETWORK;
        v.key = "allow_network";
    }
    return pd_verdict_ok(s, op, subject, &v);
}

static bool sockaddr_ok(struct pd_call *call, const char *op, const struct sockaddr *sa,
                        socklen_t len)
{
    if (!is_ip(sa, len))
        return true;
    const struct pd_state *s = pd_enter(call);
    if (!s)
        return true;
    if (s->mode != PD_MODE_CLOSED && (s->img->flags & PD_IMAGE_PRIVATE_NET) && is_local(sa, len))
        return true; /* the caller leaves */
    char text[INET6_ADDRSTRLEN + 16];
    addr_text(sa, len, text, sizeof text);
    return net_ok(s, op, text);
}

/* A connect to a pathname UNIX socket failed: the namespace floor masks
 * the host's sockets the run may not reach (kernel_refusal.h). */
static int unix_after(int rc, const struct sockaddr *sa, socklen_t len)
{
    size_t off = offsetof(struct sockaddr_un, sun_path);
    if (rc == 0 || !sa || sa->sa_family != AF_UNIX || len <= (socklen_t)off)
        return rc;
    int err = errno;
    const struct sockaddr_un *un = (const struct sockaddr_un *)(const void *)sa;
    char path[sizeof un->sun_path + 1];
    size_t n = (size_t)len - off;
    if (n > sizeof un->sun_path)
        n = sizeof un->sun_path;
    memcpy(path, un->sun_path, n);
    path[n] = '\0'; /* an abstract name starts with a NUL: "" */
    pd_kernel_refused_unix(path, err);
    errno = err;
    return rc;
}

int pdw_connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
    PD_NEED(connect, -1);
    struct pd_call call = {.entered = false};
    call.saved_errno = errno;
    if (!sockaddr_ok(&call, "connect", PD_SOCKADDR(addr), len))
        return pd_fail(&call, EACCES);
    pd_leave(&call);
    return unix_after(pd_real.connect(fd, addr, len), PD_SOCKADDR(addr), len);
}

/* connect's public alias */
int pdw___connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
    PD_NEED(__connect, -1);
    struct pd_call call = {.entered = false};
    call.saved_errno = errno;
    if (!sockaddr_ok(&call, "connect", PD_SOCKADDR(addr), len))
        return pd_fail(&call, EACCES);
    pd_leave(&call);
    return unix_after(pd_real.__connect(fd, addr, len), PD_SOCKADDR(addr), len);
}

/* Not gated (a socket reaches nothing yet): a refusal by the seccomp
 * filter is reported. */
int pdw_socket(int domain, int type, int protocol)
{
    PD_NEED(socket, -1);
    int fd = pd_real.socket(domain, type, protocol);
    if (fd < 0) {
        int err = errno;
        pd_kernel_refused_socket(domain, type, err);
        errno = err;
    }
    return fd;
}

int pdw_bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
    PD_NEED(bind, -1);
    const struct sockaddr *sa = PD_SOCKADDR(addr);
    struct pd_call call = {.entered = false};
    call.saved_errno = errno;
    bool ok;
    if (sa && sa->sa_family == AF_UNIX && len > (socklen_t)offsetof(struct sockaddr_un, sun_path)) {
        /* a named UNIX socket is a new file */
        const struct sockaddr_un *un = (const struct sockaddr_un *)(const void *)sa;
        char path[sizeof un->sun_path + 1];
        size_t n = (size_t)len - offsetof(struct sockaddr_un, sun_path);
        if (n > sizeof un->sun_path)
            n = sizeof un->sun_path;
        memcpy(path, un->sun_path, n);
        path[n] = '\0';
        const struct pd_state *s = path[0] ? pd_enter(&call) : NULL;
        /* an existing name: the kernel says EADDRINUSE and creates nothing */
        ok = !s || pd_path_ok(s, PD_OP_CREATE, AT_FDCWD, path, PD_J_NAME | PD_J_EXISTING_PASSES);
    } else {
        ok = sockaddr_ok(&call, "bind", sa, len);
    }
    if (!ok)
        return pd_fail(&call, EACCES);
    pd_leave(&call);
    return pd_real.bind(fd, addr, len);
}

ssize_t pdw_sendto(int fd, const void *buf, size_t n, int flags, __CONST_SOCKADDR_ARG addr,
                   socklen_t len)
{
    PD_NEED(sendto, -1);
    struct pd_call call = {.entered = false};
    call.saved_errno = errno;
    if (!sockaddr_ok(&call, "send", PD_SOCKADDR(addr), len))
        return pd_fail(&call, EPERM);
    pd_leave(&call);
    return pd_real.sendto(fd, buf, n, flags, addr, len);
}

ssize_t pdw_sendmsg(int fd, const struct msghdr *msg, int flags)
{
    PD_NEED(sendmsg, -1);
    struct pd_call call = {.entered = false};
    call.saved_errno = errno;
    if (msg && !sockaddr_ok(&call, "send", msg->msg_name, msg->msg_namelen))
        return pd_fail(&call, EPERM);
    pd_leave(&call);
    return pd_real.sendmsg(fd, msg, flags);
}

/* A lookup that needs no network: a numeric address or the local host. */
static bool local_name(const char *node, const struct addrinfo *hints)
{
    unsigned char buf[sizeof(struct in6_addr)];
    if (hints && (hints->ai_flags & AI_NUMERICHOST))
        return true;
    if (inet_pton(AF_INET, node, buf) == 1 || inet_pton(AF_INET6, node, buf) == 1)
        return true;
    size_t n = strlen(node);
    if (n && node[n - 1] == '.')
        n--;
    static const char names[][24] = {"localhost", "localhost.localdomain", "ip6-localhost",
                                     "ip6-loopback", ""};
    for (size_t k = 0; names[k][0]; k++)
        if (strlen(names[k]) == n && strncasecmp(node, names[k], n) == 0)
            return true;
    return n > 10 && strncasecmp(node + n - 10, ".localhost", 10) == 0;
}

int pdw_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                    struct addrinfo **res)
{
    PD_NEED(getaddrinfo, EAI_SYSTEM);
    struct pd_call call;
    const struct pd_state *s = node ? pd_enter(&call) : NULL;
    if (s && !local_name(node, hints) && !net_ok(s, "resolve", node)) {
        pd_leave(&call);
        return EAI_FAIL;
    }
    if (s)
        pd_leave(&call);
    return pd_real.getaddrinfo(node, service, hints, res);
}
