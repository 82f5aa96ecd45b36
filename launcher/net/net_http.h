/* launcher/net/net_http.h - the head of a request a sandboxed client sends to the
 * launcher's HTTP proxy (docs: network.md sections 3.1 and 7), and the
 * responses the proxy writes back. Pure: bytes in, bytes or structs out; no
 * sockets, no allocation, no global state, safe from any thread.
 *
 * Use (the event loop keeps the bytes read so far in buf[0..len)):
 *   struct pd_http_req rq;
 *   switch (pd_http_parse_request(buf, len, &rq)) {
 *   case PD_HTTP_MORE:    read more (the head timeout runs)
 *   case PD_HTTP_TOO_BIG: pd_http_error(431, "request head too large", ...), close
 *   case PD_HTTP_BAD:     pd_http_error(400, rq.why, ...), close
 *   case PD_HTTP_OK:      decide on rq.host / rq.port; buf[rq.head_len..len) is the
 *                         first body or tunnel data, to be forwarded
 *   }
 *   CONNECT, upstream connected:  pd_http_connected(out, ...), then splice
 *   absolute form, connected:     n = pd_http_origin_head(buf, rq.head_len, &rq, out, ...),
 *                                 send out[0..n), then buf[rq.head_len..len), then splice
 *   refused by policy:            pd_http_error(403, "host not in allow_hosts", ...)
 *   connect failed / timed out:   pd_http_error(502 / 504, ...)
 *
 * Only the first request of a connection is parsed; after it the proxy splices
 * bytes both ways (the origin head carries "Connection: close"), so anything
 * the client pipelines goes to the same upstream, as through a CONNECT tunnel.
 *
 * What the parser accepts (stricter than RFC 9112 where a proxy may be):
 *   - the head ends at the first empty line: CRLF CRLF, LF LF (or a mix), all
 *     within the first PD_HTTP_HEAD_MAX bytes;
 *   - request line "METHOD SP target SP HTTP/1.x" with single spaces, printable
 *     ASCII only, a known method (case-sensitive), HTTP/1.0 or HTTP/1.1;
 *   - CONNECT target in authority form host:port, "[v6]:port" for IPv6;
 *     other methods: absolute form http://authority[/path][?query] (scheme in
 *     any case; no userinfo, no fragment, port 1-65535, default 80);
 *   - header lines "name: value" with a token name, no space before the
 *     colon, no obs-fold, no control characters except HT in values, no bare
 *     CR, at most one Host header, at most 32 names listed by Connection
 *     headers (so that every accepted absolute-form head can be rewritten).
 * BAD is also returned before the head is complete as soon as the bytes seen
 * cannot start a valid head (a NUL byte, a complete but malformed request
 * line), so that a client speaking another protocol is answered at once. */
#ifndef PALDRON_NET_HTTP_H
#define PALDRON_NET_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pd_http_parse { PD_HTTP_MORE, PD_HTTP_OK, PD_HTTP_BAD, PD_HTTP_TOO_BIG };

#define PD_HTTP_HEAD_MAX 8192

struct pd_http_req {
    bool connect; /* CONNECT host:port (else absolute-form GET/POST/... http://host[:port]/path) */
    char method[16];
    char host[256];  /* as written (brackets removed from IPv6), not yet canonical */
    unsigned port;   /* CONNECT: required; absolute form: from the URL, default 80 for http://
                        (https:// in absolute form is refused: PD_HTTP_BAD, since a client uses
                        CONNECT for it) */
    size_t head_len; /* bytes of the head incl. the final CRLFCRLF; what follows is body/tunnel
                        data */
    char why[128];   /* PD_HTTP_BAD: why (for the 400 body) */
};

/* Parse buf[0..len): MORE while no CRLFCRLF (LF LF also accepted) is in the
 * first PD_HTTP_HEAD_MAX bytes; TOO_BIG beyond; BAD on a malformed request
 * line, an unknown/empty method, a CONNECT target that is not host:port (port
 * 1-65535, decimal), an absolute-form target that is not http://authority[/path],
 * a request line with control characters, NUL anywhere in the head, an HTTP
 * version other than HTTP/1.0 or HTTP/1.1, an origin-form target ("/path": not
 * a proxy request), and a malformed header line (see above). *req is always
 * reset; its fields other than why are meaningful only for OK. buf may be
 * NULL when len is 0. */
enum pd_http_parse pd_http_parse_request(const uint8_t *buf, size_t len, struct pd_http_req *req);

/* The head an origin server gets for an absolute-form request: request line
 * in origin form ("GET /path?q HTTP/1.1"; empty path becomes "/"; the
 * client's method and version kept), every header kept in order (lines copied
 * as written, ended by CRLF) except Proxy-Authorization, Proxy-Connection,
 * Connection, Keep-Alive and any header named by Connection; Host replaced in place by (or, when
 * absent, set right after the request line to) the authority req names: req->host, bracketed when
 * it holds a ':', then ":port" unless the port is 80; "Connection: close" added last.
 * head[0..head_len) must be a head that pd_http_parse_request() accepts as an absolute-form request
 * of exactly head_len bytes. Writes into out (outlen bytes, NUL-terminated when one more byte
 * fits); returns the length, or 0 when it does not fit or the head is malformed (req->host is
 * checked too, so that a caller's edit cannot inject a header). */
size_t pd_http_origin_head(const uint8_t *head, size_t head_len, const struct pd_http_req *req,
                           char *out, size_t outlen);

/* A complete error response: "HTTP/1.1 <code> <phrase>\r\n",
 * "Content-Type: text/plain\r\n", "X-Paldron-Error: <reason>\r\n" (reason
 * sanitized to printable ASCII, other bytes become '?', at most 200 bytes),
 * "Content-Length: N\r\n", "Connection: close\r\n\r\n", then the body
 * "paldron: <reason>\n". Codes: 400 Bad Request, 403 Forbidden, 431 Request
 * Header Fields Too Large, 502 Bad Gateway, 504 Gateway Timeout. reason may
 * be NULL (empty). Returns the length, or 0 if it does not fit or the code is
 * not one of these. out is NUL-terminated when one more byte fits. */
size_t pd_http_error(int code, const char *reason, char *out, size_t outlen);

/* "HTTP/1.1 200 Connection established\r\n\r\n"; length or 0 if it does not fit. */
size_t pd_http_connected(char *out, size_t outlen);

#endif
