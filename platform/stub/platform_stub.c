/* platform/stub/platform_stub.c - platform.h where Paldron has no isolation
 * backend: the probe reports nothing, and check and apply refuse, so that
 * nothing ever runs unconfined (fail closed). */
#include <stdio.h>
#include <string.h>

#include "platform/platform.h"

#define UNSUPPORTED "OS isolation is not supported on this system"

void pd_platform_probe(struct pd_platform_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->landlock_error, sizeof info->landlock_error, "%s", UNSUPPORTED);
}

int pd_platform_check(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen, char *warn, size_t warnlen)
{
    (void)spec;
    (void)info;
    if (warnlen > 0)
        warn[0] = '\0';
    if (errlen > 0)
        snprintf(err, errlen, "%s", UNSUPPORTED);
    return -1;
}

int pd_platform_apply(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen)
{
    (void)spec;
    (void)info;
    if (errlen > 0)
        snprintf(err, errlen, "%s", UNSUPPORTED);
    return -1;
}
