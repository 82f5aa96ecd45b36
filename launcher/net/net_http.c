/* launcher/net/net_http.c - the HTTP proxy's request head: the parser, the
 * origin-form rewrite for absolute-form requests and the proxy's own
 * responses (launcher/net/net_http.h). Every read is bounded by the length the
 * caller gives; nothing is allocated. */
#include "launcher/net/net_http.h"

#include <string.h>

#define PD_HTTP_REASON_MAX 200 /* bytes of an error reason sent */
#define PD_HTTP_CONN_MAX   32  /* header names a Connection header may list */

/* ---- bytes -------------------------------------------------------------- */

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

static bool is_alnum(uint8_t c)
{
    return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_hex(uint8_t c)
{
    return is_digit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

static uint8_t to_lower(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + ('a' - 'A')) : c;
}

/* RFC 9110 tchar: the bytes of a method or a header name */
static bool is_tchar(uint8_t c)
{
    if (is_alnum(c))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

/* RFC 3986 unreserved */
static bool is_unreserved(uint8_t c)
{
    return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* RFC 3986 reg-name: unreserved, sub-delims and '%' (the canonicalizer that
 * runs after the parser narrows hosts to [A-Za-z0-9._-]) */
static bool is_regname(uint8_t c)
{
    if (is_unreserved(c))
        return true;
    switch (c) {
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
    case '%':
        return true;
    default:
        return false;
    }
}

/* a[0..n) equals the literal lit (of length n) ignoring ASCII case */
static bool ieq(const uint8_t *a, size_t n, const char *lit)
{
    if (strlen(lit) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (to_lower(a[i]) != to_lower((uint8_t)lit[i]))
            return false;
    }
    return true;
}

/* ---- an output buffer that never overruns -------------------------------- */

struct obuf {
    char *p;
    size_t cap;
    size_t len; /* always <= cap */
    bool over;
};

static void put(struct obuf *b, const void *s, size_t n)
{
    if (b->over || n > b->cap - b->len) {
        b->over = true;
        return;
    }
    if (n > 0)
        memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put_str(struct obuf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void put_uint(struct obuf *b, size_t v)
{
    char digits[24];
    size_t i = sizeof(digits);
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && i > 0);
    put(b, digits + i, sizeof(digits) - i);
}

/* the length written, or 0 if anything did not fit; NUL-terminates when it can */
static size_t finish(struct obuf *b)
{
    if (b->over)
        return 0;
    if (b->len < b->cap)
        b->p[b->len] = '\0';
    return b->len;
}

/* ---- the request line ---------------------------------------------------- */

/* where the parts of a valid request line lie, as offsets into the head */
struct reqline {
    size_t method_len;
    size_t version_off; /* 8 bytes: "HTTP/1.x" */
    size_t path_off;    /* absolute form: path and query after the authority (may be empty) */
    size_t path_len;
};

static const char *const known_methods[] = {
    "GET",   "HEAD",   "POST",     "PUT",        "DELETE",   "CONNECT", "OPTIONS",
    "TRACE", "PATCH",  "PROPFIND", "PROPPATCH",  "MKCOL",    "COPY",    "MOVE",
    "LOCK",  "UNLOCK", "REPORT",   "MKACTIVITY", "CHECKOUT", "MERGE",
};

static bool known_method(const uint8_t *m, size_t n)
{
    for (size_t i = 0; i < sizeof(known_methods) / sizeof(known_methods[0]); i++) {
        if (strlen(known_methods[i]) == n && memcmp(known_methods[i], m, n) == 0)
            return true;
    }
    return false;
}

/* a decimal port 1-65535, at most 5 digits */
static bool parse_port(const uint8_t *p, size_t n, unsigned *port)
{
    if (n == 0 || n > 5)
        return false;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(p[i]))
            return false;
        v = v * 10u + (unsigned)(p[i] - '0');
    }
    if (v == 0 || v > 65535)
        return false;
    *port = v;
    return true;
}

/* host[:port] or [v6][:port]; the port is required for CONNECT, else 80 */
static const char *parse_authority(const uint8_t *a, size_t n, bool need_port,
                                   struct pd_http_req *req)
{
    if (n == 0)
        return "empty host";
    if (memchr(a, '@', n) != NULL)
        return "userinfo in the target";
    size_t host_off, host_len, rest;
    if (a[0] == '[') {
        const uint8_t *rb = memchr(a, ']', n);
        if (rb == NULL)
            return "unclosed '[' in the host";
        host_off = 1;
        host_len = (size_t)(rb - a) - 1;
        rest = host_len + 2;
        if (host_len == 0)
            return "empty host";
        bool colon = false, zone = false;
        for (size_t i = host_off; i < host_off + host_len; i++) {
            uint8_t c = a[i];
            if (zone) {
                if (!is_unreserved(c))
                    return "bad character in the IPv6 host";
            } else if (c == '%') {
                zone = true;
            } else if (c == ':') {
                colon = true;
            } else if (!is_hex(c) && c != '.') {
                return "bad character in the IPv6 host";
            }
        }
        if (!colon)
            return "bracketed host is not an IPv6 address";
    } else {
        const uint8_t *colon = memchr(a, ':', n);
        if (colon != NULL && memchr(colon + 1, ':', n - (size_t)(colon - a) - 1) != NULL)
            return "IPv6 host without brackets";
        host_off = 0;
        host_len = colon != NULL ? (size_t)(colon - a) : n;
        rest = host_len;
        if (host_len == 0)
            return "empty host";
        for (size_t i = 0; i < host_len; i++) {
            if (!is_regname(a[i]))
                return "bad character in the host";
        }
    }
    if (host_len >= sizeof(req->host))
        return "host too long";
    if (rest == n) {
        if (need_port)
            return "CONNECT target is not host:port";
        req->port = 80;
    } else if (a[rest] != ':') {
        return "malformed host";
    } else if (!parse_port(a + rest + 1, n - rest - 1, &req->port)) {
        return "port is not a decimal number 1-65535";
    }
    memcpy(req->host, a + host_off, host_len);
    req->host[host_len] = '\0';
    return NULL;
}

/* http://authority[/path][?query]; t is at offset t_off of the head */
static const char *parse_absolute(const uint8_t *t, size_t n, size_t t_off, struct pd_http_req *req,
                                  struct reqline *rl)
{
    if (t[0] == '/')
        return "origin-form target (not a proxy request)";
    if (n >= 8 && ieq(t, 8, "https://"))
        return "https:// in absolute form (use CONNECT)";
    if (n < 7 || !ieq(t, 7, "http://"))
        return "target is not an http:// URL";
    if (memchr(t, '#', n) != NULL)
        return "fragment in the target";
    const uint8_t *a = t + 7;
    size_t an = n - 7, alen = 0;
    while (alen < an && a[alen] != '/' && a[alen] != '?')
        alen++;
    const char *why = parse_authority(a, alen, false, req);
    if (why != NULL)
        return why;
    rl->path_off = t_off + 7 + alen;
    rl->path_len = an - alen;
    return NULL;
}

/* the request line l[0..n) without its line end */
static const char *parse_request_line(const uint8_t *l, size_t n, struct pd_http_req *req,
                                      struct reqline *rl)
{
    for (size_t i = 0; i < n; i++) {
        if (l[i] < 0x20 || l[i] == 0x7f)
            return "control character in the request line";
        if (l[i] >= 0x80)
            return "non-ASCII byte in the request line";
    }
    const uint8_t *sp1 = memchr(l, ' ', n);
    if (sp1 == NULL)
        return "malformed request line";
    size_t mlen = (size_t)(sp1 - l);
    if (mlen == 0)
        return "empty method";
    const uint8_t *sp2 = memchr(sp1 + 1, ' ', n - mlen - 1);
    if (sp2 == NULL)
        return "malformed request line";
    size_t t_off = mlen + 1, t_len = (size_t)(sp2 - l) - t_off;
    size_t v_off = (size_t)(sp2 - l) + 1, v_len = n - v_off;
    if (t_len == 0 || memchr(l + v_off, ' ', v_len) != NULL)
        return "malformed request line";
    if (mlen >= sizeof(req->method) || !known_method(l, mlen))
        return "unknown method";
    memcpy(req->method, l, mlen);
    req->method[mlen] = '\0';
    if (v_len != 8 ||
        (memcmp(l + v_off, "HTTP/1.1", 8) != 0 && memcmp(l + v_off, "HTTP/1.0", 8) != 0))
        return "unsupported HTTP version";
    rl->method_len = mlen;
    rl->version_off = v_off;
    if (mlen == 7 && memcmp(l, "CONNECT", 7) == 0) {
        req->connect = true;
        return parse_authority(l + t_off, t_len, true, req);
    }
    return parse_absolute(l + t_off, t_len, t_off, req, rl);
}

/* ---- header lines -------------------------------------------------------- */

struct hline {
    const uint8_t *line; /* the line without its line end */
    size_t len;
    size_t name_len;      /* line[0..name_len) is the name */
    const uint8_t *value; /* trimmed of OWS on both sides */
    size_t value_len;
};

/* The next line of h[*off..n) (n ends at an LF): false at the empty line */
static bool next_line(const uint8_t *h, size_t n, size_t *off, const uint8_t **line, size_t *len)
{
    if (*off >= n)
        return false;
    const uint8_t *lf = memchr(h + *off, '\n', n - *off);
    if (lf == NULL)
        return false;
    *line = h + *off;
    *len = (size_t)(lf - *line);
    *off += *len + 1;
    if (*len > 0 && (*line)[*len - 1] == '\r')
        (*len)--;
    return *len > 0;
}

static const char *check_header(const uint8_t *l, size_t n, struct hline *hl)
{
    if (l[0] == ' ' || l[0] == '\t')
        return "obsolete line folding in the head";
    const uint8_t *colon = memchr(l, ':', n);
    if (colon == NULL)
        return "header line without a colon";
    size_t nl = (size_t)(colon - l);
    if (nl == 0)
        return "empty header name";
    for (size_t i = 0; i < nl; i++) {
        if (!is_tchar(l[i]))
            return "malformed header name";
    }
    for (size_t i = nl + 1; i < n; i++) {
        if (l[i] == '\r')
            return "bare CR in the head";
        if ((l[i] < 0x20 && l[i] != '\t') || l[i] == 0x7f)
            return "control character in a header value";
    }
    size_t vs = nl + 1, ve = n;
    while (vs < ve && (l[vs] == ' ' || l[vs] == '\t'))
        vs++;
    while (ve > vs && (l[ve - 1] == ' ' || l[ve - 1] == '\t'))
        ve--;
    hl->line = l;
    hl->len = n;
    hl->name_len = nl;
    hl->value = l + vs;
    hl->value_len = ve - vs;
    return NULL;
}

struct span {
    const uint8_t *p;
    size_t n;
};

/* The names a Connection header value lists, added to names[*count] */
static bool add_connection_names(const uint8_t *v, size_t n, struct span *names, size_t *count)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e == s)
            continue;
        if (*count == PD_HTTP_CONN_MAX)
            return false;
        names[*count].p = v + s;
        names[*count].n = e - s;
        (*count)++;
    }
    return true;
}

