/* launcher/outscan/outscan_sources.c - where the output scanner's known values come
 * from: the environment handed to the command, and secret files (.env and
 * friends, INI/YAML/JSON-ish key files, PEM private keys).
 * docs/output-scan.md describes which entries count; keep it in step. */
#include "launcher/outscan/outscan_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET_FILE_MAX ((size_t)16 << 20)

/* Add v, and when it spans several lines also each line on its own (trimmed,
 * armor lines "-----..." left out): a multi-line secret is often printed in
 * part. Returns the number added or -1. */
static int add_value_lines(struct pd_outscan *scan, const unsigned char *v, size_t n,
                           const char *label)
{
    int rc = pd_outscan_add_value(scan, v, n, label);
    if (rc < 0)
        return -1;
    int count = rc;
    if (memchr(v, '\n', n) == NULL)
        return count;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] != '\n')
            j++;
        size_t a = i, b = j;
        while (a < b && (v[a] == ' ' || v[a] == '\t' || v[a] == '\r'))
            a++;
        while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t' || v[b - 1] == '\r'))
            b--;
        if (b - a < 5 || memcmp(v + a, "-----", 5) != 0) {
            rc = pd_outscan_add_value(scan, v + a, b - a, label);
            if (rc < 0)
                return -1;
            count += rc;
        }
        i = j + 1;
    }
    return count;
}

static int hexdigit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool url_user_byte(unsigned char c)
{
    return c > ' ' && c != 0x7f && strchr("/?#@:\"'<>", c) == NULL;
}

/* The password of every "scheme://user:password@" in v, raw and percent-decoded. */
static int add_url_passwords(struct pd_outscan *scan, const unsigned char *v, size_t n,
                             const char *label)
{
    int count = 0;
    for (size_t i = 1; i + 3 <= n; i++) {
        if (memcmp(v + i, "://", 3) != 0)
            continue;
        size_t u = i + 3;
        while (u < n && url_user_byte(v[u]))
            u++;
        if (u >= n || v[u] != ':')
            continue;
        size_t p = u + 1, q = p;
        while (q < n && (v[q] == ':' || url_user_byte(v[q])))
            q++;
        if (q >= n || v[q] != '@' || q == p)
            continue;
        int rc = pd_outscan_add_value(scan, v + p, q - p, label);
        if (rc < 0)
            return -1;
        count += rc;
        unsigned char dec[512];
        size_t dn = 0;
        bool changed = false;
        for (size_t k = p; k < q && dn < sizeof(dec); k++) {
            if (v[k] == '%' && k + 2 < q && hexdigit(v[k + 1]) >= 0 && hexdigit(v[k + 2]) >= 0) {
                dec[dn++] = (unsigned char)(hexdigit(v[k + 1]) * 16 + hexdigit(v[k + 2]));
                k += 2;
                changed = true;
            } else {
                dec[dn++] = v[k];
            }
        }
        if (changed) {
            rc = pd_outscan_add_value(scan, dec, dn, label);
            if (rc < 0)
                return -1;
            count += rc;
        }
        i = q;
    }
    return count;
}

static char *make_label(const char *kind, const char *name, size_t n)
{
    size_t kl = strlen(kind);
    char *s = malloc(kl + 1 + n + 1);
    if (s == NULL)
        return NULL;
    memcpy(s, kind, kl);
    s[kl] = ' ';
    memcpy(s + kl + 1, name, n);
    s[kl + 1 + n] = '\0';
    return s;
}

