/* platform/linux/seccomp.c - the seccomp layer: a deny list on an allow-all
 * default (seccomp_rules.c), native architecture only, loaded with
 * libseccomp. Other architectures' system calls kill the process: on x86_64
 * that covers i386 (int 0x80) and x32 (numbers with bit 30 set), which
 * libseccomp sends to the bad-architecture action as long as x32 is not in
 * the filter (tests/unit/test_platform_seccomp.c proves both). */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "platform/linux/backend.h"
#include "platform/linux/seccomp_rules.h"

bool pd_seccomp_available(void)
{
    /* EINVAL: kernel without CONFIG_SECCOMP. */
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
        return false;
    /* Filters (CONFIG_SECCOMP_FILTER) and the two actions the filter uses;
     * SECCOMP_GET_ACTION_AVAIL and KILL_PROCESS exist since Linux 4.14. */
    const unsigned int actions[] = {SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO};
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
        if (syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &actions[i]) != 0)
            return false;
    }
    return true;
}

static int add_rule(scmp_filter_ctx ctx, const struct pd_seccomp_rule *r, char *err, size_t errlen)
{
    int nr = seccomp_syscall_resolve_name(r->name);
    /* __NR_SCMP_ERROR: this libseccomp does not know the name. Another
     * negative number: a pseudo-number for a call this architecture lacks.
     * Either way there is nothing to refuse. */
    if (nr < 0)
        return 0;
    int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((unsigned int)r->err), nr, r->ncmp,
                                    r->ncmp > 0 ? r->cmp : NULL);
    if (rc < 0) {
        pd_errf(err, errlen, "seccomp: add rule %s: %s", r->name, strerror(-rc));
        return -1;
    }
    return 0;
}

scmp_filter_ctx pd_seccomp_build(bool any_socket, char *err, size_t errlen)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL) {
        pd_errf(err, errlen, "seccomp: init filter failed");
        return NULL;
    }
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc < 0) {
        pd_errf(err, errlen, "seccomp: set bad-architecture action: %s", strerror(-rc));
        goto fail;
    }
    /* Let seccomp_load report the kernel's errno instead of -ECANCELED. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
    if (rc < 0) {
        pd_errf(err, errlen, "seccomp: set raw return codes: %s", strerror(-rc));
        goto fail;
    }
#if defined(__x86_64__)
    /* x32 must stay out of the filter: its absence is what kills x32 calls. */
    if (seccomp_arch_exist(ctx, SCMP_ARCH_X32) != -EEXIST) {
        pd_errf(err, errlen, "seccomp: x32 architecture unexpectedly in the filter");
        goto fail;
    }
#endif
    for (size_t i = 0; i < pd_seccomp_rules_n; i++) {
        const struct pd_seccomp_rule *r = &pd_seccomp_rules[i];
        if (r->when == PD_SECCOMP_NET_OFF && any_socket)
            continue;
        if (add_rule(ctx, r, err, errlen) < 0)
            goto fail;
    }
    return ctx;
fail:
    seccomp_release(ctx);
    return NULL;
}

int pd_seccomp_apply(bool any_socket, char *err, size_t errlen)
{
    scmp_filter_ctx ctx = pd_seccomp_build(any_socket, err, errlen);
    if (ctx == NULL)
        return -1;
    int rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc < 0) {
        pd_errf(err, errlen, "seccomp: load filter: %s", strerror(-rc));
        return -1;
    }
    return 0;
}
