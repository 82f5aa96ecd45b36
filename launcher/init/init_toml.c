/* launcher/init/init_toml.c - reading and editing Codex's config.toml, which
 * people write by hand and Codex rewrites itself.
 *
 * Paldron's policy reader (policy/toml_*.c) knows a subset without tables;
 * config.toml has tables, dotted keys, multi-line strings, inline tables.
 * This reader follows TOML 1.0's structure (and 1.1's newlines inside
 * inline tables) far enough to know, for every statement, its full key
 * path, its lines and where its value is - so that `paldron init --trust`
 * can replace one value or add one table and keep every other byte of the
 * file as it was. It refuses what it cannot edit safely: a broken file, a
 * table or key defined twice, a table defined through dotted keys or an
 * inline table elsewhere (adding a [header] for it would make the file
 * invalid for Codex). Numbers and dates are checked for their characters
 * only; Codex itself reads the file afterwards (cmd_init.c verifies). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

#define MAX_DEPTH 100
/* a statement's path as the read-only path the comparisons take */
#define CP(p) ((const char *const *)(p))

struct lexer {
    const char *s;
    size_t len, pos;
    int line;
    char *why;
    size_t whylen;
    int err_line;
    bool failed;
};

static int fail_at(struct lexer *l, int line, const char *msg)
{
    if (!l->failed) {
        l->failed = true;
        l->err_line = line;
        snprintf(l->why, l->whylen, "%s", msg);
    }
    return -1;
}

static int fail(struct lexer *l, const char *msg)
{
    return fail_at(l, l->line, msg);
}

static char peek(const struct lexer *l, size_t ahead)
{
    return l->pos + ahead < l->len ? l->s[l->pos + ahead] : '\0';
}

static void skip_blanks(struct lexer *l)
{
    while (peek(l, 0) == ' ' || peek(l, 0) == '\t')
        l->pos++;
}

static bool at_newline(const struct lexer *l)
{
    return peek(l, 0) == '\n' || (peek(l, 0) == '\r' && peek(l, 1) == '\n');
}

static void take_newline(struct lexer *l)
{
    l->pos += peek(l, 0) == '\r' ? 2 : 1;
    l->line++;
}

static void skip_comment(struct lexer *l)
{
    if (peek(l, 0) == '#')
        while (l->pos < l->len && !at_newline(l))
            l->pos++;
}

/* Blanks, comments and newlines (inside arrays and inline tables). */
static void skip_space(struct lexer *l)
{
    for (;;) {
        skip_blanks(l);
        skip_comment(l);
        if (!at_newline(l))
            return;
        take_newline(l);
    }
}

