/* launcher/exec/exec_findings.c - the findings list (exec_findings.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/exec/exec_findings.h"

int pd_findings_add(struct pd_findings *f, const char *path, const char *fmt, ...)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        struct pd_finding *nv = realloc(f->v, cap * sizeof *nv);
        if (!nv) {
            f->lost = 1;
            return -1;
        }
        f->v = nv;
        f->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    int rc = vasprintf(&msg, fmt, ap);
    va_end(ap);
    char *p = strdup(path ? path : "");
    if (rc < 0 || !p) {
        free(p);
        if (rc >= 0)
            free(msg);
        f->lost = 1;
        return -1;
    }
    f->v[f->n].path = p;
    f->v[f->n].message = msg;
    f->n++;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    const struct pd_finding *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : strcmp(x->message, y->message);
}

void pd_findings_sort(struct pd_findings *f)
{
    if (f->n < 2)
        return;
    /* Stable for equal paths would need more; the message order only
     * decides which of several messages for one path is shown. */
    qsort(f->v, f->n, sizeof *f->v, cmp);
    size_t out = 1;
    for (size_t k = 1; k < f->n; k++) {
        if (strcmp(f->v[k].path, f->v[out - 1].path) == 0) {
            free(f->v[k].path);
            free(f->v[k].message);
            continue;
        }
        f->v[out++] = f->v[k];
    }
    f->n = out;
}

int pd_findings_take(struct pd_findings *dst, struct pd_findings *src)
{
    int rc = 0;
    for (size_t k = 0; k < src->n; k++) {
        if (pd_findings_add(dst, src->v[k].path, "%s", src->v[k].message) < 0)
            rc = -1;
    }
    if (src->lost)
        dst->lost = 1;
    pd_findings_free(src);
    return rc;
}

void pd_findings_free(struct pd_findings *f)
{
    for (size_t k = 0; k < f->n; k++) {
        free(f->v[k].path);
        free(f->v[k].message);
    }
    free(f->v);
    f->v = NULL;
    f->n = f->cap = 0;
    f->lost = 0;
}
