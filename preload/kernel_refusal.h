/* preload/kernel_refusal.h - a call the live gate let through came back
 * refused: did a kernel layer refuse it (Landlock, the seccomp filter, the
 * namespace floor), or the file permissions as they would bare? When a
 * layer did, a PD_REPORT_BLOCKED record names it:
 *
 *   paldron: blocked: cat read /home/u/notes.txt (landlock: outside the readable roots)
 *
 * Called after the real call failed, with its error: only the failure path
 * pays, and the caller sees exactly the kernel's result (errno is kept).
 * Each decision needs the kernel layer's own mark, so that a refusal by the
 * file permissions is never blamed on the sandbox:
 *   Landlock   EACCES on a path outside every list that grants the right
 *              (policy/kernel_grants.h) while faccessat(AT_EACCESS), which
 *              Landlock does not restrict, says the permissions allow it;
 *   namespace  EACCES on a mask (an unlinked, mode-0 file or folder mounted
 *              over a secret or a host socket: nothing else has no link and
 *              no mode bits), or EROFS inside one of the floor's read-only
 *              binds (protected paths, the policy file);
 *   seccomp    EPERM from socket() for a TCP or UDP socket of IPv4 or IPv6
 *              while the network is off (bare, only raw sockets give EPERM);
 *              one record per process and family.
 * Nothing is said outside an isolated exec run (no kernel layers). */
#ifndef PALDRON_PRELOAD_KERNEL_REFUSAL_H
#define PALDRON_PRELOAD_KERNEL_REFUSAL_H

#include "policy/policy.h"

/* op (PD_OP_READ, _WRITE: a create when the file is missing, _CREATE,
 * _DELETE) on (dirfd, path) failed with err. */
void pd_kernel_refused_path(enum pd_op op, int dirfd, const char *path, int err);

/* The real call for op on (dirfd, path) returned rc: when it failed, as
 * pd_kernel_refused_path with its errno. Returns rc, errno kept. */
int pd_kernel_after(int rc, enum pd_op op, int dirfd, const char *path);
/* The same for mkdir: the record names the folder ("name/"). */
int pd_kernel_after_mkdir(int rc, int dirfd, const char *path);

/* Starting the program at abs (absolute, as located) failed with err. */
void pd_kernel_refused_exec(const char *abs, int err);

/* socket(domain, type, ...) failed with err. */
void pd_kernel_refused_socket(int domain, int type, int err);

/* connect to the pathname UNIX socket path failed with err. */
void pd_kernel_refused_unix(const char *path, int err);

#endif