int pd_outscan_add_env(struct pd_outscan *scan, char *const *envp)
{
    if (scan == NULL) {
        errno = EINVAL;
        return -1;
    }
    int count = 0;
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        const char *e = envp[i];
        const char *eq = strchr(e, '=');
        if (eq == NULL || eq == e)
            continue;
        size_t nl = (size_t)(eq - e);
        const unsigned char *v = (const unsigned char *)eq + 1;
        size_t vn = strlen(eq + 1);
        bool secret = pd_outscan_env_name_is_secret(e, nl);
        bool url = vn > 3 && memmem(v, vn, "://", 3) != NULL;
        if (!secret && !url)
            continue;
        char *label = make_label("env", e, nl);
        if (label == NULL)
            return -1;
        int rc = secret ? add_value_lines(scan, v, vn, label) : 0;
        int rc2 = rc < 0 ? -1 : add_url_passwords(scan, v, vn, label);
        free(label);
        if (rc < 0 || rc2 < 0)
            return -1;
        count += rc + rc2;
    }
    return count;
}

/* ---- secret files ----------------------------------------------------- */

struct cursor {
    const unsigned char *s;
    size_t n, p;
};

static size_t line_end(const struct cursor *c, size_t from)
{
    const unsigned char *nl = memchr(c->s + from, '\n', c->n - from);
    return nl == NULL ? c->n : (size_t)(nl - c->s);
}