/* the header lines: well-formed, one Host, at most PD_HTTP_CONN_MAX Connection names */
static const char *check_headers(const uint8_t *h, size_t n)
{
    struct span names[PD_HTTP_CONN_MAX];
    size_t off = 0, len, hosts = 0, count = 0;
    const uint8_t *line;
    while (next_line(h, n, &off, &line, &len)) {
        struct hline hl;
        const char *why = check_header(line, len, &hl);
        if (why != NULL)
            return why;
        if (ieq(hl.line, hl.name_len, "host") && ++hosts > 1)
            return "duplicate Host header";
        if (ieq(hl.line, hl.name_len, "connection") &&
            !add_connection_names(hl.value, hl.value_len, names, &count))
            return "too many names in Connection headers";
    }
    return NULL;
}

/* ---- the head ------------------------------------------------------------ */

/* The length of the head if buf[0..n) holds its end (the first empty line) */
static size_t head_end(const uint8_t *buf, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const uint8_t *lf = memchr(buf + i, '\n', n - i);
        if (lf == NULL)
            return 0;
        i = (size_t)(lf - buf);
        if (i >= 1 && buf[i - 1] == '\n')
            return i + 1;
        if (i >= 2 && buf[i - 1] == '\r' && buf[i - 2] == '\n')
            return i + 1;
        i++;
    }
    return 0;
}

