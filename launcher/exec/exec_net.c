/* launcher/exec/exec_net.c - a run whose policy names hosts (allow_hosts): the
 * run's own network namespace has only lo; the child makes the proxy's and
 * the DNS server's listeners in it and hands them over (platform.h,
 * struct pd_ns_listen); the launcher serves them (net_proxy.h) while the
 * run lasts; the command's environment points every client at the proxy
 * (exec_env.c). Without the namespace an allowlist is no allowlist (static
 * binaries and Go's own resolver ignore the live gate), so the namespaces
 * are required - unless allow_hosts_without_namespace = true, which falls
 * back to the live gate's connect and lookup checks and says so on every
 * run. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"
#include "launcher/exec/live.h"
#include "launcher/net/net_proxy.h"

#define RESOLV_CONF "nameserver 127.0.0.53\n"
#define PORT_LOW    40000
#define PORT_SPAN   20000
#define REQUIRE_WHY                                                                                \
    "allow_hosts needs the run's own network namespace, which static binaries cannot leave; set "  \
    "allow_hosts_without_namespace = true to fall back to the live gate's checks of connect and "  \
    "name lookups, which static binaries and raw system calls skip"

/* A port for the proxy in the run's namespace, where nothing else listens
 * yet: one of PORT_SPAN above PORT_LOW, so that a server the command
 * starts on a well-known port (3128, 8080) finds it free. */
static uint16_t proxy_port(void)
{
    uint16_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (uint16_t)getpid();
    return (uint16_t)(PORT_LOW + r % PORT_SPAN);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int err = errno;
    if (close(fd) != 0 && w == (ssize_t)n)
        return -1;
    errno = err;
    return w == (ssize_t)n ? 0 : -1;
}

/* The launcher's own binary, for `paldron connect` in GIT_SSH_COMMAND. */
static void self_path(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = '\0';
}

int pd_exec_net_plan(struct pd_exec_plan *p, struct pd_ctx *ctx)
{
    struct pd_exec_net *n = &p->net;
    n->chan[0] = n->chan[1] = -1;
    const struct pd_policy *pol = p->ctx->policy;
    if (pol->allow_hosts.n == 0)
        return 0;
    if (!p->isolated || !pol->namespaces) {
        if (!pol->allow_hosts_without_namespace) {
            pd_err("allow_hosts: %s: %s",
                   !p->isolated ? "the run has no OS isolation "
                                  "(require_os_isolation = false)"
                                : "namespaces = false in the policy",
                   REQUIRE_WHY);
            return -1;
        }
        n->fallback = true;
        snprintf(n->fallback_why, sizeof n->fallback_why, "%s",
                 !p->isolated ? "no OS isolation" : "namespaces = false in the policy");
        return 0;
    }
    /* Where the fallback is allowed, whether the host gives namespaces must
     * be known now: the run's environment and live gate differ. Without
     * it, a refusal in the child is an error (pd_exec_net_spec). */
    if (pol->allow_hosts_without_namespace &&
        !pd_platform_ns_available(true, n->fallback_why, sizeof n->fallback_why)) {
        n->fallback = true;
        ctx->private_net = false;
        return 0;
    }
    n->on = true;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, n->chan) != 0) {
        pd_err("allow_hosts: socketpair: %s", strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(n->resolv, sizeof n->resolv, "%s/resolv.conf", p->rundir.path) >=
            sizeof n->resolv ||
        write_file(n->resolv, RESOLV_CONF) != 0) {
        pd_err("allow_hosts: write %s: %s", n->resolv, strerror(errno));
        return -1;
    }
    uint16_t port = proxy_port();
    snprintf(n->proxy_url, sizeof n->proxy_url, "http://127.0.0.1:%u", (unsigned)port);
    char self[PD_PATH_MAX];
    self_path(self, sizeof self);
    /* the connect helper may start in the run (policy/gate_exec.h, rule h) */
    if (!realpath(self, ctx->connect_helper))
        ctx->connect_helper[0] = '\0';
    /* ssh to an allowed host through the proxy; no shared master
     * connection: each is judged */
    snprintf(n->ssh_command, sizeof n->ssh_command,
             "ssh -o ProxyCommand='%s connect %%h %%p' -o ControlMaster=no -o ControlPath=none",
             self);
    n->listen =
        (struct pd_ns_listen){.chan = n->chan[1], .proxy_port = port, .resolv_conf = n->resolv};
    return 0;
}

void pd_exec_net_spec(struct pd_exec_plan *p)
{
    struct pd_exec_net *n = &p->net;
    if (!n->on)
        return;
    p->spec.ns.listen = &n->listen;
    /* refused namespaces are an error, not a fallback */
    p->spec.ns.require = true;
    p->spec.ns.require_why = REQUIRE_WHY;
}

int pd_exec_net_start(struct pd_exec_plan *p)
{
    struct pd_exec_net *n = &p->net;
    if (!n->on)
        return 0;
    /* the child (or the keeper's) has its end: the listeners come over ours */
    close(n->chan[1]);
    n->chan[1] = -1;
    char err[PD_MSG_MAX];
    n->proxy =
        pd_net_proxy_start(p->ctx->policy, n->chan[0], p->live && p->live->audit, err, sizeof err);
    if (!n->proxy) {
        pd_err("%s", err);
        return -1;
    }
    return 0;
}

static void add_record(const struct pd_report *r, void *user)
{
    pd_live_add(user, r);
}

void pd_exec_net_stop(struct pd_exec_plan *p, struct pd_live *live)
{
    struct pd_exec_net *n = &p->net;
    if (!n->proxy)
        return;
    pd_net_proxy_stop(n->proxy);
    if (live)
        pd_net_proxy_records(n->proxy, add_record, live);
    const char *debug = getenv("PALDRON_DEBUG");
    if (debug && strcmp(debug, "net") == 0)
        pd_err("net: listeners %s; %zu name(s) resolved on the host",
               pd_net_proxy_served(n->proxy) ? "served" : "never arrived",
               pd_net_proxy_lookups(n->proxy));
}

void pd_exec_net_free(struct pd_exec_plan *p)
{
    struct pd_exec_net *n = &p->net;
    pd_net_proxy_free(n->proxy);
    n->proxy = NULL;
    for (int k = 0; k < 2; k++)
        if (n->chan[k] >= 0)
            close(n->chan[k]);
    n->chan[0] = n->chan[1] = -1;
}
