/* platform/linux/seccomp_build.c - the deny list (seccomp_rules.c) turned
 * into a libseccomp filter: allow by default, one rule per entry, other
 * architectures killed. Runs at build time (seccomp_gen.c) and in the unit
 * tests, never in paldron: the child loads the exported program instead
 * (seccomp.c), so it neither allocates nor probes the kernel. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "platform/linux/seccomp_build.h"
#include "platform/linux/seccomp_rules.h"

__attribute__((format(printf, 3, 4))) static void errf(char *err, size_t errlen, const char *fmt,
                                                       ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int add_rule(scmp_filter_ctx ctx, uint32_t arch, const struct pd_seccomp_rule *r, char *err,
                    size_t errlen)
{
    /* A negative number on the target: a name this libseccomp does not know
     * there (__NR_SCMP_ERROR) or a pseudo-number for a call that
     * architecture lacks. Either way there is nothing to refuse. */
    if (seccomp_syscall_resolve_name_arch(arch, r->name) < 0)
        return 0;
    /* libseccomp takes the number as the architecture it was built for
     * numbers the call, and translates it by name for the filter's. */
    int nr = seccomp_syscall_resolve_name(r->name);
    if (nr < 0) {
        errf(err, errlen, "seccomp: %s exists on the target but not where libseccomp was built",
             r->name);
        return -1;
    }
    int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((unsigned int)r->err), nr, r->ncmp,
                                    r->ncmp > 0 ? r->cmp : NULL);
    if (rc < 0) {
        errf(err, errlen, "seccomp: add rule %s: %s", r->name, strerror(-rc));
        return -1;
    }
    return 0;
}

/* The filter must hold the target architecture alone: the absence of the
 * others (x32 and i386 beside x86_64, AArch32 beside AArch64) is what
 * sends their system calls to the bad-architecture action. */
static int only_target(scmp_filter_ctx ctx, uint32_t arch, char *err, size_t errlen)
{
    static const uint32_t others[] = {SCMP_ARCH_X86,     SCMP_ARCH_X86_64,  SCMP_ARCH_X32,
                                      SCMP_ARCH_ARM,     SCMP_ARCH_AARCH64, SCMP_ARCH_RISCV64,
                                      SCMP_ARCH_PPC64LE, SCMP_ARCH_S390X};
    if (seccomp_arch_exist(ctx, arch) != 0) {
        errf(err, errlen, "seccomp: target architecture %#x missing from the filter", arch);
        return -1;
    }
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        if (others[i] != arch && seccomp_arch_exist(ctx, others[i]) != -EEXIST) {
            errf(err, errlen, "seccomp: architecture %#x unexpectedly in the filter", others[i]);
            return -1;
        }
    }
    return 0;
}

scmp_filter_ctx pd_seccomp_build_arch(uint32_t arch, unsigned variant, char *err, size_t errlen)
{
    if (arch == SCMP_ARCH_NATIVE)
        arch = seccomp_arch_native();
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL) {
        errf(err, errlen, "seccomp: init filter failed");
        return NULL;
    }
    int rc = 0;
    if (arch != seccomp_arch_native()) {
        rc = seccomp_arch_add(ctx, arch);
        if (rc == 0)
            rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
        if (rc < 0) {
            errf(err, errlen, "seccomp: select architecture %#x: %s", arch, strerror(-rc));
            goto fail;
        }
    }
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc < 0) {
        errf(err, errlen, "seccomp: set bad-architecture action: %s", strerror(-rc));
        goto fail;
    }
    /* A binary tree over the system call numbers: every call the sandboxed
     * program makes walks log(n) comparisons instead of the whole list. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    if (rc < 0) {
        errf(err, errlen, "seccomp: set binary-tree optimisation: %s", strerror(-rc));
        goto fail;
    }
    if (only_target(ctx, arch, err, errlen) < 0)
        goto fail;
    for (size_t i = 0; i < pd_seccomp_rules_n; i++) {
        const struct pd_seccomp_rule *r = &pd_seccomp_rules[i];
        if (r->when == PD_SECCOMP_NET_OFF && (variant & PD_SECCOMP_ANY_SOCKET))
            continue;
        if (r->when == PD_SECCOMP_EXEC_FLOOR && !(variant & PD_SECCOMP_EXEC))
            continue;
        if (add_rule(ctx, arch, r, err, errlen) < 0)
            goto fail;
    }
    return ctx;
fail:
    seccomp_release(ctx);
    return NULL;
}

scmp_filter_ctx pd_seccomp_build(unsigned variant, char *err, size_t errlen)
{
    return pd_seccomp_build_arch(SCMP_ARCH_NATIVE, variant, err, errlen);
}
