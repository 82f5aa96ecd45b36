/* tests/unit/test_net_http.c - the HTTP proxy request head (launcher/net/net_http.h):
 * CONNECT and absolute-form heads as curl writes them (also captured from the
 * real curl when it is installed), the origin-form rewrite, the proxy's own
 * responses byte for byte, and hostile heads: malformed lines, every
 * truncation of a valid head, oversize heads. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/net/net_http.h"

/* ---- helpers ------------------------------------------------------------- */

/* Parse s[0..n) from an exact-size heap copy, so that a read past n is a read
 * past the allocation (and caught under ASan). */
static enum pd_http_parse parse_n(const char *s, size_t n, struct pd_http_req *rq)
{
    uint8_t *copy = malloc(n > 0 ? n : 1);
    cr_assert_not_null(copy);
    memcpy(copy, s, n);
    enum pd_http_parse r = pd_http_parse_request(copy, n, rq);
    free(copy);
    return r;
}

static enum pd_http_parse parse(const char *s, struct pd_http_req *rq)
{
    return parse_n(s, strlen(s), rq);
}

static void expect_ok(const char *head, bool connect, const char *method, const char *host,
                      unsigned port)
{
    struct pd_http_req rq;
    cr_assert_eq(parse(head, &rq), PD_HTTP_OK, "want OK for %s, why: %s", head, rq.why);
    cr_expect_eq(rq.connect, connect, "%s", head);
    cr_expect_str_eq(rq.method, method);
    cr_expect_str_eq(rq.host, host);
    cr_expect_eq(rq.port, port, "%s: port %u", head, rq.port);
    cr_expect_eq(rq.head_len, strlen(head), "%s: head_len %zu", head, rq.head_len);
}

static void expect_bad(const char *head, const char *why_part)
{
    struct pd_http_req rq;
    enum pd_http_parse r = parse(head, &rq);
    cr_expect_eq(r, PD_HTTP_BAD, "want BAD for [%s], got %d", head, r);
    cr_expect(strstr(rq.why, why_part) != NULL, "[%s]: why \"%s\" lacks \"%s\"", head, rq.why,
              why_part);
    cr_expect_eq(rq.head_len, 0);
    cr_expect_str_eq(rq.host, "");
}

/* the origin head of an absolute-form head, as a string */
static size_t origin(const char *head, char *out, size_t outlen)
{
    struct pd_http_req rq;
    cr_assert_eq(parse(head, &rq), PD_HTTP_OK, "%s: %s", head, rq.why);
    return pd_http_origin_head((const uint8_t *)head, rq.head_len, &rq, out, outlen);
}

static void expect_origin(const char *head, const char *want)
{
    char out[PD_HTTP_HEAD_MAX * 2];
    size_t n = origin(head, out, sizeof(out));
    cr_assert_eq(n, strlen(want), "length %zu, want %zu:\n%s", n, strlen(want), out);
    cr_expect_str_eq(out, want);
}

#define CURL_CONNECT                                                                               \
    "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"                                \
    "User-Agent: curl/7.88.1\r\nProxy-Connection: Keep-Alive\r\n\r\n"
#define CURL_GET                                                                                   \
    "GET http://example.com/path?q=1 HTTP/1.1\r\nHost: example.com\r\n"                            \
    "User-Agent: curl/7.88.1\r\nAccept: */*\r\nProxy-Connection: Keep-Alive\r\n\r\n"

/* ---- CONNECT ------------------------------------------------------------- */

Test(net_http, connect_name_as_curl_sends_it)
{
    expect_ok(CURL_CONNECT, true, "CONNECT", "example.com", 443);
}

Test(net_http, connect_ipv4_ipv6_and_ports)
{
    expect_ok("CONNECT 93.184.216.34:443 HTTP/1.1\r\n\r\n", true, "CONNECT", "93.184.216.34", 443);
    expect_ok("CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n", true, "CONNECT", "::1", 443);
    expect_ok("CONNECT [2001:db8::1]:8443 HTTP/1.0\r\n\r\n", true, "CONNECT", "2001:db8::1", 8443);
    expect_ok("CONNECT [::ffff:127.0.0.1]:1 HTTP/1.1\r\n\r\n", true, "CONNECT", "::ffff:127.0.0.1",
              1);
    expect_ok("CONNECT github.com:22 HTTP/1.1\r\n\r\n", true, "CONNECT", "github.com", 22);
    expect_ok("CONNECT a.b:65535 HTTP/1.1\r\n\r\n", true, "CONNECT", "a.b", 65535);
    /* the host as written: case and a trailing dot are the canonicalizer's */
    expect_ok("CONNECT Example.COM.:443 HTTP/1.1\r\n\r\n", true, "CONNECT", "Example.COM.", 443);
}

