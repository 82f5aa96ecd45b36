/* policy/toml/toml_value.c - parse one value of the policy's TOML subset:
 * basic and literal strings, decimal integers and floats, booleans, and
 * arrays of strings (trailing comma allowed). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/toml/toml_lex.h"

const char *pd_toml_type_name(enum pd_toml_type t)
{
    switch (t) {
    case PD_TOML_STRING:
        return "a string";
    case PD_TOML_INT:
        return "an integer";
    case PD_TOML_FLOAT:
        return "a float";
    case PD_TOML_BOOL:
        return "a boolean";
    case PD_TOML_ARRAY:
        return "an array";
    }
    return "a value";
}

void pd_strv_free(struct pd_strv *s)
{
    for (size_t k = 0; k < s->n; k++)
        free(s->v[k]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void pd_strv_join(const struct pd_strv *s, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < s->n && n < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", k ? ", " : "", s->v[k]);
}

int pd_strv_push(struct pd_strv *s, const char *str)
{
    char *copy = strdup(str);
    char **nv = copy ? realloc(s->v, (s->n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(copy);
        return -1;
    }
    s->v = nv;
    s->v[s->n++] = copy;
    return 0;
}

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
}

static int put_utf8(char *out, size_t *n, unsigned long cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
        return -1;
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
    return 0;
}

/* Parse a string at *p (opening quote included); malloc'd result. */
static char *parse_string(const char **p, char *msg, size_t msglen)
{
    char q = **p;
    const char *s = *p + 1;
    char *out = malloc(strlen(s) * 4 + 1); /* \uXXXX never grows beyond 4 bytes per char */
    size_t n = 0;
    if (!out) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    for (;;) {
        char c = *s;
        if (c == '\0') {
            snprintf(msg, msglen, "unterminated string");
            goto fail;
        }
        if (c == q) {
            s++;
            break;
        }
        if ((unsigned char)c < 0x20 && c != '\t') {
            snprintf(msg, msglen, "control character inside a string");
            goto fail;
        }
        if (c == '\\' && q == '"') {
            char e = s[1];
            int digits = 0;
            s += 2;
            switch (e) {
            case 'b':
                out[n++] = '\b';
                break;
            case 't':
                out[n++] = '\t';
                break;
            case 'n':
                out[n++] = '\n';
                break;
            case 'f':
                out[n++] = '\f';
                break;
            case 'r':
                out[n++] = '\r';
                break;
            case '"':
                out[n++] = '"';
                break;
            case '\\':
                out[n++] = '\\';
                break;
            case 'u':
                digits = 4;
                break;
            case 'U':
                digits = 8;
                break;
            default:
                snprintf(msg, msglen, "unknown escape '\\%c' in a string", e ? e : '0');
                goto fail;
            }
            if (digits) {
                unsigned long cp = 0;
                for (int k = 0; k < digits; k++) {
                    char h = s[k];
                    int v = (h >= '0' && h <= '9')   ? h - '0'
                            : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                            : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                     : -1;
                    if (v < 0) {
                        snprintf(msg, msglen, "bad \\%c escape in a string",
                                 digits == 4 ? 'u' : 'U');
                        goto fail;
                    }
                    cp = cp * 16 + (unsigned long)v;
                }
                s += digits;
                if (put_utf8(out, &n, cp)) {
                    snprintf(msg, msglen, "escape names no valid character");
                    goto fail;
                }
            }
            continue;
        }
        out[n++] = c;
        s++;
    }
    out[n] = '\0';
    *p = s;
    return out;
fail:
    free(out);
    return NULL;
}

static bool at_value_end(const char *p)
{
    return *p == '\0' || *p == ' ' || *p == '\t' || *p == ',' || *p == ']';
}

