/* tests/unit/test_net_dns.c - DNS messages for the sandbox's stub server
 * (launcher/net/net_dns.h): queries as glibc (res_nmkquery) and dig build them,
 * with and without an EDNS OPT record; answers and RCODE replies checked byte
 * by byte and decoded by glibc's own parser (ns_initparse/ns_parserr from
 * libresolv, loaded with dlopen); glibc's resolver (res_nquery) talking to a
 * stub built on the module over UDP and TCP; and hostile queries: every
 * truncation, compression pointers, long labels and names, bad bytes. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/net/net_dns.h"

/* ---- building queries ---------------------------------------------------- */

struct msg {
    uint8_t b[PD_DNS_MAX + 64];
    size_t n;
};

static void put8(struct msg *m, unsigned v)
{
    cr_assert_lt(m->n, sizeof(m->b));
    m->b[m->n++] = (uint8_t)v;
}

static void put16(struct msg *m, unsigned v)
{
    put8(m, v >> 8);
    put8(m, v & 0xff);
}

static void put_bytes(struct msg *m, const void *p, size_t n)
{
    cr_assert_leq(m->n + n, sizeof(m->b));
    memcpy(m->b + m->n, p, n);
    m->n += n;
}

/* a dotted name as labels ("" is the root) */
static void put_name(struct msg *m, const char *name)
{
    while (*name != '\0') {
        const char *dot = strchr(name, '.');
        size_t l = dot != NULL ? (size_t)(dot - name) : strlen(name);
        put8(m, (unsigned)l);
        put_bytes(m, name, l);
        name += l;
        if (*name == '.')
            name++;
    }
    put8(m, 0);
}

static void header(struct msg *m, unsigned id, unsigned flags, unsigned qd, unsigned an,
                   unsigned ns, unsigned ar)
{
    m->n = 0;
    put16(m, id);
    put16(m, flags);
    put16(m, qd);
    put16(m, an);
    put16(m, ns);
    put16(m, ar);
}

/* a query the way glibc's stub sends it: RD, no EDNS */
static void glibc_like(struct msg *m, unsigned id, const char *name, unsigned qtype)
{
    header(m, id, 0x0100, 1, 0, 0, 0);
    put_name(m, name);
    put16(m, qtype);
    put16(m, PD_DNS_CLASS_IN);
}

