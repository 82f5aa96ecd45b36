/* tests/unit/test_policy_hosts.c - network by name (policy/hosts.h): the
 * entry grammar of allow_hosts and deny_hosts (every accepted and refused
 * form, with its message), the canonical form of a host a client names,
 * pd_host_decide (exact, wildcard, ports, deny wins, IP literals, IPv6),
 * pd_host_resolvable, pd_addr_refused (every refused class, its embedded
 * IPv4 forms and the IP-literal exception), the URL and ssh-target judge of
 * the static gates and the advice for a host denial. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "policy/hosts.h"
#include "policy/policy.h"
#include "test_policy_fixture.h"

static struct pd_policy pol;

static void load(const char *toml)
{
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, toml, "t.toml", &err), 0, "%s (line %d)", err.msg,
                 err.line);
}

static void unload(void)
{
    pd_policy_free(&pol);
}

/* ---- the entry grammar -------------------------------------------------- */

Test(host_entry, accepted_forms)
{
    static const char *const ok[] = {
        "pypi.org",
        "PyPI.Org",
        "pypi.org.",
        "localhost",
        "a-b.example.com",
        "a_b.example.com",
        "_dmarc.example.com",
        "xn--bcher-kva.de",
        "*.example.com",
        "*.example.com.",
        "*.githubusercontent.com:443",
        "*.a.b.c.example.com",
        "pypi.org:8443",
        "host.test:1",
        "host.test:65535",
        "127.0.0.1",
        "127.0.0.1:8080",
        "0.0.0.0",
        "255.255.255.255:443",
        "[::1]",
        "[::1]:8080",
        "[2001:db8::1]:443",
        "[::ffff:127.0.0.1]",
        "[fd00:ec2::254]",
        "1a.example.com",
        "x.example.123a",
        NULL,
    };
    for (size_t k = 0; ok[k]; k++) {
        char msg[256] = "";
        cr_expect_eq(pd_host_entry_check(ok[k], msg, sizeof msg), 0, "'%s' refused: %s", ok[k],
                     msg);
    }
    /* a label of 63 bytes and a name of 253 are the limits, not beyond */
    char label[80], name[300], msg[256];
    memset(label, 'a', 63);
    snprintf(label + 63, sizeof label - 63, ".com");
    cr_expect_eq(pd_host_entry_check(label, msg, sizeof msg), 0, "%s", msg);
    size_t n = 0;
    while (n + 64 <= 253) {
        memset(name + n, 'b', 63);
        name[n + 63] = '.';
        n += 64;
    }
    memset(name + n, 'c', 253 - n);
    name[253] = '\0';
    cr_expect_eq(strlen(name), 253);
    cr_expect_eq(pd_host_entry_check(name, msg, sizeof msg), 0, "%s", msg);
}

struct refused {
    const char *entry;
    const char *msg; /* a fragment of the message */
};

