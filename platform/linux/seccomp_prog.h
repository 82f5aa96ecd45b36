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

struct pd_seccomp_prog {
    const struct sock_filter *filter;
    unsigned short len;
};

/* Indexed by any_socket: [0] only AF_UNIX and AF_NETLINK sockets, [1]
 * every socket family. */
extern const struct pd_seccomp_prog pd_seccomp_progs[2];

/* The architecture the programs were built for (libseccomp's name). */
extern const char pd_seccomp_prog_arch[];

#endif
