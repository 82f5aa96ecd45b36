/* launcher/outscan/outscan_rules.c - the built-in credential formats of the output
 * scanner. Each rule names the literal prefixes that trigger it (the prefilter
 * calls the matcher only where one of them starts) and a matcher that checks
 * the rest of the format and the boundaries. Matchers only look forward from
 * the prefix and one byte back, and a rule that scans an unbounded run requires
 * a boundary before its prefix, so that one run is scanned once: the whole scan
 * stays linear. docs/output-scan.md lists the same rules; keep them in step. */
#include "launcher/outscan/outscan_int.h"

#include <string.h>

typedef bool (*cls_fn)(unsigned char c);

static bool c_alnum(unsigned char c)
{
    return pd_os_is_alnum(c);
}

static bool c_word(unsigned char c)
{
    return pd_os_is_word(c);
}

static bool c_token(unsigned char c) /* [A-Za-z0-9_-] */
{
    return pd_os_is_word(c) || c == '-';
}

static bool c_upnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool c_alpha(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool c_slack(unsigned char c) /* [A-Za-z0-9-] */
{
    return pd_os_is_alnum(c) || c == '-';
}

static bool c_path(unsigned char c) /* [A-Za-z0-9/_-] */
{
    return c_token(c) || c == '/';
}

static bool c_b64body(unsigned char c) /* [A-Za-z0-9+/=] */
{
    return pd_os_is_alnum(c) || c == '+' || c == '/' || c == '=';
}

static size_t run(const unsigned char *buf, size_t len, size_t p, cls_fn cls, size_t max)
{
    size_t n = 0;
    while (p + n < len && n < max && cls(buf[p + n]))
        n++;
    return n;
}

static bool has(const unsigned char *buf, size_t len, size_t p, const char *lit)
{
    size_t n = strlen(lit);
    return p <= len && len - p >= n && memcmp(buf + p, lit, n) == 0;
}

static bool has_digit_and_letter(const unsigned char *p, size_t n)
{
    bool d = false, l = false;
    for (size_t i = 0; i < n; i++) {
        d = d || (p[i] >= '0' && p[i] <= '9');
        l = l || c_alpha(p[i]);
    }
    return d && l;
}

/* The common shape: [left boundary] prefix run-of-cls{min,max} [right boundary].
 * left: the byte before the prefix must not be in it (NULL: no check);
 * right: the byte after the run must not be in it (NULL: no check beyond cls). */
struct shape {
    size_t plen;
    cls_fn cls;
    size_t min, max;
    cls_fn left, right;
};

static bool match_shape(const struct shape *sh, const unsigned char *buf, size_t len, size_t at,
                        size_t *start, size_t *end)
{
    if (sh->left != NULL && at > 0 && sh->left(buf[at - 1]))
        return false;
    size_t p = at + sh->plen;
    size_t r = run(buf, len, p, sh->cls, sh->max + 1);
    if (r < sh->min || r > sh->max)
        return false;
    if (sh->right != NULL && p + r < len && sh->right(buf[p + r]))
        return false;
    *start = at;
    *end = p + r;
    return true;
}

/* ---- private-key ------------------------------------------------------ */

/* After a line: one or more separators ([ \t\r\n] or the two-byte escapes \n,
 * \r, \t of a JSON or shell string). Returns the position after them. */
static size_t skip_separators(const unsigned char *buf, size_t len, size_t p, bool *newline)
{
    *newline = false;
    for (;;) {
        if (p < len && (buf[p] == '\n' || buf[p] == '\r')) {
            *newline = true;
            p++;
        } else if (p < len && (buf[p] == ' ' || buf[p] == '\t')) {
            p++;
        } else if (p + 1 < len && buf[p] == '\\' &&
                   (buf[p + 1] == 'n' || buf[p + 1] == 'r' || buf[p + 1] == 't')) {
            *newline = *newline || buf[p + 1] != 't';
            p += 2;
        } else {
            return p;
        }
    }
}

static bool at_line_end(const unsigned char *buf, size_t len, size_t p)
{
    if (p >= len)
        return true;
    unsigned char c = buf[p];
    return c == '\n' || c == '\r' || c == '"' || c == '\'' ||
           (c == '\\' && p + 1 < len && (buf[p + 1] == 'n' || buf[p + 1] == 'r'));
}

/* "-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----" at p; returns the end or 0. */
static size_t armor_line(const unsigned char *buf, size_t len, size_t p, const char *word)
{
    if (!has(buf, len, p, word))
        return 0;
    size_t q = p + strlen(word);
    size_t e = q;
    while (e < len && e - q < 64 && (c_upnum(buf[e]) || buf[e] == ' '))
        e++;
    if (!has(buf, len, e, "-----"))
        return 0;
    static const char *const tails[] = {"PRIVATE KEY", "PRIVATE KEY BLOCK"};
    for (size_t i = 0; i < 2; i++) {
        size_t tl = strlen(tails[i]);
        if (e - q >= tl && memcmp(buf + e - tl, tails[i], tl) == 0)
            return e + 5;
    }
    return 0;
}

/* The block runs from the BEGIN line through the body to the END line. Line
 * mode (a newline, real or escaped, after the BEGIN line): the body is lines of
 * base64 and armor headers, each line whole. Word mode (only blanks after the
 * BEGIN line, as `echo $KEY` prints it): the body is blank-separated base64
 * words up to the end of that line. Without an END line the match stops after
 * the last body line or word, so text after a truncated key is kept. */
static bool m_private_key(const unsigned char *buf, size_t len, size_t at, size_t *start,
                          size_t *end)
{
    size_t e = armor_line(buf, len, at, "-----BEGIN ");
    if (e == 0)
        return false;
    size_t p = e;
    bool first = true, word_mode = false;
    for (;;) {
        bool nl;
        size_t s = skip_separators(buf, len, p, &nl);
        if (s == p || s >= len)
            break;
        if (first)
            word_mode = !nl;
        else if (word_mode && nl)
            break;
        first = false;
        size_t endline = armor_line(buf, len, s, "-----END ");
        if (endline != 0) {
            e = endline;
            break;
        }
        if (has(buf, len, s, "-----"))
            break;
        /* armor header "Proc-Type: 4,ENCRYPTED", "Version: GnuPG v2" */
        size_t h = run(buf, len, s, c_slack, 64);
        if (!word_mode && h > 0 && s + h < len && buf[s + h] == ':') {
            size_t q = s + h;
            while (q < len && q - s < 256 && !at_line_end(buf, len, q))
                q++;
            e = p = q;
            continue;
        }
        size_t r = run(buf, len, s, c_b64body, (size_t)-1);
        size_t q = s + r;
        if (!word_mode)
            while (q < len && (buf[q] == ' ' || buf[q] == '\t'))
                q++;
        bool ends = at_line_end(buf, len, q) || (word_mode && (buf[q] == ' ' || buf[q] == '\t'));
        if (r == 0 || !ends)
            break;
        e = p = s + r;
    }
    *start = at;
    *end = e;
    return true;
}

/* ---- fixed formats ---------------------------------------------------- */

static bool m_aws(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {4, c_upnum, 16, 16, c_alnum, c_alnum};
    if (!match_shape(&sh, buf, len, at, start, end))
        return false;
    /* AWS documentation examples all end in EXAMPLE (AKIAIOSFODNN7EXAMPLE) */
    return memcmp(buf + *end - 7, "EXAMPLE", 7) != 0;
}

static bool m_github(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {4, c_alnum, 36, 255, c_word, c_word};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_github_fine(const unsigned char *buf, size_t len, size_t at, size_t *start,
                          size_t *end)
{
    static const struct shape sh = {11, c_word, 82, 255, c_word, NULL};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_gitlab(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {6, c_token, 20, 255, c_token, NULL};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_slack(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {5, c_slack, 10, 255, c_alnum, c_word};
    return match_shape(&sh, buf, len, at, start, end) &&
           has_digit_and_letter(buf + at + 5, *end - at - 5);
}

static bool m_slack_webhook(const unsigned char *buf, size_t len, size_t at, size_t *start,
                            size_t *end)
{
    static const struct shape sh = {25, c_path, 20, 512, c_word, NULL};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_stripe(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {8, c_alnum, 24, 255, c_word, c_word};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_anthropic(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {7, c_token, 32, 1024, c_token, NULL};
    return match_shape(&sh, buf, len, at, start, end) &&
           has_digit_and_letter(buf + at + 7, *end - at - 7);
}

static bool m_openai(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {3, c_token, 32, 1024, c_token, NULL};
    if (has(buf, len, at, "sk-ant-"))
        return false;
    return match_shape(&sh, buf, len, at, start, end) &&
           has_digit_and_letter(buf + at + 3, *end - at - 3);
}

static bool m_google(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {4, c_token, 35, 35, c_token, NULL};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_npm(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    static const struct shape sh = {4, c_alnum, 36, 36, c_word, c_word};
    return match_shape(&sh, buf, len, at, start, end);
}

static bool m_huggingface(const unsigned char *buf, size_t len, size_t at, size_t *start,
                          size_t *end)
{
    static const struct shape sh = {3, c_alpha, 34, 34, c_word, c_word};
    return match_shape(&sh, buf, len, at, start, end);
}

/* ---- jwt -------------------------------------------------------------- */

static bool m_jwt(const unsigned char *buf, size_t len, size_t at, size_t *start, size_t *end)
{
    if (at > 0 && c_token(buf[at - 1]))
        return false;
    size_t p = at + run(buf, len, at, c_token, (size_t)-1);
    if (p - at < 4 || !has(buf, len, p, ".eyJ"))
        return false;
    size_t q = p + 1;
    p = q + run(buf, len, q, c_token, (size_t)-1);
    if (p - q < 4 || p >= len || buf[p] != '.')
        return false;
    size_t sig = run(buf, len, p + 1, c_token, (size_t)-1);
    if (sig == 0)
        return false;
    *start = at;
    *end = p + 1 + sig;
    return true;
}

/* ---- url-credentials -------------------------------------------------- */

static bool c_userinfo(unsigned char c)
{
    return c > ' ' && c != 0x7f && strchr("/?#@:\"'<>`\\", c) == NULL;
}

static bool c_password(unsigned char c)
{
    return c == ':' || c_userinfo(c);
}

static bool password_is_placeholder(const unsigned char *p, size_t n, const unsigned char *user,
                                    size_t un)
{
    static const char *const words[] = {"password", "passwd", "pass",   "secret", "pwd",
                                        "changeme", "token",  "apikey", NULL};
    if (n < 3 || p[0] == '$' || p[0] == '%' || p[0] == '<' || p[0] == '{' || p[0] == '[')
        return true;
    if (n == un && memcmp(p, user, n) == 0)
        return true;
    size_t same = 1;
    while (same < n && p[same] == p[0])
        same++;
    if (same == n)
        return true; /* "****", "xxxx" */
    for (size_t i = 0; words[i] != NULL; i++) {
        size_t wl = strlen(words[i]);
        if (wl != n)
            continue;
        size_t k = 0;
        while (k < n && (p[k] | 0x20) == (unsigned char)words[i][k])
            k++;
        if (k == n)
            return true;
    }
    return false;
}

/* After "://": the user name, or ':' when it is empty. */
static bool c_after_scheme(unsigned char c)
{
    return c == ':' || c_userinfo(c);
}

static bool m_url_credentials(const unsigned char *buf, size_t len, size_t at, size_t *start,
                              size_t *end)
{
    if (at == 0 || !c_alpha(buf[at - 1]))
        return false;
    size_t u = at + 3;
    size_t un = run(buf, len, u, c_userinfo, 256);
    size_t colon = u + un;
    if (colon >= len || buf[colon] != ':')
        return false;
    size_t pn = run(buf, len, colon + 1, c_password, 256);
    size_t at_sign = colon + 1 + pn;
    if (pn == 0 || at_sign >= len || buf[at_sign] != '@')
        return false;
    if (password_is_placeholder(buf + colon + 1, pn, buf + u, un))
        return false;
    *start = colon + 1;
    *end = at_sign;
    return true;
}

/* ---- the table -------------------------------------------------------- */

/* name, matcher, bytes allowed after a 3-byte prefix (NULL: not needed or any),
 * prefixes; in priority order (an earlier rule wins a tie). */
#define PD_OS_RULE_LIST(X)                                                                         \
    X("private-key", m_private_key, NULL, "-----BEGIN ")                                           \
    X("aws-access-key-id", m_aws, NULL, "AKIA", "ASIA")                                            \
    X("github-token", m_github, NULL, "ghp_", "gho_", "ghu_", "ghs_", "ghr_")                      \
    X("github-fine-grained-token", m_github_fine, NULL, "github_pat_")                             \
    X("gitlab-token", m_gitlab, NULL, "glpat-")                                                    \
    X("slack-token", m_slack, NULL, "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-")                   \
    X("slack-webhook", m_slack_webhook, NULL, "hooks.slack.com/services/")                         \
    X("stripe-key", m_stripe, NULL, "sk_live_", "rk_live_", "sk_test_", "rk_test_")                \
    X("anthropic-key", m_anthropic, NULL, "sk-ant-")                                               \
    X("openai-key", m_openai, c_token, "sk-")                                                      \
    X("google-api-key", m_google, NULL, "AIza")                                                    \
    X("jwt", m_jwt, c_token, "eyJ")                                                                \
    X("npm-token", m_npm, NULL, "npm_")                                                            \
    X("huggingface-token", m_huggingface, c_alpha, "hf_")                                          \
    X("url-credentials", m_url_credentials, c_after_scheme, "://")

#define PD_OS_RULE_ENTRY(name, fn, next, ...) {name, {__VA_ARGS__, NULL}, fn, next},
#define PD_OS_RULE_NAME(name, fn, next, ...)  name,

const struct pd_os_rule pd_os_rules[] = {PD_OS_RULE_LIST(PD_OS_RULE_ENTRY)};
const size_t pd_os_nrules = sizeof(pd_os_rules) / sizeof(pd_os_rules[0]);

static const char *const rule_names[] = {PD_OS_RULE_LIST(PD_OS_RULE_NAME) NULL};

const char *const *pd_outscan_rule_names(size_t *n)
{
    if (n != NULL)
        *n = pd_os_nrules;
    return rule_names;
}

/* pd_outscan_disable_rule() keeps one bit per rule in a uint64_t, and the
 * scanner's match priorities leave room for 64 rules. */
_Static_assert(sizeof(pd_os_rules) / sizeof(pd_os_rules[0]) <= 64, "at most 64 built-in rules");