static enum pd_http_parse bad(struct pd_http_req *req, const char *why)
{
    memset(req, 0, sizeof(*req));
    size_t n = strlen(why);
    if (n >= sizeof(req->why))
        n = sizeof(req->why) - 1;
    memcpy(req->why, why, n);
    req->why[n] = '\0';
    return PD_HTTP_BAD;
}

static enum pd_http_parse parse_head(const uint8_t *buf, size_t len, struct pd_http_req *req,
                                     struct reqline *rl)
{
    memset(req, 0, sizeof(*req));
    memset(rl, 0, sizeof(*rl));
    if (buf == NULL)
        return PD_HTTP_MORE; /* as for len 0 */
    size_t scan = len < PD_HTTP_HEAD_MAX ? len : PD_HTTP_HEAD_MAX;
    size_t end = head_end(buf, scan);
    size_t seen = end > 0 ? end : scan;
    if (seen > 0 && memchr(buf, '\0', seen) != NULL)
        return bad(req, "NUL byte in the request head");
    const uint8_t *lf = seen > 0 ? memchr(buf, '\n', seen) : NULL;
    if (lf == NULL)
        return len >= PD_HTTP_HEAD_MAX ? PD_HTTP_TOO_BIG : PD_HTTP_MORE;
    size_t line_len = (size_t)(lf - buf), next = line_len + 1;
    if (line_len > 0 && buf[line_len - 1] == '\r')
        line_len--;
    const char *why = parse_request_line(buf, line_len, req, rl);
    if (why != NULL)
        return bad(req, why);
    if (end == 0)
        return len >= PD_HTTP_HEAD_MAX ? PD_HTTP_TOO_BIG : PD_HTTP_MORE;
    why = check_headers(buf + next, end - next);
    if (why != NULL)
        return bad(req, why);
    req->head_len = end;
    return PD_HTTP_OK;
}

