/* platform/linux/seccomp_rules.h - the seccomp deny list, as data.
 * seccomp.c turns each entry into one libseccomp rule. */
#ifndef PALDRON_PLATFORM_LINUX_SECCOMP_RULES_H
#define PALDRON_PLATFORM_LINUX_SECCOMP_RULES_H

#include <stddef.h>

#include <seccomp.h>

#include "platform/linux/seccomp_prog.h"

enum pd_seccomp_when {
    PD_SECCOMP_ALWAYS,     /* in every sandbox */
    PD_SECCOMP_NET_OFF,    /* only when socket families are restricted: the network is
                              off and no network namespace holds it */
    PD_SECCOMP_EXEC_FLOOR, /* only when allow_binaries names the programs that may run */
};

/* "Fail syscall name with errno err", if every comparison matches (ncmp
 * 1 or 2) or always (ncmp 0). At most one comparison per argument:
 * libseccomp refuses two on the same one, so ranges are written as several
 * rules. */
struct pd_seccomp_rule {
    const char *name;
    int err;
    enum pd_seccomp_when when;
    unsigned int ncmp;
    struct scmp_arg_cmp cmp[2];
};

extern const struct pd_seccomp_rule pd_seccomp_rules[];
extern const size_t pd_seccomp_rules_n;

#endif
