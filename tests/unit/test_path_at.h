/* tests/unit/test_path_at.h - "<dir>/<rel>" for the tests that build files in
 * a temporary tree: in one of four rotating buffers, so that a call may
 * take two or three such paths at once (rename(at(a), at(b))). */
#ifndef PALDRON_TEST_PATH_AT_H
#define PALDRON_TEST_PATH_AT_H

#include <stdio.h>

#include "policy/policy.h"

static inline const char *test_path_at(const char *dir, const char *rel)
{
    static char p[4][PD_PATH_MAX + 64];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, rel);
    return p[k];
}

#endif