enum pd_http_parse pd_http_parse_request(const uint8_t *buf, size_t len, struct pd_http_req *req)
{
    struct reqline rl;
    return parse_head(buf, len, req, &rl);
}

/* ---- the origin head ----------------------------------------------------- */

static bool ieq_span(const uint8_t *a, size_t n, const struct span *s)
{
    if (n != s->n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (to_lower(a[i]) != to_lower(s->p[i]))
            return false;
    }
    return true;
}

static bool dropped(const struct hline *hl, const struct span *names, size_t count)
{
    static const char *const hop[] = {"proxy-authorization", "proxy-connection", "connection",
                                      "keep-alive"};
    for (size_t i = 0; i < sizeof(hop) / sizeof(hop[0]); i++) {
        if (ieq(hl->line, hl->name_len, hop[i]))
            return true;
    }
    for (size_t i = 0; i < count; i++) {
        if (ieq_span(hl->line, hl->name_len, &names[i]))
            return true;
    }
    return false;
}

/* "Host: <authority>\r\n" from req; false when req->host is unusable */
static bool put_host(struct obuf *b, const struct pd_http_req *req)
{
    const char *nul = memchr(req->host, '\0', sizeof(req->host));
    if (nul == NULL || nul == req->host || req->port == 0 || req->port > 65535)
        return false;
    size_t n = (size_t)(nul - req->host);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)req->host[i];
        if (c <= 0x20 || c >= 0x7f)
            return false;
    }
    bool v6 = memchr(req->host, ':', n) != NULL;
    put_str(b, "Host: ");
    if (v6)
        put_str(b, "[");
    put(b, req->host, n);
    if (v6)
        put_str(b, "]");
    if (req->port != 80) {
        put_str(b, ":");
        put_uint(b, req->port);
    }
    put_str(b, "\r\n");
    return true;
}