static bool is_blank(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

static bool starts(const unsigned char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && memcmp(s, lit, l) == 0;
}

/* A "-----BEGIN ... PRIVATE KEY-----" line at [a, b)? */
static bool pem_begin(const unsigned char *s, size_t a, size_t b)
{
    return starts(s + a, b - a, "-----BEGIN ") && memmem(s + a, b - a, "PRIVATE KEY", 11) != NULL;
}

/* Each body line of the PEM block whose BEGIN line ends at c->p. */
static int parse_pem(struct pd_outscan *scan, struct cursor *c, const char *label)
{
    int count = 0;
    while (c->p < c->n) {
        size_t e = line_end(c, c->p);
        size_t a = c->p, b = e;
        c->p = e < c->n ? e + 1 : e;
        while (a < b && is_blank(c->s[a]))
            a++;
        while (b > a && is_blank(c->s[b - 1]))
            b--;
        if (starts(c->s + a, b - a, "-----END"))
            break;
        if (memchr(c->s + a, ':', b - a) != NULL)
            continue; /* armor header: Proc-Type, DEK-Info, Version */
        int rc = pd_outscan_add_value(scan, c->s + a, b - a, label);
        if (rc < 0)
            return -1;
        count += rc;
    }
    return count;
}

/* A quoted value starting after the opening quote at c->p; may span lines.
 * Double quotes take the escapes \n \r \t \" \\ \/; single quotes none.
 * On success fills *out (malloc'd) and moves c->p past the closing quote. */
static int parse_quoted(struct cursor *c, unsigned char quote, unsigned char **out, size_t *outn)
{
    size_t close = c->p;
    while (close < c->n && c->s[close] != quote)
        close += (quote == '"' && c->s[close] == '\\' && close + 1 < c->n) ? 2 : 1;
    if (close >= c->n)
        return 0; /* unterminated: the caller reads the line unquoted */
    unsigned char *v = malloc(close - c->p + 1);
    if (v == NULL)
        return -1;
    size_t n = 0;
    for (size_t i = c->p; i < close; i++) {
        unsigned char ch = c->s[i];
        if (quote == '"' && ch == '\\' && i + 1 < close) {
            unsigned char e = c->s[++i];
            ch = e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
            if (e != 'n' && e != 'r' && e != 't' && e != '"' && e != '\\' && e != '/')
                v[n++] = '\\';
        }
        v[n++] = ch;
    }
    c->p = close + 1;
    *out = v;
    *outn = n;
    return 1;
}

/* One "KEY=value" / "export KEY=value" / "KEY: value" / "\"key\": \"value\"," line:
 * [a, e) is the line without its surrounding blanks, eol its real end. Leaves
 * c->p at the start of the next line (after a closing quote's line when the
 * value spans lines) or unchanged when the line is no assignment. */
static int parse_assignment(struct pd_outscan *scan, struct cursor *c, size_t a, size_t e,
                            size_t eol, const char *label)
{
    const unsigned char *s = c->s;
    if (starts(s + a, e - a, "export ") || starts(s + a, e - a, "export\t")) {
        a += 7;
        while (a < e && is_blank(s[a]))
            a++;
    }
    if (starts(s + a, e - a, "- "))
        a += 2; /* YAML list item */
    size_t k0, k1;
    if (a < e && (s[a] == '"' || s[a] == '\'')) {
        const unsigned char *q = memchr(s + a + 1, s[a], e - a - 1);
        if (q == NULL)
            return 0;
        k0 = a + 1;
        k1 = (size_t)(q - s);
        a = k1 + 1;
    } else if (e - a > 2 && s[a] == '/' && s[a + 1] == '/') {
        /* .npmrc's per-registry keys: "//registry.example/:_authToken=..." */
        k0 = a;
        while (a < e && s[a] != '=' && !is_blank(s[a]))
            a++;
        k1 = a;
    } else {
        k0 = a;
        while (a < e && (pd_os_is_word(s[a]) || s[a] == '.' || s[a] == '-'))
            a++;
        k1 = a;
    }
    if (k1 == k0)
        return 0;
    while (a < e && is_blank(s[a]))
        a++;
    if (a >= e || (s[a] != '=' && s[a] != ':'))
        return 0;
    a++;
    while (a < e && is_blank(s[a]))
        a++;

    unsigned char *owned = NULL;
    const unsigned char *v = s + a;
    size_t vn = 0;
    int q = 0;
    if (a < e && (s[a] == '"' || s[a] == '\'')) {
        c->p = a + 1;
        q = parse_quoted(c, s[a], &owned, &vn);
        if (q < 0)
            return -1;
        if (q > 0) /* unterminated (0): the line is read unquoted, from s + a */
            v = owned;
    }
    if (q == 0) {
        size_t b = e;
        for (size_t i = a; i + 1 < e; i++)
            if (is_blank(s[i]) && s[i + 1] == '#') {
                b = i;
                break;
            }
        while (b > a && (is_blank(s[b - 1]) || s[b - 1] == ','))
            b--;
        vn = b - a;
        c->p = eol < c->n ? eol + 1 : eol;
    } else {
        size_t rest = line_end(c, c->p); /* skip what follows the closing quote */
        c->p = rest < c->n ? rest + 1 : rest;
    }

    const char *key = (const char *)s + k0;
    size_t kn = k1 - k0;
    int count = 0, rc = 0;
    if (!pd_os_name_is_nonsecret(key, kn) &&
        (pd_outscan_env_name_is_secret(key, kn) || pd_os_value_is_tokenlike(v, vn) ||
         memmem(v, vn, "PRIVATE KEY", 11) != NULL))
        rc = add_value_lines(scan, v, vn, label);
    if (rc >= 0) {
        count += rc;
        rc = add_url_passwords(scan, v, vn, label);
        count += rc;
    }
    free(owned);
    return rc < 0 ? -1 : count;
}

/* A line that is no assignment, no comment and no PEM block (a Docker or
 * Kubernetes secret file holds just the value) counts as a whole when
 * pd_outscan_line_is_secret says so. So does the only line of a one-line
 * file even when it reads like an assignment ("user:Pa55-long-value" is a
 * value, not a key "user"). */
static int add_bare_line(struct pd_outscan *scan, const unsigned char *v, size_t n,
                         const char *label)
{
    if (!pd_outscan_line_is_secret(v, n))
        return 0;
    return pd_outscan_add_value(scan, v, n, label);
}

static int add_text(struct pd_outscan *scan, const char *text, size_t len, const char *source_label,
                    bool bare)
{
    if (scan == NULL || (text == NULL && len > 0)) {
        errno = EINVAL;
        return -1;
    }
    struct cursor c = {(const unsigned char *)text, len, 0};
    int count = 0;
    size_t lines = 0, only_a = 0, only_b = 0;
    bool only_assigned = false;
    while (c.p < c.n) {
        size_t e = line_end(&c, c.p);
        size_t a = c.p, b = e;
        while (a < b && is_blank(c.s[a]))
            a++;
        while (b > a && is_blank(c.s[b - 1]))
            b--;
        int rc = 0;
        if (pem_begin(c.s, a, b)) {
            c.p = e < c.n ? e + 1 : e;
            rc = parse_pem(scan, &c, source_label);
            lines += 2; /* a PEM file is no one-line file */
        } else if (a == b || c.s[a] == '#' || c.s[a] == ';' || c.s[a] == '[' ||
                   (starts(c.s + a, b - a, "//") && (b - a == 2 || is_blank(c.s[a + 2])))) {
            /* a "// comment"; "//registry/:_authToken=..." is .npmrc's key */
            c.p = e < c.n ? e + 1 : e;
        } else {
            size_t before = c.p;
            rc = parse_assignment(scan, &c, a, b, e, source_label);
            bool assigned = c.p != before;
            if (!assigned) {
                c.p = e < c.n ? e + 1 : e;
                if (bare && rc >= 0) {
                    int r2 = add_bare_line(scan, c.s + a, b - a, source_label);
                    rc = r2 < 0 ? -1 : rc + r2;
                }
            }
            if (lines++ == 0) {
                only_a = a;
                only_b = b;
                only_assigned = assigned;
            }
        }
        if (rc < 0)
            return -1;
        count += rc;
    }
    if (bare && lines == 1 && only_assigned) {
        int rc = add_bare_line(scan, c.s + only_a, only_b - only_a, source_label);
        if (rc < 0)
            return -1;
        count += rc;
    }
    return count;
}

int pd_outscan_add_secret_text(struct pd_outscan *scan, const char *text, size_t len,
                               const char *source_label)
{
    return add_text(scan, text, len, source_label, true);
}

/* Read the whole file at path (at most SECRET_FILE_MAX bytes) into *out. */
static int read_whole(const char *path, char **out, size_t *outn)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return -1;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        return -1;
    }
    for (;;) {
        if (n == cap) {
            if (cap > SECRET_FILE_MAX) {
                free(buf);
                close(fd);
                errno = EFBIG;
                return -1;
            }
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                close(fd);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int saved = errno;
            free(buf);
            close(fd);
            errno = saved;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > SECRET_FILE_MAX) {
        free(buf);
        errno = EFBIG;
        return -1;
    }
    *out = buf;
    *outn = n;
    return 0;
}

