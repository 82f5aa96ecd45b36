/* policy/kernel_grants.h - what the kernel layers of an exec run grant,
 * handed from the launcher to the live gate in the compiled policy image
 * (policy/compiled_image.h), so that the preload can tell a call refused by
 * Landlock or by the namespace floor from one the file permissions refuse.
 *
 * The lists mirror the spec the launcher gives platform/ (the paths
 * resolved, missing ones left out, as Landlock leaves them out):
 *   exec   read + execute          (system folders or the floor, the program)
 *   read   read                    (workspace, read_paths, /proc ...)
 *   write  every right             (writable roots, temp home, /dev/shm, /tmp)
 *   dev    read + write, no create (/dev/null, /dev/pts ...)
 * and the namespace floor's read-only binds (protected paths, the policy
 * file), which refuse a write with EROFS.
 *
 * Pure data and string comparisons: safe in the preload. */
#ifndef PALDRON_POLICY_KERNEL_GRANTS_H
#define PALDRON_POLICY_KERNEL_GRANTS_H

#include <stdbool.h>

#include "policy/policy.h"

struct pd_kernel_grants {
    bool on;             /* an isolated run: Landlock (and seccomp) apply */
    bool no_exec_writes; /* allow_binaries: the write list grants no execution */
    struct pd_strv exec, read, write, dev;
    struct pd_strv readonly; /* namespace floor: bound read-only onto themselves */
};

void pd_kernel_grants_free(struct pd_kernel_grants *g);

/* Does Landlock grant op on abs (absolute, links resolved)? A create or a
 * delete needs the right on the folder that holds abs (the write list);
 * a read any list; a write the write or dev list; an exec the exec list,
 * or the write list when it grants execution. PD_OP_NAME counts as a
 * read. Always true when the kernel layers are off. */
bool pd_kernel_grants_allow(const struct pd_kernel_grants *g, enum pd_op op, const char *abs);

/* The namespace floor's read-only bind that abs lies in, or NULL. */
const char *pd_kernel_grants_readonly(const struct pd_kernel_grants *g, const char *abs);

#endif
