/* policy/toml/toml_lex.c - cut a policy file into logical "key = value" entries.
 * Strings are tracked so that '#' and newlines inside them are not taken for
 * comments or ends; multi-line arrays are joined into one value text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/toml/toml_lex.h"

static int set_err(struct pd_error *err, int line, const char *msg)
{
    snprintf(err->msg, sizeof err->msg, "policy malformed: %s", msg);
    err->line = line;
    return -1;
}

static bool is_key_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

static int push_entry(struct pd_toml_doc *doc, char *key, char *raw, int line)
{
    struct pd_toml_entry *nv = realloc(doc->v, (doc->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    doc->v = nv;
    doc->v[doc->n].key = key;
    doc->v[doc->n].raw = raw;
    doc->v[doc->n].line = line;
    doc->n++;
    return 0;
}

/* Growable byte buffer for one value's text. */
struct buf {
    char *p;
    size_t n, cap;
};

static int buf_put(struct buf *b, char c)
{
    if (b->n + 2 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        char *np = realloc(b->p, cap);
        if (!np)
            return -1;
        b->p = np;
        b->cap = cap;
    }
    b->p[b->n++] = c;
    b->p[b->n] = '\0';
    return 0;
}

/* Read the value text starting at text[*pos] up to the end of the logical
 * line. Comments are dropped, newlines inside arrays become spaces. */
static int scan_value(const char *text, size_t len, size_t *pos, int *line, int key_line,
                      struct buf *out, struct pd_error *err)
{
    size_t i = *pos;
    int depth = 0;
    char quote = 0; /* '"' or '\'' while inside a string */
    while (i < len) {
        char c = text[i];
        if (quote) {
            if (c == '\n' || c == '\r')
                return set_err(err, *line, "newline inside a string");
            if (buf_put(out, c))
                goto oom;
            if (c == '\\' && quote == '"' && i + 1 < len && text[i + 1] != '\n') {
                if (buf_put(out, text[i + 1]))
                    goto oom;
                i += 2;
                continue;
            }
            if (c == quote)
                quote = 0;
            i++;
            continue;
        }
        if (c == '"' || c == '\'') {
            if (i + 2 < len && text[i + 1] == c && text[i + 2] == c)
                return set_err(err, *line, "multi-line strings are not supported");
            quote = c;
        } else if (c == '#') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        } else if (c == '[') {
            depth++;
        } else if (c == ']') {
            depth--;
        } else if (c == '\n') {
            (*line)++;
            if (depth <= 0) {
                i++;
                break;
            }
            c = ' ';
        } else if (c == '\r') {
            c = ' ';
        }
        if (buf_put(out, c))
            goto oom;
        i++;
    }
    if (quote)
        return set_err(err, key_line, "unterminated string");
    if (depth > 0)
        return set_err(err, key_line, "unterminated array (missing ']')");
    *pos = i;
    return 0;
oom:
    return set_err(err, key_line, "out of memory");
}

static char *trimmed_copy(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

int pd_toml_split(const char *text, size_t len, struct pd_toml_doc *doc, struct pd_error *err)
{
    size_t i = 0;
    int line = 1;
    doc->v = NULL;
    doc->n = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    if (memchr(text, '\0', len))
        return set_err(err, 0, "the file holds a NUL byte");
    while (i < len) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (c == '\n') {
            line++;
            i++;
            continue;
        }
        if (c == '#') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '[') {
            size_t s = ++i;
            while (i < len && text[i] != ']' && text[i] != '\n')
                i++;
            char *name = trimmed_copy(text + s, i - s);
            snprintf(err->msg, sizeof err->msg, "policy unknown key: %s", name ? name : "");
            free(name);
            err->line = line;
            goto fail;
        }
        size_t ks = i;
        while (i < len && is_key_char(text[i]))
            i++;
        if (i == ks) {
            char msg[96];
            snprintf(msg, sizeof msg, "expected a key, found '%c'", c);
            set_err(err, line, msg);
            goto fail;
        }
        size_t ke = i;
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i >= len || text[i] != '=') {
            set_err(err, line, "expected '=' after the key");
            goto fail;
        }
        i++;
        int key_line = line;
        struct buf val = {0};
        if (scan_value(text, len, &i, &line, key_line, &val, err)) {
            free(val.p);
            goto fail;
        }
        char *key = trimmed_copy(text + ks, ke - ks);
        char *raw = trimmed_copy(val.p ? val.p : "", val.n);
        free(val.p);
        if (!key || !raw || !raw[0] || push_entry(doc, key, raw, key_line)) {
            bool empty = raw && !raw[0];
            free(key);
            free(raw);
            set_err(err, key_line, empty ? "missing value after '='" : "out of memory");
            goto fail;
        }
    }
    return 0;
fail:
    pd_toml_doc_free(doc);
    return -1;
}

void pd_toml_doc_free(struct pd_toml_doc *doc)
{
    for (size_t k = 0; k < doc->n; k++) {
        free(doc->v[k].key);
        free(doc->v[k].raw);
    }
    free(doc->v);
    doc->v = NULL;
    doc->n = 0;
}