/* the way dig 9.18 sends it: RD and AD, EDNS OPT (UDP 1232) with a COOKIE */
static void dig_like(struct msg *m, unsigned id, const char *name, unsigned qtype)
{
    header(m, id, 0x0120, 1, 0, 0, 1);
    put_name(m, name);
    put16(m, qtype);
    put16(m, PD_DNS_CLASS_IN);
    put8(m, 0);           /* root */
    put16(m, PD_DNS_OPT); /* TYPE */
    put16(m, 1232);       /* CLASS: UDP payload size */
    put16(m, 0);          /* TTL: extended RCODE, version */
    put16(m, 0);          /* DO = 0 */
    put16(m, 12);         /* RDLENGTH */
    put16(m, 10);         /* COOKIE */
    put16(m, 8);          /* its length */
    put_bytes(m, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
}

static int parse_m(const struct msg *m, struct pd_dns_query *q, char *why, size_t whylen)
{
    /* an exact-size heap copy, so that an over-read leaves the allocation */
    uint8_t *copy = malloc(m->n > 0 ? m->n : 1);
    cr_assert_not_null(copy);
    memcpy(copy, m->b, m->n);
    int r = pd_dns_parse_query(copy, m->n, q, why, whylen);
    free(copy);
    return r;
}

static void expect_query(const struct msg *m, unsigned id, const char *name, unsigned qtype,
                         unsigned qclass, size_t question_len, bool rd)
{
    struct pd_dns_query q;
    char why[128];
    cr_assert_eq(parse_m(m, &q, why, sizeof(why)), 0, "%s: %s", name, why);
    cr_expect_str_eq(why, "");
    cr_expect_eq(q.id, id);
    cr_expect_str_eq(q.name, name);
    cr_expect_eq(q.qtype, qtype);
    cr_expect_eq(q.qclass, qclass);
    cr_expect_eq(q.question_len, question_len, "%s: question_len %zu", name, q.question_len);
    cr_expect_eq(q.rd, rd);
    /* every truncation is refused */
    for (size_t k = 0; k < m->n; k++) {
        struct msg cut = *m;
        cut.n = k;
        cr_expect_eq(parse_m(&cut, &q, why, sizeof(why)), -1, "%s cut at %zu", name, k);
        cr_expect_eq(q.question_len, 0);
    }
}

static void expect_bad(const struct msg *m, const char *why_part)
{
    struct pd_dns_query q;
    char why[128];
    cr_expect_eq(parse_m(m, &q, why, sizeof(why)), -1, "want -1 (%s)", why_part);
    cr_expect(strstr(why, why_part) != NULL, "why \"%s\" lacks \"%s\"", why, why_part);
    cr_expect_eq(q.question_len, 0);
}

/* ---- glibc's message parser, from libresolv ------------------------------ */

struct nsparse {
    void *lib;
    int (*initparse)(const unsigned char *, int, ns_msg *);
    int (*parserr)(ns_msg *, ns_sect, int, ns_rr *);
    int (*getflag)(ns_msg, int);
};

static bool nsparse_open(struct nsparse *p)
{
    p->lib = dlopen("libresolv.so.2", RTLD_NOW);
    if (p->lib == NULL)
        return false;
    *(void **)&p->initparse = dlsym(p->lib, "ns_initparse");
    *(void **)&p->parserr = dlsym(p->lib, "ns_parserr");
    *(void **)&p->getflag = dlsym(p->lib, "ns_msg_getflag");
    return p->initparse != NULL && p->parserr != NULL && p->getflag != NULL;
}

/* decode a reply with glibc: its counts, flags, and each answer's name and rdata */
static void glibc_decode(const uint8_t *r, size_t n, const char *qname, unsigned id, int rcode,
                         unsigned qtype, unsigned rtype, const uint8_t *rdata, size_t rdlen,
                         int answers)
{
    struct nsparse p;
    if (!nsparse_open(&p))
        cr_skip_test("libresolv.so.2 cannot be loaded: %s", dlerror());
    ns_msg h;
    cr_assert_eq(p.initparse(r, (int)n, &h), 0, "glibc refuses the reply");
    cr_expect_eq(ns_msg_id(h), id);
    cr_expect_eq(p.getflag(h, ns_f_qr), 1);
    cr_expect_eq(p.getflag(h, ns_f_opcode), 0);
    cr_expect_eq(p.getflag(h, ns_f_aa), 0);
    cr_expect_eq(p.getflag(h, ns_f_tc), 0);
    cr_expect_eq(p.getflag(h, ns_f_ra), 1);
    cr_expect_eq(p.getflag(h, ns_f_rcode), rcode);
    cr_expect_eq(ns_msg_count(h, ns_s_qd), 1);
    cr_expect_eq(ns_msg_count(h, ns_s_an), answers);
    cr_expect_eq(ns_msg_count(h, ns_s_ns), 0);
    cr_expect_eq(ns_msg_count(h, ns_s_ar), 0);
    ns_rr rr;
    cr_assert_eq(p.parserr(&h, ns_s_qd, 0, &rr), 0);
    cr_expect_eq(strcasecmp(ns_rr_name(rr), qname[0] ? qname : "."), 0, "%s", ns_rr_name(rr));
    cr_expect_eq(ns_rr_type(rr), qtype);
    for (int i = 0; i < answers; i++) {
        cr_assert_eq(p.parserr(&h, ns_s_an, i, &rr), 0, "answer %d", i);
        cr_expect_eq(strcasecmp(ns_rr_name(rr), qname[0] ? qname : "."), 0, "%s", ns_rr_name(rr));
        cr_expect_eq(ns_rr_type(rr), rtype);
        cr_expect_eq(ns_rr_class(rr), ns_c_in);
        cr_expect_eq(ns_rr_ttl(rr), 0);
        cr_assert_eq(ns_rr_rdlen(rr), rdlen);
        cr_expect_eq(memcmp(ns_rr_rdata(rr), rdata + (size_t)i * rdlen, rdlen), 0);
    }
    dlclose(p.lib);
}

/* ---- parsing ------------------------------------------------------------- */

Test(net_dns, glibc_queries)
{
    /* the bytes glibc's res_nmkquery builds, as getaddrinfo sends them */
    struct __res_state st;
    memset(&st, 0, sizeof(st));
    cr_assert_eq(res_ninit(&st), 0);
    struct msg m;
    int n =
        res_nmkquery(&st, QUERY, "Example.COM", C_IN, T_A, NULL, 0, NULL, m.b, (int)sizeof(m.b));
    cr_assert_gt(n, 0);
    m.n = (size_t)n;
    unsigned id = (unsigned)m.b[0] << 8 | m.b[1];
    expect_query(&m, id, "example.com", PD_DNS_A, PD_DNS_CLASS_IN, 12 + 13 + 4, true);
    n = res_nmkquery(&st, QUERY, "files.pythonhosted.org", C_IN, T_AAAA, NULL, 0, NULL, m.b,
                     (int)sizeof(m.b));
    cr_assert_gt(n, 0);
    m.n = (size_t)n;
    id = (unsigned)m.b[0] << 8 | m.b[1];
    expect_query(&m, id, "files.pythonhosted.org", PD_DNS_AAAA, PD_DNS_CLASS_IN, 12 + 24 + 4, true);
    res_nclose(&st);

    glibc_like(&m, 0x1234, "Pypi.Org", PD_DNS_AAAA);
    expect_query(&m, 0x1234, "pypi.org", PD_DNS_AAAA, PD_DNS_CLASS_IN, m.n, true);
    /* labels with '-' and '_', one of 63 bytes */
    char name[128];
    memset(name, 'x', 63);
    snprintf(name + 63, sizeof(name) - 63, ".my-host._tcp.example");
    glibc_like(&m, 7, name, PD_DNS_SRV);
    expect_query(&m, 7, name, PD_DNS_SRV, PD_DNS_CLASS_IN, m.n, true);
}

Test(net_dns, dig_query_with_edns)
{
    struct msg m;
    dig_like(&m, 0xbeef, "GitHub.com", PD_DNS_A);
    expect_query(&m, 0xbeef, "github.com", PD_DNS_A, PD_DNS_CLASS_IN, 12 + 12 + 4, true);
    struct pd_dns_query q;
    cr_assert_eq(parse_m(&m, &q, NULL, 0), 0);
    cr_expect_eq(q.flags, 0x0120);
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), 1232);
    /* +norec, HTTPS type, another class */
    dig_like(&m, 1, "example.com", PD_DNS_HTTPS);
    m.b[2] = 0x00;
    expect_query(&m, 1, "example.com", PD_DNS_HTTPS, PD_DNS_CLASS_IN, 12 + 13 + 4, false);
    glibc_like(&m, 2, "version.bind", PD_DNS_TXT);
    m.b[m.n - 1] = 3; /* CHAOS */
    expect_query(&m, 2, "version.bind", PD_DNS_TXT, 3, m.n, true);
    /* OPT without options, as glibc with "options edns0" sends it */
    header(&m, 3, 0x0100, 1, 0, 0, 1);
    put_name(&m, "a.b");
    put16(&m, PD_DNS_A);
    put16(&m, 1);
    put_bytes(&m, "\x00\x00\x29\x04\xb0\x00\x00\x00\x00\x00\x00", 11);
    expect_query(&m, 3, "a.b", PD_DNS_A, 1, 12 + 5 + 4, true);
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), 1200);
}