Test(net_http, lf_only_line_ends)
{
    expect_ok("CONNECT example.com:443 HTTP/1.1\nHost: example.com:443\n\n", true, "CONNECT",
              "example.com", 443);
    expect_ok("CONNECT example.com:443 HTTP/1.1\r\nHost: x\n\r\n", true, "CONNECT", "example.com",
              443);
}

Test(net_http, pipelined_bytes_follow_head_len)
{
    /* CONNECT, then a TLS ClientHello start (with NUL bytes) in the same segment */
    static const char tail[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
    char buf[512];
    size_t hl = strlen(CURL_CONNECT);
    memcpy(buf, CURL_CONNECT, hl);
    memcpy(buf + hl, tail, sizeof(tail) - 1);
    struct pd_http_req rq;
    cr_assert_eq(parse_n(buf, hl + sizeof(tail) - 1, &rq), PD_HTTP_OK, "%s", rq.why);
    cr_expect_eq(rq.head_len, hl);
    cr_expect_eq(memcmp(buf + rq.head_len, tail, sizeof(tail) - 1), 0);

    /* a POST body right after the head, and a second request pipelined */
    const char *post = "POST http://example.com/up HTTP/1.1\r\nHost: example.com\r\n"
                       "Content-Length: 5\r\n\r\nhelloGET http://example.com/ HTTP/1.1\r\n\r\n";
    cr_assert_eq(parse(post, &rq), PD_HTTP_OK);
    cr_expect_eq(rq.head_len, (size_t)(strstr(post, "hello") - post));
    cr_expect_str_eq(rq.method, "POST");
}

/* ---- absolute form ------------------------------------------------------- */

Test(net_http, absolute_form_targets)
{
    expect_ok(CURL_GET, false, "GET", "example.com", 80);
    expect_ok("GET http://example.com:8080/a/b HTTP/1.1\r\n\r\n", false, "GET", "example.com",
              8080);
    expect_ok("GET http://example.com HTTP/1.1\r\n\r\n", false, "GET", "example.com", 80);
    expect_ok("GET http://example.com:81 HTTP/1.0\r\n\r\n", false, "GET", "example.com", 81);
    expect_ok("GET http://example.com?x=1 HTTP/1.1\r\n\r\n", false, "GET", "example.com", 80);
    expect_ok("HEAD HTTP://[2001:db8::2]:8080/x HTTP/1.1\r\n\r\n", false, "HEAD", "2001:db8::2",
              8080);
    expect_ok("PUT http://10.0.0.1/f HTTP/1.1\r\n\r\n", false, "PUT", "10.0.0.1", 80);
    expect_ok("DELETE http://h/ HTTP/1.1\r\n\r\n", false, "DELETE", "h", 80);
    expect_ok("OPTIONS http://h/ HTTP/1.1\r\n\r\n", false, "OPTIONS", "h", 80);
    expect_ok("PATCH http://h/ HTTP/1.1\r\n\r\n", false, "PATCH", "h", 80);
    expect_ok("PROPFIND http://svn.example/repo HTTP/1.1\r\n\r\n", false, "PROPFIND", "svn.example",
              80);
}

/* ---- the origin head ----------------------------------------------------- */

Test(net_http, origin_head_as_curl_sends_it)
{
    expect_origin(CURL_GET, "GET /path?q=1 HTTP/1.1\r\nHost: example.com\r\n"
                            "User-Agent: curl/7.88.1\r\nAccept: */*\r\nConnection: close\r\n\r\n");
}

Test(net_http, origin_head_drops_proxy_and_hop_headers_keeps_order)
{
    const char *head = "POST http://api.example.com:8080/v1/x?a=b&c HTTP/1.1\r\n"
                       "Accept: */*\r\n"
                       "Proxy-Authorization: Basic dXNlcjpwYXNz\r\n"
                       "X-First: 1\r\n"
                       "Connection: keep-alive, X-Hop ,x-other\r\n"
                       "host: evil.example\r\n"
                       "Keep-Alive: timeout=5\r\n"
                       "X-Hop: dropped\r\n"
                       "proxy-connection: keep-alive\r\n"
                       "X-OTHER: dropped too\r\n"
                       "Content-Type: application/json\r\n"
                       "X-Hopper: kept\r\n"
                       "Content-Length: 2\r\n"
                       "\r\n"
                       "{}";
    expect_origin(head, "POST /v1/x?a=b&c HTTP/1.1\r\n"
                        "Accept: */*\r\n"
                        "X-First: 1\r\n"
                        "Host: api.example.com:8080\r\n"
                        "Content-Type: application/json\r\n"
                        "X-Hopper: kept\r\n"
                        "Content-Length: 2\r\n"
                        "Connection: close\r\n\r\n");
}

Test(net_http, origin_head_sets_host_when_absent)
{
    expect_origin(
        "GET http://example.com HTTP/1.0\nAccept: */*\n\n",
        "GET / HTTP/1.0\r\nHost: example.com\r\nAccept: */*\r\nConnection: close\r\n\r\n");
    expect_origin("GET http://example.com?x=1 HTTP/1.1\r\n\r\n",
                  "GET /?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");
    expect_origin("GET http://[2001:db8::2]:8080/x HTTP/1.1\r\nHost: [2001:db8::2]:8080\r\n\r\n",
                  "GET /x HTTP/1.1\r\nHost: [2001:db8::2]:8080\r\nConnection: close\r\n\r\n");
    expect_origin("GET http://[::1]/ HTTP/1.1\r\n\r\n",
                  "GET / HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n");
}

Test(net_http, origin_head_uses_the_request_authority)
{
    /* the caller's canonical host is what the origin sees */
    const char *head = "GET http://Example.COM/ HTTP/1.1\r\nHost: Example.COM\r\n\r\n";
    struct pd_http_req rq;
    cr_assert_eq(parse(head, &rq), PD_HTTP_OK);
    strcpy(rq.host, "example.com");
    char out[256];
    size_t n = pd_http_origin_head((const uint8_t *)head, rq.head_len, &rq, out, sizeof(out));
    cr_assert_gt(n, 0);
    cr_expect_str_eq(out, "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");

    /* a host that could inject a header is refused */
    strcpy(rq.host, "example.com\r\nX-Evil: 1");
    cr_expect_eq(pd_http_origin_head((const uint8_t *)head, rq.head_len, &rq, out, sizeof(out)), 0);
    rq.host[0] = '\0';
    cr_expect_eq(pd_http_origin_head((const uint8_t *)head, rq.head_len, &rq, out, sizeof(out)), 0);
    strcpy(rq.host, "example.com");
    rq.port = 0;
    cr_expect_eq(pd_http_origin_head((const uint8_t *)head, rq.head_len, &rq, out, sizeof(out)), 0);
}

Test(net_http, origin_head_refuses_what_it_cannot_rewrite)
{
    char out[1024];
    struct pd_http_req rq;
    /* CONNECT has no origin head */
    cr_assert_eq(parse(CURL_CONNECT, &rq), PD_HTTP_OK);
    cr_expect_eq(
        pd_http_origin_head((const uint8_t *)CURL_CONNECT, rq.head_len, &rq, out, sizeof(out)), 0);
    /* head_len must be the head's */
    cr_assert_eq(parse(CURL_GET, &rq), PD_HTTP_OK);
    cr_expect_eq(
        pd_http_origin_head((const uint8_t *)CURL_GET, rq.head_len - 1, &rq, out, sizeof(out)), 0);
    const char *two = CURL_GET "GET http://example.com/ HTTP/1.1\r\n\r\n";
    cr_expect_eq(pd_http_origin_head((const uint8_t *)two, strlen(two), &rq, out, sizeof(out)), 0);
    /* a malformed head */
    const char *badh = "GET http://example.com/ HTTP/1.1\r\nBad Header: x\r\n\r\n";
    cr_expect_eq(pd_http_origin_head((const uint8_t *)badh, strlen(badh), &rq, out, sizeof(out)),
                 0);
    cr_expect_eq(pd_http_origin_head(NULL, 0, &rq, out, sizeof(out)), 0);
}

/* a head whose Connection header lists count names x0..x<count-1> */
static void connection_names(char *buf, size_t cap, int count)
{
    size_t k = (size_t)snprintf(buf, cap, "GET http://h/ HTTP/1.1\r\nConnection: ");
    for (int i = 0; i < count; i++)
        k += (size_t)snprintf(buf + k, cap - k, "x%d, ", i);
    k += (size_t)snprintf(buf + k, cap - k, "\r\n");
    for (int i = 0; i < count; i++)
        k += (size_t)snprintf(buf + k, cap - k, "X%d: v\r\n", i);
    snprintf(buf + k, cap - k, "X-Kept: 1\r\n\r\n");
}

Test(net_http, connection_names_limit)
{
    /* 32 names are dropped, with their headers; a 33rd is refused when parsed,
     * so that an accepted head can always be rewritten */
    char head[2048];
    connection_names(head, sizeof(head), 32);
    expect_origin(head, "GET / HTTP/1.1\r\nHost: h\r\nX-Kept: 1\r\nConnection: close\r\n\r\n");
    connection_names(head, sizeof(head), 33);
    expect_bad(head, "too many names in Connection");
    /* also when spread over several Connection headers; empty list members do not count */
    char two[4096];
    snprintf(two, sizeof(two),
             "GET http://h/ HTTP/1.1\r\nConnection: ,,, ,\r\nConnection: "
             "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\r\n"
             "Connection: q,r,s,t,u,v,w,x,y,z,aa,bb,cc,dd,ee,ff\r\n\r\n");
    expect_origin(two, "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    snprintf(two, sizeof(two),
             "GET http://h/ HTTP/1.1\r\nConnection: a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\r\n"
             "Connection: q,r,s,t,u,v,w,x,y,z,aa,bb,cc,dd,ee,ff,gg\r\n\r\n");
    expect_bad(two, "too many names in Connection");
}

Test(net_http, origin_head_does_not_fit)
{
    const char *want = "GET /path?q=1 HTTP/1.1\r\nHost: example.com\r\n"
                       "User-Agent: curl/7.88.1\r\nAccept: */*\r\nConnection: close\r\n\r\n";
    size_t wl = strlen(want);
    struct pd_http_req rq;
    cr_assert_eq(parse(CURL_GET, &rq), PD_HTTP_OK);
    for (size_t cap = 0; cap < wl; cap++) {
        char *out = malloc(cap + 1);
        cr_assert_not_null(out);
        cr_expect_eq(pd_http_origin_head((const uint8_t *)CURL_GET, rq.head_len, &rq, out, cap), 0,
                     "fits in %zu", cap);
        free(out);
    }
    char *exact = malloc(wl);
    cr_assert_not_null(exact);
    cr_expect_eq(pd_http_origin_head((const uint8_t *)CURL_GET, rq.head_len, &rq, exact, wl), wl);
    cr_expect_eq(memcmp(exact, want, wl), 0);
    free(exact);
}

/* ---- responses ----------------------------------------------------------- */

static void expect_error(int code, const char *reason, const char *want)
{
    char out[1024];
    memset(out, 'Z', sizeof(out));
    size_t n = pd_http_error(code, reason, out, sizeof(out));
    cr_assert_eq(n, strlen(want), "%d: length %zu, want %zu", code, n, strlen(want));
    cr_expect_eq(memcmp(out, want, n), 0, "%d:\n%.*s", code, (int)n, out);
    cr_expect_eq(out[n], '\0');
    /* every shorter buffer is refused */
    for (size_t cap = 0; cap < n; cap++)
        cr_expect_eq(pd_http_error(code, reason, out, cap), 0, "%d fits in %zu", code, cap);
}

Test(net_http, error_responses_exact_bytes)
{
    expect_error(400, "malformed request line",
                 "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: malformed request line\r\nContent-Length: 32\r\n"
                 "Connection: close\r\n\r\npaldron: malformed request line\n");
    expect_error(403, "host not in allow_hosts",
                 "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: host not in allow_hosts\r\nContent-Length: 33\r\n"
                 "Connection: close\r\n\r\npaldron: host not in allow_hosts\n");
    expect_error(431, "request head too large",
                 "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: request head too large\r\nContent-Length: 32\r\n"
                 "Connection: close\r\n\r\npaldron: request head too large\n");
    expect_error(502, "connect: Connection refused",
                 "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: connect: Connection refused\r\nContent-Length: 37\r\n"
                 "Connection: close\r\n\r\npaldron: connect: Connection refused\n");
    expect_error(504, "connect timed out",
                 "HTTP/1.1 504 Gateway Timeout\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: connect timed out\r\nContent-Length: 27\r\n"
                 "Connection: close\r\n\r\npaldron: connect timed out\n");
    expect_error(403, NULL,
                 "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: \r\nContent-Length: 10\r\n"
                 "Connection: close\r\n\r\npaldron: \n");
}

Test(net_http, error_reason_sanitized_and_capped)
{
    /* CR LF cannot split the response; non-ASCII becomes '?' */
    expect_error(400, "a\r\nX-Evil: 1\x7f\xc3\xa9",
                 "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                 "X-Paldron-Error: a??X-Evil: 1???\r\nContent-Length: 25\r\n"
                 "Connection: close\r\n\r\npaldron: a??X-Evil: 1???\n");
    char longr[400];
    memset(longr, 'r', sizeof(longr) - 1);
    longr[sizeof(longr) - 1] = '\0';
    char out[1024];
    size_t n = pd_http_error(403, longr, out, sizeof(out));
    cr_assert_gt(n, 0);
    char want[64];
    snprintf(want, sizeof(want), "Content-Length: %d\r\n", 9 + 200 + 1);
    cr_expect(strstr(out, want) != NULL, "%s", out);
    const char *body = strstr(out, "\r\n\r\n") + 4;
    cr_expect_eq(strlen(body), 210);
    cr_expect_eq(strspn(body + 9, "r"), 200);
}

Test(net_http, error_unknown_code_and_connected)
{
    char out[128];
    cr_expect_eq(pd_http_error(200, "x", out, sizeof(out)), 0);
    cr_expect_eq(pd_http_error(500, "x", out, sizeof(out)), 0);
    cr_expect_eq(pd_http_error(-1, "x", out, sizeof(out)), 0);
    const char *want = "HTTP/1.1 200 Connection established\r\n\r\n";
    size_t n = pd_http_connected(out, sizeof(out));
    cr_expect_eq(n, strlen(want));
    cr_expect_str_eq(out, want);
    cr_expect_eq(pd_http_connected(out, strlen(want)), strlen(want));
    cr_expect_eq(memcmp(out, want, strlen(want)), 0);
    cr_expect_eq(pd_http_connected(out, strlen(want) - 1), 0);
    cr_expect_eq(pd_http_connected(out, 0), 0);
}

/* ---- hostile heads ------------------------------------------------------- */

Test(net_http, bad_request_lines)
{
    expect_bad("GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n", "origin-form");
    expect_bad("GET https://example.com/ HTTP/1.1\r\n\r\n", "https://");
    expect_bad("GET HTTPS://example.com/ HTTP/1.1\r\n\r\n", "https://");
    expect_bad("GET ftp://example.com/ HTTP/1.1\r\n\r\n", "not an http:// URL");
    expect_bad("GET example.com:80 HTTP/1.1\r\n\r\n", "not an http:// URL");
    expect_bad("OPTIONS * HTTP/1.1\r\n\r\n", "not an http:// URL");
    expect_bad("GET http:// HTTP/1.1\r\n\r\n", "empty host");
    expect_bad("GET http:///x HTTP/1.1\r\n\r\n", "empty host");
    expect_bad("GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n", "userinfo");
    expect_bad("GET http://example.com/#frag HTTP/1.1\r\n\r\n", "fragment");
    expect_bad("GET http://example.com:/ HTTP/1.1\r\n\r\n", "port");
    expect_bad("GET http://example.com:0/ HTTP/1.1\r\n\r\n", "port");
    expect_bad("GET http://example.com:65536/ HTTP/1.1\r\n\r\n", "port");
    expect_bad("GET http://exa<mple.com/ HTTP/1.1\r\n\r\n", "bad character in the host");
    expect_bad("CONNECT example.com HTTP/1.1\r\n\r\n", "host:port");
    expect_bad("CONNECT example.com: HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT example.com:0 HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT example.com:65536 HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT example.com:443x HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT example.com:+443 HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT example.com:0x1bb HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT example.com:000443 HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT evil.com:443.allowed.com HTTP/1.1\r\n\r\n", "port");
    expect_bad("CONNECT ::1:443 HTTP/1.1\r\n\r\n", "without brackets");
    expect_bad("CONNECT [::1]443 HTTP/1.1\r\n\r\n", "malformed host");
    expect_bad("CONNECT [::1 HTTP/1.1\r\n\r\n", "unclosed");
    expect_bad("CONNECT []:443 HTTP/1.1\r\n\r\n", "empty host");
    expect_bad("CONNECT [example.com]:443 HTTP/1.1\r\n\r\n", "IPv6");
    expect_bad("CONNECT [1.2.3.4]:443 HTTP/1.1\r\n\r\n", "not an IPv6");
    expect_bad("CONNECT :443 HTTP/1.1\r\n\r\n", "empty host");
    expect_bad("CONNECT user@example.com:443 HTTP/1.1\r\n\r\n", "userinfo");
    expect_bad("CONNECT http://example.com:443 HTTP/1.1\r\n\r\n", "");
    expect_bad(" http://example.com/ HTTP/1.1\r\n\r\n", "empty method");
    expect_bad("get http://example.com/ HTTP/1.1\r\n\r\n", "unknown method");
    expect_bad("FOO http://example.com/ HTTP/1.1\r\n\r\n", "unknown method");
    expect_bad("GETGETGETGETGETGETGET http://example.com/ HTTP/1.1\r\n\r\n", "unknown method");
    expect_bad("GET http://example.com/ HTTP/2.0\r\n\r\n", "version");
    expect_bad("GET http://example.com/ HTTP/1.1x\r\n\r\n", "version");
    expect_bad("GET http://example.com/ http/1.1\r\n\r\n", "version");
    expect_bad("GET http://example.com/\r\n\r\n", "malformed request line");
    expect_bad("GET http://example.com/ HTTP/1.1 \r\n\r\n", "malformed request line");
    expect_bad("GET  http://example.com/ HTTP/1.1\r\n\r\n", "malformed request line");
    expect_bad("GET http://example.com/  HTTP/1.1\r\n\r\n", "malformed request line");
    expect_bad("GET\thttp://example.com/ HTTP/1.1\r\n\r\n", "control character");
    expect_bad("GET http://example.com/\x7f HTTP/1.1\r\n\r\n", "control character");
    expect_bad("GET http://example.com/\x1b[0m HTTP/1.1\r\n\r\n", "control character");
    expect_bad("GET http://example.com/ HTTP/1.1\r\r\n\r\n", "control character");
    expect_bad("GET http://ex\xc3\xa4mple.com/ HTTP/1.1\r\n\r\n", "non-ASCII");
    expect_bad("\r\nGET http://example.com/ HTTP/1.1\r\n\r\n", "malformed request line");
    expect_bad("\r\n\r\n", "malformed request line");
    expect_bad("\n\n", "malformed request line");
    expect_bad("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", "");
}

Test(net_http, bad_headers)
{
    expect_bad("GET http://h/ HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", "folding");
    expect_bad("GET http://h/ HTTP/1.1\r\nX: a\r\n\tfolded\r\n\r\n", "folding");
    expect_bad("GET http://h/ HTTP/1.1\r\nno colon here\r\n\r\n", "without a colon");
    expect_bad("GET http://h/ HTTP/1.1\r\nHost : h\r\n\r\n", "header name");
    expect_bad("GET http://h/ HTTP/1.1\r\n: value\r\n\r\n", "empty header name");
    expect_bad("GET http://h/ HTTP/1.1\r\nX(y): 1\r\n\r\n", "header name");
    expect_bad("GET http://h/ HTTP/1.1\r\nHost: h\r\nhost: evil\r\n\r\n", "duplicate Host");
    expect_bad("CONNECT h:443 HTTP/1.1\r\nHost: h\r\nHOST: h\r\n\r\n", "duplicate Host");
    expect_bad("GET http://h/ HTTP/1.1\r\nX: a\rb\r\n\r\n", "bare CR");
    expect_bad("GET http://h/ HTTP/1.1\r\nX: a\x01\r\n\r\n", "control character");
    expect_bad("GET http://h/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", "control character");
    /* HT and obs-text are allowed in values */
    expect_ok("GET http://h/ HTTP/1.1\r\nX: a\tb \xe2\x82\xac\r\n\r\n", false, "GET", "h", 80);
}

Test(net_http, nul_anywhere_in_the_head)
{
    const char *head = CURL_GET;
    size_t n = strlen(head);
    char buf[512];
    for (size_t i = 0; i < n; i++) {
        memcpy(buf, head, n);
        buf[i] = '\0';
        struct pd_http_req rq;
        enum pd_http_parse r = parse_n(buf, n, &rq);
        cr_expect_eq(r, PD_HTTP_BAD, "NUL at %zu: %d", i, r);
        cr_expect(strstr(rq.why, "NUL") != NULL, "NUL at %zu: %s", i, rq.why);
    }
    /* a NUL after the head is body data */
    memcpy(buf, head, n);
    buf[n] = '\0';
    struct pd_http_req rq;
    cr_expect_eq(parse_n(buf, n + 1, &rq), PD_HTTP_OK);
}

Test(net_http, every_truncation_is_more)
{
    const char *heads[] = {
        CURL_CONNECT,
        CURL_GET,
        "CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
        "GET http://example.com HTTP/1.0\n\n",
        "POST http://[2001:db8::2]:8080/x HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
    };
    for (size_t h = 0; h < sizeof(heads) / sizeof(heads[0]); h++) {
        size_t n = strlen(heads[h]);
        for (size_t k = 0; k < n; k++) {
            struct pd_http_req rq;
            enum pd_http_parse r = parse_n(heads[h], k, &rq);
            cr_expect_eq(r, PD_HTTP_MORE, "head %zu cut at %zu: %d (%s)", h, k, r, rq.why);
        }
        struct pd_http_req rq;
        cr_expect_eq(parse_n(heads[h], n, &rq), PD_HTTP_OK, "head %zu", h);
    }
    struct pd_http_req rq;
    cr_expect_eq(pd_http_parse_request(NULL, 0, &rq), PD_HTTP_MORE);
}

Test(net_http, a_bad_line_is_bad_before_the_head_ends)
{
    struct pd_http_req rq;
    cr_expect_eq(parse("GET /x HTTP/1.1\r\n", &rq), PD_HTTP_BAD);
    cr_expect_eq(parse_n("\x16\x03\x01\x02\x00\x01", 6, &rq), PD_HTTP_BAD); /* TLS in clear */
    cr_expect_eq(parse("GET http://h/ HTTP/1.1\r\nHost: h\r\n", &rq), PD_HTTP_MORE);
}

/* a head of exactly total bytes: request line, one long header, blank line */
static char *head_of(size_t total, size_t extra)
{
    const char *first = "GET http://example.com/ HTTP/1.1\r\nX-Pad: ";
    size_t fl = strlen(first);
    cr_assert_gt(total, fl + 4);
    char *b = malloc(total + extra);
    cr_assert_not_null(b);
    memcpy(b, first, fl);
    memset(b + fl, 'p', total - fl - 4);
    memcpy(b + total - 4, "\r\n\r\n", 4);
    memset(b + total, 'B', extra);
    return b;
}

Test(net_http, oversize_heads)
{
    struct pd_http_req rq;
    /* a head of exactly PD_HTTP_HEAD_MAX bytes, with body bytes after it */
    char *b = head_of(PD_HTTP_HEAD_MAX, 4096);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX + 4096, &rq), PD_HTTP_OK);
    cr_expect_eq(rq.head_len, PD_HTTP_HEAD_MAX);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX - 1, &rq), PD_HTTP_MORE);
    cr_assert_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX, &rq), PD_HTTP_OK);
    char out[PD_HTTP_HEAD_MAX + 256];
    cr_expect_gt(pd_http_origin_head((uint8_t *)b, rq.head_len, &rq, out, sizeof(out)), 0);
    free(b);
    /* one byte more is too big, however much has arrived */
    b = head_of(PD_HTTP_HEAD_MAX + 1, 0);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX, &rq), PD_HTTP_TOO_BIG);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX - 1, &rq), PD_HTTP_MORE);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX + 1, &rq), PD_HTTP_TOO_BIG);
    free(b);
    /* 9 KiB of head (the design's test), and 64 KiB of junk without a line end */
    b = head_of(9 * 1024, 0);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, 9 * 1024, &rq), PD_HTTP_TOO_BIG);
    free(b);
    size_t big = 64 * 1024;
    b = malloc(big);
    cr_assert_not_null(b);
    memset(b, 'A', big);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, big, &rq), PD_HTTP_TOO_BIG);
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX - 1, &rq), PD_HTTP_MORE);
    /* exactly the limit without a line end is too big already */
    cr_expect_eq(pd_http_parse_request((uint8_t *)b, PD_HTTP_HEAD_MAX, &rq), PD_HTTP_TOO_BIG);
    free(b);
}