Test(host_entry, refused_forms_with_their_messages)
{
    static const struct refused cases[] = {
        {"", "empty entry"},
        {"*", "'*' alone would allow every host"},
        {"*:443", "'*' alone would allow every host"},
        {"*.com", "a wildcard on a top-level domain matches every name under it"},
        {"*.localhost", "a wildcard on a top-level domain matches every name under it"},
        {"*.com.", "a wildcard on a top-level domain matches every name under it"},
        {"*.com:443", "a wildcard on a top-level domain matches every name under it"},
        {"a*.b.com", "'*' is allowed only as a whole leading label ('*.example.com')"},
        {"*.*.x", "'*' is allowed only as a whole leading label"},
        {"*a.b.com", "'*' is allowed only as a whole leading label"},
        {"a.*.com", "'*' is allowed only as a whole leading label"},
        {"*.", "empty name"},
        {"*.10.0.0.1", "a wildcard never matches an IP address: name the address itself"},
        {"*.0.0.1", "'0.0.1' is not an IPv4 address in dotted-quad form"},
        {"b\xc3\xbc"
         "cher.de",
         "non-ASCII name: write its punycode form xn--..."},
        {"a..b", "empty label in 'a..b'"},
        {".a.com", "empty label"},
        {"a.com..", "empty label"},
        {".", "empty name"},
        {"-a.com", "label '-a' starts or ends with '-'"},
        {"a-.com", "label 'a-' starts or ends with '-'"},
        {"a.b-", "label 'b-' starts or ends with '-'"},
        {"a!b.com", "character '!' is not allowed in a host name"},
        {"a+b.com", "character '+' is not allowed"},
        {"a,b.com", "character ',' is not allowed"},
        {"pypi.org:0", "port 0 is out of range (1-65535)"},
        {"pypi.org:65536", "port 65536 is out of range (1-65535)"},
        {"pypi.org:99999999999", "port 99999999999 is out of range"},
        {"pypi.org:08", "port '08' has a leading zero"},
        {"pypi.org:", "empty port after ':'"},
        {"pypi.org:x", "port 'x' is not a number"},
        {"pypi.org:44x", "port '44x' is not a number"},
        {"pypi.org:*", "port '*' is not a number"},
        {"pypi.org:-1", "port '-1' is not a number"},
        {":443", "empty host before ':'"},
        {"::1", "an IPv6 address must be bracketed: [::1] or [::1]:443"},
        {"2001:db8::1", "an IPv6 address must be bracketed"},
        {"::1:443", "an IPv6 address must be bracketed"},
        {"[::1", "'[' without a closing ']'"},
        {"[::1]x", "only ':PORT' may follow ']'"},
        {"[::1]:", "empty port after ':'"},
        {"[::1]:0", "port 0 is out of range"},
        {"[pypi.org]", "'pypi.org' is not an IPv6 address"},
        {"[127.0.0.1]", "is not an IPv6 address"},
        {"[]", "is not an IPv6 address"},
        {"pypi.org]", "']' without an opening '['"},
        {"127.1", "'127.1' is not an IPv4 address in dotted-quad form (shorthand, octal and hex "
                  "forms are refused)"},
        {"2130706433", "'2130706433' is not an IPv4 address in dotted-quad form"},
        {"0x7f.0.0.1", "is not an IPv4 address in dotted-quad form"},
        {"0x7f000001", "is not an IPv4 address in dotted-quad form"},
        {"010.0.0.1", "is not an IPv4 address in dotted-quad form"},
        {"127.0.0.01", "is not an IPv4 address in dotted-quad form"},
        {"1.2.3.4.5", "is not an IPv4 address in dotted-quad form"},
        {"256.1.1.1", "is not an IPv4 address in dotted-quad form"},
        {"example.0x10", "is not an IPv4 address in dotted-quad form"},
        {"example.123", "is not an IPv4 address in dotted-quad form"},
        {"a.b-c.0x", "is not an IPv4 address in dotted-quad form"}, /* "0x" reads as 0 */
        {"https://pypi.org", "holds '/' (a host, not a URL or a path)"},
        {"pypi.org/simple", "holds '/'"},
        {"10.0.0.0/8", "holds '/'"},
        {"user@pypi.org", "holds '@' (user information is no part of a host)"},
        {"[fe80::1%eth0]", "holds '%' (zone ids and percent-encoding are refused)"},
        {"pypi%2eorg", "holds '%'"},
        {"pypi .org", "holds white space"},
        {" pypi.org", "holds white space"},
        {"pypi.org\t", "holds white space"},
        {"pypi.org\n", "holds white space"},
        {"py\x01pi.org", "holds a control character (\\x01)"},
        {"pypi.org\x7f", "holds a control character (\\x7f)"},
        {NULL, NULL},
    };
    for (size_t k = 0; cases[k].entry; k++) {
        char msg[256] = "";
        cr_expect_eq(pd_host_entry_check(cases[k].entry, msg, sizeof msg), -1,
                     "'%s' accepted, expected: %s", cases[k].entry, cases[k].msg);
        cr_expect(strstr(msg, cases[k].msg) != NULL, "'%s': '%s' not in '%s'", cases[k].entry,
                  cases[k].msg, msg);
    }
    /* one message in full */
    char msg[256];
    cr_assert_eq(pd_host_entry_check("*.com", msg, sizeof msg), -1);
    cr_expect_str_eq(msg, "a wildcard on a top-level domain matches every name under it");
    /* too long: a label of 64 bytes, a name of 254 */
    char label[80], name[300];
    memset(label, 'a', 64);
    snprintf(label + 64, sizeof label - 64, ".com");
    cr_expect_eq(pd_host_entry_check(label, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "longer than 63 bytes") != NULL, "%s", msg);
    memset(name, 'b', 254);
    for (size_t k = 50; k < 254; k += 50)
        name[k] = '.';
    name[254] = '\0';
    cr_expect_eq(pd_host_entry_check(name, msg, sizeof msg), -1);
    cr_expect_str_eq(msg, "name longer than 253 bytes");
    /* no msg buffer: still refused */
    cr_expect_eq(pd_host_entry_check("*.com", NULL, 0), -1);
    cr_expect_eq(pd_host_entry_check(NULL, msg, sizeof msg), -1);
}

/* ---- canonical form ----------------------------------------------------- */

Test(host_canonical, case_dot_brackets_and_mapped_addresses)
{
    static const char *const pairs[][2] = {
        {"PyPI.Org", "pypi.org"},
        {"pypi.org.", "pypi.org"},
        {"LOCALHOST.", "localhost"},
        {"a_b.Example.COM", "a_b.example.com"},
        {"127.0.0.1", "127.0.0.1"},
        {"0.0.0.0", "0.0.0.0"},
        {"127.0.0.1.", "127.0.0.1"},
        {"[::1]", "::1"},
        {"::1", "::1"},
        {"[0:0:0:0:0:0:0:1]", "::1"},
        {"2001:DB8:0:0::1", "2001:db8::1"},
        {"[2001:db8::1]", "2001:db8::1"},
        {"[::ffff:127.0.0.1]", "127.0.0.1"},
        {"::FFFF:7f00:1", "127.0.0.1"},
        {"::ffff:169.254.169.254", "169.254.169.254"},
        {"64:ff9b::a9fe:a9fe", "64:ff9b::a9fe:a9fe"},
        {NULL, NULL},
    };
    for (size_t k = 0; pairs[k][0]; k++) {
        char out[PD_HOST_MAX], msg[256] = "";
        cr_expect_eq(pd_host_canonical(pairs[k][0], out, sizeof out, msg, sizeof msg), 0,
                     "'%s' refused: %s", pairs[k][0], msg);
        cr_expect_str_eq(out, pairs[k][1], "'%s' -> '%s', expected '%s'", pairs[k][0], out,
                         pairs[k][1]);
    }
}

