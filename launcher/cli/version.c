/* launcher/cli/version.c - the version string stamped at build time
 * (cmake/version.cmake: the project's version and git describe). */
#include "launcher/launcher.h"
#include "paldron_version.h"

const char *pd_version(void)
{
    return PALDRON_VERSION;
}
