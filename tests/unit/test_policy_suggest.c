/* tests/unit/test_policy_suggest.c - pd_suggest (policy/suggest.c), the
 * "did you mean" of unknown subcommands, options and policy keys: a table
 * of typos with the name each must find, and words that must find none. */
#include <criterion/criterion.h>

#include <string.h>

#include "policy/policy.h"

/* The policy keys, from the same table the loader uses. */
static const char *const keys[] = {
#define PD_KEY_STRV(name, doc)                    #name,
#define PD_KEY_BOOL(name, def, doc)               #name,
#define PD_KEY_INT(name, def, lo, hi, doc)        #name,
#define PD_KEY_FLOAT(name, def, doc)              #name,
#define PD_KEY_ENUM(name, ctype, def, parse, doc) #name,
#include "policy/policy_keys.def"
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const commands[] = {"check",      "exec",  "schema", "explain",
                                       "env",        "cache", "init",   "doctor",
                                       "completion", "help",  "version"};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* option names as launcher/cli/cli.c compares them: without the leading "--" */
static const char *const options[] = {"policy",    "no-policy",   "json",  "stream",
                                      "workspace", "timeout",     "audit", "log",
                                      "routed",    "interactive", "help"};
#define NOPTIONS (sizeof options / sizeof options[0])

struct suggest_case {
    const char *word;
    const char *const *list;
    size_t n;
    const char *want; /* NULL: no suggestion */
};

static const struct suggest_case cases[] = {
    /* one typo: insertion, deletion, substitution, swap */
    {"chek", commands, NCOMMANDS, "check"},
    {"exce", commands, NCOMMANDS, "exec"},
    {"verison", commands, NCOMMANDS, "version"},
    {"expalin", commands, NCOMMANDS, "explain"},
    {"doctr", commands, NCOMMANDS, "doctor"},
    {"cahce", commands, NCOMMANDS, "cache"},
    {"en", commands, NCOMMANDS, "env"},
    {"alow_paths", keys, NKEYS, "allow_paths"},
    {"allow_path", keys, NKEYS, "allow_paths"},
    {"deny_glob", keys, NKEYS, "deny_globs"},
    {"allow_netwrok", keys, NKEYS, "allow_network"},
    {"max_proceses", keys, NKEYS, "max_processes"},
    {"polcy", options, NOPTIONS, "policy"},
    {"jsn", options, NOPTIONS, "json"},
    {"workspce", options, NOPTIONS, "workspace"},
    /* case is ignored: TOML keys are case-sensitive, the fix is the lower case */
    {"Allow_Paths", keys, NKEYS, "allow_paths"},
    {"TIMEOUT_SEC", keys, NKEYS, "timeout_sec"},
    /* a long key may carry more typos: 15 letters, up to 5 edits */
    {"requireosisoltn", keys, NKEYS, "require_os_isolation"},
    /* the only key a word begins */
    {"timeout", keys, NKEYS, "timeout_sec"},
    {"deny_host", keys, NKEYS, "deny_hosts"},
    {"allow_host", keys, NKEYS, "allow_hosts"},
    {"interact", options, NOPTIONS, "interactive"},
    /* exact names are themselves */
    {"check", commands, NCOMMANDS, "check"},
    {"strict", keys, NKEYS, "strict"},
    /* nothing close */
    {"bogus", keys, NKEYS, NULL},
    {"zzz", commands, NCOMMANDS, NULL},
    {"run", commands, NCOMMANDS, NULL},
    {"sandbox", keys, NKEYS, NULL},
    {"t", keys, NKEYS, NULL},
    {"a.b", keys, NKEYS, NULL},
    {"exct", commands, NCOMMANDS, NULL}, /* two edits from exec, four letters */
    {"", commands, NCOMMANDS, NULL},
    /* the prefix of several names is no guess */
    {"allow", keys, NKEYS, NULL},
    {"deny", keys, NKEYS, NULL}, /* deny_globs, deny_hosts */
    {"max_", keys, NKEYS, NULL},
    {"jev", keys, NKEYS, NULL},
    {"ex", commands, NCOMMANDS, NULL}, /* exec, explain; and too short for a prefix */
    /* an empty list */
    {"check", commands, 0, NULL},
};

Test(suggest, table)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct suggest_case *c = &cases[k];
        const char *got = pd_suggest(c->word, c->list, c->n);
        if (!c->want) {
            cr_expect_null(got, "'%s': expected no suggestion, got '%s'", c->word, got ? got : "");
            continue;
        }
        cr_expect_not_null(got, "'%s': expected '%s', got none", c->word, c->want);
        if (got)
            cr_expect_str_eq(got, c->want, "'%s': expected '%s', got '%s'", c->word, c->want, got);
    }
}

/* The answer is one of the candidates (callers compare pointers). */
Test(suggest, returns_a_candidate_pointer)
{
    const char *got = pd_suggest("chek", commands, NCOMMANDS);
    cr_assert_eq(got, commands[0]);
}

/* Words far longer than any name are not compared (and do not overflow). */
Test(suggest, very_long_word)
{
    char word[301];
    memset(word, 'a', 300);
    word[300] = '\0';
    cr_expect_null(pd_suggest(word, keys, NKEYS));
    const char *const longs[] = {word};
    cr_expect_null(pd_suggest("aaab", longs, 1)); /* a 300-letter candidate is skipped */
}

/* Ties go to the first candidate of the list, so answers are stable. */
Test(suggest, first_of_equals_wins)
{
    const char *const list[] = {"cat", "cut", "cot"};
    cr_expect_str_eq(pd_suggest("cxt", list, 3), "cat");
}