Test(host_canonical, refusals)
{
    static const struct refused cases[] = {
        {"", "empty host"},
        {"evil.com:443.allowed.com", "':' in a host name"},
        {"evil.com:443", "':' in a host name"},
        {"[::ffff:1.2.3.4%x.allowed.com]", "holds '%'"},
        {"fe80::1%eth0", "holds '%'"},
        {"[fe80::1%25eth0]", "holds '%'"},
        {"2130706433", "is not an IPv4 address in dotted-quad form"},
        {"127.1", "is not an IPv4 address in dotted-quad form"},
        {"0x7f.0.0.1", "is not an IPv4 address in dotted-quad form"},
        {"0177.0.0.1", "is not an IPv4 address in dotted-quad form"},
        {"010.0.0.1", "is not an IPv4 address in dotted-quad form"},
        {"0x7f", "is not an IPv4 address in dotted-quad form"},
        {"1.2.3.256", "is not an IPv4 address in dotted-quad form"},
        {"evil.com/x", "holds '/'"},
        {"allowed.com@evil.com", "holds '@'"},
        {"evil .com", "holds white space"},
        {"evil.com\r", "holds white space"},
        {"ev\x1bil.com", "holds a control character"},
        {"*.example.com", "'*' is allowed only as a whole leading label"},
        {"b\xc3\xbc"
         "cher.de",
         "non-ASCII name: write its punycode form xn--..."},
        {"a..b", "empty label"},
        {"pypi.org..", "empty label"},
        {".", "empty name"},
        {"-x.com", "starts or ends with '-'"},
        {"[pypi.org]", "is not an IPv6 address"},
        {"[::1", "'[' without a closing ']'"},
        {"::1]", "']' without an opening '['"},
        {"1:2:3:4:5:6:7:8:9", "is not an IPv6 address"},
        {NULL, NULL},
    };
    for (size_t k = 0; cases[k].entry; k++) {
        char out[PD_HOST_MAX] = "", msg[256] = "";
        cr_expect_eq(pd_host_canonical(cases[k].entry, out, sizeof out, msg, sizeof msg), -1,
                     "'%s' accepted as '%s', expected: %s", cases[k].entry, out, cases[k].msg);
        cr_expect(strstr(msg, cases[k].msg) != NULL, "'%s': '%s' not in '%s'", cases[k].entry,
                  cases[k].msg, msg);
    }
    /* NUL inside the bytes a client sent: a C string would end at it */
    static const char nul[] = "evil.com\0.allowed.com";
    char out[PD_HOST_MAX], msg[256];
    cr_expect_eq(pd_host_canonical_len(nul, sizeof nul - 1, out, sizeof out, msg, sizeof msg), -1);
    cr_expect_str_eq(msg, "holds a NUL byte");
    cr_expect_eq(pd_host_canonical_len("pypi.org", 8, out, sizeof out, msg, sizeof msg), 0);
    cr_expect_str_eq(out, "pypi.org");
    cr_expect_eq(pd_host_canonical_len("pypi.orgXX", 8, out, sizeof out, msg, sizeof msg), 0);
    cr_expect_str_eq(out, "pypi.org");
    /* labels and names beyond their limits */
    char big[300];
    memset(big, 'a', 64);
    big[64] = '\0';
    cr_expect_eq(pd_host_canonical(big, out, sizeof out, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "longer than 63 bytes") != NULL, "%s", msg);
    memset(big, 'a', 260);
    for (size_t k = 60; k < 260; k += 60)
        big[k] = '.';
    big[260] = '\0';
    cr_expect_eq(pd_host_canonical(big, out, sizeof out, msg, sizeof msg), -1);
    cr_expect_str_eq(msg, "name longer than 253 bytes");
    /* a buffer too small is an error, not a cut name */
    char tiny[4];
    cr_expect_eq(pd_host_canonical("pypi.org", tiny, sizeof tiny, msg, sizeof msg), -1);
    cr_expect_eq(pd_host_canonical(NULL, out, sizeof out, msg, sizeof msg), -1);
}

/* ---- decisions ---------------------------------------------------------- */

#define POLICY                                                                                     \
    "allow_hosts = [\"pypi.org\", \"*.example.com\", \"api.test:8443\", \"127.0.0.1:9000\",\n"     \
    "  \"[::1]:8080\", \"10.0.0.5\", \"[2001:db8::7]\"]\n"                                         \
    "deny_hosts = [\"bad.example.com\", \"pypi.org:80\", \"[2001:db8::bad]\"]\n"

struct decide_case {
    const char *host;
    unsigned port;
    const char *reason;  /* NULL: allow */
    const char *key;     /* expected key */
    const char *pattern; /* expected pattern (NULL: none) */
    const char *subject;
};

static void decide_cases(const struct decide_case *cases)
{
    for (size_t k = 0; cases[k].host; k++) {
        const struct decide_case *c = &cases[k];
        struct pd_verdict v;
        memset(&v, 0x5a, sizeof v);
        pd_host_decide(&pol, c->host, c->port, &v);
        cr_expect_eq(v.deny, c->reason != NULL, "%s:%u: deny %d, expected %s (%s)", c->host,
                     c->port, v.deny, c->reason ? c->reason : "allow", v.message);
        cr_expect(tp_streq(v.reason, c->reason), "%s:%u: reason %s, expected %s", c->host, c->port,
                  TP_S(v.reason), TP_S(c->reason));
        cr_expect(tp_streq(v.key, c->key), "%s:%u: key %s, expected %s", c->host, c->port,
                  TP_S(v.key), TP_S(c->key));
        cr_expect(tp_streq(v.pattern, c->pattern), "%s:%u: pattern %s, expected %s", c->host,
                  c->port, TP_S(v.pattern), TP_S(c->pattern));
        if (c->subject)
            cr_expect_str_eq(v.subject, c->subject, "%s:%u", c->host, c->port);
        cr_expect_eq(v.op, PD_OP_READ, "%s:%u", c->host, c->port);
        cr_expect_str_eq(v.resolved, "");
        if (c->reason) {
            char want[PD_MSG_MAX];
            snprintf(want, sizeof want, "%.300s (%s)", v.subject, c->reason);
            cr_expect_str_eq(v.message, want, "%s:%u", c->host, c->port);
        } else {
            cr_expect_str_eq(v.message, "", "%s:%u", c->host, c->port);
        }
    }
}

#define ALLOWED(h, p, pat, subj)                                                                   \
    {                                                                                              \
        h, p, NULL, "allow_hosts", pat, subj                                                       \
    }
#define NOT_ALLOWED(h, p, subj)                                                                    \
    {                                                                                              \
        h, p, PD_REASON_HOST_NOT_ALLOWED, "allow_hosts", NULL, subj                                \
    }
