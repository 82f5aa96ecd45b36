/* launcher/init/init_json.c - a JSON reader that remembers where each value is.
 * `paldron init` edits settings files that people wrote and read: it
 * changes the few bytes of the hook and keeps every other byte (spacing,
 * key order, number spelling) as it was, which a parse-and-print library
 * cannot do. Strict RFC 8259; errors name the line. Strings are decoded
 * (escapes, \u surrogate pairs to UTF-8); a string holding \u0000 is
 * refused (these are C strings) and so is a key given twice in an object
 * (Claude Code's reader keeps the last, cJSON the first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

#define MAX_DEPTH 200

struct parser {
    const char *s;
    size_t len, pos;
    size_t err_pos;
    char *why;
    size_t whylen;
    bool failed;
};

static int fail(struct parser *p, size_t at, const char *msg)
{
    if (!p->failed) {
        p->failed = true;
        p->err_pos = at;
        snprintf(p->why, p->whylen, "%s", msg);
    }
    return -1;
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
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

static long hex4(const char *s)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(s[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A string at p->pos (its '"'): decoded into *out. */
static int parse_string(struct parser *p, char **out)
{
    struct pd_text t = {0};
    size_t start = p->pos++;
    while (p->pos < p->len) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            *out = pd_text_take(&t);
            return *out ? 0 : fail(p, start, "out of memory");
        }
        if (c < 0x20) {
            pd_text_free(&t);
            return fail(p, p->pos, "a control character (a raw newline or tab?) inside a string");
        }
        if (c != '\\') {
            pd_text_put(&t, p->s + p->pos, 1);
            p->pos++;
            continue;
        }
        if (p->pos + 1 >= p->len)
            break;
        char e = p->s[p->pos + 1];
        const char *plain = strchr("\"\\/bfnrt", e);
        if (plain && e) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            pd_text_put(&t, &to[plain - "\"\\/bfnrt"], 1);
            p->pos += 2;
            continue;
        }
        if (e != 'u') {
            pd_text_free(&t);
            return fail(p, p->pos, "an invalid escape in a string");
        }
        long cp = p->pos + 6 <= p->len ? hex4(p->s + p->pos + 2) : -1;
        if (cp < 0) {
            pd_text_free(&t);
            return fail(p, p->pos, "an invalid \\u escape in a string");
        }
        p->pos += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            long lo = p->pos + 6 <= p->len && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u'
                          ? hex4(p->s + p->pos + 2)
                          : -1;
            if (lo < 0xDC00 || lo > 0xDFFF) {
                pd_text_free(&t);
                return fail(p, p->pos, "a \\u escape with half a surrogate pair");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p->pos += 6;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            pd_text_free(&t);
            return fail(p, p->pos, "a \\u escape with half a surrogate pair");
        }
        if (cp == 0) {
            pd_text_free(&t);
            return fail(p, p->pos, "\\u0000 in a string");
        }
        pd_text_put_utf8(&t, (unsigned long)cp);
    }
    pd_text_free(&t);
    return fail(p, start, "a string that does not end");
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static int parse_number(struct parser *p, struct pd_json *v)
{
    size_t k = p->pos;
    if (k < p->len && p->s[k] == '-')
        k++;
    if (k < p->len && p->s[k] == '0')
        k++;
    else if (k < p->len && digit(p->s[k]))
        while (k < p->len && digit(p->s[k]))
            k++;
    else
        return fail(p, p->pos, "an invalid number");
    if (k < p->len && p->s[k] == '.') {
        if (++k >= p->len || !digit(p->s[k]))
            return fail(p, p->pos, "an invalid number");
        while (k < p->len && digit(p->s[k]))
            k++;
    }
    if (k < p->len && (p->s[k] == 'e' || p->s[k] == 'E')) {
        k++;
        if (k < p->len && (p->s[k] == '+' || p->s[k] == '-'))
            k++;
        if (k >= p->len || !digit(p->s[k]))
            return fail(p, p->pos, "an invalid number");
        while (k < p->len && digit(p->s[k]))
            k++;
    }
    char buf[64];
    size_t n = k - p->pos < sizeof buf - 1 ? k - p->pos : sizeof buf - 1;
    memcpy(buf, p->s + p->pos, n);
    buf[n] = '\0';
    v->kind = PD_JSON_NUMBER;
    v->num = strtod(buf, NULL);
    p->pos = k;
    return 0;
}

static int parse_value(struct parser *p, struct pd_json *v, int depth);

static int push_kid(struct parser *p, struct pd_json *parent, struct pd_json *kid)
{
    struct pd_json *nv = realloc(parent->kids, (parent->n + 1) * sizeof *nv);
    if (!nv) {
        pd_json_free(kid);
        return fail(p, p->pos, "out of memory");
    }
    parent->kids = nv;
    parent->kids[parent->n++] = *kid;
    return 0;
}

