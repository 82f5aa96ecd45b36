/* tests/unit/test_policy_glob.c - the glob matcher: pd_glob_match walked
 * over tests/data/glob_cases.tsv, pd_glob_component and pd_glob_check from
 * tables, and the built-in pattern lists. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

#define GLOB_CASES PALDRON_SOURCE_DIR "/tests/data/glob_cases.tsv"

/* ---- pd_glob_match: the data file ---------------------------------------- */

/* Split line in place on TABs; returns the number of fields. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    char *s = line;
    while (n < max) {
        f[n++] = s;
        char *t = strchr(s, '\t');
        if (!t)
            break;
        *t = '\0';
        s = t + 1;
    }
    return n;
}

Test(glob_match, data_file_cases)
{
    FILE *fp = fopen(GLOB_CASES, "r");
    cr_assert_not_null(fp, "cannot open %s", GLOB_CASES);
    char line[2048];
    int lineno = 0, cases = 0, yes = 0, no = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *f[8];
        int nf = split_tabs(line, f, 8);
        cr_assert(nf == 5 || nf == 6, "%s:%d: expected 5 or 6 fields, found %d", GLOB_CASES, lineno,
                  nf);
        const char *pattern = f[0];
        const char *rel = strcmp(f[1], "-") == 0 ? NULL : strcmp(f[1], "\"\"") == 0 ? "" : f[1];
        const char *abs = f[2];
        cr_assert(strcmp(f[3], "0") == 0 || strcmp(f[3], "1") == 0, "%s:%d: bad fold '%s'",
                  GLOB_CASES, lineno, f[3]);
        bool fold = f[3][0] == '1';
        cr_assert(strcmp(f[4], "yes") == 0 || strcmp(f[4], "no") == 0,
                  "%s:%d: bad expectation '%s'", GLOB_CASES, lineno, f[4]);
        bool want = strcmp(f[4], "yes") == 0;
        const char *home = "/home/u";
        if (nf == 6)
            home = strcmp(f[5], "-") == 0 ? "" : f[5];
        bool got = pd_glob_match(pattern, rel, abs, home, fold);
        cr_expect_eq(got, want,
                     "%s:%d: pd_glob_match(\"%s\", rel=%s%s%s, abs=\"%s\", home=\"%s\", fold=%d): "
                     "expected %s, got %s",
                     GLOB_CASES, lineno, pattern, rel ? "\"" : "", rel ? rel : "NULL",
                     rel ? "\"" : "", abs, home, fold, want ? "match" : "no match",
                     got ? "match" : "no match");
        cases++;
        if (want)
            yes++;
        else
            no++;
    }
    fclose(fp);
    /* the file must hold the corpus cases and a real mix of both outcomes */
    cr_expect_geq(cases, 150, "only %d cases in %s", cases, GLOB_CASES);
    cr_expect_geq(yes, 50);
    cr_expect_geq(no, 50);
}

/* The pattern is not modified and matching is repeatable (static buffers). */
Test(glob_match, pure_and_repeatable)
{
    char pat[] = "**/secrets/**";
    for (int k = 0; k < 3; k++) {
        cr_expect(pd_glob_match(pat, "a/secrets/b", "/w/a/secrets/b", "", false));
        cr_expect_not(pd_glob_match(pat, "a/b", "/w/a/b", "", false));
    }
    cr_expect_str_eq(pat, "**/secrets/**");
}

/* A deep path (many components) is matched without trouble. */
Test(glob_match, deep_path)
{
    char rel[PD_PATH_MAX], abs[PD_PATH_MAX + 8];
    size_t n = 0;
    for (int k = 0; k < 1000 && n + 8 < sizeof rel - 16; k++)
        n += (size_t)snprintf(rel + n, sizeof rel - n, "d%d/", k % 10);
    snprintf(rel + n, sizeof rel - n, ".env");
    snprintf(abs, sizeof abs, "/w/%s", rel);
    cr_expect(pd_glob_match(".env", rel, abs, "", false));
    cr_expect(pd_glob_match("**/.env", rel, abs, "", false));
    cr_expect(pd_glob_match("d0/**", rel, abs, "", false));
    cr_expect_not(pd_glob_match("*.pem", rel, abs, "", false));
    cr_expect_not(pd_glob_match("d1/**", rel, abs, "", false));
}