#define DENIED(h, p, pat, subj)                                                                    \
    {                                                                                              \
        h, p, PD_REASON_HOST_DENIED, "deny_hosts", pat, subj                                       \
    }
#define MALFORMED(h, p)                                                                            \
    {                                                                                              \
        h, p, PD_REASON_HOST_MALFORMED, "allow_hosts", NULL, NULL                                  \
    }

Test(host_decide, names_wildcards_and_ports, .fini = unload)
{
    load(POLICY);
    static const struct decide_case cases[] = {
        /* exact, default ports 80 and 443 only */
        ALLOWED("pypi.org", 443, "pypi.org", "pypi.org:443"),
        ALLOWED("PyPI.ORG.", 443, "pypi.org", "pypi.org:443"),
        NOT_ALLOWED("pypi.org", 8080, "pypi.org:8080"),
        NOT_ALLOWED("pypi.org", 22, "pypi.org:22"),
        NOT_ALLOWED("files.pypi.org", 443, "files.pypi.org:443"),
        NOT_ALLOWED("pypi.org.evil.test", 443, "pypi.org.evil.test:443"),
        NOT_ALLOWED("xpypi.org", 443, "xpypi.org:443"),
        /* a deny_hosts entry with a port denies that port only */
        DENIED("pypi.org", 80, "pypi.org:80", "pypi.org:80"),
        /* wildcard: strict subdomains, never the apex */
        ALLOWED("a.example.com", 443, "*.example.com", "a.example.com:443"),
        ALLOWED("x.y.Example.com", 80, "*.example.com", "x.y.example.com:80"),
        NOT_ALLOWED("example.com", 443, "example.com:443"),
        NOT_ALLOWED("example.com.", 80, "example.com:80"),
        NOT_ALLOWED("badexample.com", 443, "badexample.com:443"),
        NOT_ALLOWED("a.example.com", 8080, "a.example.com:8080"),
        NOT_ALLOWED("example.com.evil.test", 443, "example.com.evil.test:443"),
        /* deny wins over the wildcard, and a portless deny is every port */
        DENIED("bad.example.com", 443, "bad.example.com", "bad.example.com:443"),
        DENIED("BAD.example.com.", 9999, "bad.example.com", "bad.example.com:9999"),
        ALLOWED("sub.bad.example.com", 443, "*.example.com", "sub.bad.example.com:443"),
        /* an explicit port is that port only */
        ALLOWED("api.test", 8443, "api.test:8443", "api.test:8443"),
        NOT_ALLOWED("api.test", 443, "api.test:443"),
        NOT_ALLOWED("api.test", 80, "api.test:80"),
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    decide_cases(cases);
}

Test(host_decide, ip_literals_and_ipv6, .fini = unload)
{
    load(POLICY);
    static const struct decide_case cases[] = {
        ALLOWED("127.0.0.1", 9000, "127.0.0.1:9000", "127.0.0.1:9000"),
        NOT_ALLOWED("127.0.0.1", 443, "127.0.0.1:443"),
        NOT_ALLOWED("127.0.0.2", 9000, "127.0.0.2:9000"),
        /* the mapped form is the same address */
        ALLOWED("[::ffff:127.0.0.1]", 9000, "127.0.0.1:9000", "127.0.0.1:9000"),
        ALLOWED("::ffff:7f00:1", 9000, "127.0.0.1:9000", "127.0.0.1:9000"),
        ALLOWED("10.0.0.5", 443, "10.0.0.5", "10.0.0.5:443"),
        ALLOWED("10.0.0.5", 80, "10.0.0.5", "10.0.0.5:80"),
        NOT_ALLOWED("10.0.0.5", 22, "10.0.0.5:22"),
        /* IPv6: bracketed in the subject, any spelling of the address */
        ALLOWED("::1", 8080, "[::1]:8080", "[::1]:8080"),
        ALLOWED("[0:0::1]", 8080, "[::1]:8080", "[::1]:8080"),
        NOT_ALLOWED("[::1]", 443, "[::1]:443"),
        ALLOWED("2001:DB8::7", 443, "[2001:db8::7]", "[2001:db8::7]:443"),
        DENIED("[2001:db8::bad]", 443, "[2001:db8::bad]", "[2001:db8::bad]:443"),
        DENIED("2001:db8::bad", 22, "[2001:db8::bad]", "[2001:db8::bad]:22"),
        NOT_ALLOWED("2001:db8::8", 443, "[2001:db8::8]:443"),
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    decide_cases(cases);
}

Test(host_decide, wildcards_never_match_ip_literals, .fini = unload)
{
    load("allow_hosts = [\"*.example.com\", \"*.in-addr.arpa\"]\n");
    static const struct decide_case cases[] = {
        NOT_ALLOWED("93.184.216.34", 443, "93.184.216.34:443"),
        NOT_ALLOWED("[2001:db8::1]", 443, "[2001:db8::1]:443"),
        ALLOWED("1.example.com", 443, "*.example.com", "1.example.com:443"),
        ALLOWED("4.3.2.1.in-addr.arpa", 443, "*.in-addr.arpa", "4.3.2.1.in-addr.arpa:443"),
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    decide_cases(cases);
    /* and a name entry never matches an address, nor an address a name */
    unload();
    load("allow_hosts = [\"localhost\", \"127.0.0.1\"]\n");
    static const struct decide_case more[] = {
        ALLOWED("localhost", 443, "localhost", "localhost:443"),
        ALLOWED("127.0.0.1", 443, "127.0.0.1", "127.0.0.1:443"),
        NOT_ALLOWED("::1", 443, "[::1]:443"),
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    decide_cases(more);
}

Test(host_decide, deny_wins_and_malformed_hosts, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\", \"pypi.org:8443\", \"allowed.com\"]\n"
         "deny_hosts = [\"PyPI.org.\"]\n");
    static const struct decide_case cases[] = {
        DENIED("pypi.org", 443, "PyPI.org.", "pypi.org:443"),
        DENIED("pypi.org", 8443, "PyPI.org.", "pypi.org:8443"),
        DENIED("pypi.org", 1, "PyPI.org.", "pypi.org:1"),
        ALLOWED("allowed.com", 443, "allowed.com", "allowed.com:443"),
        /* malformed: refused, never reinterpreted */
        MALFORMED("evil.com:443.allowed.com", 443),
        MALFORMED("evil.com/.allowed.com", 443),
        MALFORMED("2130706433", 443),
        MALFORMED("127.1", 443),
        MALFORMED("0x7f.0.0.1", 443),
        MALFORMED("[::ffff:1.2.3.4%x.allowed.com]", 443),
        MALFORMED("", 443),
        MALFORMED("allowed.com", 0),
        MALFORMED("allowed.com", 65536),
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    decide_cases(cases);
    struct pd_verdict v;
    pd_host_decide(&pol, "evil.com:443.allowed.com", 443, &v);
    cr_expect_str_eq(v.subject, "evil.com:443.allowed.com:443");
    cr_expect_str_eq(v.message, "evil.com:443.allowed.com:443 (malformed host)");
    /* control bytes are not copied into messages */
    pd_host_decide(&pol, "a\x1b[31m.com", 443, &v);
    cr_expect(v.deny);
    cr_expect_str_eq(v.message, "a\\x1b[31m.com:443 (malformed host)");
    pd_host_decide(&pol, NULL, 443, &v);
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_HOST_MALFORMED);
}

Test(host_decide, an_empty_allow_hosts_allows_nothing, .fini = unload)
{
    load("deny_hosts = [\"x.test\"]\n");
    static const struct decide_case cases[] = {
        NOT_ALLOWED("pypi.org", 443, "pypi.org:443"),
        DENIED("x.test", 443, "x.test", "x.test:443"),
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    decide_cases(cases);
}

/* ---- the DNS server's question ------------------------------------------ */

Test(host_resolvable, names_only, .fini = unload)
{
    load(POLICY);
    static const struct {
        const char *name;
        bool want;
    } cases[] = {
        {"pypi.org", true},
        {"PYPI.org.", true}, /* pypi.org:80 is denied, 443 is not: resolvable */
        {"a.example.com", true},
        {"deep.a.example.com", true},
        {"example.com", false},     /* the apex of a wildcard */
        {"bad.example.com", false}, /* denied without a port: every port */
        {"api.test", true},         /* an entry with a port: any port counts */
        {"127.0.0.1", false},       /* IP literals are never resolved */
        {"10.0.0.5", false},
        {"::1", false},
        {"[::1]", false},
        {"evil.test", false},
        {"evil.com:443.allowed.com", false},
        {"2130706433", false},
        {"", false},
        {NULL, false},
    };
    for (size_t k = 0; cases[k].name; k++)
        cr_expect_eq(pd_host_resolvable(&pol, cases[k].name), cases[k].want, "'%s': expected %d",
                     cases[k].name, cases[k].want);
    cr_expect_not(pd_host_resolvable(&pol, NULL));
}

/* ---- refused addresses -------------------------------------------------- */

static struct sockaddr_storage addr(const char *text)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    if (strchr(text, ':')) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(443);
        cr_assert_eq(inet_pton(AF_INET6, text, &in6->sin6_addr), 1, "%s", text);
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(443);
        cr_assert_eq(inet_pton(AF_INET, text, &in->sin_addr), 1, "%s", text);
    }
    return ss;
}

static void expect_refused(const char *text, const char *why)
{
    struct sockaddr_storage ss = addr(text);
    char got[256] = "";
    cr_expect(pd_addr_refused(&pol, (const struct sockaddr *)&ss, got, sizeof got),
              "%s: expected refused (%s)", text, why);
    cr_expect_str_eq(got, why, "%s", text);
}

static void expect_dialable(const char *text)
{
    struct sockaddr_storage ss = addr(text);
    char got[256] = "";
    cr_expect_not(pd_addr_refused(&pol, (const struct sockaddr *)&ss, got, sizeof got),
                  "%s: refused (%s)", text, got);
}

Test(host_addr, every_refused_class, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\"]\n");
    /* cloud metadata */
    expect_refused("169.254.169.254", "cloud metadata address 169.254.169.254");
    expect_refused("100.100.100.200", "cloud metadata address 100.100.100.200");
    expect_refused("168.63.129.16", "cloud metadata address 168.63.129.16");
    expect_refused("192.0.0.192", "cloud metadata address 192.0.0.192");
    expect_refused("fd00:ec2::254", "cloud metadata address fd00:ec2::254");
    expect_refused("fd00:ec2::23", "cloud metadata address fd00:ec2::23");
    expect_refused("fd20:ce::254", "cloud metadata address fd20:ce::254");
    expect_refused("fd00:c1::a9fe:a9fe", "cloud metadata address fd00:c1::a9fe:a9fe");
    expect_refused("fd00:42::42", "cloud metadata address fd00:42::42");
    expect_refused("fd00:a9fe:a9fe::1", "cloud metadata address fd00:a9fe:a9fe::1");
    expect_refused("fd00:100::100:200", "cloud metadata address fd00:100::100:200");
    /* link-local */
    expect_refused("169.254.0.1", "link-local address 169.254.0.1");
    expect_refused("169.254.255.255", "link-local address 169.254.255.255");
    expect_refused("fe80::1", "link-local address fe80::1");
    expect_refused("febf:ffff::1", "link-local address febf:ffff::1");
    /* unspecified, multicast, broadcast */
    expect_refused("0.0.0.0", "unspecified address 0.0.0.0");
    expect_refused("0.1.2.3", "unspecified address 0.1.2.3");
    expect_refused("::", "unspecified address ::");
    expect_refused("224.0.0.1", "multicast address 224.0.0.1");
    expect_refused("239.255.255.250", "multicast address 239.255.255.250");
    expect_refused("ff02::1", "multicast address ff02::1");
    expect_refused("ff05::1:3", "multicast address ff05::1:3");
    expect_refused("255.255.255.255", "broadcast address 255.255.255.255");
}

Test(host_addr, embedded_ipv4_forms, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\"]\n");
    /* IPv4-mapped: the address is the IPv4 one */
    expect_refused("::ffff:169.254.169.254", "cloud metadata address 169.254.169.254");
    expect_refused("::ffff:0.0.0.0", "unspecified address 0.0.0.0");
    expect_refused("::ffff:224.0.0.1", "multicast address 224.0.0.1");
    expect_refused("::ffff:255.255.255.255", "broadcast address 255.255.255.255");
    expect_refused("::ffff:169.254.3.4", "link-local address 169.254.3.4");
    /* IPv4-compatible */
    expect_refused("::169.254.169.254",
                   "cloud metadata address 169.254.169.254 (in ::169.254.169.254)");
    expect_refused("::100.100.100.200",
                   "cloud metadata address 100.100.100.200 (in ::100.100.100.200)");
    /* NAT64 */
    expect_refused("64:ff9b::a9fe:a9fe",
                   "cloud metadata address 169.254.169.254 (in 64:ff9b::a9fe:a9fe)");
    expect_refused("64:ff9b::e000:1", "multicast address 224.0.0.1 (in 64:ff9b::e000:1)");
    expect_refused("64:ff9b::ffff:ffff",
                   "broadcast address 255.255.255.255 (in 64:ff9b::ffff:ffff)");
    /* 6to4 */
    expect_refused("2002:a9fe:a9fe::1",
                   "cloud metadata address 169.254.169.254 (in 2002:a9fe:a9fe::1)");
    expect_refused("2002:a83f:8110::",
                   "cloud metadata address 168.63.129.16 (in 2002:a83f:8110::)");
    expect_refused("2002:a9fe:0101::", "link-local address 169.254.1.1 (in 2002:a9fe:101::)");
    /* the same forms of ordinary addresses are dialable */
    expect_dialable("::ffff:127.0.0.1");
    expect_dialable("::ffff:10.0.0.1");
    expect_dialable("64:ff9b::808:808");
    expect_dialable("2002:0808:0808::1");
    expect_dialable("::1"); /* loopback, not ::0.0.0.1 */
}