Test(net_http, host_length_limit)
{
    char host[300], head[512];
    memset(host, 'a', 255);
    host[255] = '\0';
    snprintf(head, sizeof(head), "CONNECT %s:443 HTTP/1.1\r\n\r\n", host);
    struct pd_http_req rq;
    cr_expect_eq(parse(head, &rq), PD_HTTP_OK);
    cr_expect_eq(strlen(rq.host), 255);
    memset(host, 'a', 256);
    host[256] = '\0';
    snprintf(head, sizeof(head), "CONNECT %s:443 HTTP/1.1\r\n\r\n", host);
    expect_bad(head, "too long");
}

/* ---- the real curl ------------------------------------------------------- */

static bool have_curl(void)
{
    return system("command -v curl >/dev/null 2>&1") == 0;
}

static void wait_child(pid_t pid)
{
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Run curl with a proxy on 127.0.0.1 (proxy_fmt gets the port), accept its
 * connection, read until the head parses, answer 403, return the head. */
static size_t curl_head(const char *proxy_fmt, const char *url, const char *extra, uint8_t *buf,
                        size_t cap, struct pd_http_req *rq)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(ls, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(listen(ls, 1), 0);
    socklen_t sl = sizeof(sa);
    cr_assert_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
    char proxy[64];
    snprintf(proxy, sizeof(proxy), proxy_fmt, ntohs(sa.sin_port));
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        const char *vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                              "all_proxy",  "ALL_PROXY",  "no_proxy",    "NO_PROXY"};
        for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
            unsetenv(vars[i]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        if (extra != NULL)
            execlp("curl", "curl", "-s", "-q", "--max-time", "10", "-x", proxy, extra, url,
                   (char *)NULL);
        else
            execlp("curl", "curl", "-s", "-q", "--max-time", "10", "-x", proxy, url, (char *)NULL);
        _exit(127);
    }
    struct pollfd pf = {.fd = ls, .events = POLLIN};
    cr_assert_eq(poll(&pf, 1, 10000), 1, "curl did not connect");
    int c = accept(ls, NULL, NULL);
    cr_assert_geq(c, 0);
    size_t len = 0;
    enum pd_http_parse r = PD_HTTP_MORE;
    while (r == PD_HTTP_MORE && len < cap) {
        pf.fd = c;
        cr_assert_eq(poll(&pf, 1, 10000), 1, "curl sent no head");
        ssize_t got = read(c, buf + len, cap - len);
        cr_assert_gt(got, 0);
        len += (size_t)got;
        r = pd_http_parse_request(buf, len, rq);
    }
    char out[512];
    size_t n = pd_http_error(403, "host not in allow_hosts", out, sizeof(out));
    cr_assert_eq(write(c, out, n), (ssize_t)n);
    close(c);
    close(ls);
    wait_child(pid);
    cr_assert_eq(r, PD_HTTP_OK, "curl's head: %s\n%.*s", rq->why, (int)len, buf);
    return len;
}

