/* platform/linux/seccomp_prog.h - the seccomp programs paldron loads, one
 * per variant of the filter, compiled at build time: the generator
 * (seccomp_gen.c) builds them with libseccomp from the deny list
 * (seccomp_rules.c) and writes them as C arrays into seccomp_prog.c in the
 * build tree, which the build regenerates whenever the table changes. The
 * child loads one with a single seccomp(2) call: no libseccomp, no probing,
 * no allocation. */
#ifndef PALDRON_PLATFORM_LINUX_SECCOMP_PROG_H
#define PALDRON_PLATFORM_LINUX_SECCOMP_PROG_H

#include <linux/filter.h>

/* The variants of the filter, as bits of an index into pd_seccomp_progs. */
#define PD_SECCOMP_ANY_SOCKET 1u /* every socket family (no NET_OFF rules) */
#define PD_SECCOMP_EXEC       2u /* the EXEC_FLOOR rules (allow_binaries) */
#define PD_SECCOMP_VARIANTS   4u

/* MFD_NOEXEC_SEAL (linux/memfd.h, Linux 6.3), named for older headers: the
 * flag the exec floor's memfd_create rule requires. */
#define PD_MFD_NOEXEC_SEAL 0x0008U

struct pd_seccomp_prog {
    const struct sock_filter *filter;
    unsigned short len;
};

/* Indexed by the variant's bits (seccomp_rules.h): PD_SECCOMP_ANY_SOCKET
 * (else only AF_UNIX and AF_NETLINK sockets), PD_SECCOMP_EXEC (the exec
 * floor's rules). */
extern const struct pd_seccomp_prog pd_seccomp_progs[PD_SECCOMP_VARIANTS];

/* The architecture the programs were built for (libseccomp's name). */
extern const char pd_seccomp_prog_arch[];

#endif
