/* policy/error.c - formatting of load and validation errors. */
#include <stdio.h>

#include "policy/policy.h"

void pd_error_format(const struct pd_error *e, char *buf, size_t len)
{
    if (e->file[0] && e->line > 0)
        snprintf(buf, len, "%s (%s:%d)", e->msg, e->file, e->line);
    else
        snprintf(buf, len, "%s", e->msg);
}
