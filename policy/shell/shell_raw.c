/* policy/shell/shell_raw.c - what pd_sh_parse's flattened result does not show,
 * read from the raw command text: whether commands may repeat or run later
 * (loops, functions, traps: a cd then counts more than once), the variable
 * a for or select loop assigns, and the words the parse does not list (the
 * word of case, its patterns, the words of for and select, the header of
 * for (( ))), in which bash evaluates code through ${x@P}, ${!x}, array
 * subscripts and arithmetic just as in any other word. The scan is lexical
 * and counts text inside quotes too (except single quotes for the code
 * forms): it can only make the gate more careful. */
#include <ctype.h>
#include <string.h>

#include "policy/shell/shell_judge.h"

static bool name_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* The word w at s, delimited by non-name characters. */
static bool word_at(const char *src, const char *s, const char *w)
{
    size_t n = strlen(w);
    return (s == src || !name_char(s[-1])) && strncmp(s, w, n) == 0 && !name_char(s[n]);
}

bool sj_raw_may_repeat(const char *src)
{
    static const char *const words[] = {"for",      "while", "until", "select",
                                        "function", "trap",  NULL};
    for (const char *s = src; *s; s++) {
        for (size_t k = 0; words[k]; k++)
            if (word_at(src, s, words[k]))
                return true;
        if (*s == '(') { /* name () { ...; }: a function definition */
            const char *p = s + 1;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == ')')
                return true;
        }
    }
    return false;
}

void sj_raw_loop_vars(struct sh_judge *j, const char *src)
{
    for (const char *s = src; *s; s++) {
        size_t kw = word_at(src, s, "for") ? 3 : word_at(src, s, "select") ? 6 : 0;
        if (!kw)
            continue;
        const char *p = s + kw;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *name = p;
        while (name_char(*p))
            p++;
        if (p > name && sj_special_name(name, (size_t)(p - name)))
            sj_unjudged(j,
                        "`%.*s %.*s` loops over values assigned to %.*s, which changes what "
                        "programs run or what bash evaluates",
                        (int)kw, s, (int)(p - name), name, (int)(p - name), name);
    }
}

/* ${...} at s (after "${"): does it evaluate code? */
static bool braced_code(const char *s)
{
    if (*s == '!')
        return true;
    for (int depth = 1; *s && depth; s++) {
        if (*s == '{')
            depth++;
        else if (*s == '}')
            depth--;
        else if (*s == '@' && s[1] == 'P')
            return true;
        else if (*s == '[') {
            size_t sub = strspn(s + 1, "0123456789");
            if (!((sub && s[1 + sub] == ']') || ((s[1] == '@' || s[1] == '*') && s[2] == ']')))
                return true;
        }
    }
    return false;
}

/* $(( ... )) or $[ ... ] at s (the opening): does it name a variable? */
static bool arith_names(const char *s, size_t open)
{
    char expr[256];
    const char *p = s + open;
    size_t n = 0;
    int depth = 0;
    for (; *p && n + 1 < sizeof expr; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if ((*p == ')' || *p == ']') && depth-- == 0)
            break;
        expr[n++] = *p;
    }
    expr[n] = '\0';
    return sj_arith_names_variable(expr);
}

void sj_raw_code_forms(struct sh_judge *j, const char *src)
{
    bool single = false, dbl = false;
    for (const char *s = src; *s; s++) {
        if (*s == '\\' && !single && s[1]) {
            s++;
            continue;
        }
        if (*s == '\'' && !dbl) {
            single = !single;
            continue;
        }
        if (single)
            continue;
        if (*s == '"')
            dbl = !dbl;
        if (word_at(src, s, "for")) {
            const char *p = s + 3;
            while (*p == ' ' || *p == '\t')
                p++;
            if (p[0] == '(' && p[1] == '(' && arith_names(p, 2))
                sj_unjudged(j, "`for ((...))` evaluates arithmetic on variables, whose values "
                               "such as `a[$(cmd)]` run");
        }
        if (*s != '$')
            continue;
        if (s[1] == '{' && braced_code(s + 2))
            sj_unjudged(j, "a parameter expansion evaluates code (${!x}, ${x@P} or an array "
                           "subscript)");
        else if ((s[1] == '(' && s[2] == '(' && arith_names(s, 3)) ||
                 (s[1] == '[' && arith_names(s, 2)))
            sj_unjudged(j, "an arithmetic expansion evaluates variables, whose values such as "
                           "`a[$(cmd)]` run");
    }
}
