/* tests/unit/test_policy_misc.c - the policy library's internals that have
 * public headers: pd_shell_words (policy/shell/shell_words.h), pd_toml_split,
 * pd_toml_value, pd_toml_type_name and pd_strv_push / pd_strv_free
 * (policy/toml/toml_lex.h). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/shell/shell_words.h"
#include "policy/toml/toml_lex.h"
#include "test_policy_fixture.h"

/* ---- pd_shell_words ------------------------------------------------------ */

struct words_case {
    const char *cmd;
    int rc;
    const char *op;       /* expected operator, NULL for none */
    const char *words[8]; /* checked when rc == 0 and check_words */
    bool check_words;
};

#define WORDS(...) {__VA_ARGS__, NULL}, true
#define ANYWORDS   {NULL}, false

static const struct words_case words_cases[] = {
    {"ls -la src", 0, NULL, WORDS("ls", "-la", "src")},
    {"  a   b  ", 0, NULL, WORDS("a", "b")},
    {"a\tb\t\tc", 0, NULL, WORDS("a", "b", "c")},
    {"", 0, NULL, {NULL}, true},
    {"   ", 0, NULL, {NULL}, true},
    {"echo 'a b' c", 0, NULL, WORDS("echo", "a b", "c")},
    {"echo \"a \\\"b\\\" c\"", 0, NULL, WORDS("echo", "a \"b\" c")},
    {"echo a\\ b", 0, NULL, WORDS("echo", "a b")},
    {"echo ''", 0, NULL, WORDS("echo", "")},
    {"echo \"\"", 0, NULL, WORDS("echo", "")},
    {"echo a\"b\"c", 0, NULL, WORDS("echo", "abc")},
    {"echo 'a'\"b\"c", 0, NULL, WORDS("echo", "abc")},
    {"echo 'a\\b'", 0, NULL, WORDS("echo", "a\\b")},
    {"echo \"a\\\\b\"", 0, NULL, WORDS("echo", "a\\b")},
    {"echo \"a\\qb\"", 0, NULL, WORDS("echo", "a\\qb")},
    {"echo \\\"x", 0, NULL, WORDS("echo", "\"x")},
    {"echo $HOME", 0, NULL, WORDS("echo", "$HOME")},
    {"cat 'my file.txt'", 0, NULL, WORDS("cat", "my file.txt")},
    /* quoted operators are words */
    {"echo \"a;b\"", 0, NULL, WORDS("echo", "a;b")},
    {"echo 'x > y'", 0, NULL, WORDS("echo", "x > y")},
    {"echo 'a && b | c'", 0, NULL, WORDS("echo", "a && b | c")},
    {"echo '$(x)' '`y`'", 0, NULL, WORDS("echo", "$(x)", "`y`")},
    {"echo \\;", 0, NULL, WORDS("echo", ";")},
    {"echo a\\|b", 0, NULL, WORDS("echo", "a|b")},
    {"echo \\$(x)", 0, "(", ANYWORDS},
    {"echo \"\\$(x)\"", 0, NULL, WORDS("echo", "$(x)")},
    {"echo \\`x\\`", 0, NULL, WORDS("echo", "`x`")},
    {"echo \"\\`x\\`\"", 0, NULL, WORDS("echo", "`x`")},
    {"echo \"'$(id)'\"", 0, "$(", ANYWORDS},
    {"echo '\"'$(id)'\"'", 0, "$(", ANYWORDS},
    {"echo $((1+2))", 0, "$(", ANYWORDS},
    /* operators */
    {"a && b", 0, "&&", ANYWORDS},
    {"a || b", 0, "||", ANYWORDS},
    {"a ; b", 0, ";", ANYWORDS},
    {"a;b", 0, ";", ANYWORDS},
    {"a | b", 0, "|", ANYWORDS},
    {"a|b", 0, "|", ANYWORDS},
    {"a > f", 0, ">", ANYWORDS},
    {"a>f", 0, ">", ANYWORDS},
    {"a >> f", 0, ">>", ANYWORDS},
    {"a < f", 0, "<", ANYWORDS},
    {"a << EOF", 0, "<<", ANYWORDS},
    {"a & b", 0, "&", ANYWORDS},
    {"sleep 1 &", 0, "&", ANYWORDS},
    {"echo $(id)", 0, "$(", ANYWORDS},
    {"echo x$(id)y", 0, "$(", ANYWORDS},
    {"echo `id`", 0, "`", ANYWORDS},
    {"(ls)", 0, "(", ANYWORDS},
    {"a\nb", 0, "\n", ANYWORDS},
    {"echo \"$(id)\"", 0, "$(", ANYWORDS},
    {"echo \"`id`\"", 0, "`", ANYWORDS},
    {"a ; b && c", 0, ";", ANYWORDS},
    {"a && b ; c", 0, "&&", ANYWORDS},
    {"echo 'x;y' | wc", 0, "|", ANYWORDS},
    {"echo \"a|b\" > f", 0, ">", ANYWORDS},
    /* unterminated quotes */
    {"echo 'unterminated", -2, NULL, ANYWORDS},
    {"echo \"unterminated", -2, NULL, ANYWORDS},
    {"echo \"a\\\"", -2, NULL, ANYWORDS},
    {"'", -2, NULL, ANYWORDS},
};