/* A PEM file that holds certificates and no private key (a CA bundle such
 * as certifi's cacert.pem, matched by the *.pem secret pattern) is public:
 * its lines are in every Python and Node install, so as known values they
 * would only raise false alarms. */
static bool public_certificates(const char *buf, size_t n)
{
    return memmem(buf, n, "-----BEGIN CERTIFICATE-----", 27) != NULL &&
           memmem(buf, n, "PRIVATE KEY-----", 16) == NULL;
}

static int add_file(struct pd_outscan *scan, const char *path, bool bare)
{
    if (scan == NULL || path == NULL) {
        errno = EINVAL;
        return -1;
    }
    char *buf;
    size_t n;
    if (read_whole(path, &buf, &n) != 0)
        return -1;
    if (public_certificates(buf, n)) {
        free(buf);
        return 0;
    }
    char *label = make_label("file", path, strlen(path));
    int rc = label == NULL ? -1 : add_text(scan, buf, n, label, bare);
    int saved = errno;
    free(label);
    free(buf);
    errno = saved;
    return rc;
}

int pd_outscan_add_secret_file(struct pd_outscan *scan, const char *path)
{
    return add_file(scan, path, true);
}

int pd_outscan_add_config_file(struct pd_outscan *scan, const char *path)
{
    return add_file(scan, path, false);
}