Test(host_addr, loopback_private_and_public_are_dialable, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\"]\n");
    static const char *const ok[] = {
        "127.0.0.1",  "127.0.0.53",  "127.255.255.254", "10.0.0.1", "172.16.0.1",    "192.168.1.1",
        "100.64.0.1", "8.8.8.8",     "192.0.0.191",     "1.1.1.1",  "::1",           "fd12:3456::1",
        "fc00::1",    "2001:db8::1", "2606:4700::1111", "fec0::1",  "fd00:ec3::254", NULL};
    for (size_t k = 0; ok[k]; k++)
        expect_dialable(ok[k]);
}

Test(host_addr, ip_literal_entries_lift_their_own_address_only, .fini = unload)
{
    load("allow_hosts = [\"169.254.169.254:80\", \"[fd00:ec2::254]\", \"metadata.test\", "
         "\"[::ffff:224.0.0.9]\"]\n");
    expect_dialable("169.254.169.254");
    expect_dialable("::ffff:169.254.169.254"); /* the same address */
    expect_dialable("fd00:ec2::254");
    expect_dialable("224.0.0.9");
    /* other forms and neighbours stay refused */
    expect_refused("64:ff9b::a9fe:a9fe",
                   "cloud metadata address 169.254.169.254 (in 64:ff9b::a9fe:a9fe)");
    expect_refused("169.254.169.253", "link-local address 169.254.169.253");
    expect_refused("fd00:ec2::253", "cloud metadata address fd00:ec2::253");
    expect_refused("100.100.100.200", "cloud metadata address 100.100.100.200");
    /* a deny_hosts entry lifts nothing */
    unload();
    load("allow_hosts = [\"pypi.org\"]\ndeny_hosts = [\"169.254.169.254\"]\n");
    expect_refused("169.254.169.254", "cloud metadata address 169.254.169.254");
}

