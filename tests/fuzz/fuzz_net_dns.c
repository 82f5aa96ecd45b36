/* tests/fuzz/fuzz_net_dns.c - libFuzzer target for the DNS stub's messages
 * (launcher/net/net_dns.h). Build and run:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *       tests/fuzz/fuzz_net_dns.c launcher/net/net_dns.c -o /tmp/fuzz_net_dns
 *   /tmp/fuzz_net_dns -max_total_time=60 tests/fuzz/corpus/net_dns
 * The input is one message (UDP) and also a TCP stream (length-prefixed).
 * Invariants checked: an accepted query's name re-encodes to its question;
 * the answer and RCODE replies parse back (a small decoder here walks the
 * header, the echoed question and every record) and their question, turned
 * back into a query, parses to the same query; a refused message gets at
 * most a header-only FORMERR, and never when it is a response. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "launcher/net/net_dns.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned get16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* Walk a reply: header, one question equal to the query's, then answers of
 * rtype with rdata from addrs; returns the number of answers. */
static unsigned decode_reply(const uint8_t *r, size_t n, const struct pd_dns_query *q,
                             const uint8_t *msg, int rcode, unsigned rtype, const uint8_t *addrs,
                             size_t alen)
{
    CHECK(n >= q->question_len && n <= PD_DNS_MAX);
    CHECK(get16(r) == q->id);
    unsigned flags = get16(r + 2);
    CHECK((flags & 0x8000) && !(flags & 0x7800) && !(flags & 0x0400) && !(flags & 0x0200));
    CHECK(((flags & 0x0100) != 0) == q->rd && (flags & 0x0080) &&
          (flags & 0x000f) == (unsigned)rcode);
    CHECK(get16(r + 4) == 1 && get16(r + 8) == 0 && get16(r + 10) == 0);
    unsigned an = get16(r + 6);
    CHECK(an <= PD_DNS_ANSWERS_MAX);
    CHECK(memcmp(r + 12, msg + 12, q->question_len - 12) == 0);
    size_t off = q->question_len;
    for (unsigned i = 0; i < an; i++) {
        CHECK(n - off >= 12);
        CHECK(get16(r + off) == 0xC00C && get16(r + off + 2) == rtype && get16(r + off + 4) == 1);
        CHECK(get16(r + off + 6) == 0 && get16(r + off + 8) == 0);
        CHECK(get16(r + off + 10) == alen && n - off - 12 >= alen);
        CHECK(memcmp(r + off + 12, addrs + i * alen, alen) == 0);
        off += 12 + alen;
    }
    CHECK(off == n);
    /* the echoed question, made a query again, is the same query */
    uint8_t back[PD_DNS_MAX];
    memcpy(back, r, q->question_len);
    back[2] = (uint8_t)(q->flags >> 8);
    back[3] = (uint8_t)q->flags;
    memset(back + 6, 0, 6);
    struct pd_dns_query q2;
    CHECK(pd_dns_parse_query(back, q->question_len, &q2, NULL, 0) == 0);
    CHECK(q2.id == q->id && q2.qtype == q->qtype && q2.qclass == q->qclass && q2.rd == q->rd);
    CHECK(strcmp(q2.name, q->name) == 0 && q2.question_len == q->question_len);
    /* a reply is not a query */
    CHECK(pd_dns_parse_query(r, n, &q2, NULL, 0) == -1);
    return an;
}

