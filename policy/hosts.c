/* policy/hosts.c - network by name (policy/hosts.h): host entries, the
 * canonical form of a host, the decision for one connection, the names the
 * run's DNS server may answer, the refused address classes, and the URLs
 * and ssh-style targets the static gates judge.
 *
 * Every text is checked byte by byte before it is read as a name: what a
 * client sends may hold NUL, control characters, '%' zone ids or
 * "evil.com:443.allowed.com"; a numeric form other than the dotted quad
 * (127.1, 2130706433, 0x7f.0.0.1, 010.0.0.1) is refused, never
 * reinterpreted as inet_aton would. Entries are parsed again at each
 * decision (they were checked at load time; one that does not parse never
 * matches). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "policy/hosts.h"

#define NAME_MAX_LEN  253
#define LABEL_MAX_LEN 63

enum host_kind { HK_NAME = 0, HK_IPV4 = 1, HK_IPV6 = 2 };

/* The message into msg, when there is one. */
__attribute__((format(printf, 3, 4))) static void say_msg(char *msg, size_t len, const char *fmt,
                                                          ...)
{
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
}

/* The message, and -1: `return say(...)`. A macro, so that the -1 is seen
 * where it is returned: the static analyzer does not enter a variadic
 * function, so to it the -1 of one could be any value. */
#define say(...) (say_msg(__VA_ARGS__), -1)

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A copy of s[0..len) fit for a message: printable ASCII kept, other bytes
 * as \xNN, cut at about 200 bytes. */
static const char *shown(const char *s, size_t len, char *buf, size_t buflen)
{
    size_t o = 0;
    for (size_t k = 0; k < len && o + 5 < buflen && o < 200; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c >= 0x20 && c < 0x7f)
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x", c);
    }
    buf[o] = '\0';
    return buf;
}

/* Bytes no host text may hold, whatever its form. Returns 0 or -1. */
static int bad_bytes(const char *s, size_t len, char *msg, size_t msglen)
{
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c >= 0x80)
            return say(msg, msglen, "non-ASCII name: write its punycode form xn--...");
        if (c == 0)
            return say(msg, msglen, "holds a NUL byte");
        if (c == ' ' || (c >= '\t' && c <= '\r'))
            return say(msg, msglen, "holds white space");
        if (c < 0x20 || c == 0x7f)
            return say(msg, msglen, "holds a control character (\\x%02x)", c);
        if (c == '/')
            return say(msg, msglen, "holds '/' (a host, not a URL or a path)");
        if (c == '@')
            return say(msg, msglen, "holds '@' (user information is no part of a host)");
        if (c == '%')
            return say(msg, msglen, "holds '%%' (zone ids and percent-encoding are refused)");
    }
    return 0;
}

/* A port: digits only, no leading zero, 1-65535. */
static int parse_port(const char *s, size_t len, unsigned *port, char *msg, size_t msglen)
{
    char buf[64];
    if (len == 0)
        return say(msg, msglen, "empty port after ':'");
    for (size_t k = 0; k < len; k++)
        if (!is_digit(s[k]))
            return say(msg, msglen, "port '%s' is not a number (1-65535)",
                       shown(s, len, buf, sizeof buf));
    if (s[0] == '0' && len > 1)
        return say(msg, msglen, "port '%s' has a leading zero", shown(s, len, buf, sizeof buf));
    unsigned long v = 0;
    for (size_t k = 0; k < len && v <= 65535; k++)
        v = v * 10 + (unsigned long)(s[k] - '0');
    if (v == 0 || v > 65535)
        return say(msg, msglen, "port %s is out of range (1-65535)",
                   shown(s, len, buf, sizeof buf));
    *port = (unsigned)v;
    return 0;
}

/* The strict dotted quad: four decimal parts 0-255, no leading zeros. */
static bool dotted_quad(const char *s, size_t len, unsigned char out[4])
{
    size_t k = 0;
    for (int part = 0; part < 4; part++) {
        size_t start = k;
        unsigned v = 0;
        while (k < len && is_digit(s[k]) && k - start < 4)
            v = v * 10 + (unsigned)(s[k++] - '0');
        size_t n = k - start;
        if (n == 0 || n > 3 || v > 255 || (n > 1 && s[start] == '0'))
            return false;
        out[part] = (unsigned char)v;
        if (part < 3) {
            if (k >= len || s[k] != '.')
                return false;
            k++;
        }
    }
    return k == len;
}