Test(host_addr, other_families_and_null, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\"]\n");
    struct sockaddr_un un;
    memset(&un, 0, sizeof un);
    un.sun_family = AF_UNIX;
    char why[128];
    cr_expect(pd_addr_refused(&pol, (const struct sockaddr *)&un, why, sizeof why));
    cr_expect_str_eq(why, "address family 1 is not IP");
    cr_expect(pd_addr_refused(&pol, NULL, why, sizeof why));
    cr_expect_str_eq(why, "no address");
    /* no why buffer */
    struct sockaddr_storage ss = addr("169.254.169.254");
    cr_expect(pd_addr_refused(&pol, (const struct sockaddr *)&ss, NULL, 0));
}

/* ---- the static gates: URLs and ssh targets ----------------------------- */

Test(host_target, urls_and_ssh_targets)
{
    static const struct {
        const char *text;
        const char *host;
        unsigned port;
    } ok[] = {
        {"https://pypi.org/simple/", "pypi.org", 443},
        {"HTTPS://PyPI.org", "PyPI.org", 443},
        {"http://example.com:8080/x?y#z", "example.com", 8080},
        {"http://example.com?q", "example.com", 80},
        {"http://example.com#f", "example.com", 80},
        {"https://user:pw@host.test/", "host.test", 443},
        {"https://allowed.test@evil.test/", "evil.test", 443},
        {"https://a@b@evil.test/", "evil.test", 443},
        {"https://[::1]:8443/x", "::1", 8443},
        {"https://[2001:db8::1]/", "2001:db8::1", 443},
        {"https://host.test:/", "host.test", 443},
        {"https://host.test:0443/", "host.test", 443},
        {"ws://h.test/", "h.test", 80},
        {"wss://h.test/", "h.test", 443},
        {"ftp://h.test/f", "h.test", 21},
        {"ssh://git@github.com/a/b", "github.com", 22},
        {"ssh://github.com:2222/a/b", "github.com", 2222},
        {"git+ssh://github.com/a/b", "github.com", 22},
        {"git://h.test/x", "h.test", 9418},
        {"rsync://h.test/module", "h.test", 873},
        {"sftp://h.test/", "h.test", 22},
        {"git@github.com:a/b.git", "github.com", 22},
        {"github.com:a/b", "github.com", 22},
        {"host.test:", "host.test", 22},
        {"user@host.test:/srv/x", "host.test", 22},
        {"host.test::module/path", "host.test", 873},
        {"user@[::1]:x", "::1", 22},
        {"[2001:db8::1]:x", "2001:db8::1", 22},
        {NULL, NULL, 0},
    };
    for (size_t k = 0; ok[k].text; k++) {
        char host[PD_HOST_MAX] = "", msg[256] = "";
        unsigned port = 0;
        cr_expect_eq(pd_host_target(ok[k].text, host, sizeof host, &port, msg, sizeof msg), 0,
                     "'%s': %s", ok[k].text, msg);
        cr_expect_str_eq(host, ok[k].host, "'%s'", ok[k].text);
        cr_expect_eq(port, ok[k].port, "'%s': port %u, expected %u", ok[k].text, port, ok[k].port);
    }
    static const char *const none[] = {"file:///etc/passwd",
                                       "FILE://localhost/x",
                                       "foo://x.test/",
                                       "src/a:b",
                                       "dir/a@b.test:c",
                                       "./x",
                                       "/abs/path",
                                       "origin",
                                       "main",
                                       ":foo",
                                       "user@:x",
                                       "HEAD@{1}:file",
                                       "a b:c",
                                       "[::1]x",
                                       "",
                                       NULL};
    for (size_t k = 0; none[k]; k++) {
        char host[PD_HOST_MAX], msg[256];
        unsigned port = 0;
        cr_expect_eq(pd_host_target(none[k], host, sizeof host, &port, msg, sizeof msg), 1,
                     "'%s' taken for a target", none[k]);
    }
    cr_expect_eq(pd_host_target(NULL, NULL, 0, NULL, NULL, 0), 1);
    static const struct refused bad[] = {
        {"https://host.test:99999/", "port 99999 is out of range"},
        {"https://host.test:0/", "port 0 is out of range"},
        {"https://host.test:x/", "port 'x' is not a number"},
        {"https://evil.test\\@allowed.test/", "'\\' in the authority"},
        {"https:///x", "no host"},
        {"https://user@/x", "no host"},
        {"https://:443/", "no host"},
        {"https://[::1/", "'[' without a closing ']'"},
        {"https://[::1]x/", "only ':PORT' may follow ']'"},
        {"https://[]/", "no host"},
        {NULL, NULL},
    };
    for (size_t k = 0; bad[k].entry; k++) {
        char host[PD_HOST_MAX], msg[256] = "";
        unsigned port = 0;
        cr_expect_eq(pd_host_target(bad[k].entry, host, sizeof host, &port, msg, sizeof msg), -1,
                     "'%s'", bad[k].entry);
        cr_expect(strstr(msg, bad[k].msg) != NULL, "'%s': '%s' not in '%s'", bad[k].entry,
                  bad[k].msg, msg);
    }
    cr_expect(pd_host_is_url("https://x.test"));
    cr_expect(pd_host_is_url("Git+SSH://x.test/a"));
    cr_expect_not(pd_host_is_url("file:///x"));
    cr_expect_not(pd_host_is_url("x.test"));
    cr_expect_not(pd_host_is_url("https:x.test"));
    cr_expect_not(pd_host_is_url("1http://x.test"));
    cr_expect_not(pd_host_is_url(NULL));
}