/* After a statement: blanks, a comment, then the end of the line. */
static int end_of_line(struct lexer *l)
{
    skip_blanks(l);
    skip_comment(l);
    if (l->pos >= l->len)
        return 0;
    if (!at_newline(l))
        return fail(l, "expected the end of the line (a value, then at most a # comment)");
    take_newline(l);
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One escape after '\' at l->pos; appends it to t (when t). */
static int escape(struct lexer *l, struct pd_text *t)
{
    char e = peek(l, 1);
    static const char from[] = "btnfr\"\\e", to[] = "\b\t\n\f\r\"\\\x1b";
    const char *p = e ? strchr(from, e) : NULL;
    if (p) {
        if (t)
            pd_text_put(t, &to[p - from], 1);
        l->pos += 2;
        return 0;
    }
    int digits = e == 'u' ? 4 : e == 'U' ? 8 : e == 'x' ? 2 : 0;
    if (!digits)
        return fail(l, "an invalid escape in a string");
    unsigned long cp = 0;
    for (int k = 0; k < digits; k++) {
        int h = hexval(peek(l, 2 + (size_t)k));
        if (h < 0)
            return fail(l, "an invalid \\u escape in a string");
        cp = cp * 16 + (unsigned long)h;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(l, "a \\u escape that is no Unicode scalar value");
    if (t)
        pd_text_put_utf8(t, cp);
    l->pos += 2 + (size_t)digits;
    return 0;
}

/* A one-line string ("..." or '...') at l->pos, decoded into *out. */
static int one_line_string(struct lexer *l, char **out)
{
    char q = peek(l, 0);
    struct pd_text t = {0};
    l->pos++;
    for (;;) {
        char c = peek(l, 0);
        if (l->pos >= l->len || c == '\n' || c == '\r') {
            pd_text_free(&t);
            return fail(l, "a string that does not end on its line");
        }
        if (c == q) {
            l->pos++;
            break;
        }
        if (c == '\\' && q == '"') {
            if (escape(l, &t) != 0) {
                pd_text_free(&t);
                return -1;
            }
            continue;
        }
        pd_text_put(&t, &l->s[l->pos], 1);
        l->pos++;
    }
    *out = pd_text_take(&t);
    return *out ? 0 : fail(l, "out of memory");
}

/* A multi-line string (""" or ''') at l->pos: skipped. */
static int multi_line_string(struct lexer *l)
{
    char q = peek(l, 0);
    l->pos += 3;
    while (l->pos < l->len) {
        char c = peek(l, 0);
        if (c == '\\' && q == '"') {
            if (peek(l, 1) == '\n' || peek(l, 1) == '\r' || peek(l, 1) == ' ' ||
                peek(l, 1) == '\t') {
                l->pos++; /* a line-ending backslash: the newline follows */
                continue;
            }
            if (escape(l, NULL) != 0)
                return -1;
            continue;
        }
        if (at_newline(l)) {
            take_newline(l);
            continue;
        }
        if (c == q && peek(l, 1) == q && peek(l, 2) == q) {
            size_t run = 3;
            while (run < 6 && peek(l, run) == q)
                run++;
            if (run > 5)
                return fail(l, "too many quotes at the end of a multi-line string");
            l->pos += run;
            return 0;
        }
        l->pos++;
    }
    return fail(l, "a multi-line string that does not end");
}

static bool bare_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

struct parts {
    char **v;
    size_t n;
};

static void parts_free(struct parts *p)
{
    for (size_t k = 0; k < p->n; k++)
        free(p->v[k]);
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

static int parts_push(struct lexer *l, struct parts *p, char *s)
{
    char **nv = s ? realloc(p->v, (p->n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(s);
        return fail(l, "out of memory");
    }
    p->v = nv;
    p->v[p->n++] = s;
    return 0;
}

/* A dotted key (bare, "basic" or 'literal' parts) appended to *p. */
static int key(struct lexer *l, struct parts *p)
{
    for (;;) {
        skip_blanks(l);
        char c = peek(l, 0);
        char *part = NULL;
        if (c == '"' || c == '\'') {
            if (peek(l, 1) == c && peek(l, 2) == c)
                return fail(l, "a key cannot be a multi-line string");
            if (one_line_string(l, &part) != 0)
                return -1;
        } else if (bare_char(c)) {
            size_t b = l->pos;
            while (bare_char(peek(l, 0)))
                l->pos++;
            part = strndup(l->s + b, l->pos - b);
        } else {
            return fail(l, "expected a key (letters, digits, _ and -, or a quoted string)");
        }
        if (parts_push(l, p, part) != 0)
            return -1;
        skip_blanks(l);
        if (peek(l, 0) != '.')
            return 0;
        l->pos++;
    }
}

static int value(struct lexer *l, char **str, bool *inline_table, int depth);

static int array(struct lexer *l, int depth)
{
    l->pos++;
    for (;;) {
        skip_space(l);
        if (peek(l, 0) == ']') {
            l->pos++;
            return 0;
        }
        char *s = NULL;
        bool it;
        if (value(l, &s, &it, depth + 1) != 0)
            return -1;
        free(s);
        skip_space(l);
        if (peek(l, 0) == ',') {
            l->pos++;
            continue;
        }
        if (peek(l, 0) == ']') {
            l->pos++;
            return 0;
        }
        return fail(l, l->pos >= l->len ? "an array that does not end (expected ']')"
                                        : "expected ',' or ']' in an array");
    }
}

static int inline_table(struct lexer *l, int depth)
{
    l->pos++;
    for (;;) {
        skip_space(l);
        if (peek(l, 0) == '}') {
            l->pos++;
            return 0;
        }
        struct parts k = {0};
        int rc = key(l, &k);
        parts_free(&k);
        if (rc != 0)
            return -1;
        skip_blanks(l);
        if (peek(l, 0) != '=')
            return fail(l, "expected '=' after a key in an inline table");
        l->pos++;
        skip_blanks(l);
        char *s = NULL;
        bool it;
        if (value(l, &s, &it, depth + 1) != 0)
            return -1;
        free(s);
        skip_space(l);
        if (peek(l, 0) == ',') {
            l->pos++;
            continue;
        }
        if (peek(l, 0) == '}') {
            l->pos++;
            return 0;
        }
        return fail(l, l->pos >= l->len ? "an inline table that does not end (expected '}')"
                                        : "expected ',' or '}' in an inline table");
    }
}

static bool token_char(char c)
{
    return bare_char(c) || c == ':' || c == '+' || c == '.';
}

/* A number, boolean or date: its characters, and a plausible start. */
static int scalar(struct lexer *l)
{
    size_t b = l->pos;
    while (token_char(peek(l, 0)))
        l->pos++;
    size_t n = l->pos - b;
    const char *t = l->s + b;
    /* a date-time may use a space between date and time: 1979-05-27 07:32:00 */
    if (n == 10 && t[4] == '-' && t[7] == '-' && peek(l, 0) == ' ' && peek(l, 1) >= '0' &&
        peek(l, 1) <= '9' && peek(l, 2) >= '0' && peek(l, 2) <= '9' && peek(l, 3) == ':') {
        l->pos++;
        while (token_char(peek(l, 0)))
            l->pos++;
    }
    bool word = (n == 4 && memcmp(t, "true", 4) == 0) || (n == 5 && memcmp(t, "false", 5) == 0);
    bool special = (n == 3 && (memcmp(t, "inf", 3) == 0 || memcmp(t, "nan", 3) == 0)) ||
                   (n == 4 && (t[0] == '+' || t[0] == '-') &&
                    (memcmp(t + 1, "inf", 3) == 0 || memcmp(t + 1, "nan", 3) == 0));
    bool number = n > 0 && ((t[0] >= '0' && t[0] <= '9') || t[0] == '+' || t[0] == '-');
    if (word || special || number)
        return 0;
    return fail(l, "expected a value (a string, number, true, false, date, array or inline "
                   "table); text needs quotes");
}

static int value(struct lexer *l, char **str, bool *inline_tbl, int depth)
{
    *str = NULL;
    *inline_tbl = false;
    if (depth > MAX_DEPTH)
        return fail(l, "nested too deeply");
    char c = peek(l, 0);
    if ((c == '"' || c == '\'') && peek(l, 1) == c && peek(l, 2) == c)
        return multi_line_string(l);
    if (c == '"' || c == '\'')
        return one_line_string(l, str);
    if (c == '[')
        return array(l, depth);
    if (c == '{') {
        *inline_tbl = true;
        return inline_table(l, depth);
    }
    if (l->pos >= l->len || at_newline(l) || c == '#')
        return fail(l, "expected a value after '='");
    return scalar(l);
}

/* ---- statements ------------------------------------------------------------- */

static bool same_path(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t k = 0; k < na; k++)
        if (strcmp(a[k], b[k]) != 0)
            return false;
    return true;
}

/* Is a (na parts) a prefix of b (or equal)? */
static bool prefix_of(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    return na <= nb && same_path(a, na, b, na);
}

static int push_stmt(struct lexer *l, struct pd_toml_file *doc, struct pd_toml_stmt *st)
{
    struct pd_toml_stmt *nv = realloc(doc->v, (doc->n + 1) * sizeof *nv);
    if (!nv)
        return fail(l, "out of memory");
    doc->v = nv;
    doc->v[doc->n++] = *st;
    return 0;
}

/* A table header defined twice: a later [x] repeats an earlier one unless
 * an array of tables [[p]] with p above x started a new element between. */
static int check_table(struct lexer *l, const struct pd_toml_file *doc, size_t j)
{
    const struct pd_toml_stmt *t = &doc->v[j];
    for (size_t i = 0; i < j; i++) {
        const struct pd_toml_stmt *s = &doc->v[i];
        if (s->kind != PD_TSTMT_TABLE || !same_path(CP(s->path), s->npath, CP(t->path), t->npath))
            continue;
        bool new_element = false;
        for (size_t k = i + 1; k < j; k++)
            new_element |= doc->v[k].kind == PD_TSTMT_ARRAY_TABLE && doc->v[k].npath < t->npath &&
                           prefix_of(CP(doc->v[k].path), doc->v[k].npath, CP(t->path), t->npath);
        if (!new_element) {
            char msg[128];
            snprintf(msg, sizeof msg, "a table defined twice (first at line %d)", s->line);
            return fail_at(l, t->line, msg);
        }
    }
    return 0;
}

static int check_key(struct lexer *l, const struct pd_toml_file *doc, size_t j)
{
    const struct pd_toml_stmt *t = &doc->v[j];
    for (size_t i = 0; i < j; i++) {
        const struct pd_toml_stmt *s = &doc->v[i];
        if (s->kind == PD_TSTMT_KEYVAL && s->table == t->table &&
            same_path(CP(s->path), s->npath, CP(t->path), t->npath)) {
            char msg[128];
            snprintf(msg, sizeof msg, "a key defined twice (first at line %d)", s->line);
            return fail_at(l, t->line, msg);
        }
    }
    return 0;
}

static int statement(struct lexer *l, struct pd_toml_file *doc, size_t line_start, size_t *table)
{
    struct pd_toml_stmt st = {.line = l->line, .line_start = line_start, .table = (size_t)-1};
    struct parts p = {0};
    const struct pd_toml_stmt *cur = *table == (size_t)-1 ? NULL : &doc->v[*table];
    if (peek(l, 0) == '[') {
        bool arr = peek(l, 1) == '[';
        l->pos += arr ? 2 : 1;
        if (key(l, &p) != 0)
            goto bad;
        if (peek(l, 0) != ']' || (arr && peek(l, 1) != ']')) {
            fail(l, arr ? "expected ']]' after the array table's name"
                        : "expected ']' after the table's name");
            goto bad;
        }
        l->pos += arr ? 2 : 1;
        st.kind = arr ? PD_TSTMT_ARRAY_TABLE : PD_TSTMT_TABLE;
        st.ntable = p.n;
    } else {
        for (size_t k = 0; cur && k < cur->npath; k++)
            if (parts_push(l, &p, strdup(cur->path[k])) != 0)
                goto bad;
        st.ntable = p.n;
        if (key(l, &p) != 0)
            goto bad;
        if (peek(l, 0) != '=') {
            fail(l, "expected '=' after the key");
            goto bad;
        }
        l->pos++;
        skip_blanks(l);
        st.kind = PD_TSTMT_KEYVAL;
        st.table = *table;
        st.vstart = l->pos;
        if (value(l, &st.str, &st.inline_table, 0) != 0)
            goto bad;
        st.vend = l->pos;
    }
    if (end_of_line(l) != 0)
        goto bad;
    st.line_end = l->pos;
    st.path = p.v;
    st.npath = p.n;
    if (push_stmt(l, doc, &st) != 0)
        goto bad;
    if (st.kind != PD_TSTMT_KEYVAL)
        *table = doc->n - 1;
    return st.kind == PD_TSTMT_TABLE    ? check_table(l, doc, doc->n - 1)
           : st.kind == PD_TSTMT_KEYVAL ? check_key(l, doc, doc->n - 1)
                                        : 0;
bad:
    free(st.str);
    parts_free(&p);
    return -1;
}

int pd_toml_file_read(const char *text, size_t len, struct pd_toml_file *doc, int *line, char *why,
                      size_t whylen)
{
    struct lexer l = {.s = text, .len = len, .line = 1, .why = why, .whylen = whylen};
    memset(doc, 0, sizeof *doc);
    size_t table = (size_t)-1;
    if (memchr(text, '\0', len)) {
        *line = 1;
        snprintf(why, whylen, "the file holds a NUL byte");
        return -1;
    }
    while (l.pos < len) {
        size_t line_start = l.pos;
        skip_blanks(&l);
        skip_comment(&l);
        if (l.pos >= len)
            break;
        if (at_newline(&l)) {
            take_newline(&l);
            continue;
        }
        if (statement(&l, doc, line_start, &table) != 0) {
            *line = l.err_line;
            pd_toml_file_free(doc);
            return -1;
        }
    }
    return 0;
}

void pd_toml_file_free(struct pd_toml_file *doc)
{
    for (size_t k = 0; k < doc->n; k++) {
        for (size_t j = 0; j < doc->v[k].npath; j++)
            free(doc->v[k].path[j]);
        free(doc->v[k].path);
        free(doc->v[k].str);
    }
    free(doc->v);
    doc->v = NULL;
    doc->n = 0;
}

const struct pd_toml_stmt *pd_toml_file_find(const struct pd_toml_file *doc,
                                             const char *const *path, size_t npath)
{
    for (size_t k = 0; k < doc->n; k++)
        if (doc->v[k].kind == PD_TSTMT_KEYVAL &&
            same_path(CP(doc->v[k].path), doc->v[k].npath, path, npath))
            return &doc->v[k];
    return NULL;
}

/* ---- editing -------------------------------------------------------------- */

static void put_basic_string(struct pd_text *t, const char *s)
{
    pd_text_put(t, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            pd_text_put(t, e, 2);
        } else if (c < 0x20 || c == 0x7f) {
            pd_text_printf(t, "\\u%04x", c);
        } else {
            pd_text_put(t, s, 1);
        }
    }
    pd_text_put(t, "\"", 1);
}

static void put_key(struct pd_text *t, const char *part)
{
    bool bare = part[0] != '\0';
    for (const char *c = part; *c; c++)
        bare &= bare_char(*c);
    if (bare)
        pd_text_puts(t, part);
    else
        put_basic_string(t, part);
}

static void put_path(struct pd_text *t, const char *const *path, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k)
            pd_text_put(t, ".", 1);
        put_key(t, path[k]);
    }
}