/* ---- pd_glob_component ------------------------------------------------------ */

struct comp_case {
    const char *pat;
    const char *s;
    bool fold;
    bool want;
};

static const struct comp_case comp_cases[] = {
    {"", "", false, true},
    {"", "a", false, false},
    {"a", "", false, false},
    {"*", "", false, true},
    {"*", "anything", false, true},
    {"*", ".hidden", false, true},
    {"**", "x", false, true},
    {"?", "", false, false},
    {"?", "a", false, true},
    {"?", "ab", false, false},
    {"??", "ab", false, true},
    {"abc", "abc", false, true},
    {"abc", "abd", false, false},
    {"abc", "ABC", false, false},
    {"abc", "ABC", true, true},
    {"ABC", "abc", true, true},
    {"a*", "a", false, true},
    {"a*", "abc", false, true},
    {"a*", "ba", false, false},
    {"*c", "abc", false, true},
    {"*c", "abcd", false, false},
    {"a*c", "ac", false, true},
    {"a*c", "abbbc", false, true},
    {"a*c", "abbbd", false, false},
    {"*.*", "a.b", false, true},
    {"*.*", "ab", false, false},
    {".env.*", ".env.", false, true},
    {".env.*", ".env.local", false, true},
    {".env.*", ".env", false, false},
    {"*a*b*", "xaybz", false, true},
    {"*a*b*", "xbyaz", false, false},
    {"a?c*", "abcdef", false, true},
    {"[abc]", "a", false, true},
    {"[abc]", "c", false, true},
    {"[abc]", "d", false, false},
    {"[abc]", "", false, false},
    {"[a-c]", "b", false, true},
    {"[a-c]", "d", false, false},
    {"[a-c]", "B", false, false},
    {"[a-c]", "B", true, true},
    {"[A-C]", "b", true, true},
    {"[A-C]", "b", false, false},
    {"[0-9][0-9]", "42", false, true},
    {"[0-9][0-9]", "4x", false, false},
    {"[!a]", "b", false, true},
    {"[!a]", "a", false, false},
    {"[^a]", "b", false, true},
    {"[^a]", "a", false, false},
    {"[!a-c]", "d", false, true},
    {"[!a-c]", "b", false, false},
    {"[]]", "]", false, true},
    {"[]]", "a", false, false},
    {"[!]]", "a", false, true},
    {"[!]]", "]", false, false},
    {"[a-]", "-", false, true},
    {"[a-]", "a", false, true},
    {"[a-]", "b", false, false},
    {"[\\]]", "]", false, true},
    {"[*]", "*", false, true},
    {"[*]", "a", false, false},
    {"[?]", "?", false, true},
    {"[?]", "a", false, false},
    {"\\*", "*", false, true},
    {"\\*", "x", false, false},
    {"\\?", "?", false, true},
    {"\\?", "x", false, false},
    {"\\[", "[", false, true},
    {"a\\bc", "abc", false, true},
    {"*\\*", "ab*", false, true},
    {"*\\*", "ab", false, false},
    {"id_rsa*", "id_rsa", false, true},
    {"id_rsa*", "id_rsa.pub", false, true},
    {"id_rsa*", "xid_rsa", false, false},
    {"*.p12", "store.p12", false, true},
    {"*.p12", "store.P12", true, true},
    {"*.p12", "store.P12", false, false},
};

Test(glob_component, table)
{
    for (size_t k = 0; k < sizeof comp_cases / sizeof comp_cases[0]; k++) {
        const struct comp_case *c = &comp_cases[k];
        bool got = pd_glob_component(c->pat, strlen(c->pat), c->s, strlen(c->s), c->fold);
        cr_expect_eq(got, c->want,
                     "pd_glob_component(\"%s\", \"%s\", fold=%d): expected %s, got %s", c->pat,
                     c->s, c->fold, c->want ? "match" : "no match", got ? "match" : "no match");
    }
}

