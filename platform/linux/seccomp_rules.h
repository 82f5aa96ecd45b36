/* platform/linux/seccomp_rules.h - the seccomp deny list, as data.
 * seccomp.c turns each entry into one libseccomp rule. */
#ifndef PALDRON_PLATFORM_LINUX_SECCOMP_RULES_H
#define PALDRON_PLATFORM_LINUX_SECCOMP_RULES_H

#include <stddef.h>

#include <seccomp.h>

enum pd_seccomp_when {
    PD_SECCOMP_ALWAYS,  /* in every sandbox */
    PD_SECCOMP_NET_OFF, /* only when allow_network is false */
};

/* "Fail syscall name with errno err", if cmp matches (ncmp 1) or always
 * (ncmp 0). One comparison per rule: libseccomp refuses two on the same
 * argument, so ranges are written as several rules. */
struct pd_seccomp_rule {
    const char *name;
    int err;
    enum pd_seccomp_when when;
    unsigned int ncmp;
    struct scmp_arg_cmp cmp;
};

extern const struct pd_seccomp_rule pd_seccomp_rules[];
extern const size_t pd_seccomp_rules_n;

#endif
