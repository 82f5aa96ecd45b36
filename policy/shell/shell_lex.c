/* policy/shell/shell_lex.c - the word level of the shell parser: blanks, comments,
 * quoting ('..' ".." $'..' $"..", backslashes), parameter expansions,
 * arithmetic, command and process substitutions inside words (handed to the
 * grammar in shell_parse.c), here-document delimiters and bodies.
 *
 * Expansions are never performed: their text is kept as written and the word
 * is flagged PD_SH_W_EXPANSION. Every loop advances pos; every recursion goes
 * through sh_enter(), which bounds it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/shell/shell_internal.h"

/* ---- characters --------------------------------------------------------- */

bool sh_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

bool sh_is_delim(char c)
{
    switch (c) {
    case '\0':
    case ' ':
    case '\t':
    case '\n':
    case ';':
    case '&':
    case '|':
    case '(':
    case ')':
    case '<':
    case '>':
        return true;
    default:
        return false;
    }
}

bool sh_is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool sh_is_name_char(char c)
{
    return sh_is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* ---- buffers and errors ------------------------------------------------- */

int sh_buf_put(struct sh_state *st, struct sh_buf *b, const char *s, size_t n)
{
    if (n > SIZE_MAX / 4 - b->len)
        return sh_oom(st);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np)
            return sh_oom(st);
        b->p = np;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int sh_buf_putc(struct sh_state *st, struct sh_buf *b, char c)
{
    if (b->len + 1 < b->cap) {
        b->p[b->len++] = c;
        b->p[b->len] = '\0';
        return 0;
    }
    return sh_buf_put(st, b, &c, 1);
}

char *sh_buf_take(struct sh_state *st, struct sh_buf *b)
{
    char *s = b->p;
    if (!s) {
        s = calloc(1, 1);
        if (!s)
            sh_oom(st);
    }
    b->p = NULL;
    b->len = b->cap = 0;
    return s;
}

int sh_fail(struct sh_state *st, const char *fmt, ...)
{
    if (!st->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->err, sizeof st->err, fmt, ap);
        va_end(ap);
        st->failed = true;
    }
    return -1;
}

int sh_oom(struct sh_state *st)
{
    return sh_fail(st, "out of memory");
}

int sh_enter(struct sh_parser *p, size_t at)
{
    if (p->st->nest >= PD_SH_MAX_NEST)
        return sh_fail(p->st, "nesting too deep at offset %zu", at);
    p->st->nest++;
    return 0;
}

void sh_leave(struct sh_parser *p)
{
    if (p->st->nest > 0)
        p->st->nest--;
}

/* ---- blanks, comments, newlines ----------------------------------------- */

void sh_skip_blanks(struct sh_parser *p, bool comments)
{
    for (;;) {
        char c = sh_cur(p);
        if (sh_is_blank(c)) {
            p->pos++;
        } else if (c == '\\' && sh_at(p, p->pos + 1) == '\n') {
            p->pos += 2;
        } else if (c == '#' && comments && !sh_eof(p)) {
            const char *nl = memchr(p->src + p->pos, '\n', p->len - p->pos);
            p->pos = nl ? (size_t)(nl - p->src) : p->len;
        } else {
            return;
        }
    }
}

int sh_newline(struct sh_parser *p)
{
    p->pos++;
    return p->nhd ? sh_read_heredocs(p) : 0;
}

int sh_skip_space_nl(struct sh_parser *p)
{
    for (;;) {
        sh_skip_blanks(p, true);
        if (sh_cur(p) != '\n' || sh_eof(p))
            return 0;
        if (sh_newline(p) < 0)
            return -1;
    }
}

bool sh_peek_word(const struct sh_parser *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos < n || memcmp(p->src + p->pos, w, n) != 0)
        return false;
    return sh_is_delim(sh_at(p, p->pos + n));
}

/* ---- quoting ------------------------------------------------------------ */

static int scan_dq(struct sh_parser *p, struct sh_buf *b, unsigned *flags, bool heredoc,
                   size_t open);
static int scan_backquote(struct sh_parser *p, struct sh_buf *b, unsigned *flags, bool in_dq,
                          bool split);
static int scan_dollar(struct sh_parser *p, struct sh_buf *b, unsigned *flags, bool quoted);