Test(net_dns, root_and_longest_names)
{
    struct msg m;
    glibc_like(&m, 9, "", PD_DNS_NS);
    expect_query(&m, 9, "", PD_DNS_NS, 1, 12 + 1 + 4, true);
    /* 253 text bytes: 63.63.63.61 */
    char name[300];
    memset(name, 'a', sizeof(name));
    name[63] = name[127] = name[191] = '.';
    name[253] = '\0';
    glibc_like(&m, 10, name, PD_DNS_A);
    expect_query(&m, 10, name, PD_DNS_A, 1, 12 + 255 + 4, true);
    /* 254 text bytes */
    name[253] = 'a';
    name[254] = '\0';
    glibc_like(&m, 11, name, PD_DNS_A);
    expect_bad(&m, "longer than 253");
    /* many one-byte labels: 127 labels "a." is 253 bytes */
    char many[300];
    size_t k = 0;
    for (int i = 0; i < 127; i++) {
        many[k++] = 'a';
        many[k++] = '.';
    }
    many[k - 1] = '\0';
    glibc_like(&m, 12, many, PD_DNS_A);
    expect_query(&m, 12, many, PD_DNS_A, 1, 12 + 255 + 4, true);
}

Test(net_dns, hostile_names)
{
    struct msg m;
    /* a compression pointer to the header, or to itself */
    header(&m, 1, 0x0100, 1, 0, 0, 0);
    put16(&m, 0xC00C);
    put16(&m, 1);
    put16(&m, 1);
    expect_bad(&m, "compression pointer");
    header(&m, 1, 0x0100, 1, 0, 0, 0);
    put8(&m, 3);
    put_bytes(&m, "www", 3);
    put16(&m, 0xC000);
    put16(&m, 1);
    put16(&m, 1);
    expect_bad(&m, "compression pointer");
    /* a label of 64 bytes, and the reserved label types 0x40 and 0x80 */
    char name[80];
    memset(name, 'a', 64);
    strcpy(name + 64, ".com");
    glibc_like(&m, 1, name, PD_DNS_A);
    expect_bad(&m, "longer than 63");
    header(&m, 1, 0x0100, 1, 0, 0, 0);
    put8(&m, 0x80);
    put16(&m, 1);
    put16(&m, 1);
    expect_bad(&m, "longer than 63");
    /* bytes a label may not hold */
    const char *bad[] = {"a\0b", "a.b", "a b", "caf\xc3\xa9", "\x7f", "a/b", "a*b", "a\\b"};
    const size_t badlen[] = {3, 3, 3, 5, 1, 3, 3, 3};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        header(&m, 1, 0x0100, 1, 0, 0, 0);
        put8(&m, (unsigned)badlen[i]);
        put_bytes(&m, bad[i], badlen[i]);
        put8(&m, 3);
        put_bytes(&m, "com", 3);
        put8(&m, 0);
        put16(&m, 1);
        put16(&m, 1);
        expect_bad(&m, "malformed name");
    }
    /* a label that runs past the end */
    header(&m, 1, 0x0100, 1, 0, 0, 0);
    put8(&m, 20);
    put_bytes(&m, "short", 5);
    expect_bad(&m, "truncated");
}