static void words_str(const struct pd_strv *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < w->n && n < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%s[%s]", k ? " " : "", w->v[k]);
}

Test(shell_words, table)
{
    for (size_t k = 0; k < sizeof words_cases / sizeof words_cases[0]; k++) {
        const struct words_case *c = &words_cases[k];
        struct pd_strv w = {(char **)0x1, 99};
        const char *op = "junk";
        int rc = pd_shell_words(c->cmd, &w, &op);
        char got[1024];
        if (rc == 0)
            words_str(&w, got, sizeof got);
        else
            snprintf(got, sizeof got, "(rc %d)", rc);
        cr_expect_eq(rc, c->rc, "pd_shell_words(\"%s\"): rc expected %d, got %d", c->cmd, c->rc,
                     rc);
        if (rc == 0 && c->rc == 0) {
            cr_expect(tp_streq(op, c->op), "pd_shell_words(\"%s\"): op expected '%s', got '%s'",
                      c->cmd, TP_S(c->op), TP_S(op));
            if (c->check_words) {
                size_t n = 0;
                while (c->words[n])
                    n++;
                cr_expect_eq(w.n, n, "pd_shell_words(\"%s\"): %zu words expected, got %s", c->cmd,
                             n, got);
                for (size_t i = 0; i < n && i < w.n; i++)
                    cr_expect_str_eq(w.v[i], c->words[i],
                                     "pd_shell_words(\"%s\"): word %zu; got %s", c->cmd, i, got);
            }
        }
        if (rc == 0)
            pd_strv_free(&w);
        else
            cr_expect(w.n == 0 && w.v == NULL, "pd_shell_words(\"%s\"): words left after rc %d",
                      c->cmd, rc);
    }
}

/* Words around an operator are still split (the caller may show them). */
Test(shell_words, words_around_operators)
{
    struct pd_strv w;
    const char *op;
    cr_assert_eq(pd_shell_words("ls -l src && rm x", &w, &op), 0);
    cr_expect_str_eq(op, "&&");
    cr_assert_geq(w.n, 3);
    cr_expect_str_eq(w.v[0], "ls");
    cr_expect_str_eq(w.v[1], "-l");
    cr_expect_str_eq(w.v[2], "src");
    pd_strv_free(&w);
}

/* ---- pd_toml_split ---------------------------------------------------------- */

struct split_want {
    const char *key, *raw;
    int line;
};

static void expect_split(const char *text, const struct split_want *want, size_t n)
{
    struct pd_toml_doc doc;
    struct pd_error err;
    memset(&err, 0, sizeof err);
    int rc = pd_toml_split(text, strlen(text), &doc, &err);
    cr_assert_eq(rc, 0, "pd_toml_split(\"%s\"): %s", text, err.msg);
    cr_expect_eq(doc.n, n, "pd_toml_split(\"%s\"): %zu entries, expected %zu", text, doc.n, n);
    for (size_t k = 0; k < n && k < doc.n; k++) {
        cr_expect_str_eq(doc.v[k].key, want[k].key, "entry %zu key", k);
        cr_expect_str_eq(doc.v[k].raw, want[k].raw, "entry %zu raw of \"%s\"", k, text);
        cr_expect_eq(doc.v[k].line, want[k].line, "entry %zu line", k);
    }
    pd_toml_doc_free(&doc);
    cr_expect_eq(doc.n, 0);
    cr_expect_null(doc.v);
}

