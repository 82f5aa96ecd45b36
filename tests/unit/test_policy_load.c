/* tests/unit/test_policy_load.c - loading policies: defaults, every key
 * and value form of the TOML subset, every error with its message and line,
 * files (missing, directory, unreadable, real path), long lines, the error
 * format and the dump round trip. */
#include <criterion/criterion.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

/* ---- helpers ------------------------------------------------------------ */

static void expect_strv(const struct pd_strv *s, const char *const *want, const char *what)
{
    size_t n = 0;
    while (want[n])
        n++;
    cr_expect_eq(s->n, n, "%s: %zu entries, expected %zu", what, s->n, n);
    for (size_t k = 0; k < n && k < s->n; k++)
        cr_expect_str_eq(s->v[k], want[k], "%s[%zu]: expected \"%s\", got \"%s\"", what, k, want[k],
                         s->v[k]);
}

static void expect_strv_eq(const struct pd_strv *a, const struct pd_strv *b, const char *what,
                           const char *where)
{
    cr_expect_eq(a->n, b->n, "%s: %s has %zu entries vs %zu", where, what, a->n, b->n);
    for (size_t k = 0; k < a->n && k < b->n; k++)
        cr_expect_str_eq(a->v[k], b->v[k], "%s: %s[%zu]", where, what, k);
}