Test(host_target, judge_url_decides_the_named_host, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\", \"github.com:22\", \"files.test:2222\"]\n"
         "deny_hosts = [\"evil.pypi.org\"]\n");
    struct pd_verdict v;
    cr_assert(pd_host_judge_url(&pol, "https://pypi.org/simple/", &v));
    cr_expect_not(v.deny, "%s", v.message);
    cr_expect_str_eq(v.pattern, "pypi.org");
    cr_expect_str_eq(v.subject, "pypi.org:443");
    cr_assert(pd_host_judge_url(&pol, "https://evil.test/x", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_HOST_NOT_ALLOWED);
    cr_expect_str_eq(v.key, "allow_hosts");
    cr_expect_str_eq(v.message, "evil.test:443 (not in allow_hosts)");
    cr_assert(pd_host_judge_url(&pol, "git@github.com:a/b.git", &v));
    cr_expect_not(v.deny, "%s", v.message);
    cr_assert(pd_host_judge_url(&pol, "https://github.com/a/b", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.message, "github.com:443 (not in allow_hosts)");
    cr_assert(pd_host_judge_url(&pol, "http://pypi.org:8080/", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.message, "pypi.org:8080 (not in allow_hosts)");
    cr_assert(pd_host_judge_url(&pol, "https://pypi.org@evil.pypi.org/", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.key, "deny_hosts");
    cr_expect_str_eq(v.message, "evil.pypi.org:443 (in deny_hosts)");
    /* a malformed host in a URL */
    cr_assert(pd_host_judge_url(&pol, "https://evil%2etest/", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_HOST_MALFORMED);
    cr_assert(pd_host_judge_url(&pol, "https://pypi.org:70000/", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_HOST_MALFORMED);
    cr_expect_str_eq(v.message, "port 70000 is out of range (1-65535) (malformed host)");
    cr_assert(pd_host_judge_url(&pol, "https://2130706433/", &v));
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_HOST_MALFORMED);
    /* not a target: nothing decided */
    cr_expect_not(pd_host_judge_url(&pol, "origin", &v));
    cr_expect_not(v.deny);
    cr_expect_not(pd_host_judge_url(&pol, "file:///etc/passwd", &v));
    cr_expect_not(v.deny);
}

Test(host_target, deny_target_messages_and_port_override, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\", \"files.test:2222\"]\n");
    struct pd_verdict v;
    cr_assert(pd_host_deny_target(&pol, "curl", "https://evil.test/x", 0, &v));
    cr_expect_str_eq(v.message, "curl: https://evil.test/x: evil.test:443 (not in allow_hosts)");
    cr_expect_str_eq(v.reason, PD_REASON_HOST_NOT_ALLOWED);
    cr_expect_str_eq(v.key, "allow_hosts");
    cr_expect_str_eq(v.subject, "evil.test:443");
    cr_assert(pd_host_deny_target(&pol, NULL, "https://evil.test/x", 0, &v));
    cr_expect_str_eq(v.message, "https://evil.test/x: evil.test:443 (not in allow_hosts)");
    cr_expect_not(pd_host_deny_target(&pol, "curl", "https://pypi.org/simple/", 0, &v));
    cr_expect_not(v.deny);
    cr_expect_not(pd_host_deny_target(&pol, "git", "origin", 0, &v));
    cr_expect_not(v.deny);
    /* scp -P 2222 host:path: the option's port where the target names none */
    cr_expect_not(pd_host_deny_target(&pol, "scp", "files.test:x", 2222, &v), "%s", v.message);
    cr_assert(pd_host_deny_target(&pol, "scp", "files.test:x", 0, &v));
    cr_expect_str_eq(v.message, "scp: files.test:x: files.test:22 (not in allow_hosts)");
    /* a port the URL writes stays */
    cr_assert(pd_host_deny_target(&pol, "scp", "scp://files.test:22/x", 2222, &v));
    cr_expect_str_eq(v.message, "scp: scp://files.test:22/x: files.test:22 (not in allow_hosts)");
    cr_expect_not(pd_host_deny_target(&pol, "scp", "scp://files.test/x", 2222, &v));
    cr_expect_not(pd_host_deny_target(&pol, "scp", "scp://u:p@files.test/x", 2222, &v));
    cr_expect_not(pd_host_deny_target(&pol, "scp", "scp://u@files.test:2222/x", 0, &v));
    /* control bytes of the target are not copied into the message */
    cr_assert(pd_host_deny_target(&pol, "curl", "https://evil.test/\x1b[2J", 0, &v));
    cr_expect_str_eq(v.message,
                     "curl: https://evil.test/\\x1b[2J: evil.test:443 (not in allow_hosts)");
}

Test(host_target, enabled_only_with_entries_and_the_network_off, .fini = unload)
{
    load("allow_hosts = [\"pypi.org\"]\n");
    cr_expect(pd_hosts_enabled(&pol));
    unload();
    load("allow_hosts = []\n");
    cr_expect_not(pd_hosts_enabled(&pol));
    unload();
    load("allow_network = true\n");
    cr_expect_not(pd_hosts_enabled(&pol));
    cr_expect_not(pd_hosts_enabled(NULL));
}

/* ---- advice ------------------------------------------------------------- */

Test(host_advice, narrow_advice_for_host_denials, .fini = unload)
{
    char ws[PD_PATH_MAX], fix[PD_PATH_MAX];
    struct pd_ctx ctx;
    struct pd_error err;
    load("allow_hosts = [\"pypi.org\"]\ndeny_hosts = [\"bad.pypi.org\"]\n");
    tp_mkdtemp(ws, sizeof ws, "hosts-ws");
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    struct pd_verdict v;
    pd_host_decide(&pol, "evil.test", 443, &v);
    pd_verdict_advice(&ctx, &v, NULL, fix, sizeof fix);
    cr_expect_str_eq(fix, "add \"evil.test:443\" to allow_hosts");
    pd_host_decide(&pol, "::1", 8080, &v);
    pd_verdict_advice(&ctx, &v, NULL, fix, sizeof fix);
    cr_expect_str_eq(fix, "add \"[::1]:8080\" to allow_hosts");
    /* the suggested entry is one the loader takes */
    char msg[256];
    cr_expect_eq(pd_host_entry_check("[::1]:8080", msg, sizeof msg), 0, "%s", msg);
    pd_host_decide(&pol, "bad.pypi.org", 443, &v);
    pd_verdict_advice(&ctx, &v, NULL, fix, sizeof fix);
    cr_expect_str_eq(fix, "remove \"bad.pypi.org\" from deny_hosts");
    pd_host_decide(&pol, "2130706433", 443, &v);
    pd_verdict_advice(&ctx, &v, NULL, fix, sizeof fix);
    cr_expect_str_eq(fix, "");
    /* a direct socket under allow_hosts: no advice to open the network */
    pd_verdict_deny(&v, PD_REASON_NETWORK, "allow_network", "a redirection to /dev/tcp/x/80");
    pd_verdict_advice(&ctx, &v, NULL, fix, sizeof fix);
    cr_expect_str_eq(fix, "none narrow: only the hosts of allow_hosts are reachable, through the "
                          "run's proxy, and allow_network = true would allow every host");
    pd_ctx_free(&ctx);
    tp_rmtree(ws);
}