/* The lengths are honoured: neither string needs a NUL at plen / slen. */
Test(glob_component, lengths_are_honoured)
{
    cr_expect(pd_glob_component("abcXYZ", 3, "abc", 3, false));
    cr_expect(pd_glob_component("abc", 3, "abcXYZ", 3, false));
    cr_expect_not(pd_glob_component("abc", 2, "abc", 3, false));
    cr_expect_not(pd_glob_component("abc", 3, "abc", 2, false));
    cr_expect(pd_glob_component("a*/ignored", 2, "abc/def", 3, false));
    cr_expect_not(pd_glob_component("a*/ignored", 2, "xbc/def", 3, false));
    cr_expect(pd_glob_component("*", 1, "abc/def", 7, false), "a '/' inside s is just a byte here");
    cr_expect(pd_glob_component("", 0, "", 0, false));
}

/* ---- pd_glob_check ------------------------------------------------------------ */

struct check_case {
    const char *pat;
    bool ok;
    const char *msg; /* exact message when given */
};

static const struct check_case check_cases[] = {
    {".env", true, NULL},
    {".env.*", true, NULL},
    {"*.pem", true, NULL},
    {"**/secrets/**", true, NULL},
    {"**", true, NULL},
    {"src/", true, NULL},
    {"src/*.go", true, NULL},
    {"/etc/passwd", true, NULL},
    {"~/.ssh/**", true, NULL},
    {"~", true, NULL},
    {"[abc]", true, NULL},
    {"[a-z]*", true, NULL},
    {"[!x]", true, NULL},
    {"[^x]", true, NULL},
    {"[]]", true, NULL},
    {"\\[", true, NULL},
    {"a\\[b", true, NULL},
    {"...", true, NULL},
    {"a..b", true, NULL},
    {"..a", true, NULL},
    {"./src", true, NULL},
    {"", false, NULL},
    {"[a", false, "'[a' has an unclosed '['"},
    {"a[", false, NULL},
    {"[!", false, NULL},
    {"src/[ab/x", false, NULL},
    {"x/[a]/[b", false, NULL},
    {"..", false, NULL},
    {"../x", false, NULL},
    {"x/..", false, NULL},
    {"a/../b", false, NULL},
    {"/etc/../x", false, NULL},
    {"~/../x", false, NULL},
    {"~user/x", false, NULL},
    {"~root/.ssh/**", false, NULL},
    {"~root", false, NULL},
};

Test(glob_check, table)
{
    for (size_t k = 0; k < sizeof check_cases / sizeof check_cases[0]; k++) {
        const struct check_case *c = &check_cases[k];
        char msg[PD_MSG_MAX];
        msg[0] = '\0';
        int rc = pd_glob_check(c->pat, msg, sizeof msg);
        cr_expect_eq(rc, c->ok ? 0 : -1, "pd_glob_check(\"%s\"): expected %d, got %d (%s)", c->pat,
                     c->ok ? 0 : -1, rc, msg);
        if (!c->ok && rc != 0)
            cr_expect_neq(msg[0], '\0', "pd_glob_check(\"%s\") failed without a message", c->pat);
        if (c->msg && rc != 0)
            cr_expect_str_eq(msg, c->msg, "pd_glob_check(\"%s\") message", c->pat);
    }
}

/* A short message buffer is cut, never overrun. */
Test(glob_check, short_message_buffer)
{
    char msg[8];
    memset(msg, 'x', sizeof msg);
    cr_expect_eq(pd_glob_check("[aaaaaaaaaaaaaaaaaaaaaaa", msg, sizeof msg), -1);
    cr_expect_lt(strlen(msg), sizeof msg);
}

/* ---- built-in lists -------------------------------------------------------- */

