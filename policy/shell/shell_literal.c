/* policy/shell/shell_literal.c - what a parsed shell word is, statically: plain
 * literal text, or which kinds of expansion bash would apply to it, and the
 * names whose values change what a shell or a program runs.
 *
 * The parser keeps expansions as written and flags the word: a word without
 * PD_SH_W_EXPANSION has no $ or ` that bash expands; a word with it is
 * scanned here to tell a command substitution (whose commands the parser
 * flattened, so they are judged) from a parameter expansion (whose value is
 * unknown). A `$` that was quoted literally in a word that also has a real
 * expansion is read as an expansion too: the error is on the safe side. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "policy/shell/shell_judge.h"

static bool name_start(char ch)
{
    return isalpha((unsigned char)ch) || ch == '_';
}

static bool name_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

bool sj_arith_names_variable(const char *expr)
{
    for (const char *s = expr; *s; s++) {
        if (isdigit((unsigned char)*s)) {
            /* 0x1f, 8#17, 64#zZ: letters inside a number are digits */
            while (isalnum((unsigned char)*s) || *s == '#' || *s == '@' || *s == '_')
                s++;
            s--;
            continue;
        }
        if (name_start(*s) || *s == '$')
            return true;
    }
    return false;
}

/* Skip a balanced ( .. ) starting after the opening parenthesis; quotes
 * inside are honoured. Returns the position after the closing one, or the
 * end of the string. *nested is set when the body holds a $ or ` (another
 * expansion whose kind we do not look into). */
static const char *skip_parens(const char *s, bool *nested)
{
    int depth = 1;
    char quote = 0;
    for (; *s; s++) {
        if (*s == '\\' && s[1] && quote != '\'') {
            s++;
            continue;
        }
        if (quote) {
            if (*s == quote)
                quote = 0;
            else if ((*s == '$' || *s == '`') && quote == '"')
                *nested = true;
            continue;
        }
        if (*s == '\'' || *s == '"')
            quote = *s;
        else if (*s == '$' || *s == '`')
            *nested = true;
        else if (*s == '(')
            depth++;
        else if (*s == ')' && --depth == 0)
            return s + 1;
    }
    return s;
}

/* ${...}: returns the position after the closing brace; *code when the
 * form evaluates code (indirection ${!x}, prompt expansion @P, a
 * subscript, whose arithmetic may run what a variable holds), *plain when
 * it is a bare ${name} or ${digit}. */
static const char *scan_braced(const char *s, bool *code, bool *plain)
{
    const char *p = s; /* after "${" */
    if (*p == '!')
        *code = true;
    const char *n = p;
    while (name_char(*n))
        n++;
    *plain = n > p && *n == '}';
    int depth = 1;
    for (; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == '[') { /* a subscript: arithmetic, unless a plain number, @ or * */
            size_t sub = strspn(p + 1, "0123456789");
            if (!((sub && p[1 + sub] == ']') || ((p[1] == '@' || p[1] == '*') && p[2] == ']')))
                *code = true;
        }
        if ((*p == '@' && p[1] == 'P') || *p == '$' || *p == '`')
            *code = true;
        if (*p == '{')
            depth++;
        else if (*p == '}' && --depth == 0)
            return p + 1;
    }
    *code = true; /* unbalanced: the parser kept something we cannot read */
    return p;
}

static unsigned scan_expansions(const char *text)
{
    unsigned k = 0;
    for (const char *s = text; *s;) {
        if (*s == '`') {
            k |= SJX_CMD;
            const char *e = strchr(s + 1, '`');
            while (e && e[-1] == '\\')
                e = strchr(e + 1, '`');
            s = e ? e + 1 : s + strlen(s);
            continue;
        }
        if ((*s == '<' || *s == '>') && s[1] == '(') {
            bool nested = false;
            k |= SJX_PROC;
            s = skip_parens(s + 2, &nested);
            continue;
        }
        if (*s != '$') {
            s++;
            continue;
        }
        const char *p = s + 1;
        if (p[0] == '(' && p[1] == '(') {
            bool nested = false;
            const char *e = skip_parens(p + 1, &nested);
            size_t body = (size_t)(e - (p + 2));
            char expr[256];
            if (body >= sizeof expr || nested) {
                k |= SJX_ARITHVAR;
            } else {
                memcpy(expr, p + 2, body);
                expr[body] = '\0';
                k |= sj_arith_names_variable(expr) ? SJX_ARITHVAR : SJX_ARITH;
            }
            s = e;
        } else if (p[0] == '[') {
            const char *e = strchr(p, ']');
            char expr[256];
            size_t body = e ? (size_t)(e - p - 1) : 0;
            if (!e || body >= sizeof expr) {
                k |= SJX_ARITHVAR;
                s = e ? e + 1 : p + strlen(p);
            } else {
                memcpy(expr, p + 1, body);
                expr[body] = '\0';
                k |= sj_arith_names_variable(expr) ? SJX_ARITHVAR : SJX_ARITH;
                s = e + 1;
            }
        } else if (p[0] == '(') {
            bool nested = false;
            k |= SJX_CMD;
            s = skip_parens(p + 1, &nested);
        } else if (p[0] == '{') {
            bool code = false, plain = false;
            k |= SJX_PARAM;
            s = scan_braced(p + 1, &code, &plain);
            if (code)
                k |= SJX_CODEVAR;
        } else if (name_start(p[0])) {
            k |= SJX_PARAM;
            while (name_char(*p))
                p++;
            s = p;
        } else if (p[0] && strchr("#?$!", p[0])) {
            k |= SJX_NUMPARAM; /* a count, a status, a process id */
            s = p + 1;
        } else if (isdigit((unsigned char)p[0]) || (p[0] && strchr("@*-", p[0]))) {
            k |= SJX_PARAM;
            s = p + 1;
        } else {
            s = p; /* a lone $: literal */
        }
    }
    return k;
}