Test(net_dns, hostile_headers_and_sections)
{
    struct msg m;
    glibc_like(&m, 1, "a.com", PD_DNS_A);
    struct msg t = m;
    t.b[2] |= 0x80; /* a response */
    expect_bad(&t, "QR=1");
    for (unsigned op = 1; op < 16; op++) {
        t = m;
        t.b[2] = (uint8_t)(t.b[2] | op << 3);
        expect_bad(&t, "not a standard query");
    }
    unsigned counts[][4] = {{0, 0, 0, 0}, {2, 0, 0, 0}, {1, 1, 0, 0}, {1, 0, 1, 0}, {1, 0, 0, 2}};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        t = m;
        for (int c = 0; c < 4; c++) {
            t.b[4 + 2 * c] = 0;
            t.b[5 + 2 * c] = (uint8_t)counts[i][c];
        }
        expect_bad(&t, "");
    }
    /* ARCOUNT 1 but no record, or not OPT, or OPT with a name, or a long RDLENGTH */
    t = m;
    t.b[11] = 1;
    expect_bad(&t, "truncated additional record");
    put_bytes(&t, "\x00\x00\xfa\x00\xff\x00\x00\x00\x00\x00\x00", 11); /* TSIG-ish */
    expect_bad(&t, "not EDNS OPT");
    t = m;
    t.b[11] = 1;
    put_bytes(&t, "\x01\x61\x00\x00\x29\x04\xb0\x00\x00\x00\x00\x00\x00", 13);
    expect_bad(&t, "not EDNS OPT");
    t = m;
    t.b[11] = 1;
    put_bytes(&t, "\x00\x00\x29\x04\xb0\x00\x00\x00\x00\x00\x05\x00\x0a", 13);
    expect_bad(&t, "truncated additional record");
    /* bytes after the message */
    t = m;
    put8(&t, 0);
    expect_bad(&t, "trailing bytes");
    struct msg d;
    dig_like(&d, 5, "a.com", PD_DNS_A);
    put8(&d, 0);
    expect_bad(&d, "trailing bytes");
    /* too short, too long */
    t = m;
    t.n = 11;
    expect_bad(&t, "truncated header");
    t = m;
    memset(t.b + t.n, 0, PD_DNS_MAX + 1 - t.n);
    t.n = PD_DNS_MAX + 1;
    expect_bad(&t, "too long");
    struct pd_dns_query q;
    char why[8];
    cr_expect_eq(pd_dns_parse_query(NULL, 0, &q, why, sizeof(why)), -1);
    cr_expect_str_eq(why, "truncat"); /* cut at the buffer */
    cr_expect_eq(pd_dns_parse_query(m.b, 5, &q, NULL, 0), -1);
}

/* ---- answers ------------------------------------------------------------- */

static const uint8_t v4[] = {192, 0, 2, 1, 198, 51, 100, 7};
static const uint8_t v6[] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                             0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

static size_t answer(const struct msg *m, struct pd_dns_query *q, int family, const uint8_t *a,
                     size_t n, uint8_t *out, size_t outlen)
{
    char why[64];
    cr_assert_eq(parse_m(m, q, why, sizeof(why)), 0, "%s", why);
    return pd_dns_answer(q, m->b, family, a, n, out, outlen);
}

Test(net_dns, answer_a_byte_by_byte)
{
    struct msg m;
    glibc_like(&m, 0xabcd, "Example.com", PD_DNS_A);
    struct pd_dns_query q;
    uint8_t out[512];
    size_t n = answer(&m, &q, AF_INET, v4, 2, out, sizeof(out));
    size_t ql = 12 + 13 + 4;
    cr_assert_eq(n, ql + 2 * 16);
    static const uint8_t hdr[12] = {0xab, 0xcd, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0};
    cr_expect_eq(memcmp(out, hdr, 12), 0, "header %02x%02x", out[2], out[3]);
    /* the question as the client wrote it (case kept, as resolvers compare) */
    cr_expect_eq(memcmp(out + 12, m.b + 12, ql - 12), 0);
    static const uint8_t rr1[16] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 192, 0, 2, 1};
    static const uint8_t rr2[16] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 198, 51, 100, 7};
    cr_expect_eq(memcmp(out + ql, rr1, 16), 0);
    cr_expect_eq(memcmp(out + ql + 16, rr2, 16), 0);
    glibc_decode(out, n, "example.com", 0xabcd, 0, PD_DNS_A, PD_DNS_A, v4, 4, 2);
}