Test(toml_split, entries)
{
    expect_split("a = 1\nb = \"x\"\n", (struct split_want[]){{"a", "1", 1}, {"b", "\"x\"", 2}}, 2);
    expect_split("", NULL, 0);
    expect_split("# c\n\n   \n", NULL, 0);
    expect_split("a = 1 # c\n", (struct split_want[]){{"a", "1", 1}}, 1);
    expect_split("a = \"x#y\" # c\n", (struct split_want[]){{"a", "\"x#y\"", 1}}, 1);
    expect_split("a = 'x#y'\n", (struct split_want[]){{"a", "'x#y'", 1}}, 1);
    expect_split("a = \"q\\\"#\"\n", (struct split_want[]){{"a", "\"q\\\"#\"", 1}}, 1);
    expect_split("\xEF\xBB\xBF"
                 "a = 1\n",
                 (struct split_want[]){{"a", "1", 1}}, 1);
    expect_split("a = 1\r\nb = 2\r\n", (struct split_want[]){{"a", "1", 1}, {"b", "2", 2}}, 2);
    expect_split("  a\t=\t1  \n", (struct split_want[]){{"a", "1", 1}}, 1);
    expect_split("a=1", (struct split_want[]){{"a", "1", 1}}, 1);
    expect_split("a_b-c.d = 1", (struct split_want[]){{"a_b-c.d", "1", 1}}, 1);
    expect_split("\n\n\nz = true", (struct split_want[]){{"z", "true", 4}}, 1);
}

/* A multi-line array becomes one entry: comments dropped, lines joined,
 * the entry's line is the key's line, and lines after it count on. */
Test(toml_split, multi_line_array)
{
    const char *text = "a = [\n"
                       "  \"x\", # c ] [\n"
                       "  # whole line\n"
                       "  \"y\",\n"
                       "]\n"
                       "b = 2\n";
    struct pd_toml_doc doc;
    struct pd_error err;
    cr_assert_eq(pd_toml_split(text, strlen(text), &doc, &err), 0, "%s", err.msg);
    cr_assert_eq(doc.n, 2);
    cr_expect_str_eq(doc.v[0].key, "a");
    cr_expect_eq(doc.v[0].line, 1);
    cr_expect_null(strchr(doc.v[0].raw, '#'), "comment kept: %s", doc.v[0].raw);
    cr_expect_null(strchr(doc.v[0].raw, '\n'), "newline kept: %s", doc.v[0].raw);
    cr_expect_str_eq(doc.v[1].key, "b");
    cr_expect_eq(doc.v[1].line, 6);
    struct pd_toml_value v;
    char msg[256];
    cr_assert_eq(pd_toml_value(doc.v[0].raw, &v, msg, sizeof msg), 0, "%s: %s", doc.v[0].raw, msg);
    cr_expect_eq(v.type, PD_TOML_ARRAY);
    cr_assert_eq(v.arr.n, 2);
    cr_expect_str_eq(v.arr.v[0], "x");
    cr_expect_str_eq(v.arr.v[1], "y");
    pd_toml_value_free(&v);
    pd_toml_doc_free(&doc);
}

/* Only the len bytes are read. */
Test(toml_split, honours_len)
{
    const char *text = "a = 1\nbogus line without equals";
    struct pd_toml_doc doc;
    struct pd_error err;
    cr_assert_eq(pd_toml_split(text, 6, &doc, &err), 0, "%s", err.msg);
    cr_expect_eq(doc.n, 1);
    pd_toml_doc_free(&doc);
}

struct split_err {
    const char *text;
    const char *prefix;
    int line;
};