/* Does the last label read as a number (decimal, or 0x hex), as inet_aton
 * and the URL standard read it? Then the whole text is an IPv4 form. */
static bool ends_in_number(const char *s, size_t len)
{
    size_t start = len;
    while (start > 0 && s[start - 1] != '.')
        start--;
    size_t n = len - start;
    if (n == 0)
        return false;
    const char *l = s + start;
    if (n >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
        for (size_t k = 2; k < n; k++)
            if (!is_hex(l[k]))
                return false;
        return true;
    }
    for (size_t k = 0; k < n; k++)
        if (!is_digit(l[k]))
            return false;
    return true;
}

/* Canonical IPv6 text of the 16 bytes a (a mapped IPv4 as its dotted
 * quad). Returns HK_IPV4 or HK_IPV6, or -1 when out is too small. */
static int v6_text(const unsigned char a[16], char *out, size_t outlen)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(a, mapped, 12) == 0) {
        if (!inet_ntop(AF_INET, a + 12, out, (socklen_t)outlen))
            return -1;
        return HK_IPV4;
    }
    if (!inet_ntop(AF_INET6, a, out, (socklen_t)outlen))
        return -1;
    return HK_IPV6;
}

/* An IPv6 literal s[0..len) (no brackets). Returns its kind or -1. */
static int parse_v6(const char *s, size_t len, char *out, size_t outlen, char *msg, size_t msglen)
{
    char buf[INET6_ADDRSTRLEN + 8], shownb[256];
    unsigned char a[16];
    if (len == 0 || len >= sizeof buf ||
        (memcpy(buf, s, len), buf[len] = '\0', inet_pton(AF_INET6, buf, a) != 1))
        return say(msg, msglen, "'%s' is not an IPv6 address",
                   shown(s, len, shownb, sizeof shownb));
    int kind = v6_text(a, out, outlen);
    if (kind < 0)
        return say(msg, msglen, "the address is too long for the buffer");
    return kind;
}

/* A DNS name or dotted quad s[0..len): lower-cased into out, one trailing
 * dot dropped. Returns HK_NAME or HK_IPV4, or -1 with msg. */
static int canon_name(const char *s, size_t len, char *out, size_t outlen, char *msg, size_t msglen)
{
    char buf[256];
    if (len && s[len - 1] == '.')
        len--;
    if (len == 0)
        return say(msg, msglen, "empty name");
    if (len > NAME_MAX_LEN)
        return say(msg, msglen, "name longer than %d bytes", NAME_MAX_LEN);
    if (len + 1 > outlen)
        return say(msg, msglen, "the name is too long for the buffer");
    size_t start = 0;
    for (size_t k = 0; k <= len; k++) {
        if (k < len && s[k] != '.') {
            char c = s[k];
            if (c == ':')
                return say(msg, msglen, "':' in a host name (only an IPv6 address holds ':')");
            if (c == '*')
                return say(msg, msglen,
                           "'*' is allowed only as a whole leading label "
                           "('*.example.com')");
            if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '_')
                return say(msg, msglen,
                           "character '%c' is not allowed in a host name (letters, digits, '-', "
                           "'_' and '.')",
                           c);
            continue;
        }
        size_t n = k - start;
        if (n == 0)
            return say(msg, msglen, "empty label in '%s'", shown(s, len, buf, sizeof buf));
        if (n > LABEL_MAX_LEN)
            return say(msg, msglen, "label '%.20s...' longer than %d bytes", s + start,
                       LABEL_MAX_LEN);
        if (s[start] == '-' || s[k - 1] == '-')
            return say(msg, msglen, "label '%.*s' starts or ends with '-'", (int)n, s + start);
        start = k + 1;
    }
    if (ends_in_number(s, len)) {
        unsigned char a[4];
        if (!dotted_quad(s, len, a))
            return say(msg, msglen,
                       "'%s' is not an IPv4 address in dotted-quad form (shorthand, octal and hex "
                       "forms are refused)",
                       shown(s, len, buf, sizeof buf));
        if (!inet_ntop(AF_INET, a, out, (socklen_t)outlen))
            return say(msg, msglen, "the address is too long for the buffer");
        return HK_IPV4;
    }
    for (size_t k = 0; k < len; k++)
        out[k] = lower(s[k]);
    out[len] = '\0';
    return HK_NAME;
}

