/* launcher/init/init_text.c - a growable text for the files and reports that
 * init and doctor compose. An allocation failure is remembered (oom) and
 * turns the result into NULL, so callers check once at the end. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

static bool reserve(struct pd_text *t, size_t more)
{
    if (t->oom)
        return false;
    if (t->n + more + 1 <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->n + more + 1)
        cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) {
        t->oom = true;
        return false;
    }
    t->p = p;
    t->cap = cap;
    return true;
}

void pd_text_put(struct pd_text *t, const char *s, size_t len)
{
    if (!reserve(t, len))
        return;
    memcpy(t->p + t->n, s, len);
    t->n += len;
    t->p[t->n] = '\0';
}

void pd_text_puts(struct pd_text *t, const char *s)
{
    pd_text_put(t, s, strlen(s));
}

void pd_text_printf(struct pd_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = true;
        return;
    }
    if (!reserve(t, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(t->p + t->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->n += (size_t)n;
}

void pd_text_put_shquoted(struct pd_text *t, const char *s)
{
    pd_text_put(t, "'", 1);
    for (const char *q; (q = strchr(s, '\''));) {
        pd_text_put(t, s, (size_t)(q - s));
        pd_text_put(t, "'\\''", 4);
        s = q + 1;
    }
    pd_text_puts(t, s);
    pd_text_put(t, "'", 1);
}

void pd_text_put_utf8(struct pd_text *t, unsigned long cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    pd_text_put(t, b, n);
}

char *pd_text_take(struct pd_text *t)
{
    if (!reserve(t, 0)) {
        pd_text_free(t);
        return NULL;
    }
    t->p[t->n] = '\0';
    char *p = t->p;
    t->p = NULL;
    t->n = t->cap = 0;
    return p;
}

void pd_text_free(struct pd_text *t)
{
    free(t->p);
    t->p = NULL;
    t->n = t->cap = 0;
    t->oom = false;
}