static void check_message(const uint8_t *msg, size_t len)
{
    struct pd_dns_query q;
    char why[64];
    uint8_t out[PD_DNS_MAX];
    int r = pd_dns_parse_query(msg, len, &q, why, sizeof(why));
    size_t us = pd_dns_udp_size(msg, len);
    CHECK(us >= PD_DNS_UDP_MIN && us <= PD_DNS_MAX);
    if (r != 0) {
        CHECK(r == -1 && why[0] != '\0' && q.question_len == 0);
        size_t n = pd_dns_rcode(&q, msg, len, PD_DNS_FORMERR, out, sizeof(out));
        CHECK(n == 0 || n == 12);
        if (n == 12) {
            CHECK(len >= 12 && !(msg[2] & 0x80) && memcmp(out, msg, 2) == 0);
            CHECK((out[2] & 0x80) && (out[3] & 0x0f) == 1 && get16(out + 4) == 0);
        } else {
            CHECK(len < 12 || (msg[2] & 0x80));
        }
        CHECK(us == PD_DNS_UDP_MIN);
        return;
    }
    CHECK(why[0] == '\0');
    CHECK(len >= 17 && q.question_len >= 17 && q.question_len <= len);
    size_t nl = strlen(q.name);
    CHECK(nl <= 253 && memchr(q.name, '\0', sizeof(q.name)) != NULL);
    /* the name re-encodes to the question's labels, ignoring case */
    uint8_t wire[256];
    size_t w = 0, i = 0;
    while (i < nl) {
        size_t s = i;
        while (i < nl && q.name[i] != '.')
            i++;
        CHECK(i > s && i - s <= 63);
        wire[w++] = (uint8_t)(i - s);
        for (size_t k = s; k < i; k++) {
            char c = q.name[k];
            CHECK((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
            wire[w++] = (uint8_t)c;
        }
        if (i < nl) {
            i++;
            CHECK(i < nl); /* no trailing dot */
        }
    }
    wire[w++] = 0;
    CHECK(12 + w + 4 == q.question_len);
    for (size_t k = 0; k < w; k++) {
        uint8_t c = msg[12 + k];
        if (c >= 'A' && c <= 'Z')
            c = (uint8_t)(c + 32);
        CHECK(c == wire[k]);
    }
    CHECK(get16(msg + q.question_len - 4) == q.qtype &&
          get16(msg + q.question_len - 2) == q.qclass);

    /* answers, with as many addresses as the input's length asks */
    uint8_t addrs[20 * 16];
    for (size_t k = 0; k < sizeof(addrs); k++)
        addrs[k] = msg[k % len];
    size_t n_addr = len % 21;
    int family = q.qtype == PD_DNS_AAAA ? AF_INET6 : q.qtype == PD_DNS_A ? AF_INET : AF_UNSPEC;
    size_t alen = family == AF_INET6 ? 16 : 4;
    unsigned rtype = family == AF_INET6 ? PD_DNS_AAAA : PD_DNS_A;
    size_t n = pd_dns_answer(&q, msg, family, family == AF_UNSPEC ? NULL : addrs,
                             family == AF_UNSPEC ? 0 : n_addr, out, sizeof(out));
    CHECK(n > 0);
    unsigned an = decode_reply(out, n, &q, msg, 0, rtype, addrs, alen);
    size_t want = family == AF_UNSPEC ? 0 : (n_addr > 16 ? 16 : n_addr);
    CHECK(an == want);
    CHECK(pd_dns_answer(&q, msg, family, addrs, family == AF_UNSPEC ? 0 : n_addr, out, n - 1) == 0);
    /* ANY with IPv4 records */
    if (q.qtype == PD_DNS_ANY) {
        n = pd_dns_answer(&q, msg, AF_INET, addrs, n_addr, out, sizeof(out));
        CHECK(decode_reply(out, n, &q, msg, 0, PD_DNS_A, addrs, 4) == (n_addr > 16 ? 16 : n_addr));
    }
    for (int rc = 1; rc <= 5; rc += 2) {
        n = pd_dns_rcode(&q, msg, len, rc, out, sizeof(out));
        CHECK(n == q.question_len);
        CHECK(decode_reply(out, n, &q, msg, rc, 0, NULL, 0) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_message(data, size);
    /* the same bytes as a TCP stream */
    size_t off = 0;
    for (int m = 0; m < 4; m++) {
        size_t ml = 99;
        int r = pd_dns_tcp_frame(data + off, size - off, &ml);
        CHECK(r >= -1 && r <= 1);
        if (r != 1) {
            CHECK(ml == 0);
            if (r == 0 && size - off >= 2)
                CHECK(get16(data + off) > size - off - 2);
            break;
        }
        CHECK(ml >= 1 && ml <= PD_DNS_MAX && ml <= size - off - 2);
        check_message(data + off + 2, ml);
        off += 2 + ml;
    }
    return 0;
}
