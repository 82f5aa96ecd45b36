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
#include <netdb.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "policy/hosts.h"
#include "policy/report.h"
#include "preload/channel.h"
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

/* ---- allow_hosts ------------------------------------------------------------
 * With the run's own network namespace (exec) the run reaches allowed
 * hosts through the launcher's proxy and DNS server, and nothing else:
 * a name lookup goes to that DNS server, which decides; a direct connect
 * to a host that is not loopback is refused by the kernel (no route:
 * ENETUNREACH, as the program would get bare in that namespace) and
 * reported here as blocked, with the reason. Without the namespace
 * (allow_hosts_without_namespace = true) this file is the whole of
 * allow_hosts: a lookup of a name allow_hosts does not name fails
 * (EAI_NONAME) and is a denial; a connect goes through when its address
 * came from a lookup of an allowed name (in this process) and that name is
 * allowed on the port, or when an IP-literal entry allows it. */

static bool hosts_mode(const struct pd_state *s)
{
    return s->mode == PD_MODE_ACTIVE && s->img->lists[PD_IL_allow_hosts].n > 0;
}

static bool private_net(const struct pd_state *s)
{
    return (s->img->flags & PD_IMAGE_PRIVATE_NET) != 0;
}

/* The addresses lookups of allowed names returned in this process, for
 * the connects that follow (fallback mode): a ring, appended lock-free. */
#define LEARNED 256
struct learned {
    _Atomic int family; /* 0: empty */
    unsigned char addr[16];
    char name[256];
};
static struct learned learned[LEARNED];
static _Atomic unsigned learned_next;

static void learn(const char *name, const struct addrinfo *res)
{
    for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        struct learned *l = &learned[atomic_fetch_add(&learned_next, 1) % LEARNED];
        atomic_store(&l->family, 0);
        if (ai->ai_family == AF_INET)
            memcpy(l->addr, &((const struct sockaddr_in *)(const void *)ai->ai_addr)->sin_addr, 4);
        else
            memcpy(l->addr, &((const struct sockaddr_in6 *)(const void *)ai->ai_addr)->sin6_addr,
                   16);
        snprintf(l->name, sizeof l->name, "%s", name);
        atomic_store(&l->family, ai->ai_family);
    }
}

/* The allowed name an address was learned for, or NULL. */
static const char *learned_name(const struct sockaddr *sa)
{
    int family = sa->sa_family;
    const void *a = family == AF_INET
                        ? (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr
                        : (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    size_t n = family == AF_INET ? 4 : 16;
    for (size_t k = 0; k < LEARNED; k++)
        if (atomic_load(&learned[k].family) == family && memcmp(learned[k].addr, a, n) == 0)
            return learned[k].name;
    return NULL;
}

static unsigned port_of(const struct sockaddr *sa)
{
    return ntohs(sa->sa_family == AF_INET
                     ? ((const struct sockaddr_in *)(const void *)sa)->sin_port
                     : ((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
}

/* The decision on a connect (send, bind) to sa, text its "addr:port". */
static bool hosts_ok(const struct pd_state *s, const char *op, const struct sockaddr *sa,
                     const char *text)
{
    if (private_net(s)) {
        if (strcmp(op, "connect") == 0) {
            struct pd_event ev = {PD_REPORT_BLOCKED,
                                  op,
                                  text,
                                  "",
                                  "allow_hosts",
                                  "",
                                  "a direct connection; allowed hosts are reached through the "
                                  "run's proxy ($HTTPS_PROXY)"};
            pd_emit(s, &ev, true);
        }
        return true; /* the kernel says no route: ENETUNREACH */
    }
    const struct pd_full *f = pd_full_or_refuse(s, op, text);
    if (!f)
        return false;
    char host[INET6_ADDRSTRLEN] = "";
    const char *name = learned_name(sa);
    if (!name) {
        const void *a =
            sa->sa_family == AF_INET
                ? (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr
                : (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        inet_ntop(sa->sa_family, a, host, sizeof host);
        name = host;
    }
    struct pd_verdict v;
    pd_host_decide(&f->policy, name, port_of(sa), &v);
    snprintf(v.subject, sizeof v.subject, "%s", text);
    return pd_verdict_ok(s, op, text, &v);
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
    if (hosts_mode(s) && strcmp(op, "bind") != 0)
        return hosts_ok(s, op, sa, text);
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

/* allow_hosts: may node be looked up? In the run's namespace its DNS
 * server decides (true); else (fallback) a name allow_hosts names. */
static bool hosts_lookup_ok(const struct pd_state *s, const char *node, bool *learn_it)
{
    *learn_it = false;
    if (private_net(s))
        return true;
    const struct pd_full *f = pd_full_or_refuse(s, "resolve", node);
    if (!f)
        return false;
    if (pd_host_resolvable(&f->policy, node)) {
        *learn_it = true;
        return true;
    }
    struct pd_verdict v;
    pd_verdict_allow(&v);
    v.deny = true;
    v.reason = PD_REASON_HOST_NOT_ALLOWED;
    v.key = "allow_hosts";
    snprintf(v.subject, sizeof v.subject, "%s", node);
    return pd_verdict_ok(s, "resolve", node, &v);
}

int pdw_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                    struct addrinfo **res)
{
    PD_NEED(getaddrinfo, EAI_SYSTEM);
    struct pd_call call;
    const struct pd_state *s = node ? pd_enter(&call) : NULL;
    bool learn_it = false;
    if (s && !local_name(node, hints)) {
        bool ok = hosts_mode(s) ? hosts_lookup_ok(s, node, &learn_it) : net_ok(s, "resolve", node);
        if (!ok) {
            pd_leave(&call);
            return hosts_mode(s) ? EAI_NONAME : EAI_FAIL;
        }
    }
    if (s)
        pd_leave(&call);
    int rc = pd_real.getaddrinfo(node, service, hints, res);
    if (rc == 0 && learn_it)
        learn(node, *res);
    return rc;
}