/* The canonical host of s[0..len): its kind, or -1 with msg. */
static int canon_host(const char *s, size_t len, char *out, size_t outlen, char *msg, size_t msglen)
{
    if (len == 0)
        return say(msg, msglen, "empty host");
    if (bad_bytes(s, len, msg, msglen))
        return -1;
    if (s[0] == '[') {
        if (len < 2 || s[len - 1] != ']')
            return say(msg, msglen, "'[' without a closing ']'");
        return parse_v6(s + 1, len - 2, out, outlen, msg, msglen);
    }
    if (memchr(s, ']', len))
        return say(msg, msglen, "']' without an opening '['");
    const char *colon = memchr(s, ':', len);
    if (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - s)))
        return parse_v6(s, len, out, outlen, msg, msglen);
    return canon_name(s, len, out, outlen, msg, msglen);
}

int pd_host_canonical_len(const char *host, size_t len, char *out, size_t outlen, char *msg,
                          size_t msglen)
{
    if (!host)
        return say(msg, msglen, "empty host");
    return canon_host(host, len, out, outlen, msg, msglen) < 0 ? -1 : 0;
}

int pd_host_canonical(const char *host, char *out, size_t outlen, char *msg, size_t msglen)
{
    return pd_host_canonical_len(host, host ? strlen(host) : 0, out, outlen, msg, msglen);
}

/* ---- entries ------------------------------------------------------------ */

enum entry_kind { HE_NAME, HE_WILD, HE_IP };

struct hentry {
    enum entry_kind kind;
    char host[PD_HOST_MAX]; /* canonical: the name, the wildcard's base, the IP text */
    bool has_port;
    unsigned port;
};

static int parse_entry(const char *entry, struct hentry *e, char *msg, size_t msglen)
{
    size_t len = strlen(entry);
    memset(e, 0, sizeof *e);
    if (len == 0)
        return say(msg, msglen, "empty entry");
    if (bad_bytes(entry, len, msg, msglen))
        return -1;
    const char *host = entry, *port = NULL;
    size_t hlen = len;
    if (entry[0] == '[') {
        const char *close = strchr(entry, ']');
        if (!close)
            return say(msg, msglen, "'[' without a closing ']'");
        if (close[1] == ':')
            port = close + 2;
        else if (close[1])
            return say(msg, msglen, "only ':PORT' may follow ']'");
        if (parse_v6(entry + 1, (size_t)(close - entry - 1), e->host, sizeof e->host, msg, msglen) <
            0)
            return -1;
        e->kind = HE_IP;
    } else {
        const char *colon = strchr(entry, ':');
        if (colon && strchr(colon + 1, ':'))
            return say(msg, msglen, "an IPv6 address must be bracketed: [::1] or [::1]:443");
        if (colon) {
            port = colon + 1;
            hlen = (size_t)(colon - entry);
        }
        if (hlen == 0)
            return say(msg, msglen, "empty host before ':'");
        if (strchr(host, ']'))
            return say(msg, msglen, "']' without an opening '['");
        if (hlen == 1 && host[0] == '*')
            return say(msg, msglen,
                       "'*' alone would allow every host: name the hosts, or a domain's "
                       "subdomains as '*.example.com'");
        bool wild = hlen >= 2 && host[0] == '*' && host[1] == '.';
        const char *name = wild ? host + 2 : host;
        size_t nlen = wild ? hlen - 2 : hlen;
        if (memchr(name, '*', nlen) || (!wild && hlen && host[0] == '*'))
            return say(msg, msglen,
                       "'*' is allowed only as a whole leading label ('*.example.com')");
        int kind = canon_name(name, nlen, e->host, sizeof e->host, msg, msglen);
        if (kind < 0)
            return -1;
        if (wild && kind == HK_IPV4)
            return say(msg, msglen,
                       "a wildcard never matches an IP address: name the address itself");
        if (wild && !strchr(e->host, '.'))
            return say(msg, msglen, "a wildcard on a top-level domain matches every name under it");
        e->kind = wild ? HE_WILD : kind == HK_IPV4 ? HE_IP : HE_NAME;
    }
    if (port) {
        if (parse_port(port, strlen(port), &e->port, msg, msglen))
            return -1;
        e->has_port = true;
    }
    return 0;
}

