/* launcher/net/net_proxy.h - the run's network when the policy names hosts
 * (allow_hosts): the launcher serves the listeners made inside the run's
 * network namespace (platform.h, struct pd_ns_listen) from the host's
 * network, on a thread of its own:
 *
 *   - a proxy on 127.0.0.1 and [::1]: HTTP CONNECT, absolute-form HTTP and
 *     SOCKS5 on one port (the first byte tells them apart). Each request is
 *     judged by pd_host_decide (policy/hosts.h); an allowed name is
 *     resolved here (net_resolve.h), its addresses are vetted
 *     (pd_addr_refused: no cloud metadata) and dialled without a second
 *     lookup. A refusal answers 403 with the reason in the body and an
 *     X-Paldron-Error header (SOCKS5: "not allowed by ruleset") and is a
 *     denial of the run: "paldron: deny: <program> connect <host:port>
 *     (not in allow_hosts)";
 *   - a DNS server on 127.0.0.53:53 and 127.0.0.1:53 (UDP and TCP): A and
 *     AAAA of allowed names from the same resolution, TTL 0; NXDOMAIN for
 *     every other name, never asked upstream, reported as blocked;
 *     rate-limited.
 *
 * No relay process, no socket file, no token: the listening sockets exist
 * in the run's namespace only and the launcher alone holds them, so the
 * run has no network once the launcher is gone. */
#ifndef PALDRON_LAUNCHER_NET_PROXY_H
#define PALDRON_LAUNCHER_NET_PROXY_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"
#include "policy/report.h"

struct pd_net_proxy;

/* Serve what arrives on chan (the launcher's end of the socketpair whose
 * other end the child sends the listeners over) until pd_net_proxy_stop.
 * audit (--audit): what allow_hosts refuses goes through and is recorded
 * as "audit: would deny" (cloud metadata addresses stay refused). The
 * policy must outlive the proxy. NULL with err. */
struct pd_net_proxy *pd_net_proxy_start(const struct pd_policy *p, int chan, bool audit, char *err,
                                        size_t errlen);

/* Close every listener and connection, end the thread. Idempotent. */
void pd_net_proxy_stop(struct pd_net_proxy *x);

/* After stop: the records of the run (denials, blocked lookups), one call
 * of fn each, in the order they came. */
void pd_net_proxy_records(const struct pd_net_proxy *x,
                          void (*fn)(const struct pd_report *r, void *user), void *user);

/* After stop: did the listeners arrive, and how many names were looked up
 * on the host (tests, PALDRON_DEBUG=net). */
bool pd_net_proxy_served(const struct pd_net_proxy *x);
size_t pd_net_proxy_lookups(const struct pd_net_proxy *x);

void pd_net_proxy_free(struct pd_net_proxy *x);

#endif
