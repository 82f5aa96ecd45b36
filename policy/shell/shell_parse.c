/* policy/shell/shell_parse.c - the grammar of the shell parser: lists, and-or
 * lists, pipelines, compound commands, simple commands and redirections, the
 * flattened command list it produces, and the public entry points.
 *
 * Recursive descent over the source text, one pass: substitutions are parsed
 * in place when the word reader (shell_lex.c) meets them. Every compound
 * command and substitution goes through sh_enter(), so recursion is bounded
 * by PD_SH_MAX_NEST. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/shell/shell_internal.h"

static int parse_pipeline(struct sh_parser *p);
static int parse_command(struct sh_parser *p);

/* ---- memory ------------------------------------------------------------- */

void sh_word_free(struct pd_sh_word *w)
{
    free(w->text);
    w->text = NULL;
}

void sh_cmd_free(struct pd_sh_cmd *c)
{
    for (size_t i = 0; i < c->nassigns; i++)
        sh_word_free(&c->assigns[i]);
    for (size_t i = 0; i < c->nwords; i++)
        sh_word_free(&c->words[i]);
    for (size_t i = 0; i < c->nredirs; i++)
        sh_word_free(&c->redirs[i].target);
    free(c->assigns);
    free(c->words);
    free(c->redirs);
    memset(c, 0, sizeof *c);
}

void pd_sh_script_free(struct pd_sh_script *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ncmds; i++)
        sh_cmd_free(&s->cmds[i]);
    free(s->cmds);
    s->cmds = NULL;
    s->ncmds = 0;
}

static void cmdb_init(const struct sh_parser *p, struct sh_cmdb *b)
{
    memset(b, 0, sizeof *b);
    b->woff0 = p->st->nwoff;
}

/* Free b and pop its word offsets (builders nest, so they form a stack). */
static void cmdb_free(struct sh_parser *p, struct sh_cmdb *b)
{
    sh_cmd_free(&b->c);
    p->st->nwoff = b->woff0;
    memset(b, 0, sizeof *b);
}

/* Grow arr (n used, *cap allocated, elements of size elem) for one more. */
static void *grow(struct sh_state *st, void *arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 4;
    if (c > SIZE_MAX / 2 / elem) {
        sh_oom(st);
        return NULL;
    }
    void *q = realloc(arr, c * elem);
    if (!q) {
        sh_oom(st);
        return NULL;
    }
    *cap = c;
    return q;
}

