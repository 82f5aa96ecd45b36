/* launcher/net/net_dns.h - DNS messages (RFC 1035) for the launcher's stub
 * server inside the sandbox's network namespace, which answers A and AAAA for
 * allowed names from the host's vetted resolution and NXDOMAIN for the rest
 * (network.md section 7, step 8). Pure: bytes in, bytes or structs out; no
 * sockets, no allocation, no global state.
 *
 * Use, for each UDP datagram or TCP message (pd_dns_tcp_frame) msg[0..len):
 *   struct pd_dns_query q;
 *   char why[64];
 *   if (pd_dns_parse_query(msg, len, &q, why, sizeof(why)) != 0)
 *       n = pd_dns_rcode(&q, msg, len, PD_DNS_FORMERR, out, ...);   (0: drop it)
 *   else if (q.qclass != PD_DNS_CLASS_IN || rate limited)
 *       n = pd_dns_rcode(&q, msg, len, PD_DNS_REFUSED, out, ...);
 *   else if (q.name is not allowed)
 *       n = pd_dns_rcode(&q, msg, len, PD_DNS_NXDOMAIN, out, ...);
 *   else if (q.qtype == PD_DNS_A)    pd_dns_answer(&q, msg, AF_INET, v4, n4, out, ...)
 *   else if (q.qtype == PD_DNS_AAAA) pd_dns_answer(&q, msg, AF_INET6, v6, n6, out, ...)
 *   else                             pd_dns_answer(&q, msg, AF_UNSPEC, NULL, 0, out, ...)
 * Over UDP pass outlen <= pd_dns_udp_size(msg, len) (512 without EDNS); when
 * an answer does not fit, send fewer addresses. Over TCP prefix the reply
 * with its length, big-endian. EDNS OPT in a query is accepted and not echoed
 * (the replies are plain RFC 1035 messages). */
#ifndef PALDRON_NET_DNS_H
#define PALDRON_NET_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PD_DNS_MAX 4096 /* largest message handled (UDP and TCP) */

#define PD_DNS_HEADER_LEN  12
#define PD_DNS_ANSWERS_MAX 16  /* answers written at most */
#define PD_DNS_UDP_MIN     512 /* UDP payload every client accepts (RFC 1035) */

/* QTYPE values (PD_DNS_OPT is the EDNS pseudo-record's TYPE) */
#define PD_DNS_A     1
#define PD_DNS_NS    2
#define PD_DNS_CNAME 5
#define PD_DNS_SOA   6
#define PD_DNS_PTR   12
#define PD_DNS_MX    15
#define PD_DNS_TXT   16
#define PD_DNS_AAAA  28
#define PD_DNS_SRV   33
#define PD_DNS_OPT   41
#define PD_DNS_SVCB  64
#define PD_DNS_HTTPS 65
#define PD_DNS_ANY   255

/* QCLASS values */
#define PD_DNS_CLASS_IN  1
#define PD_DNS_CLASS_ANY 255

/* RCODE values */
#define PD_DNS_NOERROR  0
#define PD_DNS_FORMERR  1
#define PD_DNS_SERVFAIL 2
#define PD_DNS_NXDOMAIN 3
#define PD_DNS_NOTIMP   4
#define PD_DNS_REFUSED  5

struct pd_dns_query {
    uint16_t id;
    uint16_t flags;
    char name[256]; /* dotted, no trailing dot, lower case, "" for the root */
    uint16_t qtype, qclass;
    size_t question_len; /* bytes of header + question, echoed in replies; 0 unless parsed */
    bool rd;
};

/* Parse a query: QR=0, OPCODE=0 (standard query), QDCOUNT=1, ANCOUNT=0,
 * NSCOUNT=0, ARCOUNT 0 or 1 (EDNS OPT is allowed and ignored; another
 * additional record is not); the name in uncompressed labels only (no
 * compression pointers in a question), each label 1-63 bytes, total <= 253
 * text bytes; label bytes must be letters, digits, '-' or '_' (anything else,
 * including '.' inside a label, NUL or bytes >= 0x80: -1 with why "malformed
 * name"); no bytes after the message; -1 with why for anything else
 * malformed or truncated (len < 12, len > PD_DNS_MAX included). 0 on
 * success. Any QCLASS and QTYPE are accepted: the caller refuses non-IN.
 * *q is always reset; why (may be NULL) is set on failure, "" on success. */
int pd_dns_parse_query(const uint8_t *msg, size_t len, struct pd_dns_query *q, char *why,
                       size_t whylen);

/* Replies echo the ID, the question, RD, set QR=1, RA=1, AA=0. */

/* An answer with n addresses (family AF_INET: 4-byte entries for QTYPE A;
 * AF_INET6: 16-byte for AAAA), TTL 0, names as a compression pointer to the
 * question (0xC00C), CLASS IN. n may be 0 (NOERROR, no data: for allowed
 * names asked for other types, or a family with no address). At most 16
 * answers are written. Records are written only when QTYPE is the family's
 * type (or ANY); otherwise the answer is NOERROR with no data. msg is the
 * message q was parsed from. addrs may be NULL when n is 0; a family other
 * than AF_INET/AF_INET6 requires n == 0. Returns length or 0 if it does not
 * fit. */
size_t pd_dns_answer(const struct pd_dns_query *q, const uint8_t *msg, int family,
                     const uint8_t *addrs, size_t n, uint8_t *out, size_t outlen);

/* RCODE replies: NXDOMAIN (3) for names not allowed, REFUSED (5) for
 * rate-limited or non-IN class, FORMERR (1) when a header could be read but
 * the rest is malformed (needs at least the 12-byte header; then the question
 * is omitted, QDCOUNT 0). The question is echoed when q holds a parsed query
 * (q->question_len != 0, at most msglen); when q is NULL or its parse failed,
 * the reply is the header alone, built from msg's ID, OPCODE and RD. A
 * message that is itself a response (QR=1) gets no header-only reply
 * (returns 0), so that two servers cannot bounce errors at each other.
 * rcode 0-15. Returns length or 0 if it does not fit. */
size_t pd_dns_rcode(const struct pd_dns_query *q, const uint8_t *msg, size_t msglen, int rcode,
                    uint8_t *out, size_t outlen);

/* The UDP payload size the sender of the query msg[0..len) accepts: its EDNS
 * OPT size (at least 512, at most PD_DNS_MAX), or 512 without (or when msg is
 * not a valid query). */
size_t pd_dns_udp_size(const uint8_t *msg, size_t len);

/* TCP framing: the 2-byte big-endian length prefix. pd_dns_tcp_frame: given
 * a buffer holding 0..n bytes of a TCP stream, 1 and *msg_len when a complete
 * message is at the start (it is buf[2..2 + *msg_len)), 0 when more bytes are
 * needed, -1 when the length is 0 or > PD_DNS_MAX. */
int pd_dns_tcp_frame(const uint8_t *buf, size_t len, size_t *msg_len);

#endif
