/* launcher/net/net_resolve.h - name resolution for the proxy and DNS server of
 * allow_hosts (net_proxy.h): getaddrinfo on the host's network, in worker
 * threads so that a slow resolver never stalls the proxy's loop, with the
 * answers kept for the run (a name is resolved once, and what the run is
 * told by DNS is what the proxy dials: no second lookup to rebind).
 *
 *   r = pd_resolver_new(fd)         fd: an eventfd written when an answer is ready
 *                                  (the worker threads start with the first question)
 *   pd_resolver_ask(r, name, id, &a) 1: answered at once (a cached name), 0: queued
 *   pd_resolver_take(r, &id, &a)    answers of queued questions, one per call
 *   pd_resolver_free(r)
 *
 * Only names the policy allows are ever asked (the caller decides first):
 * a denied name is never resolved, so a lookup cannot carry it out. */
#ifndef PALDRON_LAUNCHER_NET_RESOLVE_H
#define PALDRON_LAUNCHER_NET_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PD_ADDRS_MAX 16

/* The addresses of a name, IPv4 first as getaddrinfo orders them; err is
 * getaddrinfo's code (0: resolved, n may still be 0). */
struct pd_addrs {
    int err;
    size_t n;
    struct sockaddr_storage a[PD_ADDRS_MAX];
};

struct pd_resolver;

/* notify: a descriptor that gets an eventfd write (8 bytes) for every
 * answer that becomes ready. NULL when out of memory or no thread starts. */
struct pd_resolver *pd_resolver_new(int notify);
/* Ask for name (a canonical host name, not an IP literal). 1 with *out
 * when the answer is known (kept from an earlier question of this run), 0
 * when queued (the answer comes back through pd_resolver_take with id),
 * -1 when it cannot be queued (ENOMEM, or too many in flight: EAGAIN). */
int pd_resolver_ask(struct pd_resolver *r, const char *name, uint64_t id, struct pd_addrs *out);
/* One finished answer: 1 with *id and *out, 0 when none is waiting. */
int pd_resolver_take(struct pd_resolver *r, uint64_t *id, struct pd_addrs *out);
/* How many names were resolved on the host (not answered from the run's
 * kept answers): the tests' proof that denied names never are. */
size_t pd_resolver_lookups(const struct pd_resolver *r);
void pd_resolver_free(struct pd_resolver *r);

#endif
