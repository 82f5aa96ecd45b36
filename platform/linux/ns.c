/* platform/linux/ns.c - the namespace step of pd_platform_apply, in order:
 * enter user, mount, IPC (and with the network off, network) namespaces;
 * lo up; the listeners of allow_hosts made and handed to the launcher
 * (ns_listen.c); private /tmp and /dev/shm with what the run needs bound back;
 * protected paths read-only, secrets and host sockets masked; the working
 * directory entered again (the old one is a directory of the mount the
 * private /tmp now hides, or would miss the masks).
 *
 * Refusal versus failure: when the kernel refuses the namespaces themselves
 * (unshare, the uid map, or the first mount of a user namespace without
 * capabilities), the run goes on with Landlock, seccomp and rlimits and the
 * report says why (PD_NS_REFUSED), unless ns.require. Any later failure is
 * an error: half a floor would be less isolation than the report says. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "platform/linux/backend.h"

static int refused(const struct pd_ns_spec *ns, struct pd_ns_report *r, const char *cause,
                   char *err, size_t errlen)
{
    if (ns->require && ns->require_why) {
        pd_errf(err, errlen, "namespaces unavailable: %s (%s)", cause, ns->require_why);
        return -1;
    }
    if (ns->require) {
        pd_errf(err, errlen,
                "namespaces unavailable: %s (require_namespaces = true; set it to false to run "
                "with Landlock, seccomp and rlimits only)",
                cause);
        return -1;
    }
    r->state = PD_NS_REFUSED;
    r->net_ns = false;
    snprintf(r->cause, sizeof r->cause, "%s", cause);
    return 0;
}

int pd_ns_apply(const struct pd_sandbox_spec *spec, struct pd_ns_report *r, char *err,
                size_t errlen)
{
    const struct pd_ns_spec *ns = &spec->ns;
    char why[PD_PLATFORM_ERR_MAX];
    if (!ns->enable)
        return 0;
    const bool net = !spec->allow_network;
    int rc = pd_ns_enter(net, &ns->join, &r->user_ns, why, sizeof why);
    if (rc == PD_NS_REFUSE)
        return refused(ns, r, why, err, errlen);
    if (rc != 0) {
        pd_errf(err, errlen, "%s", why);
        return -1;
    }
    r->net_ns = net;
    if (net) {
        rc = pd_ns_loopback_up(why, sizeof why);
        if (rc == PD_NS_REFUSE)
            return refused(ns, r, why, err, errlen);
        if (rc != 0) {
            pd_errf(err, errlen, "%s", why);
            return -1;
        }
    }
    if (net && ns->listen && pd_ns_listen_send(ns->listen, err, errlen) != 0)
        return -1;
    rc = pd_ns_private_tmp(ns, why, sizeof why);
    if (rc == PD_NS_REFUSE)
        return refused(ns, r, why, err, errlen);
    if (rc != 0) {
        pd_errf(err, errlen, "%s", why);
        return -1;
    }
    if (net && ns->listen && pd_ns_resolv_conf(ns->listen, err, errlen) != 0)
        return -1;
    if (pd_ns_masks(ns, r, err, errlen) != 0)
        return -1;
    if (ns->workdir && chdir(ns->workdir) != 0) {
        pd_errf(err, errlen, "chdir %s: %s", ns->workdir, strerror(errno));
        return -1;
    }
    r->state = PD_NS_ACTIVE;
    return 0;
}
