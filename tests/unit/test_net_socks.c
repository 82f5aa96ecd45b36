/* tests/unit/test_net_socks.c - SOCKS5 CONNECT without authentication
 * (launcher/net/net_socks.h): greetings and requests for each address type as
 * clients send them (also captured from the real curl when it is
 * installed), the replies byte for byte, and hostile input: every truncation,
 * unsupported commands and address types, bad names, port 0. */
#include <criterion/criterion.h>

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

#include "launcher/net/net_socks.h"

/* ---- helpers ------------------------------------------------------------- */

/* parse from an exact-size heap copy, so that an over-read leaves the allocation */
static enum pd_socks_parse greet(const uint8_t *b, size_t n, size_t *used)
{
    uint8_t *copy = malloc(n > 0 ? n : 1);
    cr_assert_not_null(copy);
    memcpy(copy, b, n);
    enum pd_socks_parse r = pd_socks_greeting(copy, n, used);
    free(copy);
    return r;
}

static enum pd_socks_parse request(const uint8_t *b, size_t n, struct pd_socks_req *rq,
                                   size_t *used)
{
    uint8_t *copy = malloc(n > 0 ? n : 1);
    cr_assert_not_null(copy);
    memcpy(copy, b, n);
    enum pd_socks_parse r = pd_socks_request(copy, n, rq, used);
    free(copy);
    return r;
}

/* a request: 05 cmd 00 atyp addr port */
static size_t make_req(uint8_t *out, uint8_t cmd, uint8_t atyp, const void *addr, size_t alen,
                       unsigned port)
{
    size_t k = 0;
    out[k++] = 5;
    out[k++] = cmd;
    out[k++] = 0;
    out[k++] = atyp;
    if (atyp == PD_SOCKS_ATYP_DOMAIN)
        out[k++] = (uint8_t)alen;
    memcpy(out + k, addr, alen);
    k += alen;
    out[k++] = (uint8_t)(port >> 8);
    out[k++] = (uint8_t)port;
    return k;
}

static void expect_req_ok(const uint8_t *b, size_t n, int atyp, const char *host, unsigned port)
{
    struct pd_socks_req rq;
    size_t used = 99;
    cr_assert_eq(request(b, n, &rq, &used), PD_SOCKS_OK, "reply code %d", rq.reply_code);
    cr_expect_eq(used, n);
    cr_expect_eq(rq.atyp, atyp);
    cr_expect_str_eq(rq.host, host);
    cr_expect_eq(rq.port, port);
    cr_expect_eq(rq.reply_code, 0);
    /* every truncation needs more, and uses nothing */
    for (size_t k = 0; k < n; k++) {
        used = 99;
        enum pd_socks_parse r = request(b, k, &rq, &used);
        cr_expect_eq(r, PD_SOCKS_MORE, "cut at %zu of %zu: %d", k, n, r);
        cr_expect_eq(used, 0);
    }
}

static void expect_req_bad(const uint8_t *b, size_t n, uint8_t rep)
{
    struct pd_socks_req rq;
    size_t used = 99;
    cr_expect_eq(request(b, n, &rq, &used), PD_SOCKS_BAD);
    cr_expect_eq(rq.reply_code, rep, "reply code 0x%02x, want 0x%02x", rq.reply_code, rep);
    cr_expect_eq(used, 0);
    cr_expect_str_eq(rq.host, "");
}

/* ---- greeting ------------------------------------------------------------ */

Test(net_socks, greeting_ok)
{
    size_t used = 99;
    cr_expect_eq(greet((const uint8_t *)"\x05\x01\x00", 3, &used), PD_SOCKS_OK);
    cr_expect_eq(used, 3);
    /* no auth and user/password offered (curl with credentials) */
    cr_expect_eq(greet((const uint8_t *)"\x05\x02\x00\x02", 4, &used), PD_SOCKS_OK);
    cr_expect_eq(used, 4);
    cr_expect_eq(greet((const uint8_t *)"\x05\x03\x01\x02\x00", 5, &used), PD_SOCKS_OK);
    cr_expect_eq(used, 5);
    /* the request already follows: the greeting's length only */
    cr_expect_eq(greet((const uint8_t *)"\x05\x01\x00\x05\x01\x00\x01", 7, &used), PD_SOCKS_OK);
    cr_expect_eq(used, 3);
    /* all 255 methods */
    uint8_t all[257] = {5, 255};
    for (int i = 0; i < 255; i++)
        all[2 + i] = (uint8_t)(254 - i); /* 0x00 last */
    cr_expect_eq(greet(all, sizeof(all), &used), PD_SOCKS_OK);
    cr_expect_eq(used, 257);
    for (size_t k = 0; k < sizeof(all); k++) {
        cr_expect_eq(greet(all, k, &used), PD_SOCKS_MORE, "cut at %zu", k);
        cr_expect_eq(used, 0);
    }
}

