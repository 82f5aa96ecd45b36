/* tests/probe/no_userns.c - run a command where user namespaces are refused,
 * as on a machine whose kernel or container forbids them (Ubuntu 24.04's
 * AppArmor restriction, Docker's default seccomp profile), so that a test
 * can drive Paldron's fallback on a machine that has them.
 *
 *   no_userns COMMAND [ARGS...]
 *   no_userns --mount COMMAND [ARGS...]
 *
 * Installs a seccomp filter (inherited by every descendant) that makes
 * unshare(2) fail with EPERM, clone3(2) with ENOSYS (so that glibc falls
 * back to clone) and clone(2) with CLONE_NEWUSER in its flags with EPERM;
 * sets no_new_privs (what an unprivileged filter needs), then execvp's
 * COMMAND. With --mount, only a new mount namespace is refused (unshare
 * with CLONE_NEWNS in its flags, EPERM): the user, IPC and network
 * namespaces are made, and the run's own attempt at the mount namespace
 * fails afterwards, the case a launcher's early check cannot foresee.
 * Exit status 127 when the filter or the exec fails, with the
 * reason on stderr; 64 on a usage error. */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define EXIT_USAGE 64
#define EXIT_FAIL  127

static int fail(const char *what, int err)
{
    fprintf(stderr, "no_userns: %s: %s\n", what, strerror(err));
    return EXIT_FAIL;
}

int main(int argc, char **argv)
{
    const bool mount_only = argc > 1 && strcmp(argv[1], "--mount") == 0;
    if (mount_only) {
        argc--;
        argv++;
    }
    if (argc < 2) {
        fputs("usage: no_userns [--mount] COMMAND [ARGS...]\n", stderr);
        return EXIT_USAGE;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return fail("prctl(PR_SET_NO_NEW_PRIVS)", errno);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return fail("seccomp_init", ENOMEM);
    int rc = mount_only ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNS, CLONE_NEWNS))
                        : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
    if (rc == 0 && !mount_only)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* clone's flags are its first argument on x86_64 and aarch64 */
    if (rc == 0 && !mount_only)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0)
        return fail("seccomp", -rc);
    execvp(argv[1], argv + 1);
    return fail(argv[1], errno);
}