static int parse_number(const char **p, struct pd_toml_value *out, char *msg, size_t msglen)
{
    char digits[64];
    size_t n = 0;
    bool is_float = false, prev_digit = false;
    const char *s = *p;
    if (*s == '+' || *s == '-')
        digits[n++] = *s++;
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
        snprintf(msg, msglen, "leading zeros are not allowed in numbers");
        return -1;
    }
    for (; !at_value_end(s); s++) {
        char c = *s;
        if (n + 1 >= sizeof digits) {
            snprintf(msg, msglen, "number too long");
            return -1;
        }
        if (c == '_') {
            if (!prev_digit || !(s[1] >= '0' && s[1] <= '9')) {
                snprintf(msg, msglen, "misplaced '_' in a number");
                return -1;
            }
            continue;
        }
        if (c >= '0' && c <= '9') {
            prev_digit = true;
        } else if (c == '.' || c == 'e' || c == 'E' ||
                   ((c == '+' || c == '-') && n &&
                    (digits[n - 1] == 'e' || digits[n - 1] == 'E'))) {
            is_float = true;
            prev_digit = false;
        } else {
            snprintf(msg, msglen, "not a value TOML knows here (strings need quotes)");
            return -1;
        }
        digits[n++] = c;
    }
    digits[n] = '\0';
    char *end = NULL;
    errno = 0;
    if (is_float) {
        double f = strtod(digits, &end);
        const char *dot = strchr(digits, '.');
        bool dot_ok = !dot || (dot > digits && dot[-1] >= '0' && dot[-1] <= '9' && dot[1] >= '0' &&
                               dot[1] <= '9');
        if (*end || errno || !isfinite(f) || !dot_ok) {
            snprintf(msg, msglen, "bad float '%s'", digits);
            return -1;
        }
        out->type = PD_TOML_FLOAT;
        out->f = f;
    } else {
        long long i = strtoll(digits, &end, 10);
        if (*end || errno || n == 0 || (n == 1 && (digits[0] == '+' || digits[0] == '-'))) {
            snprintf(msg, msglen,
                     errno == ERANGE ? "integer '%s' is out of range" : "bad integer '%s'", digits);
            return -1;
        }
        out->type = PD_TOML_INT;
        out->i = i;
    }
    *p = s;
    return 0;
}

static int parse_scalar(const char **p, struct pd_toml_value *out, char *msg, size_t msglen)
{
    const char *s = *p;
    memset(out, 0, sizeof *out);
    if (*s == '"' || *s == '\'') {
        out->type = PD_TOML_STRING;
        out->str = parse_string(p, msg, msglen);
        return out->str ? 0 : -1;
    }
    if (strncmp(s, "true", 4) == 0 && at_value_end(s + 4)) {
        out->type = PD_TOML_BOOL;
        out->b = 1;
        *p = s + 4;
        return 0;
    }
    if (strncmp(s, "false", 5) == 0 && at_value_end(s + 5)) {
        out->type = PD_TOML_BOOL;
        out->b = 0;
        *p = s + 5;
        return 0;
    }
    if (*s == '+' || *s == '-' || (*s >= '0' && *s <= '9'))
        return parse_number(p, out, msg, msglen);
    if (*s == '{') {
        snprintf(msg, msglen, "inline tables are not part of the policy format");
        return -1;
    }
    snprintf(msg, msglen, "not a value TOML knows here (strings need quotes)");
    return -1;
}

static int parse_array(const char **p, struct pd_toml_value *out, char *msg, size_t msglen)
{
    const char *s = *p + 1;
    memset(out, 0, sizeof *out);
    out->type = PD_TOML_ARRAY;
    for (;;) {
        skip_ws(&s);
        if (*s == ']') {
            s++;
            break;
        }
        if (*s == '[') {
            snprintf(msg, msglen, "nested arrays are not part of the policy format");
            goto fail;
        }
        struct pd_toml_value item;
        if (parse_scalar(&s, &item, msg, msglen))
            goto fail;
        if (item.type != PD_TOML_STRING) {
            snprintf(msg, msglen, "arrays may hold only strings, found %s",
                     pd_toml_type_name(item.type));
            pd_toml_value_free(&item);
            goto fail;
        }
        int rc = pd_strv_push(&out->arr, item.str);
        pd_toml_value_free(&item);
        if (rc) {
            snprintf(msg, msglen, "out of memory");
            goto fail;
        }
        skip_ws(&s);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == ']') {
            s++;
            break;
        }
        snprintf(msg, msglen,
                 *s ? "expected ',' or ']' in an array" : "unterminated array (missing ']')");
        goto fail;
    }
    *p = s;
    return 0;
fail:
    pd_strv_free(&out->arr);
    return -1;
}

int pd_toml_value(const char *raw, struct pd_toml_value *out, char *msg, size_t msglen)
{
    const char *p = raw;
    skip_ws(&p);
    int rc = *p == '[' ? parse_array(&p, out, msg, msglen) : parse_scalar(&p, out, msg, msglen);
    if (rc)
        return -1;
    skip_ws(&p);
    if (*p) {
        snprintf(msg, msglen, "unexpected text after the value: '%.20s'", p);
        pd_toml_value_free(out);
        return -1;
    }
    return 0;
}

void pd_toml_value_free(struct pd_toml_value *v)
{
    free(v->str);
    v->str = NULL;
    pd_strv_free(&v->arr);
}