size_t pd_http_origin_head(const uint8_t *head, size_t head_len, const struct pd_http_req *req,
                           char *out, size_t outlen)
{
    if (head == NULL || req == NULL || out == NULL || req->connect)
        return 0;
    struct pd_http_req chk;
    struct reqline rl;
    if (parse_head(head, head_len, &chk, &rl) != PD_HTTP_OK || chk.head_len != head_len ||
        chk.connect)
        return 0;

    const uint8_t *lf = memchr(head, '\n', head_len);
    size_t first = (size_t)(lf - head) + 1; /* the header lines start here */
    struct span names[PD_HTTP_CONN_MAX];
    size_t count = 0, off = first, len;
    bool has_host = false;
    const uint8_t *line;
    while (next_line(head, head_len, &off, &line, &len)) {
        struct hline hl;
        if (check_header(line, len, &hl) != NULL)
            return 0;
        if (ieq(hl.line, hl.name_len, "connection") &&
            !add_connection_names(hl.value, hl.value_len, names, &count))
            return 0;
        if (ieq(hl.line, hl.name_len, "host"))
            has_host = true;
    }

    struct obuf b = {.p = out, .cap = outlen};
    put(&b, head, rl.method_len);
    put_str(&b, " ");
    if (rl.path_len == 0 || head[rl.path_off] != '/')
        put_str(&b, "/");
    put(&b, head + rl.path_off, rl.path_len);
    put_str(&b, " ");
    put(&b, head + rl.version_off, 8);
    put_str(&b, "\r\n");
    if (!has_host && !put_host(&b, req))
        return 0;
    off = first;
    while (next_line(head, head_len, &off, &line, &len)) {
        struct hline hl;
        if (check_header(line, len, &hl) != NULL)
            return 0;
        if (ieq(hl.line, hl.name_len, "host")) {
            if (!put_host(&b, req))
                return 0;
        } else if (!dropped(&hl, names, count)) {
            put(&b, hl.line, hl.len);
            put_str(&b, "\r\n");
        }
    }
    put_str(&b, "Connection: close\r\n\r\n");
    return finish(&b);
}

/* ---- the proxy's own responses ------------------------------------------- */

static const char *status_phrase(int code)
{
    switch (code) {
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 431:
        return "Request Header Fields Too Large";
    case 502:
        return "Bad Gateway";
    case 504:
        return "Gateway Timeout";
    default:
        return NULL;
    }
}

size_t pd_http_error(int code, const char *reason, char *out, size_t outlen)
{
    const char *phrase = status_phrase(code);
    if (phrase == NULL || out == NULL)
        return 0;
    char r[PD_HTTP_REASON_MAX];
    size_t rn = 0;
    if (reason != NULL) {
        for (; rn < sizeof(r) && reason[rn] != '\0'; rn++) {
            unsigned char c = (unsigned char)reason[rn];
            r[rn] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        }
    }
    struct obuf b = {.p = out, .cap = outlen};
    put_str(&b, "HTTP/1.1 ");
    put_uint(&b, (size_t)code);
    put_str(&b, " ");
    put_str(&b, phrase);
    put_str(&b, "\r\nContent-Type: text/plain\r\nX-Paldron-Error: ");
    put(&b, r, rn);
    put_str(&b, "\r\nContent-Length: ");
    put_uint(&b, sizeof("paldron: ") - 1 + rn + 1);
    put_str(&b, "\r\nConnection: close\r\n\r\npaldron: ");
    put(&b, r, rn);
    put_str(&b, "\n");
    return finish(&b);
}

size_t pd_http_connected(char *out, size_t outlen)
{
    if (out == NULL)
        return 0;
    struct obuf b = {.p = out, .cap = outlen};
    put_str(&b, "HTTP/1.1 200 Connection established\r\n\r\n");
    return finish(&b);
}