static int put(struct sh_parser *p, struct sh_buf *b, const char *s, size_t n)
{
    return b ? sh_buf_put(p->st, b, s, n) : 0;
}

static int putch(struct sh_parser *p, struct sh_buf *b, char c)
{
    return b ? sh_buf_putc(p->st, b, c) : 0;
}

/* Append the raw source from `from` to pos (an expansion kept as written). */
static int put_raw(struct sh_parser *p, struct sh_buf *b, size_t from)
{
    return put(p, b, p->src + from, p->pos - from);
}

/* pos at the opening quote. */
static int scan_squote(struct sh_parser *p, struct sh_buf *b)
{
    size_t open = p->pos++;
    const char *q = memchr(p->src + p->pos, '\'', p->len - p->pos);
    if (!q)
        return sh_fail(p->st, "unterminated single quote at offset %zu", open);
    size_t end = (size_t)(q - p->src);
    if (put(p, b, p->src + p->pos, end - p->pos) < 0)
        return -1;
    p->pos = end + 1;
    return 0;
}

static int put_utf8(struct sh_parser *p, struct sh_buf *b, unsigned long v)
{
    char u[4];
    size_t n;
    if (v < 0x80) {
        u[0] = (char)v;
        n = 1;
    } else if (v < 0x800) {
        u[0] = (char)(0xc0 | (v >> 6));
        u[1] = (char)(0x80 | (v & 0x3f));
        n = 2;
    } else if (v < 0x10000) {
        u[0] = (char)(0xe0 | (v >> 12));
        u[1] = (char)(0x80 | ((v >> 6) & 0x3f));
        u[2] = (char)(0x80 | (v & 0x3f));
        n = 3;
    } else if (v < 0x110000) {
        u[0] = (char)(0xf0 | (v >> 18));
        u[1] = (char)(0x80 | ((v >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((v >> 6) & 0x3f));
        u[3] = (char)(0x80 | (v & 0x3f));
        n = 4;
    } else {
        return 0;
    }
    return put(p, b, u, n);
}

/* $'..': pos after the opening quote. A NUL ends the value (the rest of the
 * quoted text is dropped, as bash does). */
static int scan_ansi(struct sh_parser *p, struct sh_buf *b, size_t open)
{
    bool cut = false;
    for (;;) {
        if (sh_eof(p))
            return sh_fail(p->st, "unterminated $' quote at offset %zu", open);
        char c = sh_cur(p);
        if (c == '\'') {
            p->pos++;
            return 0;
        }
        if (c != '\\') {
            if (!cut && putch(p, b, c) < 0)
                return -1;
            p->pos++;
            continue;
        }
        if (p->pos + 1 >= p->len)
            return sh_fail(p->st, "unterminated $' quote at offset %zu", open);
        char e = sh_at(p, p->pos + 1);
        p->pos += 2;
        unsigned long v = 0;
        bool utf8 = false;
        switch (e) {
        case 'a':
            v = 7;
            break;
        case 'b':
            v = 8;
            break;
        case 'e':
        case 'E':
            v = 27;
            break;
        case 'f':
            v = 12;
            break;
        case 'n':
            v = 10;
            break;
        case 'r':
            v = 13;
            break;
        case 't':
            v = 9;
            break;
        case 'v':
            v = 11;
            break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
            v = (unsigned long)(e - '0');
            for (int k = 0; k < 2 && sh_cur(p) >= '0' && sh_cur(p) <= '7'; k++)
                v = v * 8 + (unsigned long)(sh_cur(p) - '0'), p->pos++;
            v &= 0xff;
            break;
        case 'x':
        case 'u':
        case 'U': {
            int max = e == 'x' ? 2 : e == 'u' ? 4 : 8, k = 0;
            for (; k < max && hex_value(sh_cur(p)) >= 0; k++)
                v = v * 16 + (unsigned long)hex_value(sh_cur(p)), p->pos++;
            if (k == 0) {
                if (!cut && (putch(p, b, '\\') < 0 || putch(p, b, e) < 0))
                    return -1;
                continue;
            }
            utf8 = e != 'x';
            break;
        }
        case 'c':
            if (sh_eof(p))
                return sh_fail(p->st, "unterminated $' quote at offset %zu", open);
            v = (unsigned long)((unsigned char)sh_cur(p) & 0x1f);
            p->pos++;
            break;
        case '\\':
        case '\'':
        case '"':
        case '?':
            v = (unsigned char)e;
            break;
        default:
            if (!cut && (putch(p, b, '\\') < 0 || putch(p, b, e) < 0))
                return -1;
            continue;
        }
        if (v == 0)
            cut = true;
        if (cut)
            continue;
        if ((utf8 ? put_utf8(p, b, v) : putch(p, b, (char)(unsigned char)v)) < 0)
            return -1;
    }
}

/* "..": pos after the opening quote; or a here-document body, which runs to
 * the end of the source and in which " is an ordinary character. */
static int scan_dq(struct sh_parser *p, struct sh_buf *b, unsigned *flags, bool heredoc,
                   size_t open)
{
    for (;;) {
        if (sh_eof(p)) {
            if (heredoc)
                return 0;
            return sh_fail(p->st, "unterminated double quote at offset %zu", open);
        }
        char c = sh_cur(p);
        if (c == '"' && !heredoc) {
            p->pos++;
            return 0;
        }
        if (c == '\\') {
            char n = sh_at(p, p->pos + 1);
            if (n == '\n' && p->pos + 1 < p->len) {
                p->pos += 2;
                continue;
            }
            if (n == '$' || n == '`' || n == '\\' || (n == '"' && !heredoc)) {
                if (putch(p, b, n) < 0)
                    return -1;
                p->pos += 2;
                continue;
            }
        } else if (c == '$') {
            if (scan_dollar(p, b, flags, true) < 0)
                return -1;
            continue;
        } else if (c == '`') {
            if (scan_backquote(p, b, flags, !heredoc, false) < 0)
                return -1;
            continue;
        }
        if (putch(p, b, c) < 0)
            return -1;
        p->pos++;
    }
}

/* `..`: pos at the opening backquote. The text up to the closing unescaped
 * backquote, with \` \\ \$ (and \" inside double quotes) unescaped, is parsed
 * as a separate source. split: it is unquoted (word splitting applies). */
static int scan_backquote(struct sh_parser *p, struct sh_buf *b, unsigned *flags, bool in_dq,
                          bool split)
{
    size_t open = p->pos++;
    struct sh_buf in = {0};
    for (;;) {
        if (sh_eof(p)) {
            free(in.p);
            return sh_fail(p->st, "unterminated backquote at offset %zu", open);
        }
        char c = sh_cur(p);
        if (c == '`') {
            p->pos++;
            break;
        }
        if (c == '\\') {
            char n = sh_at(p, p->pos + 1);
            if (n == '`' || n == '\\' || n == '$' || (in_dq && n == '"')) {
                c = n;
                p->pos++;
            }
        }
        if (sh_buf_putc(p->st, &in, c) < 0) {
            free(in.p);
            return -1;
        }
        p->pos++;
    }
    int r = sh_parse_sub(p, in.p ? in.p : "", in.len, PD_SH_O_SUBST, true, "backquote substitution",
                         open);
    free(in.p);
    if (r < 0)
        return -1;
    *flags |= PD_SH_W_EXPANSION | (split ? PD_SH_W_SPLIT : 0u);
    return put_raw(p, b, open);
}

/* ${..}: pos after the `{`. Only scanned (the caller keeps it as written),
 * but substitutions inside it are parsed: ${x:-$(cmd)} runs cmd. */
static int scan_param(struct sh_parser *p, unsigned *flags, size_t open, bool in_dq)
{
    if (sh_enter(p, open) < 0)
        return -1;
    for (;;) {
        if (sh_eof(p))
            return sh_fail(p->st, "unterminated ${ at offset %zu", open);
        char c = sh_cur(p);
        int r = 0;
        switch (c) {
        case '}':
            p->pos++;
            sh_leave(p);
            return 0;
        case '\\':
            p->pos = p->pos + 2 > p->len ? p->len : p->pos + 2;
            break;
        case '\'':
            if (in_dq)
                p->pos++;
            else
                r = scan_squote(p, NULL);
            break;
        case '"':
            p->pos++;
            r = scan_dq(p, NULL, flags, false, p->pos - 1);
            break;
        case '$':
            r = scan_dollar(p, NULL, flags, in_dq);
            break;
        case '`':
            r = scan_backquote(p, NULL, flags, in_dq, !in_dq);
            break;
        default:
            p->pos++;
            break;
        }
        if (r < 0)
            return -1;
    }
}

bool sh_arith_ahead(const struct sh_parser *p, size_t i)
{
    size_t depth = 0;
    while (i < p->len) {
        char c = p->src[i];
        if (c == '\\') {
            i += 2;
            continue;
        }
        if (c == '\'' || c == '"') {
            size_t j = i + 1;
            while (j < p->len && p->src[j] != c)
                j += (c == '"' && p->src[j] == '\\') ? 2 : 1;
            if (j >= p->len)
                return false;
            i = j + 1;
            continue;
        }
        if (c == '(') {
            depth++;
        } else if (c == ')') {
            if (depth == 0)
                return sh_at(p, i + 1) == ')';
            depth--;
        }
        i++;
    }
    return false;
}

/* An arithmetic body: `((` .. `))` (bracket false) or the old `$[` .. `]`
 * (bracket true); pos after the opening. */
static int scan_arith_body(struct sh_parser *p, unsigned *flags, size_t open_at, bool bracket)
{
    const char open = bracket ? '[' : '(', close = bracket ? ']' : ')';
    if (sh_enter(p, open_at) < 0)
        return -1;
    size_t depth = 0;
    for (;;) {
        if (sh_eof(p))
            return sh_fail(p->st, "unterminated arithmetic %s at offset %zu", bracket ? "$[" : "((",
                           open_at);
        char c = sh_cur(p);
        int r = 0;
        if (c == open) {
            depth++;
            p->pos++;
            continue;
        }
        if (c == close) {
            if (depth == 0) {
                if (!bracket && sh_at(p, p->pos + 1) != ')')
                    return sh_fail(p->st, "syntax error: expected '))' at offset %zu", p->pos);
                p->pos += bracket ? 1 : 2;
                sh_leave(p);
                return 0;
            }
            depth--;
            p->pos++;
            continue;
        }
        switch (c) {
        case '$':
            r = scan_dollar(p, NULL, flags, true);
            break;
        case '`':
            r = scan_backquote(p, NULL, flags, false, false);
            break;
        case '\\':
            p->pos = p->pos + 2 > p->len ? p->len : p->pos + 2;
            break;
        case '\'':
            r = scan_squote(p, NULL);
            break;
        case '"':
            p->pos++;
            r = scan_dq(p, NULL, flags, false, p->pos - 1);
            break;
        case '\n':
            if (p->nhd)
                return sh_fail(p->st,
                               "unsupported syntax: newline in arithmetic while a here-document "
                               "is pending at offset %zu",
                               p->pos);
            p->pos++;
            break;
        default:
            p->pos++;
            break;
        }
        if (r < 0)
            return -1;
    }
}

int sh_scan_arith(struct sh_parser *p, unsigned *flags, size_t open_at)
{
    return scan_arith_body(p, flags, open_at, false);
}

/* pos at `$`. Appends the decoded ($'..', $"..") or raw (expansions) text. */
static int scan_dollar(struct sh_parser *p, struct sh_buf *b, unsigned *flags, bool quoted)
{
    size_t at = p->pos;
    char n = sh_at(p, at + 1);
    if (!quoted && n == '\'') {
        *flags |= PD_SH_W_QUOTED;
        p->pos += 2;
        return scan_ansi(p, b, at);
    }
    if (!quoted && n == '"') {
        *flags |= PD_SH_W_QUOTED;
        p->pos += 2;
        return scan_dq(p, b, flags, false, at);
    }
    if (n == '(') {
        int r;
        if (sh_at(p, at + 2) == '(' && sh_arith_ahead(p, at + 3)) {
            p->pos = at + 3;
            r = sh_scan_arith(p, flags, at);
        } else {
            p->pos = at + 2;
            r = sh_parse_subst_inline(p, '$', at);
        }
        if (r < 0)
            return -1;
    } else if (n == '{') {
        p->pos = at + 2;
        if (scan_param(p, flags, at, quoted) < 0)
            return -1;
    } else if (n == '[') {
        p->pos = at + 2;
        if (scan_arith_body(p, flags, at, true) < 0)
            return -1;
    } else if (sh_is_name_start(n)) {
        p->pos = at + 2;
        while (sh_is_name_char(sh_cur(p)))
            p->pos++;
    } else if (is_digit(n) || (n != '\0' && strchr("@*#?-$!", n))) {
        p->pos = at + 2;
    } else {
        p->pos++;
        return putch(p, b, '$');
    }
    *flags |= PD_SH_W_EXPANSION | (quoted ? 0u : PD_SH_W_SPLIT);
    return put_raw(p, b, at);
}

/* ---- words -------------------------------------------------------------- */

void sh_wordb_free(struct sh_wordb *w)
{
    free(w->text.p);
    w->text.p = NULL;
    w->text.len = w->text.cap = 0;
}

/* Index of the `=` of an assignment in src[start, end), or SIZE_MAX. */
static size_t assign_eq(const char *s, size_t start, size_t end)
{
    size_t i = start;
    if (i >= end || !sh_is_name_start(s[i]))
        return SIZE_MAX;
    while (i < end && sh_is_name_char(s[i]))
        i++;
    if (i < end && s[i] == '[') {
        const char *q = memchr(s + i, ']', end - i);
        if (!q)
            return SIZE_MAX;
        i = (size_t)(q - s) + 1;
    }
    if (i < end && s[i] == '+')
        i++;
    return i < end && s[i] == '=' ? i : SIZE_MAX;
}

bool sh_is_assignment(const struct sh_parser *p, const struct sh_wordb *w)
{
    return assign_eq(p->src, w->start, w->end) != SIZE_MAX;
}

/* NAME=( ..elements.. ): pos at `(`. */
static int read_array(struct sh_parser *p, struct sh_wordb *w)
{
    size_t open = p->pos;
    if (sh_enter(p, open) < 0 || sh_buf_putc(p->st, &w->text, '(') < 0)
        return -1;
    p->pos++;
    bool first = true;
    for (;;) {
        if (sh_skip_space_nl(p) < 0)
            return -1;
        if (sh_eof(p))
            return sh_fail(p->st, "unterminated array assignment at offset %zu", open);
        if (sh_cur(p) == ')') {
            p->pos++;
            break;
        }
        struct sh_wordb e;
        int r = sh_read_word(p, SH_WM_NORMAL, &e);
        if (r < 0)
            return -1;
        if (r > 0)
            return sh_fail(p->st, "syntax error: unexpected '%c' in array assignment at offset %zu",
                           sh_cur(p), p->pos);
        if ((!first && sh_buf_putc(p->st, &w->text, ' ') < 0) ||
            sh_buf_put(p->st, &w->text, e.text.p, e.text.len) < 0) {
            sh_wordb_free(&e);
            return -1;
        }
        w->flags |= e.flags & (PD_SH_W_QUOTED | PD_SH_W_EXPANSION | PD_SH_W_GLOB | PD_SH_W_BRACE);
        sh_wordb_free(&e);
        first = false;
    }
    if (sh_buf_putc(p->st, &w->text, ')') < 0)
        return -1;
    if (!sh_is_delim(sh_cur(p)))
        return sh_fail(p->st, "syntax error: unexpected text after array assignment at offset %zu",
                       p->pos);
    sh_leave(p);
    return 0;
}

int sh_read_word(struct sh_parser *p, enum sh_wmode mode, struct sh_wordb *w)
{
    memset(w, 0, sizeof *w);
    w->start = p->pos;
    struct sh_buf *t = &w->text;
    size_t paren = 0;     /* SH_WM_REGEX: open ( */
    bool bracket = false; /* unquoted [ seen: a later ] makes a glob */
    int r = 0;
    while (!sh_eof(p) && r == 0) {
        char c = sh_cur(p);
        if (mode == SH_WM_REGEX &&
            (c == '(' || c == '|' || (paren && (c == ')' || sh_is_blank(c))))) {
            paren = c == '(' ? paren + 1 : c == ')' ? paren - 1 : paren;
            r = sh_buf_putc(p->st, t, c);
            p->pos++;
            continue;
        }
        if (c == '|' && mode == SH_WM_PATTERN)
            break;
        if (c == '(' && mode == SH_WM_ARRAY && p->pos > w->start && p->src[p->pos - 1] == '=' &&
            assign_eq(p->src, w->start, p->pos) == p->pos - 1) {
            r = read_array(p, w);
            break;
        }
        if ((c == '<' || c == '>') && sh_at(p, p->pos + 1) == '(') {
            size_t at = p->pos;
            p->pos += 2;
            r = sh_parse_subst_inline(p, c, at);
            if (r == 0)
                r = put_raw(p, t, at);
            w->flags |= PD_SH_W_EXPANSION;
            continue;
        }
        if (sh_is_delim(c))
            break;
        switch (c) {
        case '\\': {
            if (p->pos + 1 >= p->len) {
                r = sh_buf_putc(p->st, t, '\\');
                p->pos++;
                break;
            }
            char n = sh_at(p, p->pos + 1);
            p->pos += 2;
            if (n != '\n') {
                w->flags |= PD_SH_W_QUOTED;
                r = sh_buf_putc(p->st, t, n);
            }
            break;
        }
        case '\'':
            w->flags |= PD_SH_W_QUOTED;
            r = scan_squote(p, t);
            break;
        case '"':
            w->flags |= PD_SH_W_QUOTED;
            p->pos++;
            r = scan_dq(p, t, &w->flags, false, p->pos - 1);
            break;
        case '$':
            r = scan_dollar(p, t, &w->flags, false);
            break;
        case '`':
            r = scan_backquote(p, t, &w->flags, false, true);
            break;
        default:
            if (c == '*' || c == '?' || (c == ']' && bracket))
                w->flags |= PD_SH_W_GLOB;
            else if (c == '[')
                bracket = true;
            else if (c == '{')
                w->brace_at = t->len + 1, w->brace_list = false;
            else if (w->brace_at && (c == ',' || (c == '.' && sh_at(p, p->pos + 1) == '.')))
                w->brace_list = true;
            else if (c == '}' && w->brace_at) {
                if (w->brace_list)
                    w->flags |= PD_SH_W_BRACE;
                w->brace_at = 0;
            } else if (c == '~' && p->pos == w->start)
                w->flags |= PD_SH_W_TILDE;
            r = sh_buf_putc(p->st, t, c);
            p->pos++;
            break;
        }
    }
    w->end = p->pos;
    if (r < 0) {
        sh_wordb_free(w);
        return -1;
    }
    if (w->end == w->start)
        return 1;
    if (!t->p && sh_buf_put(p->st, t, "", 0) < 0)
        return -1;
    return 0;
}

int sh_read_delim(struct sh_parser *p, struct sh_buf *out, bool *quoted)
{
    size_t start = p->pos;
    *quoted = false;
    while (!sh_eof(p)) {
        char c = sh_cur(p);
        if (sh_is_delim(c))
            break;
        int r = 0;
        if (c == '\\' && p->pos + 1 >= p->len) {
            r = sh_buf_putc(p->st, out, c);
            p->pos++;
        } else if (c == '\\') {
            char n = sh_at(p, p->pos + 1);
            p->pos += 2;
            if (n != '\n') {
                *quoted = true;
                r = sh_buf_putc(p->st, out, n);
            }
        } else if (c == '\'') {
            *quoted = true;
            r = scan_squote(p, out);
        } else if (c == '"') {
            size_t open = p->pos++;
            *quoted = true;
            for (;;) {
                char d = sh_cur(p);
                if (sh_eof(p))
                    return sh_fail(p->st, "unterminated double quote at offset %zu", open);
                if (d == '"') {
                    p->pos++;
                    break;
                }
                if (d == '\\' && strchr("$`\"\\", sh_at(p, p->pos + 1)) && sh_at(p, p->pos + 1))
                    p->pos++, d = sh_cur(p);
                else if (d == '`' ||
                         (d == '$' && strchr("({", sh_at(p, p->pos + 1)) && sh_at(p, p->pos + 1)))
                    return sh_fail(p->st, "unsupported here-document delimiter at offset %zu",
                                   start);
                if (sh_buf_putc(p->st, out, d) < 0)
                    return -1;
                p->pos++;
            }
        } else if (c == '`' ||
                   (c == '$' && sh_at(p, p->pos + 1) && strchr("({'\"", sh_at(p, p->pos + 1)))) {
            return sh_fail(p->st, "unsupported here-document delimiter at offset %zu", start);
        } else {
            r = sh_buf_putc(p->st, out, c);
            p->pos++;
        }
        if (r < 0)
            return -1;
    }
    return p->pos == start ? 1 : 0;
}

/* ---- here-documents ----------------------------------------------------- */

/* Wrap the recorded error with the construct it happened in. */
void sh_wrap_err(struct sh_state *st, const char *what, size_t at)
{
    size_t n = strlen(st->err);
    if (n + 1 < sizeof st->err)
        snprintf(st->err + n, sizeof st->err - n, " (in %s at offset %zu)", what, at);
}

/* Expand-scan an unquoted here-document body: \$ \` \\ \<newline> are
 * processed, substitutions parsed, expansions kept as written. */
static int scan_heredoc_body(struct sh_parser *p, const struct sh_buf *body, size_t at,
                             struct pd_sh_word *out)
{
    struct sh_parser sub = {0};
    sub.st = p->st;
    sub.src = body->p ? body->p : "";
    sub.len = body->len;
    sub.depth = p->depth;
    sub.origin = p->origin;
    sub.capture = p->capture;
    struct sh_buf text = {0};
    unsigned flags = 0;
    int r = scan_dq(&sub, &text, &flags, true, 0);
    if (r == 0 && sub.nhd)
        r = sh_fail(p->st, "missing here-document terminator '%s' (here-document at offset %zu)",
                    sub.hd[0].delim, sub.hd[0].off);
    for (size_t i = 0; i < sub.nhd; i++)
        free(sub.hd[i].delim);
    free(sub.hd);
    if (r < 0) {
        free(text.p);
        sh_wrap_err(p->st, "here-document", at);
        return -1;
    }
    out->text = sh_buf_take(p->st, &text);
    out->flags = flags;
    return out->text ? 0 : -1;
}

int sh_read_heredocs(struct sh_parser *p)
{
    int r = 0;
    size_t i;
    for (i = 0; i < p->nhd && r == 0; i++) {
        struct sh_hd *h = &p->hd[i];
        size_t dlen = strlen(h->delim);
        struct sh_buf body = {0};
        bool found = false;
        while (p->pos < p->len && r == 0) {
            size_t ls = p->pos;
            const char *nl = memchr(p->src + ls, '\n', p->len - ls);
            size_t le = nl ? (size_t)(nl - p->src) : p->len;
            size_t cs = ls;
            while (h->strip && cs < le && p->src[cs] == '\t')
                cs++;
            p->pos = nl ? le + 1 : le;
            if (le - cs == dlen && memcmp(p->src + cs, h->delim, dlen) == 0) {
                found = true;
                break;
            }
            r = sh_buf_put(p->st, &body, p->src + cs, p->pos - cs);
        }
        if (r == 0 && !found)
            r = sh_fail(p->st,
                        "missing here-document terminator '%s' (here-document at offset %zu)",
                        h->delim, h->off);
        struct pd_sh_word word = {0};
        if (r == 0 && h->quoted) {
            word.flags = PD_SH_W_QUOTED;
            word.text = sh_buf_take(p->st, &body);
            r = word.text ? 0 : -1;
        } else if (r == 0) {
            r = scan_heredoc_body(p, &body, h->off, &word);
        }
        free(body.p);
        if (r < 0)
            break;
        /* The body scan may have added commands: look the slot up only now. */
        h = &p->hd[i];
        struct pd_sh_redir *rd =
            h->b ? &h->b->c.redirs[h->redir] : &p->st->out->cmds[h->cmd].redirs[h->redir];
        free(rd->target.text);
        rd->target = word;
        if (h->b)
            h->b->hd_pending--;
        else
            r = sh_heredoc_script(p, h->cmd, h->off);
    }
    for (i = 0; i < p->nhd; i++)
        free(p->hd[i].delim);
    p->nhd = 0;
    return r;
}