int pd_host_entry_check(const char *entry, char *msg, size_t msglen)
{
    struct hentry e;
    return parse_entry(entry ? entry : "", &e, msg, msglen);
}

/* Does entry e name the canonical host of kind kind? */
static bool entry_matches(const struct hentry *e, const char *host, int kind)
{
    switch (e->kind) {
    case HE_NAME:
        return kind == HK_NAME && strcmp(e->host, host) == 0;
    case HE_IP:
        return kind != HK_NAME && strcmp(e->host, host) == 0;
    case HE_WILD: {
        size_t hl = strlen(host), bl = strlen(e->host);
        return kind == HK_NAME && hl > bl + 1 && host[hl - bl - 1] == '.' &&
               strcmp(host + hl - bl, e->host) == 0;
    }
    }
    return false;
}

/* The first entry of list that names host (any port when port is 0;
 * without a port: every port when every_port, else 80 and 443), or NULL. */
static const char *list_match(const struct pd_strv *list, const char *host, int kind, unsigned port,
                              bool every_port)
{
    for (size_t k = 0; k < list->n; k++) {
        struct hentry e;
        if (parse_entry(list->v[k], &e, NULL, 0) || !entry_matches(&e, host, kind))
            continue;
        if (port == 0)
            return list->v[k];
        if (e.has_port ? e.port == port : every_port || port == 80 || port == 443)
            return list->v[k];
    }
    return NULL;
}

void pd_host_decide(const struct pd_policy *p, const char *host, unsigned port,
                    struct pd_verdict *v)
{
    char canon[PD_HOST_MAX], why[160], buf[256];
    pd_verdict_allow(v);
    v->op = PD_OP_READ;
    v->resolved[0] = '\0';
    if (!host)
        host = "";
    int kind = canon_host(host, strlen(host), canon, sizeof canon, why, sizeof why);
    if (kind < 0 || port == 0 || port > 65535) {
        snprintf(v->subject, sizeof v->subject, "%s:%u", shown(host, strlen(host), buf, sizeof buf),
                 port);
        pd_verdict_deny(v, PD_REASON_HOST_MALFORMED, "allow_hosts", "%s (%s)", v->subject,
                        PD_REASON_HOST_MALFORMED);
        return;
    }
    snprintf(v->subject, sizeof v->subject, kind == HK_IPV6 ? "[%s]:%u" : "%s:%u", canon, port);
    const char *hit = list_match(&p->deny_hosts, canon, kind, port, true);
    if (hit) {
        pd_verdict_deny(v, PD_REASON_HOST_DENIED, "deny_hosts", "%s (%s)", v->subject,
                        PD_REASON_HOST_DENIED);
        v->pattern = hit;
        return;
    }
    hit = list_match(&p->allow_hosts, canon, kind, port, false);
    if (hit) {
        v->key = "allow_hosts";
        v->pattern = hit;
        return;
    }
    pd_verdict_deny(v, PD_REASON_HOST_NOT_ALLOWED, "allow_hosts", "%s (%s)", v->subject,
                    PD_REASON_HOST_NOT_ALLOWED);
}

bool pd_host_resolvable(const struct pd_policy *p, const char *name)
{
    char canon[PD_HOST_MAX];
    if (!name)
        return false;
    int kind = canon_host(name, strlen(name), canon, sizeof canon, NULL, 0);
    if (kind != HK_NAME)
        return false;
    /* a deny_hosts entry without a port denies every port: nothing to resolve for */
    for (size_t k = 0; k < p->deny_hosts.n; k++) {
        struct hentry e;
        if (!parse_entry(p->deny_hosts.v[k], &e, NULL, 0) && !e.has_port &&
            entry_matches(&e, canon, kind))
            return false;
    }
    return list_match(&p->allow_hosts, canon, kind, 0, false) != NULL;
}

/* ---- refused addresses -------------------------------------------------- */

