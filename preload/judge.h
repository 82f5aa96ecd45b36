/* preload/judge.h - what every wrapper does around the real call: enter
 * (recursion guard, errno saved, state), judge the paths the call touches
 * through the policy/ gates, report, and leave (errno restored on the allow
 * path, or set to the denial's errno). */
#ifndef PALDRON_PRELOAD_JUDGE_H
#define PALDRON_PRELOAD_JUDGE_H

#include <stdbool.h>

#include "policy/policy.h"
#include "preload/state.h"
#include "preload/symtab.h"

/* One wrapped call in progress. */
struct pd_call {
    int guard;             /* previous recursion depth */
    int saved_errno;       /* errno on entry */
    bool entered;          /* the guard was taken */
    struct pd_state state; /* what pd_enter returned */
};

/* Enter a wrapper. Returns the state to gate with (held in call), or NULL
 * when the call passes straight through (Paldron code is already running
 * in this thread, or no policy: an unrelated process). Always pair with
 * pd_leave/pd_fail. */
const struct pd_state *pd_enter(struct pd_call *call);

/* Leave: release the guard, restore errno. */
void pd_leave(struct pd_call *call);

/* Leave with a denial: returns -1 with errno = err. */
int pd_fail(struct pd_call *call, int err);

/* The real function or a loud ENOSYS: use as `PD_NEED(open, -1);`. */
#define PD_NEED(name, fail)                                                                        \
    do {                                                                                           \
        pd_bind();                                                                                 \
        if (!pd_real.name) {                                                                       \
            pd_missing(#name);                                                                     \
            return fail;                                                                           \
        }                                                                                          \
    } while (0)

/* pd_path_ok flags. */
#define PD_J_CREATE_IF_MISSING 1u /* PD_OP_WRITE on a missing file is PD_OP_CREATE */
/* The call acts on the name, not on what a link there leads to (unlink,
 * rename, mkdir, lchown...): judge the name (pd_gate_name), and ask whether
 * it exists without following a link. */
#define PD_J_NAME 2u
/* A create that the kernel refuses with EEXIST when the name exists
 * (mkdir, mknod, symlink, link's new name, O_CREAT|O_EXCL, bind): an
 * existing name passes unjudged, the call fails as it would bare. */
#define PD_J_EXISTING_PASSES 4u
/* The call creates a folder (mkdir): a refusal's record names it with a
 * trailing '/', so that the advice names the folder itself. */
#define PD_J_DIR 8u

/* Judge op on (dirfd, path) before the call. Relative paths are resolved
 * against dirfd (AT_FDCWD: the working directory). Reports what it denies
 * (or, in audit mode, would deny). True: the call may go ahead. */
bool pd_path_ok(const struct pd_state *s, enum pd_op op, int dirfd, const char *path,
                unsigned flags);

/* Judge reading what fd, just opened from (dirfd, path), refers to. abs is
 * the physical path when the caller knows it (NULL: ask /proc/self/fd). */
bool pd_opened_ok(const struct pd_state *s, int fd, int dirfd, const char *path, const char *abs);

/* Report a verdict of any gate for op on subject; true when the call may
 * go ahead (allowed, or audit mode). */
bool pd_verdict_ok(const struct pd_state *s, const char *op, const char *subject,
                   const struct pd_verdict *v);

/* The policy could not be loaded (PD_MODE_CLOSED): trace and refuse. */
bool pd_closed_ok(const struct pd_state *s, const char *op, const char *subject);

/* The materialized policy for a slow path; NULL (traced) when there is no
 * memory for it: the caller refuses the call. */
const struct pd_full *pd_full_or_refuse(const struct pd_state *s, const char *op,
                                        const char *subject);

/* The absolute path of (dirfd, path), lexically cleaned (no file-system
 * access beyond the base directory, pd_base_dir). False when the base is
 * unknown. */
bool pd_abs_path(int dirfd, const char *path, char *out, size_t len);

/* The directory a relative path at dirfd is resolved against: the working
 * directory for AT_FDCWD, else the directory dirfd refers to. 0 or -1.
 * The working directory is cached (one copy per process) until
 * pd_cwd_changed. */
int pd_base_dir(int dirfd, char *out, size_t len);

/* The working directory may have changed (chdir, fchdir, chroot, and any
 * rename, which may have renamed one of its ancestors). */
void pd_cwd_changed(void);

#endif