Test(net_dns, answer_aaaa_with_edns_query)
{
    struct msg m;
    dig_like(&m, 0x0102, "ipv6.example", PD_DNS_AAAA);
    struct pd_dns_query q;
    uint8_t out[512];
    size_t n = answer(&m, &q, AF_INET6, v6, 2, out, sizeof(out));
    size_t ql = 12 + 14 + 4;
    cr_assert_eq(n, ql + 2 * 28);
    /* RD echoed, AD not; no OPT in the reply */
    static const uint8_t hdr[12] = {0x01, 0x02, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0};
    cr_expect_eq(memcmp(out, hdr, 12), 0);
    static const uint8_t fixed[12] = {0xc0, 0x0c, 0, 28, 0, 1, 0, 0, 0, 0, 0, 16};
    cr_expect_eq(memcmp(out + ql, fixed, 12), 0);
    cr_expect_eq(memcmp(out + ql + 12, v6, 16), 0);
    cr_expect_eq(memcmp(out + ql + 28, fixed, 12), 0);
    cr_expect_eq(memcmp(out + ql + 40, v6 + 16, 16), 0);
    glibc_decode(out, n, "ipv6.example", 0x0102, 0, PD_DNS_AAAA, PD_DNS_AAAA, v6, 16, 2);
}

Test(net_dns, answer_no_data)
{
    struct msg m;
    uint8_t out[512];
    struct pd_dns_query q;
    /* an allowed name asked for HTTPS: NOERROR, no records */
    glibc_like(&m, 5, "example.com", PD_DNS_HTTPS);
    size_t n = answer(&m, &q, AF_UNSPEC, NULL, 0, out, sizeof(out));
    cr_assert_eq(n, m.n);
    static const uint8_t hdr[12] = {0, 5, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0};
    cr_expect_eq(memcmp(out, hdr, 12), 0);
    glibc_decode(out, n, "example.com", 5, 0, PD_DNS_HTTPS, 0, NULL, 0, 0);
    /* AAAA asked, the name has only IPv4: no data */
    glibc_like(&m, 6, "example.com", PD_DNS_AAAA);
    cr_expect_eq(answer(&m, &q, AF_INET6, NULL, 0, out, sizeof(out)), m.n);
    /* a family that does not match the type writes no records */
    cr_expect_eq(answer(&m, &q, AF_INET, v4, 2, out, sizeof(out)), m.n);
    cr_expect_eq(out[7], 0);
    /* ANY gets the family's records */
    glibc_like(&m, 7, "example.com", PD_DNS_ANY);
    n = answer(&m, &q, AF_INET, v4, 1, out, sizeof(out));
    cr_expect_eq(n, m.n + 16);
    glibc_decode(out, n, "example.com", 7, 0, PD_DNS_ANY, PD_DNS_A, v4, 4, 1);
    /* no RD in the query: none in the reply */
    glibc_like(&m, 8, "example.com", PD_DNS_A);
    m.b[2] = 0;
    cr_expect_gt(answer(&m, &q, AF_INET, v4, 1, out, sizeof(out)), 0);
    cr_expect_eq(out[2], 0x80);
    cr_expect_eq(out[3], 0x80);
}

Test(net_dns, answer_limits)
{
    struct msg m;
    glibc_like(&m, 1, "many.example", PD_DNS_A);
    struct pd_dns_query q;
    uint8_t addrs[20 * 4];
    for (size_t i = 0; i < sizeof(addrs); i++)
        addrs[i] = (uint8_t)i;
    uint8_t out[1024];
    /* at most 16 answers */
    size_t n = answer(&m, &q, AF_INET, addrs, 20, out, sizeof(out));
    cr_assert_eq(n, m.n + 16 * 16);
    cr_expect_eq(out[6], 0);
    cr_expect_eq(out[7], 16);
    glibc_decode(out, n, "many.example", 1, 0, PD_DNS_A, PD_DNS_A, addrs, 4, 16);
    /* every buffer one byte short is refused, the exact one is enough */
    for (size_t cap = 0; cap < n; cap++)
        cr_expect_eq(pd_dns_answer(&q, m.b, AF_INET, addrs, 20, out, cap), 0, "cap %zu", cap);
    cr_expect_eq(pd_dns_answer(&q, m.b, AF_INET, addrs, 20, out, n), n);
    /* unusable arguments */
    cr_expect_eq(pd_dns_answer(&q, m.b, AF_UNIX, addrs, 1, out, sizeof(out)), 0);
    cr_expect_eq(pd_dns_answer(&q, m.b, AF_INET, NULL, 1, out, sizeof(out)), 0);
    cr_expect_eq(pd_dns_answer(NULL, m.b, AF_INET, addrs, 1, out, sizeof(out)), 0);
    cr_expect_eq(pd_dns_answer(&q, NULL, AF_INET, addrs, 1, out, sizeof(out)), 0);
    struct pd_dns_query unparsed;
    memset(&unparsed, 0, sizeof(unparsed));
    cr_expect_eq(pd_dns_answer(&unparsed, m.b, AF_INET, addrs, 1, out, sizeof(out)), 0);
    /* 16 AAAA answers for the longest name still fit the largest message */
    char name[300];
    memset(name, 'a', sizeof(name));
    name[63] = name[127] = name[191] = '.';
    name[253] = '\0';
    glibc_like(&m, 2, name, PD_DNS_AAAA);
    uint8_t a6[16 * 16] = {0};
    uint8_t big[PD_DNS_MAX];
    n = answer(&m, &q, AF_INET6, a6, 16, big, sizeof(big));
    cr_expect_eq(n, 12 + 255 + 4 + 16 * 28);
    cr_expect_gt(n, PD_DNS_UDP_MIN); /* over UDP without EDNS: send fewer */
    cr_expect_leq(answer(&m, &q, AF_INET6, a6, 8, big, PD_DNS_UDP_MIN), PD_DNS_UDP_MIN);
    cr_expect_gt(answer(&m, &q, AF_INET6, a6, 8, big, PD_DNS_UDP_MIN), 0);
}