unsigned sj_word_kind(const struct pd_sh_word *w, const char *text)
{
    unsigned k = 0;
    if (!text)
        text = w->text;
    if (strlen(text) >= PD_PATH_MAX)
        k |= SJX_LONG;
    if (w->flags & PD_SH_W_EXPANSION) {
        k |= scan_expansions(text);
        if (!(k & (SJX_PARAM | SJX_NUMPARAM | SJX_CMD | SJX_PROC | SJX_ARITH | SJX_ARITHVAR)))
            k |= SJX_PARAM; /* flagged but not found in the part: be safe */
    }
    if (w->flags & PD_SH_W_GLOB)
        k |= SJX_GLOB;
    if (w->flags & PD_SH_W_BRACE)
        k |= SJX_BRACE;
    if (w->flags & PD_SH_W_SPLIT)
        k |= SJX_SPLIT;
    if ((w->flags & PD_SH_W_TILDE) && text[0] == '~' && text[1] != '\0' && text[1] != '/')
        k |= SJX_TILDE;
    /* "$HOME" / "${HOME}" alone at the start: the home, as ~ is */
    if ((k & ~(SJX_SPLIT)) == SJX_PARAM && text == w->text && !strchr(text, '`')) {
        size_t n = strncmp(text, "${HOME}", 7) == 0 ? 7 : strncmp(text, "$HOME", 5) == 0 ? 5 : 0;
        if (n && (text[n] == '\0' || text[n] == '/') && !strchr(text + n, '$'))
            k &= ~(SJX_PARAM | SJX_SPLIT);
    }
    return k;
}

bool sj_is_literal(const struct pd_sh_word *w)
{
    return sj_word_kind(w, NULL) == 0;
}

const char *sj_kind_name(unsigned k)
{
    if (k & SJX_LONG)
        return "a word longer than the path limit";
    if (k & SJX_CODEVAR)
        return "a parameter expansion that evaluates code";
    if (k & (SJX_PARAM | SJX_NUMPARAM))
        return "a variable expansion";
    if (k & SJX_ARITHVAR)
        return "arithmetic on variables";
    if (k & SJX_CMD)
        return "a command substitution";
    if (k & SJX_PROC)
        return "a process substitution";
    if (k & SJX_ARITH)
        return "an arithmetic expansion";
    if (k & SJX_GLOB)
        return "a glob";
    if (k & SJX_BRACE)
        return "a brace expansion";
    if (k & SJX_TILDE)
        return "a tilde expansion";
    return "an expansion";
}

bool sj_literal_path(const struct sh_judge *j, const struct pd_sh_word *w, const char *text,
                     char *out, size_t len)
{
    int n;
    if (!text)
        text = w->text;
    /* bash expands ~ at the start of a word, and after the = of a word
     * shaped like an assignment */
    bool tilde = (w->flags & PD_SH_W_TILDE) && (text == w->text || text[-1] == '=');
    if (text == w->text && (w->flags & PD_SH_W_EXPANSION)) { /* $HOME/... */
        size_t h = strncmp(text, "${HOME}", 7) == 0 ? 7 : 5;
        /* unquoted, a home with blanks or glob characters would split */
        if (!j->c->home[0] || ((w->flags & PD_SH_W_SPLIT) && strpbrk(j->c->home, " \t\n*?[")))
            return false;
        n = snprintf(out, len, "%s%s", j->c->home, text + h);
    } else if (text[0] == '~' && !tilde) {
        n = snprintf(out, len, "./%s", text); /* a file named ~ */
    } else {
        n = snprintf(out, len, "%s", text);
    }
    return n >= 0 && (size_t)n < len;
}

/* Names whose value changes which programs run, what a shell evaluates, or
 * what an allowed program loads or runs besides its arguments. A command
 * that sets one (NAME=value, export/declare/local/readonly/typeset, env
 * NAME=value) is unjudged whatever the value. HOME is here because ~ and
 * $HOME are judged as the hook's home. */
static const char *const special_names[] = {
    "PATH",           "PS0",           "PS1",          "PS2",        "PS4",
    "PROMPT_COMMAND", "BASH_ENV",      "ENV",          "GLOBIGNORE", "SHELLOPTS",
    "BASHOPTS",       "IFS",           "CDPATH",       "HISTFILE",   "HOME",
    "INPUTRC",        "BASH_XTRACEFD", "PYTHONPATH",   "PYTHONHOME", "PYTHONSTARTUP",
    "PYTHONUSERBASE", "PYTHONINSPECT", "NODE_OPTIONS", "NODE_PATH",  "PERL5OPT",
    "PERL5LIB",       "PERLLIB",       "RUBYOPT",      "RUBYLIB",    "EDITOR",
    "VISUAL",         "PAGER",         "MANPAGER",     "LESSOPEN",   "LESSCLOSE",
    "BROWSER",        "SSH_ASKPASS",   "SUDO_ASKPASS", "MAKEFLAGS",  "MFLAGS",
    "MAKEFILES",      "GCONV_PATH",    "TMOUT",        "SHELL",      NULL};
static const char *const special_prefixes[] = {"GIT_", "LD_", "DYLD_", "BASH_FUNC_", NULL};

bool sj_special_name(const char *name, size_t len)
{
    for (size_t k = 0; special_names[k]; k++)
        if (strlen(special_names[k]) == len && memcmp(special_names[k], name, len) == 0)
            return true;
    for (size_t k = 0; special_prefixes[k]; k++) {
        size_t p = strlen(special_prefixes[k]);
        if (len >= p && memcmp(special_prefixes[k], name, p) == 0)
            return true;
    }
    return false;
}
