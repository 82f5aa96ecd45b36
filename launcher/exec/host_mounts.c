/* launcher/exec/host_mounts.c - the mount namespace and the devices of its
 * mounts (host_mounts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "launcher/exec/host_mounts.h"

int pd_host_mounts(struct pd_image_host *h)
{
    memset(h, 0, sizeof *h);
    struct stat ns;
    if (stat("/proc/self/ns/mnt", &ns) != 0)
        return -1;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    uint64_t *devs = NULL;
    size_t n = 0, cap = 0;
    char line[4096];
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        /* "36 35 98:0 /mnt1 /mnt2 ...": the third field is major:minor */
        unsigned id, parent, major, minor;
        // NOLINTNEXTLINE(cert-err34-c): mountinfo is the kernel's; its numbers fit
        if (sscanf(line, "%u %u %u:%u", &id, &parent, &major, &minor) != 4)
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            uint64_t *p = realloc(devs, ncap * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            devs = p;
            cap = ncap;
        }
        devs[n++] = (uint64_t)makedev(major, minor);
    }
    int err = errno;
    if (ferror(f))
        rc = -1;
    fclose(f);
    if (rc != 0 || n == 0) {
        free(devs);
        errno = rc != 0 ? err : ENOENT;
        return -1;
    }
    h->mnt_ns = (uint64_t)ns.st_ino;
    h->devs = devs;
    h->ndevs = n;
    return 0;
}

void pd_host_mounts_free(struct pd_image_host *h)
{
    free((void *)(uintptr_t)h->devs);
    memset(h, 0, sizeof *h);
}
