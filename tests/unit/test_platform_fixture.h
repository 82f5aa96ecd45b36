/* tests/unit/test_platform_fixture.h - helpers shared by the test_platform_*.c
 * unit tests that fork a child to enter namespaces. Static inline so that a
 * test file may use any subset. */
#ifndef PALDRON_TEST_PLATFORM_FIXTURE_H
#define PALDRON_TEST_PLATFORM_FIXTURE_H

#include <grp.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NOBODY 65534

/* As root, become nobody (the user-namespace path, what a developer's run
 * takes); exit 90 if that fails. A credential change without an execve
 * leaves the process non-dumpable, and its /proc/self files root's (the uid
 * map could not be written): paldron itself is always started by execve, so
 * the dumpable flag is restored. */
static inline void become_nobody(void)
{
    if (geteuid() == 0 &&
        (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
         setresuid(NOBODY, NOBODY, NOBODY) != 0 || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0))
        _exit(90);
}

#endif