/* The class of the IPv4 address a (network order bytes) that is refused,
 * or NULL. */
static const char *v4_class(const unsigned char a[4])
{
    uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
    if (x == 0xA9FEA9FEu || x == 0x646464C8u || x == 0xA83F8110u || x == 0xC00000C0u)
        return "cloud metadata address"; /* 169.254.169.254 100.100.100.200 168.63.129.16
                                            192.0.0.192 */
    if ((x >> 16) == 0xA9FEu)
        return "link-local address";
    if ((x >> 24) == 0)
        return "unspecified address";
    if ((x >> 28) == 0xEu)
        return "multicast address";
    if (x == 0xFFFFFFFFu)
        return "broadcast address";
    return NULL;
}

static const char *v6_class(const unsigned char a[16])
{
    static const struct {
        unsigned char addr[16];
        unsigned bits;
    } metadata[] = {
        {{0xfd, 0x00, 0x0e, 0xc2}, 32}, /* fd00:ec2::/32 */
        {{0xfd, 0x20, 0x00, 0xce, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54},
         128}, /* fd20:ce::254 */
        {{0xfd, 0x00, 0x00, 0xc1, 0, 0, 0, 0, 0, 0, 0, 0, 0xa9, 0xfe, 0xa9, 0xfe}, 128},
        {{0xfd, 0x00, 0x00, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x42}, 128},
        {{0xfd, 0x00, 0xa9, 0xfe, 0xa9, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, 128},
        {{0xfd, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x02, 0x00}, 128},
    };
    for (size_t k = 0; k < sizeof metadata / sizeof metadata[0]; k++)
        if (memcmp(a, metadata[k].addr, metadata[k].bits / 8) == 0)
            return "cloud metadata address";
    static const unsigned char zero[16] = {0};
    if (memcmp(a, zero, 16) == 0)
        return "unspecified address";
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
        return "link-local address";
    if (a[0] == 0xff)
        return "multicast address";
    return NULL;
}

/* The IPv4 address an IPv6 address carries (mapped, compatible, NAT64,
 * 6to4), into v4; false when none. */
static bool v6_embedded(const unsigned char a[16], unsigned char v4[4])
{
    static const unsigned char zero[12] = {0};
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0 ||
        (memcmp(a, zero, 12) == 0 && a[12] != 0)) { /* compatible; not ::, ::1 */
        memcpy(v4, a + 12, 4);
        return true;
    }
    if (a[0] == 0x20 && a[1] == 0x02) { /* 6to4 2002:V4ADDR::/48 */
        memcpy(v4, a + 2, 4);
        return true;
    }
    return false;
}

/* Does an IP-literal entry of allow_hosts name the canonical address text? */
static bool literal_allowed(const struct pd_policy *p, const char *text)
{
    for (size_t k = 0; k < p->allow_hosts.n; k++) {
        struct hentry e;
        if (!parse_entry(p->allow_hosts.v[k], &e, NULL, 0) && e.kind == HE_IP &&
            strcmp(e.host, text) == 0)
            return true;
    }
    return false;
}

bool pd_addr_refused(const struct pd_policy *p, const struct sockaddr *sa, char *why, size_t whylen)
{
    char text[INET6_ADDRSTRLEN], inner[INET_ADDRSTRLEN];
    const char *cls = NULL;
    bool embedded = false;
    if (!sa) {
        say_msg(why, whylen, "no address");
        return true;
    }
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        unsigned char a[4];
        memcpy(a, &in->sin_addr, 4);
        inet_ntop(AF_INET, a, text, sizeof text);
        cls = v4_class(a);
        snprintf(inner, sizeof inner, "%s", text);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        unsigned char a[16], v4[4];
        memcpy(a, &in6->sin6_addr, 16);
        if (v6_text(a, text, sizeof text) < 0)
            text[0] = '\0';
        cls = v6_class(a);
        if (!cls && v6_embedded(a, v4)) {
            cls = v4_class(v4);
            inet_ntop(AF_INET, v4, inner, sizeof inner);
            embedded = cls != NULL;
        }
    } else {
        say_msg(why, whylen, "address family %d is not IP", (int)sa->sa_family);
        return true;
    }
    if (!cls || (p && literal_allowed(p, text)))
        return false;
    if (embedded && strcmp(inner, text) != 0)
        say_msg(why, whylen, "%s %s (in %s)", cls, inner, text);
    else
        say_msg(why, whylen, "%s %s", cls, text);
    return true;
}

