/* launcher/exec/host_mounts.h - the mounts of this process's mount namespace, as
 * `paldron env` hands them to the live gate (policy/compiled_image.h,
 * struct pd_image_host), so that a sandbox a program under it makes is
 * told from the host (preload/private_fs.c). */
#ifndef PALDRON_LAUNCHER_HOST_MOUNTS_H
#define PALDRON_LAUNCHER_HOST_MOUNTS_H

#include "policy/compiled_image.h"

/* Fill h from /proc/self/ns/mnt and /proc/self/mountinfo; h->devs is
 * malloc'd (free with pd_host_mounts_free). 0, or -1 with errno (then h
 * says nothing: mnt_ns 0). */
int pd_host_mounts(struct pd_image_host *h);
void pd_host_mounts_free(struct pd_image_host *h);

#endif