Test(net_socks, greeting_bad_and_more)
{
    size_t used = 99;
    cr_expect_eq(greet((const uint8_t *)"", 0, &used), PD_SOCKS_MORE);
    cr_expect_eq(pd_socks_greeting(NULL, 0, &used), PD_SOCKS_MORE);
    cr_expect_eq(greet((const uint8_t *)"\x05", 1, &used), PD_SOCKS_MORE);
    cr_expect_eq(greet((const uint8_t *)"\x05\x02\x00", 3, &used), PD_SOCKS_MORE);
    /* only user/password or GSSAPI: no acceptable method */
    cr_expect_eq(greet((const uint8_t *)"\x05\x01\x02", 3, &used), PD_SOCKS_BAD);
    cr_expect_eq(greet((const uint8_t *)"\x05\x02\x01\x02", 4, &used), PD_SOCKS_BAD);
    cr_expect_eq(used, 0);
    cr_expect_eq(greet((const uint8_t *)"\x05\x00", 2, &used), PD_SOCKS_BAD);
    /* SOCKS4, HTTP, TLS: the first byte is enough */
    cr_expect_eq(greet((const uint8_t *)"\x04", 1, &used), PD_SOCKS_BAD);
    cr_expect_eq(greet((const uint8_t *)"C", 1, &used), PD_SOCKS_BAD);
    cr_expect_eq(greet((const uint8_t *)"\x16\x03\x01", 3, &used), PD_SOCKS_BAD);
}

/* ---- request ------------------------------------------------------------- */

Test(net_socks, request_ipv4)
{
    uint8_t b[32];
    size_t n = make_req(b, 1, 1, "\x5d\xb8\xd8\x22", 4, 443);
    cr_assert_eq(n, 10);
    expect_req_ok(b, n, 1, "93.184.216.34", 443);
    n = make_req(b, 1, 1, "\x7f\x00\x00\x01", 4, 65535);
    expect_req_ok(b, n, 1, "127.0.0.1", 65535);
    n = make_req(b, 1, 1, "\x00\x00\x00\x00", 4, 1);
    expect_req_ok(b, n, 1, "0.0.0.0", 1);
}

Test(net_socks, request_domain)
{
    uint8_t b[300];
    size_t n = make_req(b, 1, 3, "example.com", 11, 443);
    cr_assert_eq(n, 18);
    expect_req_ok(b, n, 3, "example.com", 443);
    /* the text as sent: canonicalizing is the caller's */
    n = make_req(b, 1, 3, "Pypi.ORG.", 9, 80);
    expect_req_ok(b, n, 3, "Pypi.ORG.", 80);
    n = make_req(b, 1, 3, "1.2.3.4", 7, 22);
    expect_req_ok(b, n, 3, "1.2.3.4", 22);
    /* the shortest request of all: a one-byte name, 8 bytes (found by the fuzzer,
     * whose check had assumed 10) */
    n = make_req(b, 1, 3, "e", 1, 0x0b78);
    cr_assert_eq(n, 8);
    expect_req_ok(b, n, 3, "e", 0x0b78);
    /* the longest name a length byte allows */
    char name[255];
    memset(name, 'a', sizeof(name));
    n = make_req(b, 1, 3, name, sizeof(name), 443);
    struct pd_socks_req rq;
    size_t used;
    cr_assert_eq(request(b, n, &rq, &used), PD_SOCKS_OK);
    cr_expect_eq(strlen(rq.host), 255);
    cr_expect_eq(used, 4 + 1 + 255 + 2);
}

