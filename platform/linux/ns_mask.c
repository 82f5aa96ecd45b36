/* platform/linux/ns_mask.c - what exists when the run starts and must stay
 * out of reach of every process of it, static binaries and raw system
 * calls included (the live gate only sees cooperative libc calls):
 *   protected paths  bound read-only onto themselves (readable, never
 *                    written: a write gets EROFS, a rename or unlink EBUSY);
 *   secrets          an empty, mode-0 file or directory mounted read-only
 *                    over each (a read gets EACCES, a write EROFS);
 *   host sockets     the same empty file over each pathname UNIX socket the
 *                    run may not connect to (EACCES / ECONNREFUSED), since
 *                    Landlock ABI 7 has no rule for connecting to one.
 * The masks' source lives in the private /tmp only while they are mounted,
 * then it is unlinked: the mounts keep the inodes, nothing names them. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/linux/backend.h"

#define MASK_FILE  "/tmp/.paldron-mask-file"
#define MASK_DIR   "/tmp/.paldron-mask-dir"
#define MASK_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* Mount a mask over path (kind by what path resolves to; a path that is
 * gone or out of reach is skipped: nothing to hide there). Returns 1 if
 * masked, 0 if skipped, -1 on error. */
static int mask(const char *path, bool readonly_self, const struct stat *masks, char *err,
                size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP)
            return 0;
        pd_errf(err, errlen, "mount namespace: stat %s: %s", path, strerror(errno));
        return -1;
    }
    /* A link to a secret masked already resolves to the mask itself:
     * mounting there again would make the mask's source a mount point.
     * masks NULL: there is no mask (nothing is hidden). */
    for (int k = 0; masks && k < 2; k++)
        if (st.st_dev == masks[k].st_dev && st.st_ino == masks[k].st_ino)
            return 0;
    const char *src = readonly_self ? path : S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE;
    unsigned long extra = readonly_self ? MS_RDONLY | MS_NOSUID | MS_NODEV : MASK_FLAGS;
    if (pd_ns_bind(src, path, extra, readonly_self, err, errlen) != 0)
        return -1;
    return 1;
}

static int mask_list(const struct pd_path_list *l, bool readonly_self, const struct stat *masks,
                     unsigned *count, char *err, size_t errlen)
{
    for (size_t k = 0; k < l->n; k++) {
        int r = mask(l->v[k], readonly_self, masks, err, errlen);
        if (r < 0)
            return -1;
        *count += (unsigned)r;
    }
    return 0;
}

int pd_ns_masks(const struct pd_ns_spec *ns, struct pd_ns_report *report, char *err, size_t errlen)
{
    if (ns->hide.n + ns->readonly.n + ns->sockets.n == 0)
        return 0;
    /* Protected paths alone are bound onto themselves: no mask to make. */
    if (ns->hide.n + ns->sockets.n == 0)
        return mask_list(&ns->readonly, true, NULL, &report->readonly, err, errlen);
    int fd = open(MASK_FILE, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
    if (fd < 0 || close(fd) != 0 || mkdir(MASK_DIR, 0) != 0) {
        pd_errf(err, errlen, "mount namespace: create the mask in /tmp: %s", strerror(errno));
        return -1;
    }
    /* Read-only binds first: a later mask inside one of them stays on top
     * (a bind made after the mask would not carry it). */
    struct stat masks[2];
    if (stat(MASK_FILE, &masks[0]) != 0 || stat(MASK_DIR, &masks[1]) != 0) {
        pd_errf(err, errlen, "mount namespace: stat the mask: %s", strerror(errno));
        return -1;
    }
    int rc = -1;
    if (mask_list(&ns->readonly, true, masks, &report->readonly, err, errlen) == 0 &&
        mask_list(&ns->hide, false, masks, &report->hidden, err, errlen) == 0 &&
        mask_list(&ns->sockets, false, masks, &report->sockets, err, errlen) == 0)
        rc = 0;
    if (unlink(MASK_FILE) != 0 || rmdir(MASK_DIR) != 0) {
        if (rc == 0)
            pd_errf(err, errlen, "mount namespace: remove the mask source: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}