/* ---- RCODE replies ------------------------------------------------------- */

Test(net_dns, rcode_replies)
{
    struct msg m;
    glibc_like(&m, 0x4242, "secret.evil.test", PD_DNS_A);
    struct pd_dns_query q;
    char why[64];
    cr_assert_eq(parse_m(&m, &q, why, sizeof(why)), 0);
    uint8_t out[512];
    size_t n = pd_dns_rcode(&q, m.b, m.n, PD_DNS_NXDOMAIN, out, sizeof(out));
    cr_assert_eq(n, m.n);
    static const uint8_t nx[12] = {0x42, 0x42, 0x81, 0x83, 0, 1, 0, 0, 0, 0, 0, 0};
    cr_expect_eq(memcmp(out, nx, 12), 0);
    cr_expect_eq(memcmp(out + 12, m.b + 12, m.n - 12), 0);
    glibc_decode(out, n, "secret.evil.test", 0x4242, PD_DNS_NXDOMAIN, PD_DNS_A, 0, NULL, 0, 0);
    n = pd_dns_rcode(&q, m.b, m.n, PD_DNS_REFUSED, out, sizeof(out));
    cr_expect_eq(out[3], 0x85);
    glibc_decode(out, n, "secret.evil.test", 0x4242, PD_DNS_REFUSED, PD_DNS_A, 0, NULL, 0, 0);
    for (size_t cap = 0; cap < m.n; cap++)
        cr_expect_eq(pd_dns_rcode(&q, m.b, m.n, PD_DNS_NXDOMAIN, out, cap), 0);
    cr_expect_eq(pd_dns_rcode(&q, m.b, m.n, 16, out, sizeof(out)), 0);
    cr_expect_eq(pd_dns_rcode(&q, m.b, m.n, -1, out, sizeof(out)), 0);
    /* a question longer than the message given: the header alone */
    cr_expect_eq(pd_dns_rcode(&q, m.b, m.n - 1, PD_DNS_SERVFAIL, out, sizeof(out)), 12);
}

Test(net_dns, formerr_header_only)
{
    struct msg m;
    header(&m, 0x9999, 0x0100, 1, 0, 0, 0);
    put16(&m, 0xC00C); /* a pointer in the question */
    put16(&m, 1);
    put16(&m, 1);
    struct pd_dns_query q;
    char why[64];
    cr_assert_eq(parse_m(&m, &q, why, sizeof(why)), -1);
    uint8_t out[64];
    memset(out, 0xee, sizeof(out));
    /* from the failed parse's q, and from NULL: the same 12 bytes */
    static const uint8_t want[12] = {0x99, 0x99, 0x81, 0x81, 0, 0, 0, 0, 0, 0, 0, 0};
    cr_assert_eq(pd_dns_rcode(&q, m.b, m.n, PD_DNS_FORMERR, out, sizeof(out)), 12);
    cr_expect_eq(memcmp(out, want, 12), 0);
    cr_expect_eq(out[12], 0xee);
    cr_assert_eq(pd_dns_rcode(NULL, m.b, m.n, PD_DNS_FORMERR, out, sizeof(out)), 12);
    cr_expect_eq(memcmp(out, want, 12), 0);
    struct nsparse p;
    if (nsparse_open(&p)) {
        ns_msg h;
        cr_expect_eq(p.initparse(out, 12, &h), 0);
        cr_expect_eq(p.getflag(h, ns_f_rcode), PD_DNS_FORMERR);
        cr_expect_eq(ns_msg_count(h, ns_s_qd), 0);
        dlclose(p.lib);
    }
    /* the OPCODE is echoed (NOTIFY), RD too */
    m.b[2] = 0x20 | 0x01;
    cr_assert_eq(pd_dns_rcode(NULL, m.b, m.n, PD_DNS_FORMERR, out, sizeof(out)), 12);
    cr_expect_eq(out[2], 0xa1);
    cr_expect_eq(out[3], 0x81);
    /* a response is never answered; a short message cannot be */
    m.b[2] = 0x80;
    cr_expect_eq(pd_dns_rcode(NULL, m.b, m.n, PD_DNS_FORMERR, out, sizeof(out)), 0);
    m.b[2] = 0x01;
    cr_expect_eq(pd_dns_rcode(NULL, m.b, 11, PD_DNS_FORMERR, out, sizeof(out)), 0);
    cr_expect_eq(pd_dns_rcode(NULL, m.b, 12, PD_DNS_FORMERR, out, 11), 0);
    cr_expect_eq(pd_dns_rcode(NULL, NULL, 12, PD_DNS_FORMERR, out, sizeof(out)), 0);
}