/* Every key, compared through the key table itself. */
static void expect_policy_eq(const struct pd_policy *a, const struct pd_policy *b,
                             const char *where)
{
#define PD_KEY_STRV(name, doc) expect_strv_eq(&a->name, &b->name, #name, where);
#define PD_KEY_BOOL(name, def, doc)                                                                \
    cr_expect_eq(a->name, b->name, "%s: " #name " %d vs %d", where, a->name, b->name);
#define PD_KEY_INT(name, def, lo, hi, doc)                                                         \
    cr_expect_eq(a->name, b->name, "%s: " #name " %lld vs %lld", where, a->name, b->name);
#define PD_KEY_FLOAT(name, def, doc)                                                               \
    cr_expect(a->name == b->name, "%s: " #name " %.17g vs %.17g", where, a->name, b->name);
#define PD_KEY_ENUM(name, ctype, def, parse, doc)                                                  \
    cr_expect_eq(a->name, b->name, "%s: " #name " %d vs %d", where, (int)a->name, (int)b->name);
#include "policy/policy_keys.def"
    cr_expect_eq(a->protected_paths_set, b->protected_paths_set, "%s: protected_paths_set", where);
}

static int load(struct pd_policy *p, const char *text, struct pd_error *err)
{
    return pd_policy_load_string(p, text, "t.toml", err);
}

/* Load text that must be valid; the caller frees. */
static void load_ok(struct pd_policy *p, const char *text)
{
    struct pd_error err;
    int rc = load(p, text, &err);
    cr_assert_eq(rc, 0, "expected to load:\n%s\ngot: %s (line %d)", text, err.msg, err.line);
}

/* ---- defaults ------------------------------------------------------------ */

static void expect_defaults(const struct pd_policy *p, const char *where)
{
    cr_expect_eq(p->allow_paths.n, 0, "%s", where);
    cr_expect_eq(p->deny_globs.n, 0, "%s", where);
    cr_expect_eq(p->allow_network, false, "%s", where);
    cr_expect_eq(p->allow_binaries.n, 0, "%s", where);
    cr_expect_eq(p->require_os_isolation, true, "%s", where);
    cr_expect_eq(p->timeout_sec, 30, "%s", where);
    cr_expect_eq(p->max_processes, 4096, "%s", where);
    cr_expect_eq(p->max_memory_mb, 8192, "%s", where);
    cr_expect_eq(p->max_open_files, 1024, "%s", where);
    cr_expect_eq(p->cpu_time_sec, 60, "%s", where);
    cr_expect_eq(p->max_file_size_mb, 1024, "%s", where);
    cr_expect_eq(p->jev_verdict, false, "%s", where);
    cr_expect(p->jev_threshold == 0.7, "%s: jev_threshold %g", where, p->jev_threshold);
    cr_expect_eq(p->jev_on_error, PD_ON_ERROR_DENY, "%s", where);
    cr_expect_eq(p->protected_paths.n, 0, "%s", where);
    cr_expect_eq(p->protected_paths_set, false, "%s", where);
    cr_expect_eq(p->keep_background, false, "%s", where);
}

Test(load_defaults, built_in_defaults)
{
    struct pd_policy p;
    memset(&p, 0x5a, sizeof p);
    pd_policy_defaults(&p);
    expect_defaults(&p, "pd_policy_defaults");
    cr_expect_null(p.file);
    pd_policy_free(&p);
}

Test(load_defaults, empty_and_comment_only_texts)
{
    static const char *const texts[] = {"",
                                        "\n\n\n",
                                        "# only a comment",
                                        "# a\n   # b\n\t# c\n",
                                        "\xEF\xBB\xBF",
                                        "\xEF\xBB\xBF# bom\r\n\r\n",
                                        "   \t  \n",
                                        NULL};
    for (size_t k = 0; texts[k]; k++) {
        struct pd_policy p;
        struct pd_error err;
        cr_expect_eq(load(&p, texts[k], &err), 0, "text %zu: %s", k, err.msg);
        char where[32];
        snprintf(where, sizeof where, "text %zu", k);
        expect_defaults(&p, where);
        cr_expect_null(p.file, "load_string sets no file");
        pd_policy_free(&p);
    }
}

/* ---- values ---------------------------------------------------------------- */

Test(load_values, every_key)
{
    struct pd_policy p;
    load_ok(&p, "allow_paths = [\"src/\", \"docs\"]\n"
                "deny_globs = [\"*.log\"]\n"
                "allow_network = true\n"
                "allow_binaries = [\"python3\", \"/usr/bin/git\"]\n"
                "require_os_isolation = false\n"
                "timeout_sec = 12\n"
                "max_processes = 100\n"
                "max_memory_mb = 512\n"
                "max_open_files = 64\n"
                "cpu_time_sec = 5\n"
                "max_file_size_mb = 8\n"
                "jev_verdict = true\n"
                "jev_threshold = 0.5\n"
                "jev_on_error = \"allow\"\n"
                "protected_paths = [\"docs/**\"]\n"
                "keep_background = true\n");
    expect_strv(&p.allow_paths, (const char *const[]){"src/", "docs", NULL}, "allow_paths");
    expect_strv(&p.deny_globs, (const char *const[]){"*.log", NULL}, "deny_globs");
    cr_expect(p.allow_network);
    expect_strv(&p.allow_binaries, (const char *const[]){"python3", "/usr/bin/git", NULL},
                "allow_binaries");
    cr_expect_not(p.require_os_isolation);
    cr_expect_eq(p.timeout_sec, 12);
    cr_expect_eq(p.max_processes, 100);
    cr_expect_eq(p.max_memory_mb, 512);
    cr_expect_eq(p.max_open_files, 64);
    cr_expect_eq(p.cpu_time_sec, 5);
    cr_expect_eq(p.max_file_size_mb, 8);
    cr_expect(p.jev_verdict);
    cr_expect(p.jev_threshold == 0.5);
    cr_expect_eq(p.jev_on_error, PD_ON_ERROR_ALLOW);
    expect_strv(&p.protected_paths, (const char *const[]){"docs/**", NULL}, "protected_paths");
    cr_expect(p.protected_paths_set);
    cr_expect(p.keep_background);
    pd_policy_free(&p);
}

Test(load_values, string_escapes_and_literal_strings)
{
    struct pd_policy p;
    load_ok(&p,
            "allow_paths = [\"a\\\"b\", \"c\\\\d\", \"e\\nf\", \"g\\th\", \"\\u00e9t\\u00E9\",\n"
            "  \"\\u20ac\", \"\\U0001F600\", 'lit\\eral', 'C:\\dir\\', \"x#y\", 'a#b', "
            "\"sp ace\", \"q'uote\", 'dq\"'\n]\n");
    expect_strv(&p.allow_paths,
                (const char *const[]){"a\"b", "c\\d", "e\nf", "g\th", "\xC3\xA9t\xC3\xA9",
                                      "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "lit\\eral", "C:\\dir\\",
                                      "x#y", "a#b", "sp ace", "q'uote", "dq\"", NULL},
                "allow_paths");
    pd_policy_free(&p);
}

Test(load_values, multi_line_arrays_with_comments_and_trailing_commas)
{
    struct pd_policy p;
    load_ok(&p, "# policy\n"
                "deny_globs = [   # the list\n"
                "  \".env\",      # dotenv ] [ \" '\n"
                "\n"
                "  # a whole comment line, with a ] bracket\n"
                "  \"*.pem\"  ,\n"
                "  '#literal',\n"
                "]   # done\n"
                "allow_paths = [\n"
                "]\n"
                "allow_binaries = [ ]\n"
                "protected_paths = [\"a\",\"b\",]\n"
                "timeout_sec = 5 # trailing\n"
                "cpu_time_sec = 7# no space\n");
    expect_strv(&p.deny_globs, (const char *const[]){".env", "*.pem", "#literal", NULL},
                "deny_globs");
    cr_expect_eq(p.allow_paths.n, 0);
    cr_expect_eq(p.allow_binaries.n, 0);
    expect_strv(&p.protected_paths, (const char *const[]){"a", "b", NULL}, "protected_paths");
    cr_expect_eq(p.timeout_sec, 5);
    cr_expect_eq(p.cpu_time_sec, 7);
    pd_policy_free(&p);
}

Test(load_values, bom_crlf_and_white_space)
{
    struct pd_policy p;
    load_ok(&p, "\xEF\xBB\xBF# crlf file\r\n"
                "timeout_sec = 9\r\n"
                "  \tallow_paths\t=\t[\r\n"
                "    \"src\",\r\n"
                "    \"docs\"\r\n"
                "  ]\r\n"
                "allow_network=true\r\n"
                "jev_on_error = \"allow\"   \r\n");
    cr_expect_eq(p.timeout_sec, 9);
    expect_strv(&p.allow_paths, (const char *const[]){"src", "docs", NULL}, "allow_paths");
    cr_expect(p.allow_network);
    cr_expect_eq(p.jev_on_error, PD_ON_ERROR_ALLOW);
    pd_policy_free(&p);
}

Test(load_values, integers)
{
    static const struct {
        const char *text;
        long long want;
    } cases[] = {
        {"timeout_sec = 1_000", 1000},    {"timeout_sec = 1_2_3", 123},
        {"timeout_sec = +5", 5},          {"timeout_sec = 0", 30},
        {"timeout_sec = -0", 30},         {"timeout_sec = +0", 30},
        {"timeout_sec = 604800", 604800}, {"timeout_sec = 604_800", 604800},
        {"timeout_sec = 1", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct pd_policy p;
        struct pd_error err;
        int rc = load(&p, cases[k].text, &err);
        cr_expect_eq(rc, 0, "'%s': %s", cases[k].text, err.msg);
        if (rc == 0) {
            cr_expect_eq(p.timeout_sec, cases[k].want, "'%s': expected %lld, got %lld",
                         cases[k].text, cases[k].want, p.timeout_sec);
            pd_policy_free(&p);
        }
    }
}

/* Each integer key: 0 = default, 1 and the maximum accepted, -1 and max+1
 * refused with the exact message, strings and floats refused as malformed. */
struct int_key {
    const char *name;
    size_t off;
    long long def, lo, hi;
};

#define IK(n, d, l, h)                                                                             \
    {                                                                                              \
#n, offsetof(struct pd_policy, n), d, l, h                                                 \
    }
static const struct int_key int_keys[] = {
    IK(timeout_sec, 30, 1, 604800),          IK(max_processes, 4096, 1, 4194304),
    IK(max_open_files, 1024, 1, 1048576),    IK(cpu_time_sec, 60, 1, 604800),
    IK(max_file_size_mb, 1024, 1, 16777216),
    /* max_memory_mb: its own test below (it also takes "unlimited") */
};

static long long int_at(const struct pd_policy *p, size_t off)
{
    long long v;
    memcpy(&v, (const char *)p + off, sizeof v);
    return v;
}

Test(load_values, integer_keys_bounds)
{
    for (size_t k = 0; k < sizeof int_keys / sizeof int_keys[0]; k++) {
        const struct int_key *ik = &int_keys[k];
        const long long good[][2] = {
            {0, ik->def}, {1, 1}, {ik->hi, ik->hi}, {ik->hi - 1, ik->hi - 1}};
        for (size_t g = 0; g < 4; g++) {
            char text[128];
            struct pd_policy p;
            struct pd_error err;
            snprintf(text, sizeof text, "\n%s = %lld\n", ik->name, good[g][0]);
            int rc = load(&p, text, &err);
            cr_expect_eq(rc, 0, "'%s': %s", text, err.msg);
            if (rc == 0) {
                cr_expect_eq(int_at(&p, ik->off), good[g][1], "%s = %lld: got %lld", ik->name,
                             good[g][0], int_at(&p, ik->off));
                pd_policy_free(&p);
            }
        }
        const long long bad[] = {-1, ik->hi + 1, -1000000, 9000000000000LL};
        for (size_t b = 0; b < 4; b++) {
            char text[128], want[256];
            struct pd_policy p;
            struct pd_error err;
            snprintf(text, sizeof text, "# x\n%s = %lld\n", ik->name, bad[b]);
            snprintf(want, sizeof want,
                     "policy %s must be between %lld and %lld (0 means the default, %lld)",
                     ik->name, ik->lo, ik->hi, ik->def);
            cr_expect_eq(load(&p, text, &err), -1, "'%s' loaded", text);
            cr_expect_str_eq(err.msg, want, "%s = %lld", ik->name, bad[b]);
            cr_expect_eq(err.line, 2, "%s = %lld: line %d", ik->name, bad[b], err.line);
            cr_expect_str_eq(err.file, "t.toml");
        }
        static const char *const wrong[] = {"\"30\"", "1.5", "true", "[]", "'7'", "1e3", NULL};
        for (size_t w = 0; wrong[w]; w++) {
            char text[128];
            struct pd_policy p;
            struct pd_error err;
            snprintf(text, sizeof text, "%s = %s\n", ik->name, wrong[w]);
            cr_expect_eq(load(&p, text, &err), -1, "'%s' loaded", text);
            cr_expect(tp_starts_with(err.msg, "policy malformed: ") && strstr(err.msg, ik->name),
                      "'%s': message \"%s\" should start 'policy malformed: ' and name the key",
                      text, err.msg);
            cr_expect_eq(err.line, 1);
        }
    }
}

/* max_memory_mb: an integer as the others, or "unlimited" / -1 for no
 * limit; every other value an error naming the file and line. */
Test(load_values, max_memory_mb_takes_unlimited)
{
    static const struct {
        const char *v;
        long long want;
    } good[] = {{"0", 8192},         {"1", 1},  {"16777216", 16777216}, {"\"unlimited\"", -1},
                {"'unlimited'", -1}, {"-1", -1}};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        char text[128];
        struct pd_policy p;
        struct pd_error err;
        snprintf(text, sizeof text, "max_memory_mb = %s\n", good[k].v);
        int rc = load(&p, text, &err);
        cr_expect_eq(rc, 0, "'%s': %s", text, err.msg);
        if (rc == 0) {
            cr_expect_eq(p.max_memory_mb, good[k].want, "'%s': got %lld", text, p.max_memory_mb);
            pd_policy_free(&p);
        }
    }
    static const struct {
        const char *v, *msg;
    } bad[] = {
        {"-2", "policy max_memory_mb must be between 1 and 16777216, or \"unlimited\" (or -1) "
               "for no limit (0 means the default, 8192)"},
        {"16777217", "policy max_memory_mb must be between 1 and 16777216, or \"unlimited\" (or "
                     "-1) for no limit (0 means the default, 8192)"},
        {"\"Unlimited\"", "policy malformed: max_memory_mb must be an integer or \"unlimited\", "
                          "found \"Unlimited\""},
        {"\"8192\"",
         "policy malformed: max_memory_mb must be an integer or \"unlimited\", found \"8192\""},
        {"1.5",
         "policy malformed: max_memory_mb must be an integer or \"unlimited\", found a float"},
        {"true",
         "policy malformed: max_memory_mb must be an integer or \"unlimited\", found a boolean"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[128];
        struct pd_policy p;
        struct pd_error err;
        snprintf(text, sizeof text, "# x\nmax_memory_mb = %s\n", bad[k].v);
        cr_expect_eq(load(&p, text, &err), -1, "'%s' loaded", text);
        cr_expect_str_eq(err.msg, bad[k].msg, "%s", bad[k].v);
        cr_expect_eq(err.line, 2);
        cr_expect_str_eq(err.file, "t.toml");
    }
}

/* env_pass, env_drop: names or NAME* prefixes; anything else is an error. */
Test(load_values, env_pass_and_env_drop_entries)
{
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(load(&p, "env_pass = [\"GITHUB_TOKEN\", \"AWS_*\"]\nenv_drop = [\"CI\"]\n", &err),
                 0, "%s", err.msg);
    cr_expect_eq(p.env_pass.n, 2);
    cr_expect_str_eq(p.env_pass.v[1], "AWS_*");
    cr_expect_str_eq(p.env_drop.v[0], "CI");
    pd_policy_free(&p);
    static const char *const bad[] = {"\"A B\"", "\"*\"", "\"A*B\"", "\"1X\"",
                                      "\"A=b\"", "\"\"",  NULL};
    for (size_t k = 0; bad[k]; k++) {
        char text[128];
        snprintf(text, sizeof text, "\nenv_drop = [%s]\n", bad[k]);
        cr_expect_eq(load(&p, text, &err), -1, "'%s' loaded", text);
        cr_expect_eq(err.line, 2, "%s", text);
        cr_expect(strstr(err.msg, "env_drop"), "%s", err.msg);
    }
    cr_expect_eq(load(&p, "env_pass = \"X\"\n", &err), -1);
    cr_expect_str_eq(err.msg,
                     "policy malformed: env_pass must be an array of strings, found a string");
}

Test(load_values, floats)
{
    static const struct {
        const char *v;
        double want;
    } cases[] = {
        {"0.5", 0.5}, {"1", 1.0},         {"1.0", 1.0},  {"0.25", 0.25}, {"5e-1", 0.5},
        {"1e0", 1.0}, {"0.000001", 1e-6}, {"+0.9", 0.9}, {"0.7", 0.7},   {"0.99_9", 0.999},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[64];
        struct pd_policy p;
        struct pd_error err;
        snprintf(text, sizeof text, "jev_threshold = %s", cases[k].v);
        int rc = load(&p, text, &err);
        cr_expect_eq(rc, 0, "'%s': %s", text, err.msg);
        if (rc == 0) {
            cr_expect(p.jev_threshold == cases[k].want, "'%s': got %.17g", text, p.jev_threshold);
            pd_policy_free(&p);
        }
    }
}

Test(load_values, booleans_and_enum)
{
    static const char *const bools[] = {"allow_network", "require_os_isolation", "jev_verdict",
                                        "keep_background", NULL};
    for (size_t k = 0; bools[k]; k++) {
        for (int b = 0; b < 2; b++) {
            char text[64];
            struct pd_policy p;
            snprintf(text, sizeof text, "%s = %s", bools[k], b ? "true" : "false");
            load_ok(&p, text);
            bool got = strcmp(bools[k], "allow_network") == 0          ? p.allow_network
                       : strcmp(bools[k], "require_os_isolation") == 0 ? p.require_os_isolation
                       : strcmp(bools[k], "jev_verdict") == 0          ? p.jev_verdict
                                                                       : p.keep_background;
            cr_expect_eq(got, (bool)b, "%s", text);
            pd_policy_free(&p);
        }
    }
    static const struct {
        const char *v;
        enum pd_on_error want;
    } enums[] = {{"\"deny\"", PD_ON_ERROR_DENY},
                 {"\"allow\"", PD_ON_ERROR_ALLOW},
                 {"\"\"", PD_ON_ERROR_DENY},
                 {"'allow'", PD_ON_ERROR_ALLOW},
                 {"''", PD_ON_ERROR_DENY}};
    for (size_t k = 0; k < sizeof enums / sizeof enums[0]; k++) {
        char text[64];
        struct pd_policy p;
        snprintf(text, sizeof text, "jev_on_error = %s", enums[k].v);
        load_ok(&p, text);
        cr_expect_eq(p.jev_on_error, enums[k].want, "%s", text);
        pd_policy_free(&p);
    }
}

Test(load_values, list_entries_that_are_accepted)
{
    struct pd_policy p;
    load_ok(&p, "allow_binaries = [\"python3\", \"/usr/bin/git\", \"g++\", \"x.y\"]\n"
                "deny_globs = [\"[abc]*\", \"\\\\[x\", \"/etc/**\", \"~/.ssh/**\", \"...\"]\n"
                "protected_paths = [\"[!.]*\", \"a..b\"]\n"
                "allow_paths = [\"src/app\", \"/abs/dir\", \".\"]\n");
    cr_expect_eq(p.allow_binaries.n, 4);
    cr_expect_eq(p.deny_globs.n, 5);
    cr_expect_str_eq(p.deny_globs.v[1], "\\[x");
    cr_expect_eq(p.protected_paths.n, 2);
    cr_expect_eq(p.allow_paths.n, 3);
    pd_policy_free(&p);
}

Test(load_values, namespace_keys)
{
    struct pd_policy p;
    load_ok(&p, "");
    cr_expect(p.namespaces, "namespaces are on by default");
    cr_expect(!p.require_namespaces);
    cr_expect_eq(p.allow_unix_sockets.n, 0);
    pd_policy_free(&p);
    load_ok(&p, "namespaces = false\nrequire_namespaces = true\n"
                "allow_unix_sockets = [\"/run/user/1000/bus\", \"/var/run/docker.sock\"]\n");
    cr_expect(!p.namespaces);
    cr_expect(p.require_namespaces);
    cr_expect_eq(p.allow_unix_sockets.n, 2);
    cr_expect_str_eq(p.allow_unix_sockets.v[1], "/var/run/docker.sock");
    pd_policy_free(&p);
}

Test(load_values, host_keys)
{
    struct pd_policy p;
    load_ok(&p, "");
    cr_expect_eq(p.allow_hosts.n, 0);
    cr_expect_eq(p.deny_hosts.n, 0);
    cr_expect_not(p.allow_hosts_without_namespace, "off by default");
    pd_policy_free(&p);
    load_ok(&p,
            "allow_network = false\n"
            "allow_hosts = [\"pypi.org\", \"*.githubusercontent.com:443\", \"127.0.0.1:8080\",\n"
            "  \"[::1]:8080\", \"PyPI.org.\", \"localhost\"]\n"
            "deny_hosts = [\"evil.example.com\", \"[2001:db8::1]\"]\n"
            "allow_hosts_without_namespace = true\n");
    cr_expect_eq(p.allow_hosts.n, 6);
    cr_expect_str_eq(p.allow_hosts.v[1], "*.githubusercontent.com:443");
    cr_expect_str_eq(p.allow_hosts.v[4], "PyPI.org.", "entries are kept as written");
    cr_expect_eq(p.deny_hosts.n, 2);
    cr_expect(p.allow_hosts_without_namespace);
    cr_expect_not(p.allow_network);
    pd_policy_free(&p);
    /* allow_network = true with no hosts, or deny_hosts alone, is fine */
    load_ok(&p, "allow_network = true\nallow_hosts = []\ndeny_hosts = [\"x.test\"]\n");
    cr_expect(p.allow_network);
    pd_policy_free(&p);
}

Test(load_values, protected_paths_set_only_when_given)
{
    struct pd_policy p;
    load_ok(&p, "timeout_sec = 5");
    cr_expect_not(p.protected_paths_set);
    pd_policy_free(&p);
    load_ok(&p, "protected_paths = []");
    cr_expect(p.protected_paths_set);
    cr_expect_eq(p.protected_paths.n, 0);
    pd_policy_free(&p);
}

/* Debian's inih cuts lines at 200 bytes; nothing may be cut here. */
Test(load_values, long_lines_are_not_cut)
{
    static char text[16384];
    size_t n = (size_t)snprintf(text, sizeof text, "allow_paths = [");
    for (int k = 0; k < 500; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\"dir%04d\"", k ? ", " : "", k);
    n += (size_t)snprintf(text + n, sizeof text - n, "]\n");
    cr_assert_gt(n, 5000);
    char long_str[301];
    for (int k = 0; k < 300; k++)
        long_str[k] = (char)('a' + k % 26);
    long_str[300] = '\0';
    n += (size_t)snprintf(text + n, sizeof text - n, "deny_globs = [\"%s\"]\n", long_str);
    n += (size_t)snprintf(text + n, sizeof text - n, "# %s %s\n", long_str, long_str);
    n += (size_t)snprintf(text + n, sizeof text - n, "allow_binaries = [\n  \"/opt/%s\",\n]\n",
                          long_str);
    n += (size_t)snprintf(text + n, sizeof text - n, "timeout_sec = 77\n");
    cr_assert_lt(n, sizeof text - 1);

    struct pd_policy p;
    load_ok(&p, text);
    cr_assert_eq(p.allow_paths.n, 500);
    for (int k = 0; k < 500; k++) {
        char want[16];
        snprintf(want, sizeof want, "dir%04d", k);
        cr_expect_str_eq(p.allow_paths.v[k], want);
    }
    cr_assert_eq(p.deny_globs.n, 1);
    cr_expect_eq(strlen(p.deny_globs.v[0]), 300);
    cr_expect_str_eq(p.deny_globs.v[0], long_str);
    cr_assert_eq(p.allow_binaries.n, 1);
    cr_expect_eq(strlen(p.allow_binaries.v[0]), 305);
    cr_expect_eq(p.timeout_sec, 77);
    pd_policy_free(&p);

    /* and an error after the long lines still carries the right line */
    struct pd_error err;
    snprintf(text + n, sizeof text - n, "bogus = 1\n");
    cr_expect_eq(load(&p, text, &err), -1);
    cr_expect_str_eq(err.msg, "policy unknown key: bogus");
    cr_expect_eq(err.line, 8);
}

Test(load_values, one_long_string_value)
{
    char text[1200], value[1001];
    for (int k = 0; k < 1000; k++)
        value[k] = (char)('A' + k % 26);
    value[1000] = '\0';
    snprintf(text, sizeof text, "jev_on_error = \"allow\"\nallow_paths = [\"%s\"]\n", value);
    struct pd_policy p;
    load_ok(&p, text);
    cr_assert_eq(p.allow_paths.n, 1);
    cr_expect_str_eq(p.allow_paths.v[0], value);
    pd_policy_free(&p);
}

/* ---- errors ------------------------------------------------------------------ */

struct err_case {
    const char *text;
    const char *exact;  /* exact message, or NULL */
    const char *prefix; /* message prefix, or NULL */
    const char *names;  /* substring the message must hold, or NULL */
    int line;           /* expected err.line, -1: do not check */
};

#define MAL "policy malformed: "

static const struct err_case err_cases[] = {
    /* unknown keys and tables */
    {"bogus = 1", "policy unknown key: bogus", NULL, NULL, 1},
    /* a key near a known one names it (policy/suggest.c, "did you mean") */
    {"\n\nAllow_Paths = []", "policy unknown key: Allow_Paths (did you mean 'allow_paths'?)", NULL,
     NULL, 3},
    {"TIMEOUT_SEC = 5", "policy unknown key: TIMEOUT_SEC (did you mean 'timeout_sec'?)", NULL, NULL,
     1},
    {"allow_path = []", "policy unknown key: allow_path (did you mean 'allow_paths'?)", NULL, NULL,
     1},
    {"[table]\n", "policy unknown key: table", NULL, NULL, 1},
    {"timeout_sec = 5\n[sandbox]\nx = 1\n", "policy unknown key: sandbox", NULL, NULL, 2},
    {"timeout_sec = 5\n\n  [ limits ]  \n", "policy unknown key: limits", NULL, NULL, 3},
    {"a.b = 1", "policy unknown key: a.b", NULL, NULL, 1},
    {"timeout_sec = 5\nbogus = \"x\"\nalso_bogus = 2", "policy unknown key: bogus", NULL, NULL, 2},
    /* wrong types */
    {"timeout_sec = \"30\"", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 1.5", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = true", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = [1]", NULL, MAL, "timeout_sec", 1},
    {"allow_paths = \"src\"", NULL, MAL, "allow_paths", 1},
    {"allow_paths = 1", NULL, MAL, "allow_paths", 1},
    {"deny_globs = true", NULL, MAL, "deny_globs", 1},
    {"allow_paths = [1]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [\"a\", 2]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [true]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [[\"a\"]]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = {}", NULL, MAL, "allow_paths", 1},
    {"require_os_isolation = 1", NULL, MAL, "require_os_isolation", 1},
    {"allow_network = \"true\"", NULL, MAL, "allow_network", 1},
    {"allow_network = True", NULL, MAL, "allow_network", 1},
    {"keep_background = yes", NULL, MAL, "keep_background", 1},
    {"jev_verdict = 0", NULL, MAL, "jev_verdict", 1},
    {"jev_threshold = \"0.5\"", NULL, MAL, "jev_threshold", 1},
    {"jev_threshold = true", NULL, MAL, "jev_threshold", 1},
    {"jev_on_error = 1", NULL, "policy ", "jev_on_error", 1},
    {"jev_on_error = [\"deny\"]", NULL, "policy ", "jev_on_error", 1},
    /* broken values */
    {"timeout_sec = 1__0", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = _1", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 1_", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 030", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 0x10", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 30 40", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 30s", NULL, MAL, "timeout_sec", 1},
    {"timeout_sec = 99999999999999999999", NULL, "policy ", "timeout_sec", 1},
    {"jev_threshold = 1.", NULL, MAL, "jev_threshold", 1},
    {"jev_threshold = .5", NULL, MAL, "jev_threshold", 1},
    {"jev_threshold = nan", NULL, "policy ", "jev_threshold", 1},
    {"jev_threshold = inf", NULL, "policy ", "jev_threshold", 1},
    {"allow_paths = [\"a\" \"b\"]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [\"a\",,\"b\"]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [,]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [\"\\x\"]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [\"\\u12\"]", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [\"a\"] junk", NULL, MAL, "allow_paths", 1},
    {"allow_paths = [src]", NULL, MAL, "allow_paths", 1},
    /* syntax */
    {"timeout_sec", NULL, MAL, NULL, 1},
    {"timeout_sec 5", NULL, MAL, NULL, 1},
    {"timeout_sec =", NULL, MAL, NULL, 1},
    {"timeout_sec =   # nothing\n", NULL, MAL, NULL, 1},
    {"\n= 5", NULL, MAL, NULL, 2},
    {"\"timeout_sec = 5", NULL, "policy ", NULL, 1},
    /* unterminated */
    {"allow_paths = [\"a\",\n", NULL, MAL, NULL, 1},
    {"allow_paths = [\"a\"", NULL, MAL, NULL, 1},
    {"# c\nallow_paths = [\n \"a\",\n \"b\"\ntimeout_sec = 5\n", NULL, MAL, NULL, 2},
    {"allow_paths = [\"a]\n", NULL, MAL, NULL, 1},
    {"allow_paths = [\"a\n\"]\n", NULL, MAL, NULL, 1},
    {"deny_globs = ['a]\n", NULL, MAL, NULL, 1},
    {"jev_on_error = \"deny", NULL, MAL, NULL, 1},
    {"\n\njev_on_error = 'deny\n", NULL, MAL, NULL, 3},
    {"allow_paths = \"\"\"a\"\"\"", NULL, MAL, NULL, 1},
    /* defined twice */
    {"timeout_sec = 1\ntimeout_sec = 2\n",
     "policy malformed: key 'timeout_sec' is defined twice (first at line 1)", NULL, NULL, 2},
    {"# c\nallow_paths = []\n\nallow_paths = [\"x\"]",
     "policy malformed: key 'allow_paths' is defined twice (first at line 2)", NULL, NULL, 4},
    {"deny_globs = [\n\"a\",\n]\njev_threshold = 0.5\ndeny_globs = []\n",
     "policy malformed: key 'deny_globs' is defined twice (first at line 1)", NULL, NULL, 5},
    /* list entries */
    {"allow_paths = [\"\"]", NULL, MAL, "allow_paths", 1},
    {"deny_globs = [\"a\", \"\"]", NULL, MAL, "deny_globs", 1},
    {"allow_binaries = [\"\"]", NULL, MAL, "allow_binaries", 1},
    {"protected_paths = [\"\"]", NULL, MAL, "protected_paths", 1},
    {"allow_binaries = [\"python3 -c\"]", NULL, MAL, "allow_binaries", 1},
    {"allow_binaries = [\"py\\tthon\"]", NULL, MAL, "allow_binaries", 1},
    {"allow_binaries = [\" ls\"]", NULL, MAL, "allow_binaries", 1},
    /* "bin/python3" and "./python3" name workspace files (test_gate_exec.c) */
    {"allow_binaries = [\"../bin/python3\"]", NULL, MAL, "allow_binaries", 1},
    {"allow_unix_sockets = [\"run/bus\"]", NULL, MAL, "allow_unix_sockets", 1},
    {"allow_unix_sockets = [\"/run/user/*/bus\"]", NULL, MAL, "allow_unix_sockets", 1},
    {"allow_unix_sockets = [\"/run/../var/run/docker.sock\"]", NULL, MAL, "allow_unix_sockets", 1},
    {"namespaces = \"yes\"", NULL, NULL, "namespaces", 1},
    {"deny_globs = [\"[a\"]", NULL, MAL, "deny_globs", 1},
    {"deny_globs = [\"src/[ab\"]", NULL, MAL, "deny_globs", 1},
    {"deny_globs = [\"a/../b\"]", NULL, MAL, "deny_globs", 1},
    {"deny_globs = [\"..\"]", NULL, MAL, "deny_globs", 1},
    {"deny_globs = [\"~user/x\"]", NULL, MAL, "deny_globs", 1},
    {"protected_paths = [\"[x\"]", NULL, MAL, "protected_paths", 1},
    {"protected_paths = [\"../x\"]", NULL, MAL, "protected_paths", 1},
    {"timeout_sec = 5\nallow_binaries = [\n  \"ls\",\n  \"bad entry\",\n]\n", NULL, MAL,
     "allow_binaries", 2},
    {"deny_globs = [\n  \"ok\",\n\n  \"x/../y\",\n]\n", NULL, MAL, "deny_globs", 1},
    /* jev_threshold */
    {"jev_threshold = 1.5", "policy jev_threshold must be between 0 and 1", NULL, NULL, 1},
    {"jev_threshold = -0.1", "policy jev_threshold must be between 0 and 1", NULL, NULL, 1},
    {"jev_threshold = 2", "policy jev_threshold must be between 0 and 1", NULL, NULL, 1},
    {"jev_threshold = -1", "policy jev_threshold must be between 0 and 1", NULL, NULL, 1},
    {"jev_threshold = 1.0000001", "policy jev_threshold must be between 0 and 1", NULL, NULL, 1},
    {"\njev_threshold = 0", NULL, "policy jev_threshold must be between 0 and 1", NULL, 2},
    {"jev_threshold = 0.0", NULL, "policy jev_threshold must be between 0 and 1", NULL, 1},
    {"jev_threshold = -0.0", NULL, "policy jev_threshold must be between 0 and 1", NULL, 1},
    /* jev_on_error */
    {"jev_on_error = \"Deny\"", "policy jev_on_error must be \"deny\" or \"allow\"", NULL, NULL, 1},
    {"jev_on_error = \"ALLOW\"", "policy jev_on_error must be \"deny\" or \"allow\"", NULL, NULL,
     1},
    {"jev_on_error = \"maybe\"", "policy jev_on_error must be \"deny\" or \"allow\"", NULL, NULL,
     1},
    {"jev_on_error = \" deny\"", "policy jev_on_error must be \"deny\" or \"allow\"", NULL, NULL,
     1},
    {"\n\n\njev_on_error = \"allow \"", "policy jev_on_error must be \"deny\" or \"allow\"", NULL,
     NULL, 4},
    /* allow_hosts and deny_hosts entries (policy/hosts.c; every form: test_policy_hosts.c) */
    {"allow_hosts = [\"*.com\"]",
     "policy malformed: allow_hosts entry '*.com': a wildcard on a top-level domain matches every "
     "name under it",
     NULL, NULL, 1},
    {"# c\n\ndeny_hosts = [\"*\"]",
     "policy malformed: deny_hosts entry '*': '*' alone would allow every host: name the hosts, or "
     "a domain's subdomains as '*.example.com'",
     NULL, NULL, 3},
    {"allow_hosts = [\"*:443\"]", NULL, MAL, "'*' alone would allow every host", 1},
    {"allow_hosts = [\"\"]", "policy malformed: allow_hosts holds an empty entry", NULL, NULL, 1},
    {"deny_hosts = [\"ok.test\", \"\"]", "policy malformed: deny_hosts holds an empty entry", NULL,
     NULL, 1},
    {"allow_hosts = [\"*.localhost\"]", NULL, MAL, "a wildcard on a top-level domain", 1},
    {"allow_hosts = [\"a*.b.com\"]",
     "policy malformed: allow_hosts entry 'a*.b.com': '*' is allowed only as a whole leading label "
     "('*.example.com')",
     NULL, NULL, 1},
    {"allow_hosts = [\"*.*.x\"]", NULL, MAL, "'*' is allowed only as a whole leading label", 1},
    {"allow_hosts = [\"b\\u00fccher.de\"]",
     "policy malformed: allow_hosts entry 'b\xc3\xbc"
     "cher.de': non-ASCII name: write its punycode form xn--...",
     NULL, NULL, 1},
    {"allow_hosts = [\"a..b\"]",
     "policy malformed: allow_hosts entry 'a..b': empty label in 'a..b'", NULL, NULL, 1},
    {"allow_hosts = [\"-a.com\"]", NULL, MAL, "starts or ends with '-'", 1},
    {"allow_hosts = [\"a!.com\"]", NULL, MAL, "character '!' is not allowed", 1},
    {"allow_hosts = [\"pypi.org:0\"]",
     "policy malformed: allow_hosts entry 'pypi.org:0': port 0 is out of range (1-65535)", NULL,
     NULL, 1},
    {"allow_hosts = [\"pypi.org:65536\"]", NULL, MAL, "port 65536 is out of range", 1},
    {"allow_hosts = [\"pypi.org:08\"]", NULL, MAL, "port '08' has a leading zero", 1},
    {"allow_hosts = [\"pypi.org:\"]", NULL, MAL, "empty port after ':'", 1},
    {"allow_hosts = [\"pypi.org:x\"]", NULL, MAL, "port 'x' is not a number", 1},
    {"allow_hosts = [\"::1\"]",
     "policy malformed: allow_hosts entry '::1': an IPv6 address must be bracketed: [::1] or "
     "[::1]:443",
     NULL, NULL, 1},
    {"allow_hosts = [\"127.1\"]",
     "policy malformed: allow_hosts entry '127.1': '127.1' is not an IPv4 address in dotted-quad "
     "form (shorthand, octal and hex forms are refused)",
     NULL, NULL, 1},
    {"allow_hosts = [\"2130706433\"]", NULL, MAL, "dotted-quad", 1},
    {"allow_hosts = [\"0x7f.0.0.1\"]", NULL, MAL, "dotted-quad", 1},
    {"allow_hosts = [\"010.0.0.1\"]", NULL, MAL, "dotted-quad", 1},
    {"allow_hosts = [\"https://pypi.org\"]", NULL, MAL, "holds '/'", 1},
    {"allow_hosts = [\"git@github.com\"]", NULL, MAL, "holds '@'", 1},
    {"allow_hosts = [\"[fe80::1%eth0]\"]", NULL, MAL, "holds '%'", 1},
    {"allow_hosts = [\"pypi .org\"]", NULL, MAL, "holds white space", 1},
    {"allow_hosts = [\"a\\u0001b\"]",
     "policy malformed: allow_hosts entry 'a\\x01b': holds a control character (\\x01)", NULL, NULL,
     1},
    {"timeout_sec = 5\nallow_hosts = [\n  \"pypi.org\",\n  \"*.com\",\n]\n", NULL, MAL,
     "allow_hosts entry '*.com'", 2},
    {"deny_hosts = [\n  \"ok.test\",\n\n  \"*.org\",\n]\n", NULL, MAL, "deny_hosts entry '*.org'",
     1},
    {"allow_hosts = \"pypi.org\"", NULL, MAL, "allow_hosts must be an array of strings", 1},
    {"allow_hosts_without_namespace = \"yes\"", NULL, MAL, "allow_hosts_without_namespace", 1},
    /* allow_network = true is the whole network: allow_hosts would filter nothing */
    {"allow_network = true\n# c\nallow_hosts = [\"pypi.org\"]\n",
     "policy malformed: allow_hosts needs allow_network = false (allow_network = true is direct, "
     "unfiltered access)",
     NULL, NULL, 3},
    {"allow_hosts = [\n  \"pypi.org\",\n]\n\nallow_network = true\n",
     "policy malformed: allow_hosts needs allow_network = false (allow_network = true is direct, "
     "unfiltered access)",
     NULL, NULL, 5},
    /* allow_hosts_without_namespace without hosts */
    {"\nallow_hosts_without_namespace = true\n",
     "policy malformed: allow_hosts_without_namespace = true needs a non-empty allow_hosts", NULL,
     NULL, 2},
    {"allow_hosts = []\n\nallow_hosts_without_namespace = true\n",
     "policy malformed: allow_hosts_without_namespace = true needs a non-empty allow_hosts", NULL,
     NULL, 3},
    {"allow_hosts_without_namespace = true\ntimeout_sec = 5\nallow_hosts = []\n",
     "policy malformed: allow_hosts_without_namespace = true needs a non-empty allow_hosts", NULL,
     NULL, 3},
    /* the first error in the file wins over the end-of-file check */
    {"allow_hosts_without_namespace = true\nbogus = 1\n", "policy unknown key: bogus", NULL, NULL,
     2},
    /* lines after BOM, CRLF, comments, strings with '#' and multi-line arrays */
    {"\xEF\xBB\xBF# c\r\n\r\nbogus = 1\r\n", "policy unknown key: bogus", NULL, NULL, 3},
    {"allow_paths = [\n \"a\", # x\n]\nbogus = 1", "policy unknown key: bogus", NULL, NULL, 4},
    {"allow_paths = [\"#x\"]\nbogus = 1", "policy unknown key: bogus", NULL, NULL, 2},
    {"deny_globs = ['#', \"\\\"#\"] # c\n# d\nbogus = 1", "policy unknown key: bogus", NULL, NULL,
     3},
};

Test(load_errors, table)
{
    for (size_t k = 0; k < sizeof err_cases / sizeof err_cases[0]; k++) {
        const struct err_case *c = &err_cases[k];
        struct pd_policy p;
        struct pd_error err;
        memset(&err, 0x5a, sizeof err);
        int rc = load(&p, c->text, &err);
        cr_expect_eq(rc, -1, "case %zu: expected an error for:\n%s", k, c->text);
        if (rc != -1) {
            pd_policy_free(&p);
            continue;
        }
        cr_expect_lt(strlen(err.msg), sizeof err.msg);
        if (c->exact)
            cr_expect_str_eq(err.msg, c->exact, "case %zu: %s\nexpected \"%s\"\ngot      \"%s\"", k,
                             c->text, c->exact, err.msg);
        if (c->prefix)
            cr_expect(tp_starts_with(err.msg, c->prefix),
                      "case %zu: %s\nmessage \"%s\" should start \"%s\"", k, c->text, err.msg,
                      c->prefix);
        if (c->names)
            cr_expect(strstr(err.msg, c->names) != NULL,
                      "case %zu: %s\nmessage \"%s\" should name '%s'", k, c->text, err.msg,
                      c->names);
        if (c->line >= 0)
            cr_expect_eq(err.line, c->line, "case %zu: %s\nline expected %d, got %d (%s)", k,
                         c->text, c->line, err.line, err.msg);
        cr_expect_str_eq(err.file, "t.toml", "case %zu: err.file", k);
        /* nothing to free after an error, and freeing again is harmless */
        pd_policy_free(&p);
    }
}

/* Float forms TOML refuses (see test_policy_misc.c, toml_value). */
Test(load_errors, float_forms_toml_refuses)
{
    static const char *const texts[] = {"jev_threshold = +.5", "jev_threshold = 1.e-1", NULL};
    for (size_t k = 0; texts[k]; k++) {
        struct pd_policy p;
        struct pd_error err;
        int rc = load(&p, texts[k], &err);
        cr_expect_eq(rc, -1,
                     "'%s': expected 'policy malformed: ...', got a policy with "
                     "jev_threshold %.17g",
                     texts[k], rc == 0 ? p.jev_threshold : 0.0);
        if (rc == 0)
            pd_policy_free(&p);
        else
            cr_expect(tp_starts_with(err.msg, MAL), "%s", err.msg);
    }
}

/* A key too long for inih's line buffer is still reported by its name. */
Test(load_errors, very_long_unknown_key)
{
    char key[301], text[400];
    memset(key, 'k', 300);
    key[300] = '\0';
    snprintf(text, sizeof text, "%s = 1\n", key);
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(load(&p, text, &err), -1);
    char want[400];
    snprintf(want, sizeof want, "policy unknown key: %s", key);
    cr_expect_str_eq(err.msg, want);
    cr_expect_eq(err.line, 1);
}

/* The name is used as given in the error location. */
Test(load_errors, name_is_the_error_file)
{
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&p, "\nbogus = 1", "some/dir/p.toml", &err), -1);
    cr_expect_str_eq(err.file, "some/dir/p.toml");
    cr_expect_eq(err.line, 2);
    char buf[PD_MSG_MAX + PD_PATH_MAX];
    pd_error_format(&err, buf, sizeof buf);
    cr_expect_str_eq(buf, "policy unknown key: bogus (some/dir/p.toml:2)");
}

/* ---- pd_error_format ------------------------------------------------------------ */

Test(error_format, forms)
{
    struct pd_error e;
    char buf[PD_MSG_MAX + PD_PATH_MAX];
    memset(&e, 0, sizeof e);
    snprintf(e.msg, sizeof e.msg, "policy unknown key: bogus");
    snprintf(e.file, sizeof e.file, "p.toml");
    e.line = 3;
    pd_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "policy unknown key: bogus (p.toml:3)");

    snprintf(e.file, sizeof e.file, "/etc/paldron/policy.toml");
    e.line = 120;
    pd_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "policy unknown key: bogus (/etc/paldron/policy.toml:120)");

    e.line = 0; /* the whole file */
    pd_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "policy unknown key: bogus");

    e.line = 3;
    e.file[0] = '\0';
    pd_error_format(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "policy unknown key: bogus");
}

Test(error_format, short_buffer_is_cut_not_overrun)
{
    struct pd_error e;
    memset(&e, 0, sizeof e);
    snprintf(e.msg, sizeof e.msg, "policy malformed: something long");
    snprintf(e.file, sizeof e.file, "p.toml");
    e.line = 7;
    char buf[16];
    memset(buf, 'Z', sizeof buf);
    pd_error_format(&e, buf, 10);
    cr_expect_eq(strlen(buf), 9);
    cr_expect_eq(buf[10], 'Z');
    cr_expect(strncmp(buf, "policy ma", 9) == 0);
}

/* ---- pd_policy_load (files) --------------------------------------------------- */

static char dir[256];

static void dir_init(void)
{
    tp_mkdtemp(dir, sizeof dir, "load");
}

static void dir_fini(void)
{
    tp_rmtree(dir);
}

TestSuite(load_file, .init = dir_init, .fini = dir_fini);

Test(load_file, missing_file)
{
    char path[300];
    snprintf(path, sizeof path, "%s/nope.toml", dir);
    struct pd_policy p;
    struct pd_error err;
    cr_expect_eq(pd_policy_load(&p, path, &err), -1);
    char want[400];
    snprintf(want, sizeof want, "policy file not found: %s", path);
    cr_expect_str_eq(err.msg, want);
    cr_expect_eq(err.line, 0);
    pd_policy_free(&p);

    snprintf(path, sizeof path, "%s/no/such/dir/p.toml", dir);
    cr_expect_eq(pd_policy_load(&p, path, &err), -1);
    snprintf(want, sizeof want, "policy file not found: %s", path);
    cr_expect_str_eq(err.msg, want);
}

Test(load_file, directory_is_unreadable)
{
    struct pd_policy p;
    struct pd_error err;
    cr_expect_eq(pd_policy_load(&p, dir, &err), -1);
    cr_expect(tp_starts_with(err.msg, "policy unreadable: "), "%s", err.msg);
    cr_expect(strstr(err.msg, dir) != NULL, "names the path: %s", err.msg);
    pd_policy_free(&p);
}

Test(load_file, unreadable_file)
{
    if (geteuid() == 0) {
        tp_rmtree(dir); /* a skipped test does not reach .fini */
        cr_skip_test("running as root: chmod 000 does not stop root from reading");
    }
    tp_put(dir, "locked.toml", "timeout_sec = 5\n", 0000);
    char path[300];
    snprintf(path, sizeof path, "%s/locked.toml", dir);
    struct pd_policy p;
    struct pd_error err;
    cr_expect_eq(pd_policy_load(&p, path, &err), -1);
    cr_expect(tp_starts_with(err.msg, "policy unreadable: "), "%s", err.msg);
}

Test(load_file, success_sets_the_real_path)
{
    tp_put(dir, "sub/p.toml", "timeout_sec = 11\nallow_paths = [\"src\"]\n", 0644);
    tp_link(dir, "plink.toml", "sub/p.toml");
    char want[300], path[400];
    snprintf(want, sizeof want, "%s/sub/p.toml", dir);
    static const char *const spellings[] = {"%s/sub/p.toml", "%s/sub/./p.toml",
                                            "%s//sub/../sub/p.toml", "%s/plink.toml", NULL};
    for (size_t k = 0; spellings[k]; k++) {
        struct pd_policy p;
        struct pd_error err;
        snprintf(path, sizeof path, spellings[k], dir);
        cr_assert_eq(pd_policy_load(&p, path, &err), 0, "%s: %s", path, err.msg);
        cr_expect_str_eq(p.file, want, "%s", path);
        cr_expect_eq(p.timeout_sec, 11);
        cr_expect_eq(p.allow_paths.n, 1);
        pd_policy_free(&p);
        cr_expect_null(p.file, "pd_policy_free clears file");
        cr_expect_eq(p.allow_paths.n, 0);
    }
    /* a relative path */
    cr_assert_eq(chdir(dir), 0);
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(pd_policy_load(&p, "sub/p.toml", &err), 0, "%s", err.msg);
    cr_expect_str_eq(p.file, want);
    pd_policy_free(&p);
}

Test(load_file, errors_carry_path_and_line)
{
    tp_put(dir, "bad.toml", "# policy\r\ntimeout_sec = 5\r\n\r\ntimeout_sec = 6\r\n", 0644);
    char path[300];
    snprintf(path, sizeof path, "%s/bad.toml", dir);
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(pd_policy_load(&p, path, &err), -1);
    cr_expect_str_eq(err.msg,
                     "policy malformed: key 'timeout_sec' is defined twice (first at line 2)");
    cr_expect_str_eq(err.file, path);
    cr_expect_eq(err.line, 4);
    char buf[PD_MSG_MAX + PD_PATH_MAX], want[PD_MSG_MAX + PD_PATH_MAX];
    pd_error_format(&err, buf, sizeof buf);
    snprintf(want, sizeof want, "%s (%s:4)", err.msg, path);
    cr_expect_str_eq(buf, want);
    pd_policy_free(&p);
}

Test(load_file, empty_file_and_bom_file)
{
    tp_put(dir, "empty.toml", "", 0644);
    tp_put(dir, "bom.toml", "\xEF\xBB\xBFtimeout_sec = 3\r\nallow_network = true\r\n", 0644);
    char path[300];
    struct pd_policy p;
    struct pd_error err;
    snprintf(path, sizeof path, "%s/empty.toml", dir);
    cr_assert_eq(pd_policy_load(&p, path, &err), 0, "%s", err.msg);
    expect_defaults(&p, "empty file");
    cr_expect_str_eq(p.file, path);
    pd_policy_free(&p);
    snprintf(path, sizeof path, "%s/bom.toml", dir);
    cr_assert_eq(pd_policy_load(&p, path, &err), 0, "%s", err.msg);
    cr_expect_eq(p.timeout_sec, 3);
    cr_expect(p.allow_network);
    pd_policy_free(&p);
}

Test(load_file, nul_byte_is_refused)
{
    char path[300];
    snprintf(path, sizeof path, "%s/nul.toml", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite("timeout_sec = 5\n\0bogus\n", 1, 23, f);
    fclose(f);
    struct pd_policy p;
    struct pd_error err;
    cr_expect_eq(pd_policy_load(&p, path, &err), -1);
    cr_expect(tp_starts_with(err.msg, "policy "), "%s", err.msg);
}

/* ---- pd_policy_dump ----------------------------------------------------------------- */

static void round_trip(const struct pd_policy *p, const char *where)
{
    char *text = pd_policy_dump(p);
    cr_assert_not_null(text, "%s: dump failed", where);
    struct pd_policy q;
    struct pd_error err;
    int rc = pd_policy_load_string(&q, text, "dump", &err);
    cr_expect_eq(rc, 0, "%s: dump does not load: %s (line %d)\n%s", where, err.msg, err.line, text);
    if (rc == 0) {
        expect_policy_eq(p, &q, where);
        char *again = pd_policy_dump(&q);
        cr_assert_not_null(again);
        cr_expect_str_eq(again, text, "%s: dump is not stable", where);
        free(again);
        pd_policy_free(&q);
    }
    free(text);
}

Test(dump, defaults_round_trip)
{
    struct pd_policy p;
    pd_policy_defaults(&p);
    round_trip(&p, "defaults");
    char *text = pd_policy_dump(&p);
    cr_assert_not_null(text);
    static const char *const keys[] = {
        "allow_paths",          "deny_globs",   "allow_network",    "allow_binaries",
        "require_os_isolation", "timeout_sec",  "max_processes",    "max_memory_mb",
        "max_open_files",       "cpu_time_sec", "max_file_size_mb", "jev_verdict",
        "jev_threshold",        "jev_on_error", "keep_background",  NULL};
    for (size_t k = 0; keys[k]; k++) {
        char needle[64];
        snprintf(needle, sizeof needle, "\n%s = ", keys[k]);
        cr_expect(strstr(text, needle) != NULL || tp_starts_with(text, needle + 1),
                  "dump lacks '%s':\n%s", keys[k], text);
    }
    free(text);
    pd_policy_free(&p);
}

Test(dump, every_key_round_trips)
{
    struct pd_policy p;
    load_ok(&p, "allow_paths = [\"src/\", \"a\\\"quote\", \"back\\\\slash\", \"tab\\there\",\n"
                "  \"new\\nline\", \"\\u00e9\\u20ac\\U0001F600\", 'lit\\eral', \"x#y\", \"[b]\", "
                "\"ctl\\u0001\\u001f\\u007f\"]\n"
                "deny_globs = [\"*.log\", \"**/tmp/**\", \"\\\\*star\"]\n"
                "allow_network = true\n"
                "allow_binaries = [\"python3\", \"/usr/bin/git\"]\n"
                "require_os_isolation = false\n"
                "timeout_sec = 604800\n"
                "max_processes = 4194304\n"
                "max_memory_mb = 1\n"
                "max_open_files = 1048576\n"
                "cpu_time_sec = 2\n"
                "max_file_size_mb = 16777216\n"
                "jev_verdict = true\n"
                "jev_threshold = 0.1\n"
                "jev_on_error = \"allow\"\n"
                "protected_paths = [\"docs/**\", \"'single'\"]\n"
                "keep_background = true\n");
    round_trip(&p, "every key");
    pd_policy_free(&p);
}

Test(dump, protected_paths_set_but_empty_round_trips)
{
    struct pd_policy p;
    load_ok(&p, "protected_paths = []");
    round_trip(&p, "protected_paths = []");
    pd_policy_free(&p);
}

Test(dump, host_keys_round_trip)
{
    struct pd_policy p;
    load_ok(&p, "allow_hosts = [\"pypi.org\", \"*.example.com:8443\", \"[::1]:80\"]\n"
                "deny_hosts = [\"bad.example.com\"]\n"
                "allow_hosts_without_namespace = true\n");
    round_trip(&p, "host keys");
    char *text = pd_policy_dump(&p);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "\nallow_hosts = [") != NULL, "%s", text);
    cr_expect(strstr(text, "\ndeny_hosts = [") != NULL, "%s", text);
    cr_expect(strstr(text, "\nallow_hosts_without_namespace = true") != NULL, "%s", text);
    free(text);
    pd_policy_free(&p);
}

Test(dump, thresholds_round_trip_exactly)
{
    static const char *const values[] = {"0.7",
                                         "1",
                                         "0.1",
                                         "0.3333333333333333",
                                         "1e-9",
                                         "0.123456789012345678",
                                         "0.9999999999999999",
                                         NULL};
    for (size_t k = 0; values[k]; k++) {
        char text[64];
        struct pd_policy p;
        snprintf(text, sizeof text, "jev_threshold = %s", values[k]);
        load_ok(&p, text);
        round_trip(&p, text);
        pd_policy_free(&p);
    }
}

Test(dump, file_policy_round_trips)
{
    char d[256], path[300];
    tp_mkdtemp(d, sizeof d, "dump");
    tp_put(d, "p.toml", "deny_globs = [\".env\"]\ntimeout_sec = 0\njev_on_error = \"\"\n", 0644);
    snprintf(path, sizeof path, "%s/p.toml", d);
    struct pd_policy p;
    struct pd_error err;
    cr_assert_eq(pd_policy_load(&p, path, &err), 0, "%s", err.msg);
    round_trip(&p, "file");
    pd_policy_free(&p);
    tp_rmtree(d);
}