/* ---- the static gates --------------------------------------------------- */

bool pd_hosts_enabled(const struct pd_policy *p)
{
    return p && p->allow_hosts.n > 0 && !p->allow_network;
}

static const struct {
    const char *scheme;
    unsigned port;
} schemes[] = {
    {"http", 80},    {"https", 443},     {"ws", 80},       {"wss", 443},   {"ftp", 21},
    {"ftps", 990},   {"ssh", 22},        {"sftp", 22},     {"scp", 22},    {"git+ssh", 22},
    {"ssh+git", 22}, {"git", 9418},      {"rsync", 873},   {"telnet", 23}, {"gopher", 70},
    {"gophers", 70}, {"dict", 2628},     {"ldap", 389},    {"ldaps", 636}, {"imap", 143},
    {"imaps", 993},  {"pop3", 110},      {"pop3s", 995},   {"smtp", 25},   {"smtps", 465},
    {"mqtt", 1883},  {"mqtts", 8883},    {"rtsp", 554},    {"smb", 445},   {"smbs", 445},
    {"tftp", 69},    {"git+https", 443}, {"git+http", 80},
};

/* The default port of the scheme that s starts with ("scheme://"), or 0;
 * *rest: the text after "://". */
static unsigned scheme_port(const char *s, const char **rest)
{
    size_t n = 0;
    if (!s || !is_alpha(s[0]))
        return 0;
    while (is_alpha(s[n]) || is_digit(s[n]) || s[n] == '+' || s[n] == '-' || s[n] == '.')
        n++;
    if (strncmp(s + n, "://", 3) != 0)
        return 0;
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
        const char *w = schemes[k].scheme;
        if (strlen(w) != n)
            continue;
        size_t i = 0;
        while (i < n && lower(s[i]) == w[i])
            i++;
        if (i == n) {
            *rest = s + n + 3;
            return schemes[k].port;
        }
    }
    return 0;
}

bool pd_host_is_url(const char *s)
{
    const char *rest;
    return scheme_port(s, &rest) != 0;
}

static int copy_host(const char *s, size_t len, char *host, size_t hostlen, char *msg,
                     size_t msglen)
{
    if (len + 1 > hostlen)
        return say(msg, msglen, "the host is too long");
    memcpy(host, s, len);
    host[len] = '\0';
    return 0;
}

/* scheme://[userinfo@]host[:port][/?#...] */
static int url_target(const char *auth, unsigned def, char *host, size_t hostlen, unsigned *port,
                      bool *written, char *msg, size_t msglen)
{
    size_t alen = strcspn(auth, "/?#");
    char buf[256];
    if (memchr(auth, '\\', alen))
        return say(msg, msglen, "'\\' in the authority '%s'", shown(auth, alen, buf, sizeof buf));
    const char *hp = auth;
    for (size_t k = alen; k-- > 0;)
        if (auth[k] == '@') {
            hp = auth + k + 1;
            break;
        }
    size_t hlen = alen - (size_t)(hp - auth);
    const char *pstart = NULL;
    size_t plen = 0;
    if (hlen && hp[0] == '[') {
        const char *close = memchr(hp, ']', hlen);
        if (!close)
            return say(msg, msglen, "'[' without a closing ']'");
        size_t after = hlen - (size_t)(close + 1 - hp);
        if (after && close[1] != ':')
            return say(msg, msglen, "only ':PORT' may follow ']'");
        if (after) {
            pstart = close + 2;
            plen = after - 1;
        }
        if (copy_host(hp + 1, (size_t)(close - hp - 1), host, hostlen, msg, msglen))
            return -1;
        if (!host[0])
            return say(msg, msglen, "no host");
    } else {
        const char *colon = memchr(hp, ':', hlen);
        size_t nlen = colon ? (size_t)(colon - hp) : hlen;
        if (colon) {
            pstart = colon + 1;
            plen = hlen - nlen - 1;
        }
        if (nlen == 0)
            return say(msg, msglen, "no host");
        if (copy_host(hp, nlen, host, hostlen, msg, msglen))
            return -1;
    }
    *port = def;
    *written = pstart && plen;
    if (pstart && plen) { /* an empty port is the default (RFC 3986) */
        unsigned long v = 0;
        for (size_t k = 0; k < plen; k++) {
            if (!is_digit(pstart[k]))
                return say(msg, msglen, "port '%s' is not a number",
                           shown(pstart, plen, buf, sizeof buf));
            if (v <= 65535)
                v = v * 10 + (unsigned long)(pstart[k] - '0');
        }
        if (v == 0 || v > 65535)
            return say(msg, msglen, "port %s is out of range (1-65535)",
                       shown(pstart, plen, buf, sizeof buf));
        *port = (unsigned)v;
    }
    return 0;
}