/* ---- framing and sizes --------------------------------------------------- */

Test(net_dns, tcp_frame)
{
    uint8_t b[PD_DNS_MAX + 8] = {0};
    size_t len = 99;
    cr_expect_eq(pd_dns_tcp_frame(b, 0, &len), 0);
    cr_expect_eq(pd_dns_tcp_frame(NULL, 0, &len), 0);
    b[0] = 0;
    b[1] = 29;
    cr_expect_eq(pd_dns_tcp_frame(b, 1, &len), 0);
    for (size_t k = 2; k < 31; k++)
        cr_expect_eq(pd_dns_tcp_frame(b, k, &len), 0, "%zu bytes", k);
    cr_expect_eq(pd_dns_tcp_frame(b, 31, &len), 1);
    cr_expect_eq(len, 29);
    cr_expect_eq(pd_dns_tcp_frame(b, 100, &len), 1); /* a second message follows */
    cr_expect_eq(len, 29);
    b[1] = 0;
    cr_expect_eq(pd_dns_tcp_frame(b, 2, &len), -1);
    b[0] = (PD_DNS_MAX + 1) >> 8;
    b[1] = (PD_DNS_MAX + 1) & 0xff;
    cr_expect_eq(pd_dns_tcp_frame(b, 2, &len), -1);
    b[0] = 0xff;
    b[1] = 0xff;
    cr_expect_eq(pd_dns_tcp_frame(b, sizeof(b), &len), -1);
    b[0] = PD_DNS_MAX >> 8;
    b[1] = PD_DNS_MAX & 0xff;
    cr_expect_eq(pd_dns_tcp_frame(b, PD_DNS_MAX + 1, &len), 0);
    cr_expect_eq(pd_dns_tcp_frame(b, PD_DNS_MAX + 2, &len), 1);
    cr_expect_eq(len, PD_DNS_MAX);
}

Test(net_dns, udp_size)
{
    struct msg m;
    glibc_like(&m, 1, "a.b", PD_DNS_A);
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), 512);
    dig_like(&m, 1, "a.b", PD_DNS_A);
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), 1232);
    size_t cls = 12 + 5 + 4 + 3; /* the OPT record's CLASS */
    m.b[cls] = 0x10;
    m.b[cls + 1] = 0x00;
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), 4096);
    m.b[cls] = 0xff;
    m.b[cls + 1] = 0xff;
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), PD_DNS_MAX);
    m.b[cls] = 0;
    m.b[cls + 1] = 100;
    cr_expect_eq(pd_dns_udp_size(m.b, m.n), 512);
    cr_expect_eq(pd_dns_udp_size(m.b, 5), 512);
    cr_expect_eq(pd_dns_udp_size(NULL, 0), 512);
}

/* ---- glibc's resolver against a stub built on the module ----------------- */

/* Answer max queries on fd (UDP, or a TCP listener) the way the launcher's
 * stub does: allowed.test has two A and one AAAA, everything else NXDOMAIN.
 * Exits non-zero on anything unexpected, EDNS included (want_opt). */
