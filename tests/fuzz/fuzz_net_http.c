/* tests/fuzz/fuzz_net_http.c - libFuzzer target for the HTTP proxy request
 * head (launcher/net/net_http.h). Build and run:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *       tests/fuzz/fuzz_net_http.c launcher/net/net_http.c -o /tmp/fuzz_net_http
 *   /tmp/fuzz_net_http -max_total_time=60 tests/fuzz/corpus/net_http
 * Invariants checked: the result agrees with the input's length; an accepted
 * head lies within the input, ends at a line end, parses alike on its own and
 * not one byte shorter; its origin head (absolute form) is well-formed CRLF
 * text with exactly one Host and no proxy headers; the error builder takes any
 * reason. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "launcher/net/net_http.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static bool line_is(const char *line, size_t n, const char *name)
{
    size_t nl = strlen(name);
    return n > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0;
}

static void check_origin(const uint8_t *data, const struct pd_http_req *rq)
{
    static char out[2 * PD_HTTP_HEAD_MAX + 512];
    size_t n = pd_http_origin_head(data, rq->head_len, rq, out, sizeof(out));
    CHECK(n > 0);
    CHECK(n <= rq->head_len + 300);
    CHECK(memchr(out, '\0', n) == NULL);
    static const char tail[] = "\r\nConnection: close\r\n\r\n";
    CHECK(n >= sizeof(tail) - 1 &&
          memcmp(out + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) == 0);
    /* CRLF line ends only; lines are: request line, headers, empty line */
    size_t hosts = 0, off = 0, lines = 0;
    while (off < n) {
        const char *lf = memchr(out + off, '\n', n - off);
        CHECK(lf != NULL);
        size_t len = (size_t)(lf - (out + off));
        CHECK(len > 0 && out[off + len - 1] == '\r');
        len--;
        const char *line = out + off;
        CHECK(memchr(line, '\r', len) == NULL);
        if (lines == 0) {
            CHECK(len > 0 && memchr(line, ' ', len) != NULL);
            const char *sp = memchr(line, ' ', len);
            CHECK(sp[1] == '/'); /* origin form */
        } else if (len > 0) {
            CHECK(memchr(line, ':', len) != NULL);
            CHECK(!line_is(line, len, "proxy-authorization"));
            CHECK(!line_is(line, len, "proxy-connection"));
            CHECK(!line_is(line, len, "keep-alive"));
            if (line_is(line, len, "host"))
                hosts++;
        } else {
            CHECK(off + 2 == n); /* the empty line is last */
        }
        lines++;
        off += len + 2;
    }
    CHECK(hosts == 1);
    /* one byte less does not fit */
    CHECK(pd_http_origin_head(data, rq->head_len, rq, out, n - 1) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pd_http_req rq;
    enum pd_http_parse r = pd_http_parse_request(data, size, &rq);
    char resp[1024];
    switch (r) {
    case PD_HTTP_MORE:
        CHECK(size < PD_HTTP_HEAD_MAX);
        CHECK(rq.head_len == 0);
        break;
    case PD_HTTP_TOO_BIG:
        CHECK(size >= PD_HTTP_HEAD_MAX);
        CHECK(rq.head_len == 0);
        break;
    case PD_HTTP_BAD:
        CHECK(terminated(rq.why, sizeof(rq.why)) && rq.why[0] != '\0');
        CHECK(rq.head_len == 0 && rq.host[0] == '\0');
        CHECK(pd_http_error(400, rq.why, resp, sizeof(resp)) > 0);
        break;
    case PD_HTTP_OK: {
        CHECK(rq.head_len > 0 && rq.head_len <= size && rq.head_len <= PD_HTTP_HEAD_MAX);
        CHECK(data[rq.head_len - 1] == '\n');
        CHECK(memchr(data, '\0', rq.head_len) == NULL);
        CHECK(terminated(rq.host, sizeof(rq.host)) && rq.host[0] != '\0');
        CHECK(terminated(rq.method, sizeof(rq.method)) && rq.method[0] != '\0');
        CHECK(rq.port >= 1 && rq.port <= 65535);
        CHECK(rq.connect == (strcmp(rq.method, "CONNECT") == 0));
        struct pd_http_req again;
        CHECK(pd_http_parse_request(data, rq.head_len, &again) == PD_HTTP_OK);
        CHECK(memcmp(&again, &rq, sizeof(rq)) == 0);
        CHECK(pd_http_parse_request(data, rq.head_len - 1, &again) != PD_HTTP_OK);
        if (!rq.connect)
            check_origin(data, &rq);
        else
            CHECK(pd_http_origin_head(data, rq.head_len, &rq, resp, sizeof(resp)) == 0);
        CHECK(pd_http_error(403, rq.host, resp, sizeof(resp)) > 0);
        break;
    }
    default:
        CHECK(false); /* an unknown result */
    }
    /* any bytes as a reason: one status line, printable header, exact body */
    char reason[256];
    size_t rn = size < sizeof(reason) - 1 ? size : sizeof(reason) - 1;
    memcpy(reason, data, rn);
    reason[rn] = '\0';
    size_t n = pd_http_error(502, reason, resp, sizeof(resp));
    CHECK(n > 0 && n < sizeof(resp));
    const char *body = strstr(resp, "\r\n\r\n");
    CHECK(body != NULL);
    body += 4;
    CHECK(strncmp(body, "paldron: ", 9) == 0 && resp[n - 1] == '\n');
    for (const char *p = resp; p < body - 4; p++)
        CHECK((*p >= 0x20 && *p < 0x7f) ||
              ((*p == '\r' && p[1] == '\n') || (*p == '\n' && p[-1] == '\r')));
    char cl[64];
    snprintf(cl, sizeof(cl), "\r\nContent-Length: %zu\r\n", (size_t)(resp + n - body));
    CHECK(strstr(resp, cl) != NULL);
    return 0;
}