static bool in_list(const char *const *list, const char *s)
{
    for (size_t k = 0; list[k]; k++)
        if (strcmp(list[k], s) == 0)
            return true;
    return false;
}

Test(builtins, secrets_hold_the_documented_patterns)
{
    static const char *const want[] = {
        ".env",      ".env.*",    "*.pem",          "**/secrets/**",
        "*.key",     "id_rsa*",   "id_ed25519*",    "*.p12",
        ".netrc",    ".npmrc",    ".pypirc",        ".git-credentials",
        "~/.ssh/**", "~/.aws/**", "~/.kube/config", "~/.docker/config.json",
        NULL};
    for (size_t k = 0; want[k]; k++)
        cr_expect(in_list(pd_builtin_secrets, want[k]), "'%s' missing from pd_builtin_secrets",
                  want[k]);
    /* the original's four come first, in its order */
    cr_expect_str_eq(pd_builtin_secrets[0], ".env");
    cr_expect_str_eq(pd_builtin_secrets[1], ".env.*");
    cr_expect_str_eq(pd_builtin_secrets[2], "*.pem");
    cr_expect_str_eq(pd_builtin_secrets[3], "**/secrets/**");
}

Test(builtins, protected_hold_the_documented_patterns)
{
    static const char *const want[] = {".git/hooks/**", ".git/config", ".gitmodules",
                                       ".claude/**",    ".codex/**",   ".mcp.json",
                                       ".vscode/**",    ".idea/**",    NULL};
    for (size_t k = 0; want[k]; k++)
        cr_expect(in_list(pd_builtin_protected, want[k]), "'%s' missing from pd_builtin_protected",
                  want[k]);
}

Test(builtins, writable_devices)
{
    static const char *const want[] = {"/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr", NULL};
    for (size_t k = 0; want[k]; k++)
        cr_expect(in_list(pd_builtin_writable, want[k]), "'%s' missing from pd_builtin_writable",
                  want[k]);
    cr_expect_not(in_list(pd_builtin_writable, "/dev/sda"));
}

/* A user namespace's maps and a thread's name are process settings the
 * live gate leaves to the kernel; the memory and files of a process are not. */
Test(builtins, writable_process_settings)
{
    static const char *const yes[] = {"/proc/123/uid_map",       "/proc/123/gid_map",
                                      "/proc/123/setgroups",     "/proc/123/task/124/comm",
                                      "/proc/123/oom_score_adj", NULL};
    static const char *const no[] = {"/proc/123/mem",
                                     "/proc/123/environ",
                                     "/proc/123/attr/current",
                                     "/proc/sys/kernel/core_pattern",
                                     "/proc/123/root/etc/passwd",
                                     "/proc/123/cwd/x",
                                     NULL};
    for (size_t k = 0; yes[k]; k++) {
        bool hit = false;
        for (size_t i = 0; pd_builtin_writable[i]; i++)
            hit = hit || pd_glob_match(pd_builtin_writable[i], NULL, yes[k], "/home/u", true);
        cr_expect(hit, "'%s' should be a writable process setting", yes[k]);
    }
    for (size_t k = 0; no[k]; k++)
        for (size_t i = 0; pd_builtin_writable[i]; i++)
            cr_expect_not(pd_glob_match(pd_builtin_writable[i], NULL, no[k], "/home/u", true),
                          "'%s' matched '%s'", no[k], pd_builtin_writable[i]);
}

/* Every built-in pattern is one the loader would accept. */
Test(builtins, all_patterns_pass_glob_check)
{
    const char *const *lists[] = {pd_builtin_secrets, pd_builtin_protected, pd_builtin_writable};
    for (size_t l = 0; l < 3; l++)
        for (size_t k = 0; lists[l][k]; k++) {
            char msg[PD_MSG_MAX] = "";
            cr_expect_eq(pd_glob_check(lists[l][k], msg, sizeof msg), 0, "'%s': %s", lists[l][k],
                         msg);
        }
}

