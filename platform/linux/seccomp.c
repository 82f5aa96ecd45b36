/* platform/linux/seccomp.c - the seccomp layer: a deny list on an allow-all
 * default (seccomp_rules.c), the target architecture only. The program is
 * compiled at build time (seccomp_prog.h), so loading it is one seccomp(2)
 * call: no libseccomp in paldron, no probing of the kernel in the child (the
 * launcher probes once, pd_seccomp_available), no allocation. Other
 * architectures' system calls kill the process: on x86_64 that covers i386
 * (int 0x80) and x32 (numbers with bit 30 set), since neither is in the
 * program (tests/unit/test_platform_seccomp.c proves both). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "platform/linux/backend.h"
#include "platform/linux/seccomp_prog.h"

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

bool pd_memfd_noexec_available(void)
{
    int fd = (int)syscall(SYS_memfd_create, "paldron-probe", MFD_CLOEXEC | PD_MFD_NOEXEC_SEAL);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

int pd_seccomp_load(bool any_socket, bool exec_floor, char *err, size_t errlen)
{
    const struct pd_seccomp_prog *p = &pd_seccomp_progs[(any_socket ? PD_SECCOMP_ANY_SOCKET : 0) |
                                                        (exec_floor ? PD_SECCOMP_EXEC : 0)];
    /* The kernel only reads the program; sock_fprog just lacks the const. */
    const struct sock_fprog prog = {
        .len = p->len,
        .filter = (struct sock_filter *)(uintptr_t)p->filter,
    };
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0U, &prog) != 0) {
        pd_errf(err, errlen, "seccomp: load filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int pd_seccomp_apply(bool any_socket, char *err, size_t errlen)
{
    /* Without CAP_SYS_ADMIN the kernel takes a filter only under
     * no_new_privs. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        pd_errf(err, errlen, "no_new_privs: prctl: %s", strerror(errno));
        return -1;
    }
    return pd_seccomp_load(any_socket, false, err, errlen);
}
