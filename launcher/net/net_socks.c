/* launcher/net/net_socks.c - SOCKS5 CONNECT without authentication: the greeting,
 * the request and the reply (launcher/net/net_socks.h). Every read is bounded by
 * the length the caller gives. */
#include "launcher/net/net_socks.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#define SOCKS_VERSION     5
#define SOCKS_CMD_CONNECT 1
#define SOCKS_NO_AUTH     0x00

enum pd_socks_parse pd_socks_greeting(const uint8_t *buf, size_t len, size_t *used)
{
    *used = 0;
    if (buf == NULL || len < 1)
        return PD_SOCKS_MORE;
    if (buf[0] != SOCKS_VERSION)
        return PD_SOCKS_BAD;
    if (len < 2)
        return PD_SOCKS_MORE;
    size_t n = buf[1];
    if (n == 0)
        return PD_SOCKS_BAD;
    if (len - 2 < n)
        return PD_SOCKS_MORE;
    if (memchr(buf + 2, SOCKS_NO_AUTH, n) == NULL)
        return PD_SOCKS_BAD;
    *used = 2 + n;
    return PD_SOCKS_OK;
}

static enum pd_socks_parse bad(struct pd_socks_req *req, uint8_t rep)
{
    memset(req, 0, sizeof(*req));
    req->reply_code = rep;
    return PD_SOCKS_BAD;
}

enum pd_socks_parse pd_socks_request(const uint8_t *buf, size_t len, struct pd_socks_req *req,
                                     size_t *used)
{
    memset(req, 0, sizeof(*req));
    *used = 0;
    if (buf == NULL)
        len = 0;
    /* each header byte is judged as soon as it is there */
    if (len >= 1 && buf[0] != SOCKS_VERSION)
        return bad(req, PD_SOCKS_REP_FAILURE);
    if (len >= 2 && buf[1] != SOCKS_CMD_CONNECT)
        return bad(req, PD_SOCKS_REP_COMMAND);
    if (len >= 3 && buf[2] != 0)
        return bad(req, PD_SOCKS_REP_FAILURE);
    if (len < 4)
        return PD_SOCKS_MORE;
    size_t addr_off = 4, addr_len;
    switch (buf[3]) {
    case PD_SOCKS_ATYP_IPV4:
        addr_len = 4;
        break;
    case PD_SOCKS_ATYP_IPV6:
        addr_len = 16;
        break;
    case PD_SOCKS_ATYP_DOMAIN:
        if (len < 5)
            return PD_SOCKS_MORE;
        addr_off = 5;
        addr_len = buf[4];
        if (addr_len == 0)
            return bad(req, PD_SOCKS_REP_FAILURE);
        break;
    default:
        return bad(req, PD_SOCKS_REP_ATYP);
    }
    if (buf[3] == PD_SOCKS_ATYP_DOMAIN) {
        /* judge the name bytes seen so far */
        size_t have = len - addr_off < addr_len ? len - addr_off : addr_len;
        for (size_t i = 0; i < have; i++) {
            uint8_t c = buf[addr_off + i];
            if (c <= 0x20 || c >= 0x7f)
                return bad(req, PD_SOCKS_REP_FAILURE);
        }
    }
    size_t total = addr_off + addr_len + 2;
    if (len < total)
        return PD_SOCKS_MORE;
    unsigned port = ((unsigned)buf[total - 2] << 8) | buf[total - 1];
    if (port == 0)
        return bad(req, PD_SOCKS_REP_FAILURE);
    if (buf[3] == PD_SOCKS_ATYP_DOMAIN) {
        memcpy(req->host, buf + addr_off, addr_len); /* addr_len <= 255 */
        req->host[addr_len] = '\0';
    } else {
        int af = buf[3] == PD_SOCKS_ATYP_IPV4 ? AF_INET : AF_INET6;
        if (inet_ntop(af, buf + addr_off, req->host, sizeof(req->host)) == NULL)
            return bad(req, PD_SOCKS_REP_FAILURE);
    }
    req->atyp = buf[3];
    req->port = port;
    req->reply_code = PD_SOCKS_REP_OK;
    *used = total;
    return PD_SOCKS_OK;
}

size_t pd_socks_reply(uint8_t rep, uint8_t *out, size_t outlen)
{
    if (out == NULL || outlen < PD_SOCKS_REPLY_LEN)
        return 0;
    static const uint8_t tail[] = {0x00, PD_SOCKS_ATYP_IPV4, 0, 0, 0, 0, 0, 0};
    out[0] = SOCKS_VERSION;
    out[1] = rep;
    memcpy(out + 2, tail, sizeof(tail));
    return PD_SOCKS_REPLY_LEN;
}

bool pd_socks_first_byte(uint8_t b)
{
    return b == SOCKS_VERSION;
}