Test(net_http, real_curl_connect)
{
    if (!have_curl())
        cr_skip_test("curl is not installed");
    uint8_t buf[PD_HTTP_HEAD_MAX];
    struct pd_http_req rq;
    size_t len = curl_head("http://127.0.0.1:%u", "https://example.test:8443/x", "-p", buf,
                           sizeof(buf), &rq);
    cr_expect(rq.connect);
    cr_expect_str_eq(rq.host, "example.test");
    cr_expect_eq(rq.port, 8443);
    cr_expect_eq(rq.head_len, len);
    len = curl_head("http://127.0.0.1:%u", "https://[2001:db8::5]/", "-p", buf, sizeof(buf), &rq);
    cr_expect(rq.connect);
    cr_expect_str_eq(rq.host, "2001:db8::5");
    cr_expect_eq(rq.port, 443);
}

Test(net_http, real_curl_absolute_form)
{
    if (!have_curl())
        cr_skip_test("curl is not installed");
    uint8_t buf[PD_HTTP_HEAD_MAX];
    struct pd_http_req rq;
    size_t len = curl_head("http://u:secret@127.0.0.1:%u", "http://example.test:8080/p/a?q=1", NULL,
                           buf, sizeof(buf), &rq);
    cr_expect(!rq.connect);
    cr_expect_str_eq(rq.method, "GET");
    cr_expect_str_eq(rq.host, "example.test");
    cr_expect_eq(rq.port, 8080);
    cr_expect_eq(rq.head_len, len);
    /* curl sent Proxy-Authorization and Proxy-Connection; the origin sees neither */
    cr_expect(memmem(buf, len, "Proxy-Authorization:", 20) != NULL);
    char out[PD_HTTP_HEAD_MAX + 256];
    size_t n = pd_http_origin_head(buf, rq.head_len, &rq, out, sizeof(out));
    cr_assert_gt(n, 0);
    cr_expect(strncmp(out, "GET /p/a?q=1 HTTP/1.1\r\nHost: example.test:8080\r\n", 48) == 0, "%s",
              out);
    cr_expect(strstr(out, "Proxy-") == NULL, "%s", out);
    cr_expect(strstr(out, "dTpzZWNyZXQ") == NULL, "%s", out); /* u:secret */
    cr_expect(strstr(out, "User-Agent: curl/") != NULL, "%s", out);
    cr_expect(strstr(out, "\r\nConnection: close\r\n\r\n") == out + n - 23, "%s", out);
}
