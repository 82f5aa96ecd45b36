/* launcher/net/net_dns.c - DNS queries in, answers and error replies out, and
 * the TCP length framing (launcher/net/net_dns.h). Every read is bounded by the
 * length the caller gives; nothing is allocated. */
#include "launcher/net/net_dns.h"

#include <string.h>
#include <sys/socket.h>

#define FLAG_QR       0x8000u
#define FLAG_OPCODE   0x7800u
#define FLAG_RD       0x0100u
#define FLAG_RA       0x0080u
#define NAME_MAX_TEXT 253u /* dotted text bytes of a name */
#define OPT_FIXED     11u  /* OPT record: root name, type, class, ttl, rdlength */
#define ANSWER_FIXED  12u  /* an answer without its rdata: pointer, type, class, ttl, rdlength */

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void set_why(char *why, size_t whylen, const char *text)
{
    if (why == NULL || whylen == 0)
        return;
    size_t n = strlen(text);
    if (n >= whylen)
        n = whylen - 1;
    memcpy(why, text, n);
    why[n] = '\0';
}

static bool label_byte(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/* The question name at msg[*off..len) into name (lower case, dotted) */
static const char *parse_name(const uint8_t *msg, size_t len, size_t *off, char *name)
{
    size_t o = *off, text = 0;
    for (;;) {
        if (o >= len)
            return "truncated question";
        uint8_t l = msg[o++];
        if (l == 0)
            break;
        if ((l & 0xC0) == 0xC0)
            return "compression pointer in the question";
        if (l > 63)
            return "label longer than 63 bytes";
        if (l > len - o)
            return "truncated question";
        if (text + (text > 0) + l > NAME_MAX_TEXT)
            return "name longer than 253 bytes";
        if (text > 0)
            name[text++] = '.';
        for (size_t i = 0; i < l; i++) {
            uint8_t c = msg[o + i];
            if (!label_byte(c))
                return "malformed name";
            name[text++] = (char)((c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c);
        }
        o += l;
    }
    name[text] = '\0';
    *off = o;
    return NULL;
}

/* The whole query; *opt_at is the offset of the OPT record, 0 without one */
static const char *parse_query(const uint8_t *msg, size_t len, struct pd_dns_query *q,
                               size_t *opt_at)
{
    *opt_at = 0;
    if (msg == NULL || len < PD_DNS_HEADER_LEN)
        return "truncated header";
    if (len > PD_DNS_MAX)
        return "message too long";
    uint16_t flags = get16(msg + 2);
    if (flags & FLAG_QR)
        return "not a query (QR=1)";
    if (flags & FLAG_OPCODE)
        return "not a standard query";
    if (get16(msg + 4) != 1)
        return "QDCOUNT is not 1";
    if (get16(msg + 6) != 0 || get16(msg + 8) != 0)
        return "answer or authority records in a query";
    uint16_t ar = get16(msg + 10);
    if (ar > 1)
        return "more than one additional record";
    size_t off = PD_DNS_HEADER_LEN;
    const char *why = parse_name(msg, len, &off, q->name);
    if (why != NULL)
        return why;
    if (len - off < 4)
        return "truncated question";
    q->qtype = get16(msg + off);
    q->qclass = get16(msg + off + 2);
    off += 4;
    size_t question_end = off;
    if (ar == 1) {
        if (len - off < OPT_FIXED)
            return "truncated additional record";
        if (msg[off] != 0 || get16(msg + off + 1) != PD_DNS_OPT)
            return "additional record is not EDNS OPT";
        size_t rdlen = get16(msg + off + 9);
        if (rdlen > len - off - OPT_FIXED)
            return "truncated additional record";
        *opt_at = off;
        off += OPT_FIXED + rdlen;
    }
    if (off != len)
        return "trailing bytes after the message";
    q->id = get16(msg);
    q->flags = flags;
    q->rd = (flags & FLAG_RD) != 0;
    q->question_len = question_end;
    return NULL;
}

int pd_dns_parse_query(const uint8_t *msg, size_t len, struct pd_dns_query *q, char *why,
                       size_t whylen)
{
    memset(q, 0, sizeof(*q));
    size_t opt_at;
    const char *err = parse_query(msg, len, q, &opt_at);
    if (err != NULL) {
        memset(q, 0, sizeof(*q));
        set_why(why, whylen, err);
        return -1;
    }
    set_why(why, whylen, "");
    return 0;
}

size_t pd_dns_udp_size(const uint8_t *msg, size_t len)
{
    struct pd_dns_query q;
    size_t opt_at;
    memset(&q, 0, sizeof(q));
    if (parse_query(msg, len, &q, &opt_at) != NULL || opt_at == 0)
        return PD_DNS_UDP_MIN;
    size_t size = get16(msg + opt_at + 3); /* the OPT record's CLASS */
    if (size < PD_DNS_UDP_MIN)
        return PD_DNS_UDP_MIN;
    return size > PD_DNS_MAX ? PD_DNS_MAX : size;
}

/* the reply header: counts and flags; the ID is written by the caller */
static void reply_header(uint8_t *out, unsigned opcode_rd, int rcode, unsigned qd, unsigned an)
{
    put16(out + 2, FLAG_QR | opcode_rd | FLAG_RA | (unsigned)rcode);
    put16(out + 4, qd);
    put16(out + 6, an);
    put16(out + 8, 0);
    put16(out + 10, 0);
}

/* q names a parsed question whose bytes msg holds */
static bool usable_query(const struct pd_dns_query *q, const uint8_t *msg)
{
    return q != NULL && msg != NULL && q->question_len >= PD_DNS_HEADER_LEN + 5 &&
           q->question_len <= PD_DNS_MAX;
}

size_t pd_dns_answer(const struct pd_dns_query *q, const uint8_t *msg, int family,
                     const uint8_t *addrs, size_t n, uint8_t *out, size_t outlen)
{
    if (!usable_query(q, msg) || out == NULL)
        return 0;
    unsigned rtype = 0;
    size_t alen = 0;
    if (family == AF_INET) {
        rtype = PD_DNS_A;
        alen = 4;
    } else if (family == AF_INET6) {
        rtype = PD_DNS_AAAA;
        alen = 16;
    } else if (n > 0) {
        return 0;
    }
    if (n > 0 && addrs == NULL)
        return 0;
    size_t count = n > PD_DNS_ANSWERS_MAX ? PD_DNS_ANSWERS_MAX : n;
    if (q->qtype != rtype && q->qtype != PD_DNS_ANY)
        count = 0;
    size_t need = q->question_len + count * (ANSWER_FIXED + alen);
    if (need > outlen)
        return 0;
    memcpy(out, msg, q->question_len);
    put16(out, q->id);
    reply_header(out, q->rd ? FLAG_RD : 0, PD_DNS_NOERROR, 1, (unsigned)count);
    uint8_t *p = out + q->question_len;
    for (size_t i = 0; i < count; i++) {
        put16(p, 0xC000u | PD_DNS_HEADER_LEN); /* the question's name */
        put16(p + 2, rtype);
        put16(p + 4, PD_DNS_CLASS_IN);
        memset(p + 6, 0, 4); /* TTL 0: the host's resolution is asked afresh */
        put16(p + 10, (unsigned)alen);
        memcpy(p + ANSWER_FIXED, addrs + i * alen, alen);
        p += ANSWER_FIXED + alen;
    }
    return need;
}

size_t pd_dns_rcode(const struct pd_dns_query *q, const uint8_t *msg, size_t msglen, int rcode,
                    uint8_t *out, size_t outlen)
{
    if (msg == NULL || out == NULL || rcode < 0 || rcode > 15 || msglen < PD_DNS_HEADER_LEN)
        return 0;
    if (usable_query(q, msg) && q->question_len <= msglen) {
        if (q->question_len > outlen)
            return 0;
        memcpy(out, msg, q->question_len);
        put16(out, q->id);
        reply_header(out, q->rd ? FLAG_RD : 0, rcode, 1, 0);
        return q->question_len;
    }
    unsigned flags = get16(msg + 2);
    if ((flags & FLAG_QR) || outlen < PD_DNS_HEADER_LEN)
        return 0;
    memcpy(out, msg, 2); /* the ID */
    reply_header(out, flags & (FLAG_OPCODE | FLAG_RD), rcode, 0, 0);
    return PD_DNS_HEADER_LEN;
}

int pd_dns_tcp_frame(const uint8_t *buf, size_t len, size_t *msg_len)
{
    *msg_len = 0;
    if (buf == NULL || len < 2)
        return 0;
    size_t n = get16(buf);
    if (n == 0 || n > PD_DNS_MAX)
        return -1;
    if (len - 2 < n)
        return 0;
    *msg_len = n;
    return 1;
}