Test(net_socks, request_ipv6)
{
    uint8_t b[32];
    static const uint8_t lo[16] = {[15] = 1};
    size_t n = make_req(b, 1, 4, lo, 16, 443);
    cr_assert_eq(n, 22);
    expect_req_ok(b, n, 4, "::1", 443);
    static const uint8_t doc[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
    n = make_req(b, 1, 4, doc, 16, 8443);
    expect_req_ok(b, n, 4, "2001:db8::1", 8443);
    static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff, 127, 0, 0, 1};
    n = make_req(b, 1, 4, mapped, 16, 80);
    expect_req_ok(b, n, 4, "::ffff:127.0.0.1", 80);
}

Test(net_socks, request_with_tunnel_data_after_it)
{
    uint8_t b[64];
    size_t n = make_req(b, 1, 3, "example.com", 11, 443);
    memcpy(b + n, "\x16\x03\x01\x00", 4);
    struct pd_socks_req rq;
    size_t used;
    cr_assert_eq(request(b, n + 4, &rq, &used), PD_SOCKS_OK);
    cr_expect_eq(used, n);
    cr_expect_str_eq(rq.host, "example.com");
}

Test(net_socks, request_commands_and_address_types)
{
    uint8_t b[32];
    /* BIND, UDP ASSOCIATE, anything else: command not supported, known from byte 2 */
    for (unsigned cmd = 0; cmd < 256; cmd++) {
        if (cmd == 1)
            continue;
        size_t n = make_req(b, (uint8_t)cmd, 1, "\x01\x02\x03\x04", 4, 443);
        expect_req_bad(b, n, PD_SOCKS_REP_COMMAND);
        expect_req_bad(b, 2, PD_SOCKS_REP_COMMAND);
    }
    for (unsigned atyp = 0; atyp < 256; atyp++) {
        if (atyp == 1 || atyp == 3 || atyp == 4)
            continue;
        size_t n = make_req(b, 1, (uint8_t)atyp, "\x01\x02\x03\x04", 4, 443);
        expect_req_bad(b, n, PD_SOCKS_REP_ATYP);
        expect_req_bad(b, 4, PD_SOCKS_REP_ATYP);
    }
    /* the wrong version and a non-zero reserved byte */
    size_t n = make_req(b, 1, 1, "\x01\x02\x03\x04", 4, 443);
    b[0] = 4;
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    expect_req_bad(b, 1, PD_SOCKS_REP_FAILURE);
    b[0] = 5;
    b[2] = 1;
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    expect_req_bad(b, 3, PD_SOCKS_REP_FAILURE);
}

Test(net_socks, request_bad_names_and_port_zero)
{
    uint8_t b[300];
    size_t n = make_req(b, 1, 3, "", 0, 443);
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    expect_req_bad(b, 5, PD_SOCKS_REP_FAILURE);
    /* NUL cuts a C string: "evil.com\0.allowed.com" must not pass a suffix test */
    n = make_req(b, 1, 3, "evil.com\0.allowed.com", 21, 443);
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    expect_req_bad(b, 5 + 9, PD_SOCKS_REP_FAILURE); /* as soon as the NUL is there */
    const char *bad[] = {"a b.com", "a\tb.com", "a\r\nb", "caf\xc3\xa9.com", "x\x7f", "\xff"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        n = make_req(b, 1, 3, bad[i], strlen(bad[i]), 443);
        expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    }
    n = make_req(b, 1, 3, "example.com", 11, 0);
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    n = make_req(b, 1, 1, "\x01\x02\x03\x04", 4, 0);
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    static const uint8_t lo[16] = {[15] = 1};
    n = make_req(b, 1, 4, lo, 16, 0);
    expect_req_bad(b, n, PD_SOCKS_REP_FAILURE);
    struct pd_socks_req rq;
    size_t used;
    cr_expect_eq(pd_socks_request(NULL, 0, &rq, &used), PD_SOCKS_MORE);
}

/* ---- reply and sniffing -------------------------------------------------- */

Test(net_socks, replies_exact_bytes)
{
    const uint8_t reps[] = {PD_SOCKS_REP_OK,          PD_SOCKS_REP_FAILURE, PD_SOCKS_REP_RULESET,
                            PD_SOCKS_REP_UNREACHABLE, PD_SOCKS_REP_REFUSED, PD_SOCKS_REP_COMMAND,
                            PD_SOCKS_REP_ATYP};
    const uint8_t codes[] = {0x00, 0x01, 0x02, 0x04, 0x05, 0x07, 0x08};
    for (size_t i = 0; i < sizeof(reps); i++) {
        uint8_t out[16];
        memset(out, 0xAA, sizeof(out));
        cr_assert_eq(pd_socks_reply(reps[i], out, sizeof(out)), 10);
        const uint8_t want[10] = {5, codes[i], 0, 1, 0, 0, 0, 0, 0, 0};
        cr_expect_eq(memcmp(out, want, 10), 0, "REP 0x%02x", codes[i]);
        cr_expect_eq(out[10], 0xAA);
    }
    uint8_t out[10];
    cr_expect_eq(pd_socks_reply(0, out, 10), 10);
    cr_expect_eq(pd_socks_reply(0, out, 9), 0);
    cr_expect_eq(pd_socks_reply(0, out, 0), 0);
    cr_expect_eq(pd_socks_reply(0, NULL, 10), 0);
}

