/* tests/fuzz/fuzz_net_socks.c - libFuzzer target for SOCKS5 CONNECT
 * (launcher/net/net_socks.h). Build and run:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *       tests/fuzz/fuzz_net_socks.c launcher/net/net_socks.c -o /tmp/fuzz_net_socks
 *   /tmp/fuzz_net_socks -max_total_time=60 tests/fuzz/corpus/net_socks
 * The input is a greeting followed by a request, as a client sends them; the
 * request parser also gets the whole input. Invariants checked: what is used
 * lies within the input and is exactly the message; every shorter prefix
 * needs more; an accepted request re-encodes to the bytes it came from; a
 * refusal carries a REP code the reply builder writes. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "launcher/net/net_socks.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const uint8_t *data, size_t size)
{
    struct pd_socks_req rq;
    size_t used = 12345;
    enum pd_socks_parse r = pd_socks_request(data, size, &rq, &used);
    uint8_t out[16];
    switch (r) {
    case PD_SOCKS_MORE:
        CHECK(used == 0 && rq.reply_code == 0 && rq.host[0] == '\0');
        CHECK(size < 4 + 1 + 255 + 2);
        break;
    case PD_SOCKS_BAD:
        CHECK(used == 0 && rq.host[0] == '\0');
        CHECK(rq.reply_code == 0x01 || rq.reply_code == 0x07 || rq.reply_code == 0x08);
        CHECK(pd_socks_reply(rq.reply_code, out, sizeof(out)) == 10);
        CHECK(out[0] == 5 && out[1] == rq.reply_code && out[3] == 1);
        break;
    case PD_SOCKS_OK: {
        CHECK(used >= 8 && used <= size && used <= 4 + 1 + 255 + 2);
        CHECK(memchr(rq.host, '\0', sizeof(rq.host)) != NULL && rq.host[0] != '\0');
        CHECK(rq.port >= 1 && rq.port <= 65535 && rq.reply_code == 0);
        CHECK(data[0] == 5 && data[1] == 1 && data[2] == 0 && data[3] == rq.atyp);
        /* re-encode */
        uint8_t enc[300];
        size_t k = 4;
        memcpy(enc, data, 4);
        if (rq.atyp == 3) {
            size_t hl = strlen(rq.host);
            CHECK(hl >= 1 && hl <= 255);
            for (size_t i = 0; i < hl; i++)
                CHECK(rq.host[i] > 0x20 && rq.host[i] < 0x7f);
            enc[k++] = (uint8_t)hl;
            memcpy(enc + k, rq.host, hl);
            k += hl;
        } else {
            CHECK(rq.atyp == 1 || rq.atyp == 4);
            int af = rq.atyp == 1 ? AF_INET : AF_INET6;
            CHECK(inet_pton(af, rq.host, enc + k) == 1);
            k += rq.atyp == 1 ? 4 : 16;
        }
        enc[k++] = (uint8_t)(rq.port >> 8);
        enc[k++] = (uint8_t)rq.port;
        CHECK(k == used && memcmp(enc, data, used) == 0);
        for (size_t cut = 0; cut < used; cut++) {
            struct pd_socks_req r2;
            size_t u2;
            CHECK(pd_socks_request(data, cut, &r2, &u2) == PD_SOCKS_MORE);
        }
        CHECK(pd_socks_reply(0, out, sizeof(out)) == 10);
        break;
    }
    default:
        CHECK(false); /* an unknown result */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t used = 12345;
    enum pd_socks_parse r = pd_socks_greeting(data, size, &used);
    if (size > 0)
        CHECK(pd_socks_first_byte(data[0]) == (data[0] == 5));
    if (r == PD_SOCKS_OK) {
        CHECK(used == 2u + data[1] && used <= size && data[0] == 5);
        CHECK(memchr(data + 2, 0, data[1]) != NULL);
        size_t u2;
        CHECK(pd_socks_greeting(data, used - 1, &u2) == PD_SOCKS_MORE);
        check_request(data + used, size - used);
    } else {
        CHECK(used == 0);
        if (r == PD_SOCKS_MORE)
            CHECK(size < 2 + 255);
    }
    check_request(data, size);
    return 0;
}