/* The built-in secrets judge typical paths as the brief says. */
struct secret_case {
    const char *rel; /* NULL: outside the workspace */
    const char *abs;
    bool want;
};

static bool any_secret(const char *rel, const char *abs, const char *home)
{
    for (size_t k = 0; pd_builtin_secrets[k]; k++)
        if (pd_glob_match(pd_builtin_secrets[k], rel, abs, home, true))
            return true;
    return false;
}

Test(builtins, secrets_match_typical_paths)
{
    static const struct secret_case cases[] = {
        {".env", "/w/.env", true},
        {"app/.env.production", "/w/app/.env.production", true},
        {"tls/server.pem", "/w/tls/server.pem", true},
        {"tls/server.key", "/w/tls/server.key", true},
        {"keys/id_rsa", "/w/keys/id_rsa", true},
        {"keys/id_ed25519.pub", "/w/keys/id_ed25519.pub", true},
        {"store.p12", "/w/store.p12", true},
        {".netrc", "/w/.netrc", true},
        {"sub/.npmrc", "/w/sub/.npmrc", true},
        {".pypirc", "/w/.pypirc", true},
        {".git-credentials", "/w/.git-credentials", true},
        {"config/secrets", "/w/config/secrets", true},
        {"a/secrets/dump.sql", "/w/a/secrets/dump.sql", true},
        {NULL, "/home/u/.ssh/id_rsa", true},
        {NULL, "/home/u/.ssh/config", true},
        {NULL, "/home/u/.aws/credentials", true},
        {NULL, "/home/u/.kube/config", true},
        {NULL, "/home/u/.docker/config.json", true},
        {"src/main.go", "/w/src/main.go", false},
        {"README.md", "/w/README.md", false},
        {"mysecrets/x", "/w/mysecrets/x", false},
        {"environment.txt", "/w/environment.txt", false},
        {NULL, "/home/u/.bashrc", false},
        {NULL, "/home/u/.kube/cache/x", false},
        {NULL, "/etc/hosts", false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        cr_expect_eq(any_secret(cases[k].rel, cases[k].abs, "/home/u"), cases[k].want,
                     "built-in secrets vs rel=%s abs=%s: expected %s", TP_S(cases[k].rel),
                     cases[k].abs, cases[k].want ? "secret" : "not secret");
}

/* The path is walked in place (no per-thread component array): a pattern
 * matches the path or any ancestor, "**" backtracks over one component at a
 * time, and "." and empty components of the path are skipped. */
Test(glob_match, ancestors_and_backtracking_in_place)
{
    static const struct {
        const char *pat, *rel;
        bool want;
    } cases[] = {
        {"a/**/b/**/c", "a/x/b/y/b/z/c", true},
        {"a/**/b/**/c", "a/x/b/y/b/z/c/d/e", true}, /* an ancestor matches */
        {"a/**/b/**/c", "a/x/b/y/b/z/d", false},
        {"a/**/b", "a/b/b/b", true},
        {"a/**/b/c", "a/b/x/b/c", true},
        {"a/**/b/c", "a/b/x/b/d", false},
        {"**/x/*.log", "p/q/x/r.log/s", true},
        {"**/x/*.log", "p/q/x/r.txt", false},
        {"src/*.go", "./src//a.go", true},
        {"src/*.go", "src/./a.go/b", true},
        {"src/*.go", "lib/src/a.go", false},
        {"keys/", "a/keys/x", true}, /* a trailing '/' does not anchor */
        {"keys/", "keys/x", true},
        {"x", "", false},
        {"**", "", true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char abs[PD_PATH_MAX];
        snprintf(abs, sizeof abs, "/w/%s", cases[k].rel);
        bool got = pd_glob_match(cases[k].pat, cases[k].rel, abs, "", false);
        cr_expect_eq(got, cases[k].want, "pd_glob_match(\"%s\", \"%s\"): expected %d", cases[k].pat,
                     cases[k].rel, cases[k].want);
    }
}