Test(net_socks, first_byte_sniff)
{
    for (unsigned b = 0; b < 256; b++)
        cr_expect_eq(pd_socks_first_byte((uint8_t)b), b == 5, "byte 0x%02x", b);
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

static size_t read_more(int c, uint8_t *buf, size_t len, size_t cap)
{
    struct pollfd pf = {.fd = c, .events = POLLIN};
    cr_assert_eq(poll(&pf, 1, 10000), 1, "curl went quiet");
    ssize_t got = read(c, buf + len, cap - len);
    cr_assert_gt(got, 0);
    return len + (size_t)got;
}

/* Run curl through a SOCKS5 proxy on 127.0.0.1 (opt is --socks5 or
 * --socks5-hostname), answer the greeting, parse the request, refuse it. */
static void curl_socks(const char *opt, const char *url, struct pd_socks_req *rq)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(ls, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(listen(ls, 1), 0);
    socklen_t sl = sizeof(sa);
    cr_assert_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
    char proxy[64];
    snprintf(proxy, sizeof(proxy), "127.0.0.1:%u", ntohs(sa.sin_port));
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
        execlp("curl", "curl", "-s", "-q", "--max-time", "10", opt, proxy, url, (char *)NULL);
        _exit(127);
    }
    struct pollfd pf = {.fd = ls, .events = POLLIN};
    cr_assert_eq(poll(&pf, 1, 10000), 1, "curl did not connect");
    int c = accept(ls, NULL, NULL);
    cr_assert_geq(c, 0);
    uint8_t buf[1024];
    size_t len = 0, used = 0;
    enum pd_socks_parse r = PD_SOCKS_MORE;
    while (r == PD_SOCKS_MORE) {
        len = read_more(c, buf, len, sizeof(buf));
        cr_assert(pd_socks_first_byte(buf[0]));
        r = pd_socks_greeting(buf, len, &used);
    }
    cr_assert_eq(r, PD_SOCKS_OK);
    cr_assert_eq(write(c, "\x05\x00", 2), 2);
    memmove(buf, buf + used, len - used);
    len -= used;
    r = len > 0 ? pd_socks_request(buf, len, rq, &used) : PD_SOCKS_MORE;
    while (r == PD_SOCKS_MORE) {
        len = read_more(c, buf, len, sizeof(buf));
        r = pd_socks_request(buf, len, rq, &used);
    }
    cr_assert_eq(r, PD_SOCKS_OK, "reply code %d", rq->reply_code);
    cr_expect_eq(used, len);
    uint8_t out[16];
    size_t n = pd_socks_reply(PD_SOCKS_REP_RULESET, out, sizeof(out));
    cr_assert_eq(write(c, out, n), (ssize_t)n);
    close(c);
    close(ls);
    wait_child(pid);
}

Test(net_socks, real_curl_each_address_type)
{
    if (!have_curl())
        cr_skip_test("curl is not installed");
    struct pd_socks_req rq;
    curl_socks("--socks5-hostname", "http://example.test:8080/", &rq);
    cr_expect_eq(rq.atyp, 3);
    cr_expect_str_eq(rq.host, "example.test");
    cr_expect_eq(rq.port, 8080);
    curl_socks("--socks5", "http://192.0.2.7:81/", &rq);
    cr_expect_eq(rq.atyp, 1);
    cr_expect_str_eq(rq.host, "192.0.2.7");
    cr_expect_eq(rq.port, 81);
    curl_socks("--socks5", "http://[2001:db8::7]:82/", &rq);
    cr_expect_eq(rq.atyp, 4);
    cr_expect_str_eq(rq.host, "2001:db8::7");
    cr_expect_eq(rq.port, 82);
}
