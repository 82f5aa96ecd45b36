/* platform/linux/platform_linux.c - platform.h on Linux: probe what the
 * kernel offers, decide whether a spec can be enforced, and apply the layers
 * in order: namespaces -> rlimits -> Landlock -> no_new_privs -> seccomp.
 * seccomp comes last so that the filter never has to allow what the other
 * layers need. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "platform/linux/backend.h"

void pd_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void pd_platform_probe(struct pd_platform_info *info)
{
    memset(info, 0, sizeof *info);
    info->landlock_abi = pd_landlock_abi(info->landlock_error, sizeof info->landlock_error);
    info->seccomp = pd_seccomp_available();
    info->memfd_noexec = pd_memfd_noexec_available();
}

/* Absolute, non-NULL paths only: Landlock rules are opened by path and a
 * relative one would depend on the child's working directory. */
static int check_paths(const struct pd_path_list *list, char *err, size_t errlen)
{
    for (size_t i = 0; i < list->n; i++) {
        const char *p = list->v[i];
        if (p == NULL || p[0] != '/') {
            pd_errf(err, errlen, "sandbox path is not absolute: %s", p ? p : "(null)");
            return -1;
        }
    }
    return 0;
}

int pd_platform_check(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen, char *warn, size_t warnlen)
{
    pd_errf(err, errlen, "%s", "");
    pd_errf(warn, warnlen, "%s", "");
    const int abi = info->landlock_abi;
    if (abi < 1) {
        pd_errf(err, errlen, "Landlock unavailable: %s",
                info->landlock_error[0] ? info->landlock_error : "unknown reason");
        return -1;
    }
    /* ABI 3 (Linux 6.2) adds TRUNCATE: below it, truncate(2) and O_TRUNC
     * ignore the write rules. */
    if (abi < 3) {
        pd_errf(err, errlen, "Landlock ABI %d is too old; ABI 3 or newer is required", abi);
        return -1;
    }
    if (!spec->allow_network && abi < 4) {
        pd_errf(err, errlen,
                "Landlock ABI %d cannot enforce TCP network denial; ABI 4 or newer is required",
                abi);
        return -1;
    }
    if (!info->seccomp) {
        pd_errf(err, errlen,
                "seccomp filters unavailable: the kernel lacks CONFIG_SECCOMP_FILTER or "
                "SECCOMP_RET_KILL_PROCESS (Linux 4.14)");
        return -1;
    }
    if (check_paths(&spec->exec_paths, err, errlen) < 0 ||
        check_paths(&spec->read_paths, err, errlen) < 0 ||
        check_paths(&spec->write_paths, err, errlen) < 0 ||
        check_paths(&spec->dev_paths, err, errlen) < 0 ||
        check_paths(&spec->list_paths, err, errlen) < 0 ||
        check_paths(&spec->ns.hide, err, errlen) < 0 ||
        check_paths(&spec->ns.readonly, err, errlen) < 0 ||
        check_paths(&spec->ns.sockets, err, errlen) < 0)
        return -1;
    if (spec->no_exec_writes && !info->memfd_noexec)
        pd_errf(warn, warnlen,
                "the kernel lacks MFD_NOEXEC_SEAL (Linux 6.3): a program copied into a memfd "
                "by a static binary or a raw system call can run past allow_binaries");
    else if (abi < 5)
        pd_errf(warn, warnlen,
                "Landlock ABI %d does not enforce: ioctl on device files (ABI 5), signal and "
                "abstract UNIX socket scoping (ABI 6)",
                abi);
    else if (abi < 6)
        pd_errf(warn, warnlen,
                "Landlock ABI %d does not enforce: signal and abstract UNIX socket scoping "
                "(ABI 6)",
                abi);
    return 0;
}

int pd_platform_apply(const struct pd_sandbox_spec *spec, const struct pd_platform_info *info,
                      char *err, size_t errlen)
{
    /* Fail closed even if the caller skipped the check. */
    if (pd_platform_check(spec, info, err, errlen, NULL, 0) < 0)
        return -1;
    /* Namespaces first: Landlock forbids changing the mount tree once it
     * is on, and the later layers depend on what was entered. */
    struct pd_ns_report local = {0};
    struct pd_ns_report *ns = spec->ns.report ? spec->ns.report : &local;
    memset(ns, 0, sizeof *ns);
    if (pd_ns_apply(spec, ns, err, errlen) < 0)
        return -1;
    if (pd_rlimits_apply_early(&spec->limits, err, errlen) < 0)
        return -1;
    if (pd_landlock_apply(spec, ns, info->landlock_abi, err, errlen) < 0)
        return -1;
    const bool net_ns = ns->state == PD_NS_ACTIVE && ns->net_ns;
    /* no_new_privs is set: pd_landlock_apply needs it too. */
    if (pd_seccomp_load(spec->allow_network || net_ns, spec->no_exec_writes && info->memfd_noexec,
                        err, errlen) < 0)
        return -1;
    if (pd_rlimits_apply_mem(&spec->limits, err, errlen) < 0)
        return -1;
    return 0;
}
