/* policy/hosts.h - network by name: the entries of allow_hosts and
 * deny_hosts, the canonical form of a host as a client names it, the
 * decision for one connection, the names the run's DNS server may answer,
 * the addresses an allowed name must not lead to, and the URLs and ssh
 * targets a command names literally (the static gates).
 *
 * Entry grammar (allow_hosts and deny_hosts, checked at load time):
 *   pypi.org             an exact DNS name (case-insensitive, one trailing
 *                        dot ignored)
 *   *.example.com        strict subdomains of example.com, never
 *                        example.com itself; never an IP address
 *   127.0.0.1, [::1]     an IP literal: a dotted quad, a bracketed IPv6
 *   NAME:443, [::1]:8080 one port (1-65535, digits, no leading zero)
 * Without a port an allow_hosts entry admits ports 80 and 443, a
 * deny_hosts entry denies every port. Deny wins. */
#ifndef PALDRON_POLICY_HOSTS_H
#define PALDRON_POLICY_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

struct sockaddr;

/* Reasons (PD_REASON_* style, the "(...)" of a deny line). */
#define PD_REASON_HOST_NOT_ALLOWED "not in allow_hosts"
#define PD_REASON_HOST_DENIED      "in deny_hosts"
#define PD_REASON_HOST_MALFORMED   "malformed host"
#define PD_REASON_HOST_ADDRESS     "address refused"

/* Room for a canonical host (a name of up to 253 bytes, an IPv6 text). */
#define PD_HOST_MAX 256

/* Syntax check of one allow_hosts / deny_hosts entry for the loader.
 * Returns 0, or -1 with msg ("a wildcard on a top-level domain matches
 * every name under it"; no file or line: the loader adds them). */
int pd_host_entry_check(const char *entry, char *msg, size_t msglen);

/* Canonical form of a host as a client names it (CONNECT authority host,
 * URL host, DNS question, SOCKS5 domain): lower case, one trailing dot
 * dropped, an IP literal in canonical text (IPv4 dotted quad; IPv6 as
 * inet_ntop writes it, without brackets; brackets accepted on input; an
 * IPv4-mapped ::ffff:a.b.c.d becomes a.b.c.d). Refused, never
 * reinterpreted: control characters, white space, '%' (zone ids,
 * percent-encoding), '/', '@', ':' outside an IPv6 address, '*', non-ASCII
 * bytes, empty labels, a label of more than 63 bytes or a name of more than
 * 253, a label that starts or ends with '-', and every numeric form other
 * than a dotted quad (127.1, 2130706433, 0x7f.0.0.1, 010.0.0.1). Returns 0,
 * or -1 with msg. outlen: PD_HOST_MAX is always enough. */
int pd_host_canonical(const char *host, char *out, size_t outlen, char *msg, size_t msglen);
/* The same for len raw bytes (a SOCKS5 domain, a DNS label sequence turned
 * into text): a NUL byte among them is refused too. */
int pd_host_canonical_len(const char *host, size_t len, char *out, size_t outlen, char *msg,
                          size_t msglen);

/* Decide a connection to host:port. The host is canonicalized (malformed,
 * or port 0 or above 65535: deny PD_REASON_HOST_MALFORMED, key
 * "allow_hosts"); then deny_hosts (an entry without a port: every port);
 * then allow_hosts (an entry without a port: 80 and 443). Wildcards never
 * match IP literals. On deny: v->deny, v->reason, v->key ("deny_hosts" or
 * "allow_hosts"), v->pattern (the deny_hosts entry; NULL otherwise),
 * v->subject "<host>:<port>" (IPv6 bracketed), v->message
 * "<host>:<port> (<reason>)". On allow: v->subject, v->key "allow_hosts",
 * v->pattern the entry that matched. v->op is PD_OP_READ, v->resolved "". */
void pd_host_decide(const struct pd_policy *p, const char *host, unsigned port,
                    struct pd_verdict *v);

/* For the DNS server: may name be resolved for the run at all? True when
 * some allow_hosts entry (any port) matches it and no deny_hosts entry
 * without a port does. IP literals and malformed names: false. */
bool pd_host_resolvable(const struct pd_policy *p, const char *name);

/* An address the launcher resolved for an allowed name, before it dials:
 * refused when it is a cloud metadata address (169.254.169.254,
 * 100.100.100.200, 168.63.129.16, 192.0.0.192, fd00:ec2::/32,
 * fd20:ce::254, fd00:c1::a9fe:a9fe, fd00:42::42, fd00:a9fe:a9fe::1,
 * fd00:100::100:200), link-local (the rest of 169.254.0.0/16,
 * fe80::/10), unspecified (0.0.0.0/8, ::), multicast (224.0.0.0/4,
 * ff00::/8) or the broadcast 255.255.255.255 - the IPv4 classes also in
 * their IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4
 * (2002::/16) forms - unless an IP-literal entry of allow_hosts names that
 * exact address. Loopback and private ranges are not refused. Another
 * address family is refused. Returns true with why ("cloud metadata
 * address 169.254.169.254") when refused. */
bool pd_addr_refused(const struct pd_policy *p, const struct sockaddr *sa, char *why,
                     size_t whylen);

/* ---- the static gates -------------------------------------------------- */

/* Is the network reached through the run's proxy: allow_hosts holds an
 * entry and allow_network is false? */
bool pd_hosts_enabled(const struct pd_policy *p);

/* Is s a URL of a network scheme: "scheme://" with a scheme below? */
bool pd_host_is_url(const char *s);

/* The host and port a command names literally:
 *   - a URL scheme://[userinfo@]host[:port][/...] of a network scheme
 *     (http 80, https 443, ws 80, wss 443, ftp 21, ftps 990, ssh, sftp,
 *     scp, git+ssh and ssh+git 22, git 9418, rsync 873, telnet 23, and
 *     gopher, dict, ldap(s), imap(s), pop3(s), smtp(s), mqtt, rtsp, smb);
 *   - an ssh-style target [user@]host:path (port 22; scp, rsync, git),
 *     [user@][v6]:path, or rsync's host::module (port 873).
 * host (PD_HOST_MAX) gets the host as written (brackets dropped), *port
 * the port (the scheme's default when none is written). Returns 0; 1 when
 * text is none of these (a path, a file: URL, an unknown scheme, an
 * ssh-style text whose host is no host name); -1 when it is a URL whose
 * host or port is malformed (msg). */
int pd_host_target(const char *text, char *host, size_t hostlen, unsigned *port, char *msg,
                   size_t msglen);

/* Judge the target of a URL or ssh-style text (pd_host_target) with
 * pd_host_decide. Returns false when the text is none (v: allow); else true
 * with *v the decision (a malformed URL: deny PD_REASON_HOST_MALFORMED). */
bool pd_host_judge_url(const struct pd_policy *p, const char *url, struct pd_verdict *v);

/* For the gates: judge target as pd_host_judge_url does, with port (when
 * not 0) in place of the default port of a target that names none (scp
 * -P). Returns true when that denies, with v->message "<what>: <target>:
 * <host>:<port> (<reason>)" ("curl: https://evil.test/x: evil.test:443 (not
 * in allow_hosts)"; what NULL: without "<what>: "); false otherwise. */
bool pd_host_deny_target(const struct pd_policy *p, const char *what, const char *target,
                         unsigned port, struct pd_verdict *v);

#endif
