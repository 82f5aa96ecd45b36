/* launcher/version.c - the version string baked in at build time. */
#include "launcher/launcher.h"

const char *pd_version(void)
{
    return PALDRON_VERSION;
}