static char *dupn(struct sh_state *st, const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        sh_oom(st);
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Takes text (freed on failure). */
static int add_word(struct sh_parser *p, struct sh_cmdb *b, char *text, unsigned flags, size_t off)
{
    struct sh_state *st = p->st;
    struct pd_sh_cmd *c = &b->c;
    if (!text)
        return -1;
    struct pd_sh_word *w = grow(st, c->words, c->nwords, &b->wcap, sizeof *w);
    size_t *o = w ? grow(st, st->woff, st->nwoff, &st->woffcap, sizeof *o) : NULL;
    if (w)
        c->words = w;
    if (!o) {
        free(text);
        return -1;
    }
    st->woff = o;
    o[st->nwoff++] = off;
    w[c->nwords].text = text;
    w[c->nwords++].flags = flags;
    return 0;
}

static int add_literal(struct sh_parser *p, struct sh_cmdb *b, const char *s, size_t off)
{
    return add_word(p, b, dupn(p->st, s, strlen(s)), 0, off);
}

static int add_assign(struct sh_parser *p, struct sh_cmdb *b, char *text, unsigned flags)
{
    struct pd_sh_cmd *c = &b->c;
    if (!text)
        return -1;
    struct pd_sh_word *a = grow(p->st, c->assigns, c->nassigns, &b->acap, sizeof *a);
    if (!a) {
        free(text);
        return -1;
    }
    c->assigns = a;
    a[c->nassigns].text = text;
    a[c->nassigns++].flags = flags;
    return 0;
}

/* Takes r->target.text (freed on failure). */
static int add_redir(struct sh_parser *p, struct sh_cmdb *b, struct pd_sh_redir *r)
{
    struct pd_sh_cmd *c = &b->c;
    struct pd_sh_redir *a = grow(p->st, c->redirs, c->nredirs, &b->rcap, sizeof *a);
    if (!a) {
        free(r->target.text);
        return -1;
    }
    c->redirs = a;
    a[c->nredirs++] = *r;
    return 0;
}

static void hd_clear(struct sh_parser *p)
{
    for (size_t i = 0; i < p->nhd; i++)
        free(p->hd[i].delim);
    free(p->hd);
    p->hd = NULL;
    p->nhd = p->hdcap = 0;
}

/* Append the finished command b to the script (b is consumed, also on
 * failure) and parse the body it runs, if any. */
static int finish(struct sh_parser *p, struct sh_cmdb *b, enum pd_sh_kind kind)
{
    struct sh_state *st = p->st;
    struct pd_sh_script *s = st->out;
    struct pd_sh_cmd *c = &b->c;
    c->kind = kind;
    c->depth = p->depth;
    c->origin = p->origin;
    c->dynamic = false;
    c->prog = kind == PD_SH_K_SIMPLE ? sh_unwrap(c->words, c->nwords, &c->dynamic) : c->nwords;
    if (s->ncmds == st->cap) {
        size_t cap = st->cap, ccap = st->cap;
        struct pd_sh_cmd *q = grow(st, s->cmds, s->ncmds, &cap, sizeof *q);
        if (q)
            s->cmds = q;
        unsigned *cq = q ? grow(st, st->capture, s->ncmds, &ccap, sizeof *cq) : NULL;
        if (!cq) {
            cmdb_free(p, b);
            return -1;
        }
        st->capture = cq;
        st->cap = cap;
    }
    size_t k = s->ncmds++;
    s->cmds[k] = *c;
    st->capture[k] = p->capture;
    for (size_t i = p->nhd, left = b->hd_pending; left > 0 && i-- > 0;) {
        if (p->hd[i].b == b) {
            p->hd[i].b = NULL;
            p->hd[i].cmd = k;
            left--;
        }
    }
    size_t woff0 = b->woff0;
    memset(b, 0, sizeof *b);
    int r = kind == PD_SH_K_SIMPLE ? sh_parse_bodies(p, k, woff0) : 0;
    st->nwoff = woff0;
    return r;
}

enum mark { MARK_BG, MARK_IN, MARK_OUT };

/* Set a flag on the commands added since `from`; MARK_OUT only on those
 * created at the given capture level. */
static void mark(struct sh_parser *p, size_t from, enum mark what, unsigned capture)
{
    struct pd_sh_script *s = p->st->out;
    for (size_t i = from; i < s->ncmds; i++) {
        if (what == MARK_BG)
            s->cmds[i].background = true;
        else if (what == MARK_IN)
            s->cmds[i].piped_in = true;
        else if (p->st->capture[i] == capture)
            s->cmds[i].piped_out = true;
    }
}

/* ---- tokens ------------------------------------------------------------- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int unexpected(struct sh_parser *p)
{
    static const char *const ops[] = {";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "||", "|&",
                                      ">>",  "<<",  "<&",  ">&",  "<>", ">|", "&>", NULL};
    char tok[24];
    size_t at = p->pos, n = 0;
    if (sh_eof(p))
        return sh_fail(p->st, "syntax error: unexpected end of input at offset %zu", at);
    if (sh_cur(p) == '\n')
        return sh_fail(p->st, "syntax error: unexpected newline at offset %zu", at);
    if (sh_is_delim(sh_cur(p))) {
        for (size_t i = 0; ops[i] && !n; i++) {
            size_t l = strlen(ops[i]);
            if (p->len - at >= l && memcmp(p->src + at, ops[i], l) == 0)
                n = l;
        }
        n = n ? n : 1;
    } else {
        while (n < 20 && !sh_is_delim(sh_at(p, at + n)))
            n++;
    }
    memcpy(tok, p->src + at, n);
    tok[n] = '\0';
    return sh_fail(p->st, "syntax error: unexpected '%s' at offset %zu", tok, at);
}

static int missing(struct sh_parser *p, const char *w, const char *opener, size_t at)
{
    return sh_fail(p->st, "syntax error: missing '%s' for '%s' at offset %zu", w, opener, at);
}

/* Consume the reserved word w or fail. */
static int expect(struct sh_parser *p, const char *w, const char *opener, size_t at)
{
    if (sh_peek_word(p, w)) {
        p->pos += strlen(w);
        return 0;
    }
    return sh_eof(p) ? missing(p, w, opener, at) : unexpected(p);
}

static bool peek_any(const struct sh_parser *p, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (sh_peek_word(p, words[i]))
            return true;
    return false;
}

/* A token that ends a compound list: left for the enclosing construct. */
static bool at_closer(const struct sh_parser *p)
{
    static const char *const closers[] = {"}",  "then", "elif", "else", "fi",
                                          "do", "done", "esac", "in",   NULL};
    char c = sh_cur(p), n = sh_at(p, p->pos + 1);
    return c == ')' || (c == ';' && (n == ';' || n == '&')) || peek_any(p, closers);
}

static bool compound_start(const struct sh_parser *p)
{
    static const char *const kw[] = {"{",      "if",   "while", "until", "for",
                                     "select", "case", "[[",    NULL};
    return sh_cur(p) == '(' || peek_any(p, kw);
}

/* Words that would be reserved in command position. */
static bool is_reserved(const char *s)
{
    static const char *const kw[] = {"if",       "then",   "else",  "elif",  "fi", "case", "esac",
                                     "for",      "select", "while", "until", "do", "done", "in",
                                     "function", "coproc", "{",     "}",     "[[", "!",    NULL};
    for (size_t i = 0; kw[i]; i++)
        if (strcmp(s, kw[i]) == 0)
            return true;
    return false;
}

static bool is_decl(const char *s)
{
    return strcmp(s, "declare") == 0 || strcmp(s, "local") == 0 || strcmp(s, "export") == 0 ||
           strcmp(s, "typeset") == 0 || strcmp(s, "readonly") == 0;
}

static bool is_name(const char *s)
{
    if (!sh_is_name_start(*s))
        return false;
    while (sh_is_name_char(*s))
        s++;
    return *s == '\0';
}

/* ---- redirections ------------------------------------------------------- */

static bool is_fd_text(const char *s)
{
    if (strcmp(s, "-") == 0)
        return true;
    if (!is_digit(*s))
        return false;
    while (is_digit(*s))
        s++;
    return s[0] == '\0' || (s[0] == '-' && s[1] == '\0');
}

static int add_heredoc(struct sh_parser *p, struct sh_cmdb *b, struct pd_sh_redir *rd, size_t at,
                       bool strip)
{
    struct sh_buf d = {0};
    bool quoted;
    int r = sh_read_delim(p, &d, &quoted);
    if (r != 0) {
        free(d.p);
        return r < 0 ? -1
                     : sh_fail(p->st, "syntax error: missing here-document delimiter at offset %zu",
                               at);
    }
    char *delim = sh_buf_take(p->st, &d);
    if (!delim)
        return -1;
    size_t idx = b->c.nredirs;
    struct sh_hd *h = grow(p->st, p->hd, p->nhd, &p->hdcap, sizeof *h);
    if (!h || add_redir(p, b, rd) < 0) {
        if (h)
            p->hd = h;
        free(delim);
        return -1;
    }
    p->hd = h;
    h[p->nhd].b = b;
    h[p->nhd].cmd = 0;
    h[p->nhd].redir = idx;
    h[p->nhd].delim = delim;
    h[p->nhd].off = at;
    h[p->nhd].strip = strip;
    h[p->nhd].quoted = quoted;
    p->nhd++;
    b->hd_pending++;
    return 0;
}

/* A redirection at pos? 1 parsed into b, 0 none, -1 error. */
static int try_redir(struct sh_parser *p, struct sh_cmdb *b)
{
    size_t at = p->pos, i = at;
    int fd = -2; /* none given */
    if (is_digit(sh_at(p, i))) {
        while (is_digit(sh_at(p, i)))
            i++;
        char c = sh_at(p, i);
        if ((c != '<' && c != '>') || sh_at(p, i + 1) == '(')
            return 0;
        if (i - at > 9)
            return sh_fail(p->st, "file descriptor out of range at offset %zu", at);
        fd = 0;
        for (size_t k = at; k < i; k++)
            fd = fd * 10 + (p->src[k] - '0');
    } else if (sh_at(p, i) == '{' && sh_is_name_start(sh_at(p, i + 1))) {
        size_t j = i + 1;
        while (sh_is_name_char(sh_at(p, j)))
            j++;
        char c = sh_at(p, j + 1);
        if (sh_at(p, j) != '}' || (c != '<' && c != '>') || sh_at(p, j + 2) == '(')
            return 0;
        fd = -1;
        i = j + 1;
    }
    char c = sh_at(p, i), n = sh_at(p, i + 1), n2 = sh_at(p, i + 2);
    enum pd_sh_redir_op op;
    size_t len = 1;
    int dflt = 0, dup = 0; /* dup: 1 <&, 2 >& */
    bool strip = false;
    if (c == '<') {
        if (n == '(')
            return 0;
        op = PD_SH_R_IN;
        if (n == '<' && n2 == '<')
            op = PD_SH_R_HERESTRING, len = 3;
        else if (n == '<')
            op = PD_SH_R_HEREDOC, strip = n2 == '-', len = strip ? 3 : 2;
        else if (n == '>')
            op = PD_SH_R_INOUT, len = 2;
        else if (n == '&')
            op = PD_SH_R_DUP, dup = 1, len = 2;
    } else if (c == '>') {
        if (n == '(')
            return 0;
        dflt = 1;
        op = PD_SH_R_OUT;
        if (n == '>')
            op = PD_SH_R_APPEND, len = 2;
        else if (n == '|')
            len = 2;
        else if (n == '&')
            op = PD_SH_R_DUP, dup = 2, len = 2;
    } else if (c == '&' && n == '>' && fd == -2) {
        dflt = 1;
        op = n2 == '>' ? PD_SH_R_APPEND_ERR : PD_SH_R_OUT_ERR;
        len = n2 == '>' ? 3 : 2;
    } else {
        return 0;
    }
    p->pos = i + len;
    sh_skip_blanks(p, true);
    struct pd_sh_redir rd = {.fd = fd == -2 ? dflt : fd, .op = op};
    if (op == PD_SH_R_HEREDOC)
        return add_heredoc(p, b, &rd, at, strip) < 0 ? -1 : 1;
    struct sh_wordb w;
    int r = sh_read_word(p, SH_WM_NORMAL, &w);
    if (r != 0)
        return r < 0 ? -1
                     : sh_fail(p->st, "syntax error: missing redirection target at offset %zu", at);
    if (dup &&
        (!is_fd_text(w.text.p) || (w.flags & (PD_SH_W_EXPANSION | PD_SH_W_GLOB | PD_SH_W_BRACE)))) {
        /* n>&word with a non-number word writes to a file; <&word reads one. */
        rd.op = dup == 1 ? PD_SH_R_IN : fd == -2 ? PD_SH_R_OUT_ERR : PD_SH_R_OUT;
    }
    rd.target.flags = w.flags;
    rd.target.text = sh_buf_take(p->st, &w.text);
    if (!rd.target.text)
        return -1;
    return add_redir(p, b, &rd) < 0 ? -1 : 1;
}

/* Redirections after a compound command become a PD_SH_K_REDIR entry. */
static int redirs_tail(struct sh_parser *p)
{
    struct sh_cmdb b;
    cmdb_init(p, &b);
    for (;;) {
        sh_skip_blanks(p, true);
        int r = try_redir(p, &b);
        if (r < 0) {
            cmdb_free(p, &b);
            return -1;
        }
        if (r == 0)
            break;
    }
    if (b.c.nredirs == 0) {
        cmdb_free(p, &b);
        return 0;
    }
    return finish(p, &b, PD_SH_K_REDIR);
}

/* ---- lists -------------------------------------------------------------- */

static int parse_and_or(struct sh_parser *p)
{
    if (parse_pipeline(p) < 0)
        return -1;
    for (;;) {
        sh_skip_blanks(p, true);
        char c = sh_cur(p);
        if (!((c == '&' || c == '|') && sh_at(p, p->pos + 1) == c))
            return 0;
        p->pos += 2;
        if (sh_skip_space_nl(p) < 0 || parse_pipeline(p) < 0)
            return -1;
    }
}

int sh_parse_list(struct sh_parser *p, size_t *count)
{
    size_t n = 0;
    for (;;) {
        if (sh_skip_space_nl(p) < 0)
            return -1;
        if (sh_eof(p) || at_closer(p))
            break;
        size_t first = p->st->out->ncmds;
        if (parse_and_or(p) < 0)
            return -1;
        n++;
        sh_skip_blanks(p, true);
        char c = sh_cur(p), d = sh_at(p, p->pos + 1);
        if (c == ';' && d != ';' && d != '&') {
            p->pos++;
        } else if (c == '&') {
            p->pos++;
            mark(p, first, MARK_BG, 0);
        } else if (c != '\n' || sh_eof(p)) {
            break;
        }
    }
    if (count)
        *count = n;
    return 0;
}

/* A compound list that must not be empty; `end` names what should follow. */
static int body(struct sh_parser *p, const char *end, const char *opener, size_t at)
{
    size_t n;
    if (sh_parse_list(p, &n) < 0)
        return -1;
    if (n == 0)
        return sh_eof(p) ? missing(p, end, opener, at) : unexpected(p);
    return 0;
}

/* After `time` [-p]: the keyword form times a pipeline that starts with a
 * compound command (or nothing); otherwise `time` is a wrapper word. */
static bool time_keyword_follows(const struct sh_parser *p)
{
    static const char *const kw[] = {"!", "function", NULL};
    char c = sh_cur(p);
    return sh_eof(p) || c == '\n' || c == ';' || c == '&' || c == '|' || compound_start(p) ||
           peek_any(p, kw);
}

static int parse_pipeline(struct sh_parser *p)
{
    bool prefix = false;
    sh_skip_blanks(p, true);
    if (sh_peek_word(p, "time")) {
        size_t save = p->pos;
        p->pos += 4;
        sh_skip_blanks(p, true);
        if (sh_peek_word(p, "-p")) {
            p->pos += 2;
            sh_skip_blanks(p, true);
        }
        if (time_keyword_follows(p))
            prefix = true;
        else
            p->pos = save;
    }
    while (sh_peek_word(p, "!")) {
        prefix = true;
        p->pos++;
        sh_skip_blanks(p, true);
    }
    if (prefix) {
        char c = sh_cur(p);
        if (sh_eof(p) || c == '\n' || c == ';' || c == '&' ||
            (c == '|' && sh_at(p, p->pos + 1) == '|'))
            return 0;
    }
    bool first = true;
    for (;;) {
        size_t el = p->st->out->ncmds;
        if (parse_command(p) < 0)
            return -1;
        if (!first)
            mark(p, el, MARK_IN, 0);
        sh_skip_blanks(p, true);
        char n = sh_at(p, p->pos + 1);
        if (sh_cur(p) != '|' || n == '|')
            return 0;
        mark(p, el, MARK_OUT, p->capture);
        p->pos += n == '&' ? 2 : 1;
        if (sh_skip_space_nl(p) < 0)
            return -1;
        first = false;
    }
}

/* ---- compound commands -------------------------------------------------- */

static int parse_group(struct sh_parser *p)
{
    size_t at = p->pos;
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos++;
    if (body(p, "}", "{", at) < 0 || expect(p, "}", "{", at) < 0)
        return -1;
    sh_leave(p);
    return redirs_tail(p);
}

static int parse_subshell(struct sh_parser *p)
{
    size_t at = p->pos;
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos++;
    if (body(p, ")", "(", at) < 0)
        return -1;
    if (sh_cur(p) != ')')
        return sh_eof(p) ? missing(p, ")", "(", at) : unexpected(p);
    p->pos++;
    sh_leave(p);
    return redirs_tail(p);
}

/* Redirections into b, then b is finished as kind. */
static int finish_with_redirs(struct sh_parser *p, struct sh_cmdb *b, enum pd_sh_kind kind)
{
    for (;;) {
        sh_skip_blanks(p, true);
        int r = try_redir(p, b);
        if (r < 0) {
            cmdb_free(p, b);
            return -1;
        }
        if (r == 0)
            return finish(p, b, kind);
    }
}

static int parse_arith_cmd(struct sh_parser *p)
{
    size_t at = p->pos;
    unsigned fl = 0;
    p->pos += 2;
    if (sh_scan_arith(p, &fl, at) < 0)
        return -1;
    struct sh_cmdb b;
    cmdb_init(p, &b);
    if (add_literal(p, &b, "((", at) < 0 ||
        add_word(p, &b, dupn(p->st, p->src + at + 2, p->pos - at - 4), fl, at + 2) < 0 ||
        add_literal(p, &b, "))", p->pos - 2) < 0) {
        cmdb_free(p, &b);
        return -1;
    }
    return finish_with_redirs(p, &b, PD_SH_K_ARITH);
}

static int dbracket_words(struct sh_parser *p, struct sh_cmdb *b, size_t at)
{
    bool regex = false;
    size_t nops = 0;
    for (;;) {
        sh_skip_blanks(p, true);
        if (sh_cur(p) == '\n' && !sh_eof(p)) {
            if (sh_newline(p) < 0)
                return -1;
            continue;
        }
        if (sh_eof(p))
            return missing(p, "]]", "[[", at);
        size_t off = p->pos;
        if (sh_peek_word(p, "]]")) {
            if (nops == 0)
                return unexpected(p);
            p->pos += 2;
            return add_literal(p, b, "]]", off);
        }
        char c = sh_cur(p), n = sh_at(p, p->pos + 1);
        size_t oplen = 0;
        if ((c == '&' || c == '|') && n == c)
            oplen = 2;
        else if (c == '(' || c == ')' || ((c == '<' || c == '>') && n != '('))
            oplen = 1;
        else if (c == ';' || c == '&' || c == '|')
            return unexpected(p);
        if (oplen) {
            p->pos += oplen;
            if (add_word(p, b, dupn(p->st, p->src + off, oplen), 0, off) < 0)
                return -1;
            continue;
        }
        struct sh_wordb w;
        int r = sh_read_word(p, regex ? SH_WM_REGEX : SH_WM_NORMAL, &w);
        if (r != 0)
            return r < 0 ? -1 : unexpected(p);
        regex = !(w.flags & PD_SH_W_QUOTED) && strcmp(w.text.p, "=~") == 0;
        if (add_word(p, b, sh_buf_take(p->st, &w.text), w.flags, off) < 0)
            return -1;
        nops++;
    }
}

static int parse_dbracket(struct sh_parser *p)
{
    size_t at = p->pos;
    struct sh_cmdb b;
    cmdb_init(p, &b);
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos += 2;
    if (add_literal(p, &b, "[[", at) < 0 || dbracket_words(p, &b, at) < 0) {
        cmdb_free(p, &b);
        return -1;
    }
    sh_leave(p);
    return finish_with_redirs(p, &b, PD_SH_K_TEST);
}

static int parse_if(struct sh_parser *p)
{
    size_t at = p->pos;
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos += 2;
    if (body(p, "then", "if", at) < 0 || expect(p, "then", "if", at) < 0 ||
        body(p, "fi", "if", at) < 0)
        return -1;
    for (;;) {
        if (sh_peek_word(p, "elif")) {
            p->pos += 4;
            if (body(p, "then", "elif", at) < 0 || expect(p, "then", "elif", at) < 0 ||
                body(p, "fi", "if", at) < 0)
                return -1;
            continue;
        }
        if (sh_peek_word(p, "else")) {
            p->pos += 4;
            if (body(p, "fi", "if", at) < 0)
                return -1;
        }
        break;
    }
    if (expect(p, "fi", "if", at) < 0)
        return -1;
    sh_leave(p);
    return redirs_tail(p);
}

static int parse_while(struct sh_parser *p, const char *kw)
{
    size_t at = p->pos;
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos += strlen(kw);
    if (body(p, "do", kw, at) < 0 || expect(p, "do", kw, at) < 0 || body(p, "done", kw, at) < 0 ||
        expect(p, "done", kw, at) < 0)
        return -1;
    sh_leave(p);
    return redirs_tail(p);
}

/* `do list done` (or `{ list }`) of for and select. */
static int do_group(struct sh_parser *p, const char *kw, size_t at)
{
    if (sh_skip_space_nl(p) < 0)
        return -1;
    if (sh_peek_word(p, "{")) {
        size_t g = p->pos++;
        return body(p, "}", "{", g) < 0 ? -1 : expect(p, "}", "{", g);
    }
    if (!sh_peek_word(p, "do"))
        return sh_eof(p) ? missing(p, "do", kw, at) : unexpected(p);
    p->pos += 2;
    return body(p, "done", kw, at) < 0 ? -1 : expect(p, "done", kw, at);
}

/* for NAME [in words] ; do ..; done / for ((..;..;..)) ; do ..; done / select. */
static int for_header(struct sh_parser *p, const char *kw, size_t at)
{
    if (strcmp(kw, "for") == 0 && sh_cur(p) == '(' && sh_at(p, p->pos + 1) == '(') {
        size_t a = p->pos;
        unsigned fl = 0;
        p->pos += 2;
        if (sh_scan_arith(p, &fl, a) < 0)
            return -1;
        sh_skip_blanks(p, true);
        if (sh_cur(p) == ';')
            p->pos++;
        return 0;
    }
    struct sh_wordb w;
    int r = sh_read_word(p, SH_WM_NORMAL, &w);
    if (r != 0)
        return r < 0 ? -1 : sh_eof(p) ? missing(p, "do", kw, at) : unexpected(p);
    bool ok = w.flags == 0 && is_name(w.text.p);
    sh_wordb_free(&w);
    if (!ok)
        return sh_fail(p->st, "syntax error: invalid loop variable at offset %zu", w.start);
    sh_skip_blanks(p, true);
    if (sh_cur(p) == ';') {
        p->pos++;
        return 0;
    }
    if (sh_skip_space_nl(p) < 0)
        return -1;
    if (!sh_peek_word(p, "in"))
        return 0;
    p->pos += 2;
    for (;;) {
        sh_skip_blanks(p, true);
        if (sh_eof(p))
            return missing(p, "do", kw, at);
        if (sh_cur(p) == ';') {
            p->pos++;
            return 0;
        }
        if (sh_cur(p) == '\n')
            return sh_newline(p);
        r = sh_read_word(p, SH_WM_NORMAL, &w);
        if (r != 0)
            return r < 0 ? -1 : unexpected(p);
        sh_wordb_free(&w);
    }
}

static int parse_for(struct sh_parser *p, const char *kw)
{
    size_t at = p->pos;
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos += strlen(kw);
    sh_skip_blanks(p, true);
    if (for_header(p, kw, at) < 0 || do_group(p, kw, at) < 0)
        return -1;
    sh_leave(p);
    return redirs_tail(p);
}

/* One case item's patterns: [(] pat [| pat].. ) */
static int case_patterns(struct sh_parser *p, size_t at)
{
    if (sh_cur(p) == '(')
        p->pos++;
    for (;;) {
        sh_skip_blanks(p, true);
        struct sh_wordb w;
        int r = sh_read_word(p, SH_WM_PATTERN, &w);
        if (r != 0)
            return r < 0 ? -1 : sh_eof(p) ? missing(p, "esac", "case", at) : unexpected(p);
        sh_wordb_free(&w);
        sh_skip_blanks(p, true);
        if (sh_cur(p) == '|') {
            p->pos++;
            continue;
        }
        if (sh_cur(p) == ')') {
            p->pos++;
            return 0;
        }
        return sh_eof(p) ? missing(p, "esac", "case", at) : unexpected(p);
    }
}

static int parse_case(struct sh_parser *p)
{
    size_t at = p->pos;
    if (sh_enter(p, at) < 0)
        return -1;
    p->pos += 4;
    sh_skip_blanks(p, true);
    struct sh_wordb w;
    int r = sh_read_word(p, SH_WM_NORMAL, &w);
    if (r != 0)
        return r < 0 ? -1 : sh_eof(p) ? missing(p, "in", "case", at) : unexpected(p);
    sh_wordb_free(&w);
    if (sh_skip_space_nl(p) < 0 || expect(p, "in", "case", at) < 0)
        return -1;
    for (;;) {
        if (sh_skip_space_nl(p) < 0)
            return -1;
        if (sh_peek_word(p, "esac")) {
            p->pos += 4;
            break;
        }
        if (sh_eof(p))
            return missing(p, "esac", "case", at);
        if (case_patterns(p, at) < 0 || sh_parse_list(p, NULL) < 0)
            return -1;
        char c = sh_cur(p), n = sh_at(p, p->pos + 1);
        if (c == ';' && n == ';')
            p->pos += sh_at(p, p->pos + 2) == '&' ? 3 : 2;
        else if (c == ';' && n == '&')
            p->pos += 2;
        else if (!sh_peek_word(p, "esac"))
            return sh_eof(p) ? missing(p, "esac", "case", at) : unexpected(p);
    }
    sh_leave(p);
    return redirs_tail(p);
}

/* The body of a function definition: a compound command. */
static int func_body(struct sh_parser *p, size_t at)
{
    if (sh_skip_space_nl(p) < 0)
        return -1;
    if (!compound_start(p))
        return sh_eof(p) ? sh_fail(p->st,
                                   "syntax error: missing function body for the function at "
                                   "offset %zu",
                                   at)
                         : unexpected(p);
    return parse_command(p);
}

static int parse_function(struct sh_parser *p)
{
    size_t at = p->pos;
    p->pos += 8;
    sh_skip_blanks(p, true);
    struct sh_wordb w;
    int r = sh_read_word(p, SH_WM_NORMAL, &w);
    if (r != 0)
        return r < 0 ? -1 : unexpected(p);
    unsigned fl = w.flags;
    sh_wordb_free(&w);
    if (fl & (PD_SH_W_QUOTED | PD_SH_W_EXPANSION))
        return sh_fail(p->st, "syntax error: invalid function name at offset %zu", w.start);
    sh_skip_blanks(p, true);
    if (sh_cur(p) == '(') {
        p->pos++;
        sh_skip_blanks(p, true);
        if (sh_cur(p) != ')')
            return unexpected(p);
        p->pos++;
    }
    return func_body(p, at);
}

/* NAME ( ) compound: pos at `(`; b holds the one word NAME. */
static int parse_funcdef(struct sh_parser *p, const struct sh_cmdb *b)
{
    size_t at = p->st->woff[b->woff0];
    if (b->c.words[0].flags & (PD_SH_W_QUOTED | PD_SH_W_EXPANSION))
        return sh_fail(p->st, "syntax error: invalid function name at offset %zu", at);
    p->pos++;
    sh_skip_blanks(p, true);
    if (sh_cur(p) != ')')
        return unexpected(p);
    p->pos++;
    return func_body(p, at);
}

/* ---- simple commands ---------------------------------------------------- */

/* Flags of an assignment word: no splitting, no pathname expansion; tilde
 * after = or :. */
static unsigned assign_flags(const struct sh_parser *p, const struct sh_wordb *w)
{
    unsigned fl = w->flags & ~(PD_SH_W_GLOB | PD_SH_W_TILDE | PD_SH_W_SPLIT);
    const char *s = p->src;
    size_t i = w->start;
    while (i < w->end && s[i] != '=')
        i++;
    for (i++; i < w->end; i++) {
        if (s[i] == '~' && (s[i - 1] == '=' || s[i - 1] == ':'))
            fl |= PD_SH_W_TILDE;
        if (s[i] == '\'' || s[i] == '"' || s[i] == '\\' || s[i] == '$')
            break;
    }
    return fl;
}

static int parse_simple(struct sh_parser *p)
{
    struct sh_cmdb b;
    cmdb_init(p, &b);
    bool arrays = true;
    int r = 0;
    for (;;) {
        sh_skip_blanks(p, true);
        if (sh_eof(p))
            break;
        char c = sh_cur(p), n = sh_at(p, p->pos + 1);
        if (c == '\n' || c == ';' || c == '|' || c == ')' || (c == '&' && n != '>'))
            break;
        if (c == '(') {
            if (b.c.nwords == 1 && !b.c.nassigns && !b.c.nredirs) {
                r = parse_funcdef(p, &b);
                cmdb_free(p, &b);
                return r;
            }
            r = unexpected(p);
            break;
        }
        if (!((c == '<' || c == '>') && n == '(')) {
            r = try_redir(p, &b);
            if (r < 0)
                break;
            if (r > 0) {
                r = 0;
                continue;
            }
        }
        size_t off = p->pos;
        struct sh_wordb w;
        r = sh_read_word(p, arrays ? SH_WM_ARRAY : SH_WM_NORMAL, &w);
        if (r != 0) {
            r = r < 0 ? -1 : unexpected(p);
            break;
        }
        if (b.c.nwords == 0 && sh_is_assignment(p, &w)) {
            unsigned fl = assign_flags(p, &w);
            r = add_assign(p, &b, sh_buf_take(p->st, &w.text), fl);
        } else {
            if (b.c.nwords == 0 && !(w.flags & PD_SH_W_QUOTED) && is_reserved(w.text.p)) {
                r = sh_fail(p->st,
                            "unsupported syntax: reserved word '%s' where a command name was "
                            "expected at offset %zu",
                            w.text.p, off);
                sh_wordb_free(&w);
                break;
            }
            if (b.c.nwords == 0)
                arrays = w.flags == 0 && is_decl(w.text.p);
            r = add_word(p, &b, sh_buf_take(p->st, &w.text), w.flags, off);
        }
        if (r < 0)
            break;
    }
    if (r < 0) {
        cmdb_free(p, &b);
        return -1;
    }
    return finish(p, &b, PD_SH_K_SIMPLE);
}

static int parse_command(struct sh_parser *p)
{
    sh_skip_blanks(p, true);
    char c = sh_cur(p);
    if (sh_eof(p) || c == '\n' || c == ';' || c == '&' || c == '|' || c == ')')
        return unexpected(p);
    if (c == '(') {
        if (sh_at(p, p->pos + 1) == '(' && sh_arith_ahead(p, p->pos + 2))
            return parse_arith_cmd(p);
        return parse_subshell(p);
    }
    if (sh_peek_word(p, "{"))
        return parse_group(p);
    if (sh_peek_word(p, "if"))
        return parse_if(p);
    if (sh_peek_word(p, "while"))
        return parse_while(p, "while");
    if (sh_peek_word(p, "until"))
        return parse_while(p, "until");
    if (sh_peek_word(p, "for"))
        return parse_for(p, "for");
    if (sh_peek_word(p, "select"))
        return parse_for(p, "select");
    if (sh_peek_word(p, "case"))
        return parse_case(p);
    if (sh_peek_word(p, "function"))
        return parse_function(p);
    if (sh_peek_word(p, "[["))
        return parse_dbracket(p);
    if (sh_peek_word(p, "coproc"))
        return sh_fail(p->st, "unsupported syntax: coproc at offset %zu", p->pos);
    if (at_closer(p))
        return unexpected(p);
    return parse_simple(p);
}

/* ---- substitutions and bodies ------------------------------------------- */

int sh_parse_subst_inline(struct sh_parser *p, char kind, size_t open_at)
{
    if (sh_enter(p, open_at) < 0)
        return -1;
    unsigned depth = p->depth, capture = p->capture;
    enum pd_sh_origin origin = p->origin;
    size_t first = p->st->out->ncmds;
    p->depth = depth + 1;
    p->origin = PD_SH_O_SUBST;
    p->capture = capture + 1;
    int r = sh_parse_list(p, NULL);
    if (r == 0 && sh_cur(p) == ')' && !sh_eof(p))
        p->pos++;
    else if (r == 0 && sh_eof(p))
        r = sh_fail(p->st, "unterminated %c( at offset %zu", kind, open_at);
    else if (r == 0)
        r = unexpected(p);
    p->depth = depth;
    p->origin = origin;
    p->capture = capture;
    if (r < 0)
        return -1;
    if (kind == '<')
        mark(p, first, MARK_OUT, capture + 1);
    else if (kind == '>')
        mark(p, first, MARK_IN, 0);
    sh_leave(p);
    return 0;
}

int sh_parse_sub(struct sh_parser *outer, const char *text, size_t len, enum pd_sh_origin origin,
                 bool captured, const char *what, size_t at)
{
    if (sh_enter(outer, at) < 0)
        return -1;
    struct sh_parser sub = {0};
    sub.st = outer->st;
    sub.src = text;
    sub.len = len;
    sub.depth = outer->depth + 1;
    sub.origin = origin;
    sub.capture = outer->capture + (captured ? 1u : 0u);
    int r = sh_parse_list(&sub, NULL);
    if (r == 0 && !sh_eof(&sub))
        r = unexpected(&sub);
    if (r == 0 && sub.nhd)
        r = sh_fail(sub.st, "missing here-document terminator '%s' (here-document at offset %zu)",
                    sub.hd[0].delim, sub.hd[0].off);
    hd_clear(&sub);
    if (r < 0) {
        sh_wrap_err(outer->st, what, at);
        return -1;
    }
    sh_leave(outer);
    return 0;
}

/* ---- entry points ------------------------------------------------------- */

int pd_sh_parse(const char *src, struct pd_sh_script *out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out) {
        if (err && errlen)
            snprintf(err, errlen, "no output script");
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (!src) {
        if (err && errlen)
            snprintf(err, errlen, "no command string");
        return -1;
    }
    struct sh_state st = {0};
    st.out = out;
    struct sh_parser p = {0};
    p.st = &st;
    p.src = src;
    p.len = strlen(src);
    p.origin = PD_SH_O_TOP;
    int r = sh_parse_list(&p, NULL);
    if (r == 0 && !sh_eof(&p))
        r = unexpected(&p);
    if (r == 0 && p.nhd)
        r = sh_fail(&st, "missing here-document terminator '%s' (here-document at offset %zu)",
                    p.hd[0].delim, p.hd[0].off);
    hd_clear(&p);
    free(st.capture);
    free(st.woff);
    if (r < 0) {
        pd_sh_script_free(out);
        if (err && errlen) {
            snprintf(err, errlen, "%s", st.err[0] ? st.err : "parse error");
            for (char *c = err; *c; c++) /* one line, printable: input is quoted in it */
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
        }
        return -1;
    }
    return 0;
}
