/* launcher/cli/cmd_connect.c - `paldron connect HOST PORT`: a tunnel through
 * the run's proxy of allow_hosts (net_proxy.h) between stdin/stdout and
 * HOST:PORT, for ssh's ProxyCommand (the run's GIT_SSH_COMMAND). It runs
 * inside the run, as any program there does; the proxy judges the target
 * (policy/gate_exec.h, rule h, lets it start). */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "launcher/launcher.h"

#define HEAD_MAX 8192

/* The decimal number at *s (digits only, at most max), *s moved past it.
 * Not sscanf's %u, which wraps a number beyond UINT_MAX into range (it read
 * http://4294967423.0.0.1 as 127.0.0.1). */
static bool decimal(const char **s, unsigned long max, unsigned long *out)
{
    const char *p = *s;
    unsigned long v = 0;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > max)
            return false;
    }
    *s = p;
    *out = v;
    return true;
}

/* The proxy's loopback address from the environment: http://127.0.0.1:P
 * (anything may follow the port). */
static int proxy_addr(struct sockaddr_in *out)
{
    static const char *const vars[] = {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY",
                                       "http_proxy",  "ALL_PROXY",   "all_proxy"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        const char *s = getenv(vars[k]);
        if (!s || strncmp(s, "http://", 7) != 0)
            continue;
        s += 7;
        unsigned long addr = 0, part = 0, port = 0;
        bool ok = true;
        for (int i = 0; i < 4 && ok; i++) {
            ok = decimal(&s, 255, &part) && *s++ == (i < 3 ? '.' : ':');
            addr = addr << 8 | part;
        }
        if (ok && decimal(&s, 65535, &port) && port > 0) {
            memset(out, 0, sizeof *out);
            out->sin_family = AF_INET;
            out->sin_port = htons((uint16_t)port);
            out->sin_addr.s_addr = htonl((uint32_t)addr);
            return 0;
        }
    }
    return -1;
}

static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Pass bytes both ways until both ends are done. */
static int relay(int sock)
{
    char buf[65536];
    bool in_open = true, sock_open = true;
    while (sock_open) {
        struct pollfd pf[2] = {{in_open ? 0 : -1, POLLIN, 0}, {sock, POLLIN, 0}};
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (in_open && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(0, buf, sizeof buf);
            if (n > 0) {
                if (write_all(sock, buf, (size_t)n) != 0)
                    return -1;
            } else if (n == 0 || errno != EINTR) {
                in_open = false;
                shutdown(sock, SHUT_WR);
            }
        }
        if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(sock, buf, sizeof buf);
            if (n > 0) {
                if (write_all(1, buf, (size_t)n) != 0)
                    return -1;
            } else if (n == 0 || errno != EINTR) {
                sock_open = false;
            }
        }
    }
    return 0;
}

int pd_cmd_connect(const struct pd_cli *cli)
{
    if (cli->argc != 2) {
        pd_err("usage: paldron connect HOST PORT");
        return PD_EXIT_BROKEN;
    }
    const char *host = cli->argv[0], *port = cli->argv[1];
    char *end;
    long p = strtol(port, &end, 10);
    if (!host[0] || strpbrk(host, " \r\n\t") || *end || p < 1 || p > 65535) {
        pd_err("connect: not a host and port: %s %s", host, port);
        return PD_EXIT_BROKEN;
    }
    struct sockaddr_in proxy;
    if (proxy_addr(&proxy) != 0) {
        pd_err("connect: no proxy in the environment (HTTPS_PROXY=http://127.0.0.1:PORT): this "
               "runs inside a paldron exec run whose policy sets allow_hosts");
        return PD_EXIT_BROKEN;
    }
    int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *)&proxy, sizeof proxy) != 0) {
        pd_err("connect: the run's proxy: %s", strerror(errno));
        return PD_EXIT_BROKEN;
    }
    /* an IPv6 literal goes bracketed */
    const bool v6 = strchr(host, ':') != NULL;
    char req[600];
    int n = snprintf(req, sizeof req, "CONNECT %s%s%s:%ld HTTP/1.1\r\nHost: %s%s%s:%ld\r\n\r\n",
                     v6 ? "[" : "", host, v6 ? "]" : "", p, v6 ? "[" : "", host, v6 ? "]" : "", p);
    if (n < 0 || (size_t)n >= sizeof req || write_all(sock, req, (size_t)n) != 0) {
        pd_err("connect: the run's proxy: %s", strerror(errno));
        close(sock);
        return PD_EXIT_BROKEN;
    }
    /* the reply's head, a byte at a time: nothing after it may be lost */
    char head[HEAD_MAX + 1];
    size_t len = 0;
    while (len < HEAD_MAX) {
        ssize_t r = read(sock, head + len, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len++;
        if (len >= 4 && memcmp(head + len - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    head[len] = '\0';
    if (strncmp(head, "HTTP/1.1 200", 12) != 0 && strncmp(head, "HTTP/1.0 200", 12) != 0) {
        /* the refusal as the proxy gave it: its X-Paldron-Error */
        const char *why = strstr(head, "X-Paldron-Error: ");
        char line[300] = "";
        if (why)
            sscanf(why + 17, "%299[^\r\n]", line);
        pd_err("connect: %s:%ld: %s", host, p, line[0] ? line : "refused by the run's proxy");
        close(sock);
        return strncmp(head, "HTTP/1.1 403", 12) == 0 ? PD_EXIT_DENY : PD_EXIT_BROKEN;
    }
    int rc = relay(sock);
    close(sock);
    return rc == 0 ? PD_EXIT_ALLOW : PD_EXIT_BROKEN;
}
