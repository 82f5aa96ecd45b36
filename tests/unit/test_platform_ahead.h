/* tests/unit/test_platform_ahead.h - what the tests of the namespaces made
 * ahead share (test_platform_ns_early.c, the helper's; test_platform_ns_stock.c,
 * the kept process's): each case runs in a forked child that reports through
 * its exit status, as root and as nobody (the user-namespace path, what a
 * developer's run takes). Include after criterion.h. */
#ifndef PALDRON_TEST_PLATFORM_AHEAD_H
#define PALDRON_TEST_PLATFORM_AHEAD_H

#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform.h"

static inline int in_child(int (*fn)(bool), bool arg)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(fn(arg));
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st), "the child died of signal %d", WTERMSIG(st));
    return WEXITSTATUS(st);
}

static inline void need_namespaces_ahead(void)
{
    char why[256];
    if (!pd_ns_early_built())
        cr_skip_test("SKIP: this build never makes namespaces ahead (sanitizers)");
    if (!pd_platform_ns_available(true, why, sizeof why))
        cr_skip_test("SKIP: this host refuses the namespaces: %s", why);
}

/* Test(suite, name_as_root) and Test(suite, name_in_a_user_namespace): fn
 * (given whether to become nobody) returns 0, or the number of the check
 * that failed. */
#define AHEAD_AS_ROOT_AND_NOBODY(suite, name, fn)                                                  \
    Test(suite, name##_as_root)                                                                    \
    {                                                                                              \
        need_namespaces_ahead();                                                                   \
        if (geteuid() != 0)                                                                        \
            cr_skip_test("SKIP: the root case needs root");                                        \
        int rc = in_child(fn, false);                                                              \
        cr_assert_eq(rc, 0, "failed check %d", rc);                                                \
    }                                                                                              \
    Test(suite, name##_in_a_user_namespace)                                                        \
    {                                                                                              \
        need_namespaces_ahead();                                                                   \
        int rc = in_child(fn, geteuid() == 0);                                                     \
        cr_assert_eq(rc, 0, "failed check %d", rc);                                                \
    }

#endif