/* [user@]host:path, [user@][v6]:path, host::module */
static int ssh_target(const char *t, char *host, size_t hostlen, unsigned *port)
{
    const char *colon = strchr(t, ':'), *slash = strchr(t, '/');
    const char *at = strchr(t, '@');
    const char *p = t;
    if (!colon)
        return 1;
    if (at && at < colon)
        p = at + 1;
    if (slash && slash < p)
        return 1; /* dir/a@b:c is a path */
    const char *h = p, *end;
    if (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close || close[1] != ':')
            return 1;
        h = p + 1;
        end = close;
        colon = close + 1;
    } else {
        colon = strchr(p, ':');
        if (!colon || colon == p || (slash && slash < colon))
            return 1;
        end = colon;
    }
    char canon[PD_HOST_MAX];
    if (copy_host(h, (size_t)(end - h), host, hostlen, NULL, 0) ||
        pd_host_canonical(host, canon, sizeof canon, NULL, 0))
        return 1;
    *port = colon[1] == ':' ? 873 : 22;
    return 0;
}

/* pd_host_target, and whether the text writes its port. */
static int target(const char *text, char *host, size_t hostlen, unsigned *port, bool *written,
                  char *msg, size_t msglen)
{
    const char *rest;
    *written = false;
    if (!text || !text[0])
        return 1;
    unsigned def = scheme_port(text, &rest);
    if (def)
        return url_target(rest, def, host, hostlen, port, written, msg, msglen);
    if (strstr(text, "://"))
        return 1; /* file://, an unknown scheme */
    return ssh_target(text, host, hostlen, port);
}

int pd_host_target(const char *text, char *host, size_t hostlen, unsigned *port, char *msg,
                   size_t msglen)
{
    bool written;
    return target(text, host, hostlen, port, &written, msg, msglen);
}

/* pd_host_judge_url; port (not 0) replaces the default port of a target
 * that writes none. */
static bool judge(const struct pd_policy *p, const char *text, unsigned port, struct pd_verdict *v)
{
    char host[PD_HOST_MAX], why[200], buf[256];
    unsigned got = 0;
    bool written;
    pd_verdict_allow(v);
    v->op = PD_OP_READ;
    v->subject[0] = '\0';
    v->resolved[0] = '\0';
    int rc = target(text, host, sizeof host, &got, &written, why, sizeof why);
    if (rc == 1)
        return false;
    if (rc < 0) {
        snprintf(v->subject, sizeof v->subject, "%s", shown(text, strlen(text), buf, sizeof buf));
        pd_verdict_deny(v, PD_REASON_HOST_MALFORMED, "allow_hosts", "%s (%s)", why,
                        PD_REASON_HOST_MALFORMED);
        return true;
    }
    if (port && !written)
        got = port;
    pd_host_decide(p, host, got, v);
    return true;
}

bool pd_host_judge_url(const struct pd_policy *p, const char *url, struct pd_verdict *v)
{
    return judge(p, url, 0, v);
}

bool pd_host_deny_target(const struct pd_policy *p, const char *what, const char *target,
                         unsigned port, struct pd_verdict *v)
{
    char buf[256], m[PD_MSG_MAX];
    if (!judge(p, target, port, v) || !v->deny)
        return false;
    snprintf(m, sizeof m, "%s%s%s: %s", what ? what : "", what ? ": " : "",
             shown(target, strlen(target), buf, sizeof buf), v->message);
    snprintf(v->message, sizeof v->message, "%s", m);
    return true;
}