static void stub_serve(int fd, bool tcp, bool want_opt, int max)
{
    for (int i = 0; i < max; i++) {
        uint8_t in[PD_DNS_MAX + 2], out[PD_DNS_MAX + 2];
        struct sockaddr_storage from;
        socklen_t fl = sizeof(from);
        int c = -1;
        size_t len = 0;
        const uint8_t *msg = in;
        if (tcp) {
            c = accept(fd, NULL, NULL);
            if (c < 0)
                _exit(2);
            size_t ml = 0;
            int fr = 0;
            while ((fr = pd_dns_tcp_frame(in, len, &ml)) == 0) {
                ssize_t r = read(c, in + len, sizeof(in) - len);
                if (r <= 0)
                    _exit(3);
                len += (size_t)r;
            }
            if (fr < 0)
                _exit(4);
            msg = in + 2;
            len = ml;
        } else {
            ssize_t r = recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&from, &fl);
            if (r < 0)
                _exit(2);
            len = (size_t)r;
        }
        if (len >= 12 && (msg[11] == 1) != want_opt)
            _exit(7); /* the EDNS OPT record was expected, or not */
        struct pd_dns_query q;
        char why[64];
        uint8_t *reply = tcp ? out + 2 : out;
        size_t cap = tcp ? PD_DNS_MAX : pd_dns_udp_size(msg, len);
        size_t n;
        if (pd_dns_parse_query(msg, len, &q, why, sizeof(why)) != 0)
            n = pd_dns_rcode(&q, msg, len, PD_DNS_FORMERR, reply, cap);
        else if (strcmp(q.name, "allowed.test") != 0)
            n = pd_dns_rcode(&q, msg, len, PD_DNS_NXDOMAIN, reply, cap);
        else if (q.qtype == PD_DNS_A)
            n = pd_dns_answer(&q, msg, AF_INET, v4, 2, reply, cap);
        else if (q.qtype == PD_DNS_AAAA)
            n = pd_dns_answer(&q, msg, AF_INET6, v6, 1, reply, cap);
        else
            n = pd_dns_answer(&q, msg, AF_UNSPEC, NULL, 0, reply, cap);
        if (n == 0)
            _exit(5);
        if (tcp) {
            out[0] = (uint8_t)(n >> 8);
            out[1] = (uint8_t)n;
            if (write(c, out, n + 2) != (ssize_t)(n + 2))
                _exit(6);
            close(c);
        } else if (sendto(fd, out, n, 0, (struct sockaddr *)&from, fl) != (ssize_t)n) {
            _exit(6);
        }
    }
    _exit(0);
}

static pid_t stub_start(bool tcp, bool want_opt, int max, struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
    cr_assert_geq(fd, 0);
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)sa, sizeof(*sa)), 0);
    if (tcp)
        cr_assert_eq(listen(fd, 4), 0);
    socklen_t sl = sizeof(*sa);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)sa, &sl), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        alarm(20);
        stub_serve(fd, tcp, want_opt, max);
    }
    close(fd);
    return pid;
}

static void stub_stop(pid_t pid)
{
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the stub failed: status 0x%x", st);
}

static void resolve_through_stub(bool tcp, bool edns)
{
    struct sockaddr_in sa;
    pid_t pid = stub_start(tcp, edns, 4, &sa);
    struct __res_state st;
    memset(&st, 0, sizeof(st));
    cr_assert_eq(res_ninit(&st), 0);
    st.nscount = 1;
    st.nsaddr_list[0] = sa;
    st.retry = 1;
    st.retrans = 5;
    if (tcp)
        st.options |= RES_USEVC;
    if (edns)
        st.options |= RES_USE_EDNS0;
    uint8_t ans[PD_DNS_MAX];

    int n = res_nquery(&st, "Allowed.Test", C_IN, T_A, ans, sizeof(ans));
    cr_assert_gt(n, 0, "res_nquery A: h_errno %d", st.res_h_errno);
    glibc_decode(ans, (size_t)n, "allowed.test", (unsigned)ans[0] << 8 | ans[1], 0, PD_DNS_A,
                 PD_DNS_A, v4, 4, 2);

    n = res_nquery(&st, "allowed.test", C_IN, T_AAAA, ans, sizeof(ans));
    cr_assert_gt(n, 0, "res_nquery AAAA: h_errno %d", st.res_h_errno);
    glibc_decode(ans, (size_t)n, "allowed.test", (unsigned)ans[0] << 8 | ans[1], 0, PD_DNS_AAAA,
                 PD_DNS_AAAA, v6, 16, 1);

    /* NOERROR without data: glibc says "no data" */
    n = res_nquery(&st, "allowed.test", C_IN, T_TXT, ans, sizeof(ans));
    cr_expect_eq(n, -1);
    cr_expect_eq(st.res_h_errno, NO_DATA);

    /* a name not allowed: NXDOMAIN, which glibc takes as final */
    n = res_nquery(&st, "secret.evil.test", C_IN, T_A, ans, sizeof(ans));
    cr_expect_eq(n, -1);
    cr_expect_eq(st.res_h_errno, HOST_NOT_FOUND);
    res_nclose(&st);
    stub_stop(pid);
}

Test(net_dns, glibc_resolver_udp)
{
    resolve_through_stub(false, false);
}

Test(net_dns, glibc_resolver_udp_edns)
{
    resolve_through_stub(false, true);
}

Test(net_dns, glibc_resolver_tcp)
{
    resolve_through_stub(true, false);
}