Test(toml_split, errors)
{
    static const struct split_err cases[] = {
        {"[t]\n", "policy unknown key: t", 1},
        {"\n\n[t]", "policy unknown key: t", 3},
        {"a 1\n", "policy malformed: ", 1},
        {"= 1\n", "policy malformed: ", 1},
        {"a =\n", "policy malformed: ", 1},
        {"a = # nothing\n", "policy malformed: ", 1},
        {"a = [\"x\",\n", "policy malformed: ", 1},
        {"x = 1\na = [\n\"x\",\nb = 2\n", "policy malformed: ", 2},
        {"a = \"x\n", "policy malformed: ", 1},
        {"a = 'x", "policy malformed: ", 1},
        {"a = \"\"\"x\"\"\"", "policy malformed: ", 1},
        {"a = '''x'''", "policy malformed: ", 1},
        {"\n\n!x = 1", "policy malformed: ", 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct pd_toml_doc doc = {(struct pd_toml_entry *)0x1, 42};
        struct pd_error err;
        memset(&err, 0, sizeof err);
        int rc = pd_toml_split(cases[k].text, strlen(cases[k].text), &doc, &err);
        cr_expect_eq(rc, -1, "pd_toml_split(\"%s\") succeeded", cases[k].text);
        if (rc == 0) {
            pd_toml_doc_free(&doc);
            continue;
        }
        cr_expect(tp_starts_with(err.msg, cases[k].prefix),
                  "pd_toml_split(\"%s\"): message \"%s\" should start \"%s\"", cases[k].text,
                  err.msg, cases[k].prefix);
        cr_expect_eq(err.line, cases[k].line, "pd_toml_split(\"%s\"): line %d, expected %d",
                     cases[k].text, err.line, cases[k].line);
        cr_expect(doc.n == 0 && doc.v == NULL, "pd_toml_split(\"%s\"): entries left after error",
                  cases[k].text);
    }
}

Test(toml_split, nul_byte)
{
    const char text[] = "a = 1\n\0b = 2\n";
    struct pd_toml_doc doc;
    struct pd_error err;
    memset(&err, 0, sizeof err);
    cr_expect_eq(pd_toml_split(text, sizeof text - 1, &doc, &err), -1);
    cr_expect(tp_starts_with(err.msg, "policy malformed: "), "%s", err.msg);
}

/* ---- pd_toml_value ------------------------------------------------------------- */

struct value_case {
    const char *raw;
    enum pd_toml_type type;
    const char *str;    /* STRING */
    long long i;        /* INT */
    double f;           /* FLOAT */
    int b;              /* BOOL */
    const char *arr[4]; /* ARRAY */
};

#define VS(r, s)                                                                                   \
    {                                                                                              \
        .raw = r, .type = PD_TOML_STRING, .str = s                                                 \
    }
#define VI(r, n)                                                                                   \
    {                                                                                              \
        .raw = r, .type = PD_TOML_INT, .i = n                                                      \
    }
#define VF(r, x)                                                                                   \
    {                                                                                              \
        .raw = r, .type = PD_TOML_FLOAT, .f = x                                                    \
    }
#define VB(r, x)                                                                                   \
    {                                                                                              \
        .raw = r, .type = PD_TOML_BOOL, .b = x                                                     \
    }
#define VA(r, ...)                                                                                 \
    {                                                                                              \
        .raw = r, .type = PD_TOML_ARRAY, .arr = { __VA_ARGS__ }                                    \
    }

static const struct value_case value_cases[] = {
    VS("\"abc\"", "abc"),
    VS("  \"abc\"  ", "abc"),
    VS("\"\"", ""),
    VS("''", ""),
    VS("'a\\b'", "a\\b"),
    VS("'say \"hi\"'", "say \"hi\""),
    VS("\"a\\tb\"", "a\tb"),
    VS("\"a\\nb\"", "a\nb"),
    VS("\"a\\\"b\"", "a\"b"),
    VS("\"a\\\\b\"", "a\\b"),
    VS("\"\\u00e9\"", "\xC3\xA9"),
    VS("\"\\u00E9\"", "\xC3\xA9"),
    VS("\"\\u0041\"", "A"),
    VS("\"\\u20AC\"", "\xE2\x82\xAC"),
    VS("\"\\U0001F600\"", "\xF0\x9F\x98\x80"),
    VS("\"\\u0001\"", "\x01"),
    VS("\"tab\there\"", "tab\there"),
    VS("\"# not a comment\"", "# not a comment"),
    VS("\"\xC3\xA9t\xC3\xA9\"", "\xC3\xA9t\xC3\xA9"),
    VI("42", 42),
    VI("0", 0),
    VI("-5", -5),
    VI("+7", 7),
    VI("1_000", 1000),
    VI("1_2_3_4", 1234),
    VI("9223372036854775807", 9223372036854775807LL),
    VI("-9223372036854775807", -9223372036854775807LL),
    VF("0.5", 0.5),
    VF("-0.25", -0.25),
    VF("+1.5", 1.5),
    VF("1e2", 100.0),
    VF("1E2", 100.0),
    VF("5e-1", 0.5),
    VF("2.5e+1", 25.0),
    VF("1_0.0_1", 10.01),
    VF("0.0", 0.0),
    VB("true", 1),
    VB("false", 0),
    VB(" true ", 1),
    VA("[]", NULL),
    VA("[ ]", NULL),
    VA("[\"a\"]", "a", NULL),
    VA("[\"a\", 'b',]", "a", "b", NULL),
    VA("[ \"a\" , \"b\" ]", "a", "b", NULL),
    VA("[\"a,b\",\"c]\"]", "a,b", "c]", NULL),
    VA("[\"\\u00e9\", 'x\\y', \"\"]", "\xC3\xA9", "x\\y", "", NULL),
};

Test(toml_value, table)
{
    for (size_t k = 0; k < sizeof value_cases / sizeof value_cases[0]; k++) {
        const struct value_case *c = &value_cases[k];
        struct pd_toml_value v;
        char msg[256] = "";
        int rc = pd_toml_value(c->raw, &v, msg, sizeof msg);
        cr_expect_eq(rc, 0, "pd_toml_value(%s): %s", c->raw, msg);
        if (rc != 0)
            continue;
        cr_expect_eq(v.type, c->type, "pd_toml_value(%s): type %s, expected %s", c->raw,
                     pd_toml_type_name(v.type), pd_toml_type_name(c->type));
        if (v.type != c->type) {
            pd_toml_value_free(&v);
            continue;
        }
        switch (c->type) {
        case PD_TOML_STRING:
            cr_expect_str_eq(v.str, c->str, "pd_toml_value(%s)", c->raw);
            break;
        case PD_TOML_INT:
            cr_expect_eq(v.i, c->i, "pd_toml_value(%s): %lld", c->raw, v.i);
            break;
        case PD_TOML_FLOAT:
            cr_expect(v.f == c->f, "pd_toml_value(%s): %.17g, expected %.17g", c->raw, v.f, c->f);
            break;
        case PD_TOML_BOOL:
            cr_expect_eq(!!v.b, c->b, "pd_toml_value(%s)", c->raw);
            break;
        case PD_TOML_ARRAY: {
            size_t n = 0;
            while (c->arr[n])
                n++;
            cr_expect_eq(v.arr.n, n, "pd_toml_value(%s): %zu entries", c->raw, v.arr.n);
            for (size_t i = 0; i < n && i < v.arr.n; i++)
                cr_expect_str_eq(v.arr.v[i], c->arr[i], "pd_toml_value(%s)[%zu]", c->raw, i);
            break;
        }
        }
        pd_toml_value_free(&v);
        cr_expect_null(v.str);
        cr_expect_eq(v.arr.n, 0);
    }
}

Test(toml_value, errors)
{
    static const char *const bad[] = {"",
                                      "   ",
                                      "\"abc",
                                      "'abc",
                                      "\"\\x\"",
                                      "\"\\u12\"",
                                      "\"\\u12G4\"",
                                      "\"\\uD800\"",
                                      "\"\\u0000\"",
                                      "\"\\U00110000\"",
                                      "\"a\\\"",
                                      "1__0",
                                      "_1",
                                      "1_",
                                      "1_.5",
                                      "01",
                                      "00",
                                      "-01",
                                      "1.",
                                      ".5",
                                      "1e",
                                      "e5",
                                      "--1",
                                      "+",
                                      "-",
                                      "0x10",
                                      "0o7",
                                      "0b1",
                                      "1 2",
                                      "1,",
                                      "abc",
                                      "True",
                                      "FALSE",
                                      "truex",
                                      "nan",
                                      "inf",
                                      "[1]",
                                      "[true]",
                                      "[\"a\" \"b\"]",
                                      "[\"a\",,]",
                                      "[,]",
                                      "[[\"a\"]]",
                                      "[\"a\"",
                                      "[\"a\",",
                                      "{a = 1}",
                                      "{}",
                                      "\"a\" x",
                                      "\"a\"\"b\"",
                                      "'a' 'b'",
                                      "[] x",
                                      "99999999999999999999",
                                      "1e999",
                                      "\"ctl\x01\"",
                                      "\"nl\nx\"",
                                      "1979-05-27",
                                      "1.5e",
                                      "1e+",
                                      "1.5.5",
                                      NULL};
    for (size_t k = 0; bad[k]; k++) {
        struct pd_toml_value v;
        char msg[256] = "";
        int rc = pd_toml_value(bad[k], &v, msg, sizeof msg);
        cr_expect_eq(rc, -1, "pd_toml_value(%s) accepted (type %s)", bad[k],
                     rc == 0 ? pd_toml_type_name(v.type) : "");
        if (rc == 0)
            pd_toml_value_free(&v);
        else
            cr_expect_neq(msg[0], '\0', "pd_toml_value(%s) failed without a message", bad[k]);
    }
}

/* TOML: a fractional part is a '.' followed by digits, and the integer
 * part cannot be left out ("1.e5", "-.5" and "+.5" are not TOML floats). */
Test(toml_value, float_needs_digits_on_both_sides_of_the_dot)
{
    static const char *const bad[] = {"1.e5", "-.5", "+.5", "-1.e2", NULL};
    for (size_t k = 0; bad[k]; k++) {
        struct pd_toml_value v;
        char msg[256] = "";
        int rc = pd_toml_value(bad[k], &v, msg, sizeof msg);
        cr_expect_eq(rc, -1, "pd_toml_value(%s): expected an error, got %s %.17g", bad[k],
                     rc == 0 ? pd_toml_type_name(v.type) : "", rc == 0 ? v.f : 0.0);
        if (rc == 0)
            pd_toml_value_free(&v);
    }
}

Test(toml_value, type_names)
{
    static const enum pd_toml_type types[] = {PD_TOML_STRING, PD_TOML_INT, PD_TOML_FLOAT,
                                              PD_TOML_BOOL, PD_TOML_ARRAY};
    static const char *const words[] = {"string", "integer", "float", "boolean", "array"};
    for (size_t k = 0; k < 5; k++) {
        const char *n = pd_toml_type_name(types[k]);
        cr_assert_not_null(n);
        cr_expect(strstr(n, words[k]) != NULL, "pd_toml_type_name(%zu) = \"%s\"", k, n);
        for (size_t j = 0; j < k; j++)
            cr_expect_str_neq(n, pd_toml_type_name(types[j]));
    }
}

/* ---- pd_strv_push / pd_strv_free ---------------------------------------------------- */

Test(strv, push_copies_and_free_clears)
{
    struct pd_strv s = {NULL, 0};
    char buf[16];
    for (int k = 0; k < 100; k++) {
        snprintf(buf, sizeof buf, "item%d", k);
        cr_assert_eq(pd_strv_push(&s, buf), 0);
        buf[0] = 'X'; /* the vector holds a copy */
    }
    cr_assert_eq(s.n, 100);
    for (int k = 0; k < 100; k++) {
        snprintf(buf, sizeof buf, "item%d", k);
        cr_expect_str_eq(s.v[k], buf);
    }
    cr_expect_eq(pd_strv_push(&s, ""), 0);
    cr_expect_eq(s.n, 101);
    cr_expect_str_eq(s.v[100], "");
    pd_strv_free(&s);
    cr_expect_null(s.v);
    cr_expect_eq(s.n, 0);
    pd_strv_free(&s); /* twice is harmless */
    cr_expect_eq(s.n, 0);
    cr_assert_eq(pd_strv_push(&s, "again"), 0);
    cr_expect_eq(s.n, 1);
    cr_expect_str_eq(s.v[0], "again");
    pd_strv_free(&s);
}

Test(strv, free_empty)
{
    struct pd_strv s = {NULL, 0};
    pd_strv_free(&s);
    cr_expect_null(s.v);
    cr_expect_eq(s.n, 0);
}
