/* preload/sandbox_view.h - writes outside the writable roots by name that
 * are inside them, or outside the host, by identity: what a sandbox that a
 * program under `paldron env` makes for itself (bwrap, Codex's own) looks
 * like to the live gate.
 *
 * Such a sandbox builds its tree in a mount namespace of its own: a fresh
 * tmpfs (its "newroot" and mount points, which no host mount held) and the
 * host's folders bound at other names (/tmp at /newroot/tmp). By name these
 * writes lie outside the writable roots; by identity the first store
 * nothing the host can see, and the second are in a root. The patterns
 * (deny_globs, secrets, protected paths) were judged on the name already;
 * only the rule of the writable roots, which is about the host's files, is
 * asked again here, by device and inode (as Landlock asks it). The image
 * holds what this needs when `paldron env` wrote it (struct pd_image_host);
 * under exec it does not, and these functions say false. */
#ifndef PALDRON_PRELOAD_SANDBOX_VIEW_H
#define PALDRON_PRELOAD_SANDBOX_VIEW_H

#include <stdbool.h>

#include "policy/compiled_image.h"
#include "policy/policy.h"

/* Does op on abs (absolute, physical as this process sees it) write a
 * tmpfs that no host mount held, from outside the host's mount namespace? */
bool pd_private_tmpfs(const struct pd_image *im, enum pd_op op, const char *abs);

/* Does op on abs land in a writable root by identity: is the directory it
 * acts in, or one above it, a root's very directory? */
bool pd_in_root_by_identity(const struct pd_image *im, enum pd_op op, const char *abs);

#endif