static int parse_members(struct parser *p, struct pd_json *v, int depth)
{
    bool object = v->kind == PD_JSON_OBJECT;
    char close = object ? '}' : ']';
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        struct pd_json kid = {0};
        skip_ws(p);
        if (object) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail(p, p->pos, "expected a key in double quotes");
            kid.key_start = p->pos;
            if (parse_string(p, &kid.key) != 0)
                return -1;
            if (pd_json_get(v, kid.key)) {
                char msg[PD_MSG_MAX];
                snprintf(msg, sizeof msg, "the key \"%.200s\" appears twice in one object",
                         kid.key);
                free(kid.key);
                return fail(p, kid.key_start, msg);
            }
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(kid.key);
                return fail(p, p->pos, "expected ':' after a key");
            }
            p->pos++;
            skip_ws(p);
        }
        if (parse_value(p, &kid, depth + 1) != 0) {
            pd_json_free(&kid);
            return -1;
        }
        if (push_kid(p, v, &kid) != 0)
            return -1;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == close)
                return fail(p, p->pos,
                            object ? "a comma before '}' (JSON allows no trailing comma)"
                                   : "a comma before ']' (JSON allows no trailing comma)");
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return 0;
        }
        return fail(p, p->pos,
                    object ? "expected ',' or '}' after a member"
                           : "expected ',' or ']' after an element");
    }
}

static int parse_value(struct parser *p, struct pd_json *v, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(p, p->pos, "nested too deeply");
    skip_ws(p);
    v->start = p->pos;
    if (p->pos >= p->len)
        return fail(p, p->pos, "expected a value, found the end of the file");
    char c = p->s[p->pos];
    int rc;
    if (c == '{' || c == '[') {
        v->kind = c == '{' ? PD_JSON_OBJECT : PD_JSON_ARRAY;
        rc = parse_members(p, v, depth);
    } else if (c == '"') {
        v->kind = PD_JSON_STRING;
        rc = parse_string(p, &v->str);
    } else if (c == '-' || digit(c)) {
        rc = parse_number(p, v);
    } else {
        static const struct {
            const char *word;
            enum pd_json_kind kind;
        } words[] = {{"true", PD_JSON_TRUE}, {"false", PD_JSON_FALSE}, {"null", PD_JSON_NULL}};
        size_t k = 0;
        while (k < 3 && !(p->len - p->pos >= strlen(words[k].word) &&
                          memcmp(p->s + p->pos, words[k].word, strlen(words[k].word)) == 0))
            k++;
        if (k < 3) {
            v->kind = words[k].kind;
            p->pos += strlen(words[k].word);
            rc = 0;
        } else {
            rc = fail(p, p->pos,
                      "expected a value (an object, array, string, number, true, "
                      "false or null)");
        }
    }
    v->end = p->pos;
    return rc;
}

int pd_json_parse(const char *text, size_t len, struct pd_json *root, int *line, char *why,
                  size_t whylen)
{
    struct parser p = {.s = text, .len = len, .why = why, .whylen = whylen};
    memset(root, 0, sizeof *root);
    int rc = parse_value(&p, root, 0);
    if (rc == 0) {
        skip_ws(&p);
        if (p.pos < len)
            rc = fail(&p, p.pos, "more text after the JSON value");
    }
    if (rc == 0)
        return 0;
    pd_json_free(root);
    *line = 1;
    for (size_t k = 0; k < p.err_pos && k < len; k++)
        *line += text[k] == '\n';
    return -1;
}

void pd_json_free(struct pd_json *v)
{
    for (size_t k = 0; k < v->n; k++)
        pd_json_free(&v->kids[k]);
    free(v->kids);
    free(v->key);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const struct pd_json *pd_json_get(const struct pd_json *v, const char *key)
{
    if (!v || v->kind != PD_JSON_OBJECT)
        return NULL;
    for (size_t k = 0; k < v->n; k++)
        if (v->kids[k].key && strcmp(v->kids[k].key, key) == 0)
            return &v->kids[k];
    return NULL;
}

void pd_json_put_string(struct pd_text *t, const char *s)
{
    pd_text_put(t, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            pd_text_put(t, e, 2);
        } else if (c == '\n') {
            pd_text_puts(t, "\\n");
        } else if (c == '\t') {
            pd_text_puts(t, "\\t");
        } else if (c == '\r') {
            pd_text_puts(t, "\\r");
        } else if (c < 0x20) {
            pd_text_printf(t, "\\u%04x", c);
        } else {
            pd_text_put(t, s, 1);
        }
    }
    pd_text_put(t, "\"", 1);
}