/* Why the table cannot be edited: it is defined another way, or lies in
 * a value. NULL when it can. */
static const struct pd_toml_stmt *conflict(const struct pd_toml_file *doc, const char *const *table,
                                           size_t ntable, const char **what)
{
    const char *const *tp = table;
    for (size_t k = 0; k < doc->n; k++) {
        const struct pd_toml_stmt *s = &doc->v[k];
        if (s->kind == PD_TSTMT_ARRAY_TABLE && prefix_of(CP(s->path), s->npath, tp, ntable)) {
            *what = "makes it part of an array of tables [[...]]";
            return s;
        }
        if (s->kind != PD_TSTMT_KEYVAL)
            continue;
        if (prefix_of(CP(s->path), s->npath, tp, ntable)) {
            *what = "gives it (or a table above it) a value, e.g. an inline table { ... }";
            return s;
        }
        if (s->npath > ntable && prefix_of(tp, ntable, CP(s->path), s->npath) &&
            s->ntable < ntable) {
            *what = "defines it with dotted keys";
            return s;
        }
    }
    return NULL;
}

int pd_toml_set_string(const char *text, size_t len, const char *const *table, size_t ntable,
                       const char *key_name, const char *val, char **out, int *line, char *why,
                       size_t whylen)
{
    struct pd_toml_file doc;
    *line = 0;
    if (pd_toml_file_read(text, len, &doc, line, why, whylen) != 0)
        return -1;
    const char *what = NULL;
    const struct pd_toml_stmt *c = conflict(&doc, table, ntable, &what);
    if (c) {
        struct pd_text t = {0};
        put_path(&t, table, ntable);
        *line = c->line;
        snprintf(why, whylen,
                 "this line %s; paldron edits only a [%s] table: set %s = \"%s\" "
                 "there by hand",
                 what, t.p ? t.p : "", key_name, val);
        pd_text_free(&t);
        pd_toml_file_free(&doc);
        return -1;
    }
    size_t header = (size_t)-1;
    for (size_t k = 0; k < doc.n; k++)
        if (doc.v[k].kind == PD_TSTMT_TABLE &&
            same_path(CP(doc.v[k].path), doc.v[k].npath, table, ntable))
            header = k;
    const struct pd_toml_stmt *kv = NULL;
    for (size_t k = 0; header != (size_t)-1 && k < doc.n; k++)
        if (doc.v[k].kind == PD_TSTMT_KEYVAL && doc.v[k].table == header &&
            doc.v[k].npath == ntable + 1 && strcmp(doc.v[k].path[ntable], key_name) == 0)
            kv = &doc.v[k];
    struct pd_text t = {0};
    if (kv && kv->str && strcmp(kv->str, val) == 0) {
        pd_text_put(&t, text, len); /* already so, however it is spelled */
    } else if (kv) {
        pd_text_put(&t, text, kv->vstart);
        put_basic_string(&t, val);
        pd_text_put(&t, text + kv->vend, len - kv->vend);
    } else if (header != (size_t)-1) {
        size_t at = doc.v[header].line_end;
        pd_text_put(&t, text, at);
        if (at > 0 && text[at - 1] != '\n')
            pd_text_put(&t, "\n", 1);
        put_key(&t, key_name);
        pd_text_puts(&t, " = ");
        put_basic_string(&t, val);
        pd_text_put(&t, "\n", 1);
        pd_text_put(&t, text + at, len - at);
    } else {
        pd_text_put(&t, text, len);
        if (len > 0 && text[len - 1] != '\n')
            pd_text_put(&t, "\n", 1);
        if (len > 0)
            pd_text_put(&t, "\n", 1);
        pd_text_put(&t, "[", 1);
        put_path(&t, table, ntable);
        pd_text_puts(&t, "]\n");
        put_key(&t, key_name);
        pd_text_puts(&t, " = ");
        put_basic_string(&t, val);
        pd_text_put(&t, "\n", 1);
    }
    pd_toml_file_free(&doc);
    char *res = pd_text_take(&t);
    if (!res) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    /* read it back: the key must now say val */
    const char *full[16];
    bool ok = ntable < 15;
    for (size_t k = 0; ok && k < ntable; k++)
        full[k] = table[k];
    full[ntable < 15 ? ntable : 0] = key_name;
    int l2;
    char why2[PD_MSG_MAX];
    if (ok && pd_toml_file_read(res, strlen(res), &doc, &l2, why2, sizeof why2) == 0) {
        const struct pd_toml_stmt *now = pd_toml_file_find(&doc, full, ntable + 1);
        ok = now && now->str && strcmp(now->str, val) == 0;
        pd_toml_file_free(&doc);
    } else {
        ok = false;
    }
    if (!ok) {
        free(res);
        snprintf(why, whylen, "internal error: the edited file does not read back");
        return -1;
    }
    *out = res;
    return 0;
}
