/* preload/ids.h - a refused change of owner or of the process's ids fails
 * with the error it has bare (wrap_ids.c). */
#ifndef PALDRON_PRELOAD_IDS_H
#define PALDRON_PRELOAD_IDS_H

#include <sys/types.h>

/* rc and errno of a chown-family call that was made with owner and group
 * (-1: unchanged) and AT_* flags (0 for the calls without): EINVAL turned
 * into EPERM when an id unmapped in this user namespace explains it. */
int pd_chown_as_bare(int rc, uid_t owner, gid_t group, int flags);

#endif
