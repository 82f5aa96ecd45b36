/* launcher/net/net_socks.h - SOCKS5 (RFC 1928) CONNECT without authentication,
 * for the launcher's proxy port, which also speaks HTTP: the first byte of a
 * connection tells them apart (pd_socks_first_byte). Pure: bytes in, bytes or
 * structs out; no sockets, no allocation, no global state.
 *
 * Use (the event loop keeps the bytes read so far in buf[0..len)):
 *   greeting:  pd_socks_greeting(buf, len, &used)
 *              MORE: read more; BAD: send 05 FF, close;
 *              OK: send 05 00, drop buf[0..used)
 *   request:   pd_socks_request(buf, len, &rq, &used)
 *              MORE: read more; BAD: pd_socks_reply(rq.reply_code), close;
 *              OK: decide on rq.host / rq.port (atyp 3 is a name the proxy
 *              resolves: socks5h), then pd_socks_reply(0x00 or a PD_SOCKS_REP_*)
 *              and splice; buf[used..len) is early tunnel data
 * BAD is returned as soon as the bytes seen cannot start a valid message. */
#ifndef PALDRON_NET_SOCKS_H
#define PALDRON_NET_SOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pd_socks_parse { PD_SOCKS_MORE, PD_SOCKS_OK, PD_SOCKS_BAD };

/* REP codes */
#define PD_SOCKS_REP_OK          0x00 /* succeeded */
#define PD_SOCKS_REP_FAILURE     0x01 /* general failure */
#define PD_SOCKS_REP_RULESET     0x02 /* connection not allowed by ruleset */
#define PD_SOCKS_REP_UNREACHABLE 0x04 /* host unreachable */
#define PD_SOCKS_REP_REFUSED     0x05 /* connection refused */
#define PD_SOCKS_REP_COMMAND     0x07 /* command not supported */
#define PD_SOCKS_REP_ATYP        0x08 /* address type not supported */

#define PD_SOCKS_ATYP_IPV4   1
#define PD_SOCKS_ATYP_DOMAIN 3
#define PD_SOCKS_ATYP_IPV6   4

#define PD_SOCKS_REPLY_LEN 10

/* The greeting: VER=5, NMETHODS, METHODS. OK when complete and "no
 * authentication" (0x00) is offered; *used = its length (0 otherwise). BAD
 * when VER != 5, NMETHODS == 0, or 0x00 is not offered (the caller then
 * answers 05 FF and closes). */
enum pd_socks_parse pd_socks_greeting(const uint8_t *buf, size_t len, size_t *used);

struct pd_socks_req {
    char host[256];
    unsigned port;
    int atyp;           /* 1 IPv4, 3 domain, 4 IPv6 */
    uint8_t reply_code; /* when BAD: the REP to send, 0x07 command not supported, 0x08 address
                           type not supported, 0x01 general failure */
};

/* The request after the greeting: VER=5, CMD, RSV=0, ATYP, DST.ADDR,
 * DST.PORT. Only CMD=1 CONNECT (others: BAD, reply_code 0x07); ATYP 1/3/4
 * (else 0x08); VER != 5 or RSV != 0: BAD 0x01; a domain of length 0, or
 * holding NUL, a space or bytes outside printable ASCII: BAD 0x01; host is
 * the domain text, or the IP in text form (inet_ntop, IPv6 without
 * brackets); port 0: BAD 0x01. *used = its length (0 unless OK). *req is
 * always reset. */
enum pd_socks_parse pd_socks_request(const uint8_t *buf, size_t len, struct pd_socks_req *req,
                                     size_t *used);

/* A reply VER=5 REP RSV=0 ATYP=1 BND.ADDR=0.0.0.0 BND.PORT=0 (10 bytes).
 * Returns 10, or 0 if outlen < 10. */
size_t pd_socks_reply(uint8_t rep, uint8_t *out, size_t outlen);

/* Whether the first byte of a new connection starts SOCKS5 (0x05); an HTTP
 * request starts with an ASCII letter. */
bool pd_socks_first_byte(uint8_t b);

#endif
