/* tests/unit/test_policy_fixture.h - small helpers shared by the
 * test_policy_*.c unit tests: private temp trees under /tmp (mkdtemp, real
 * path), files, directories and symlinks in them, and their removal.
 * Everything is static inline so that a test file may use any subset. */
#ifndef PALDRON_TEST_POLICY_FIXTURE_H
#define PALDRON_TEST_POLICY_FIXTURE_H

#include <criterion/criterion.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

/* Create a fresh directory /tmp/pd-<tag>-XXXXXX and store its real path. */
static inline void tp_mkdtemp(char *out, size_t len, const char *tag)
{
    char tmpl[128];
    snprintf(tmpl, sizeof tmpl, "/tmp/pd-%s-XXXXXX", tag);
    cr_assert_not_null(mkdtemp(tmpl), "mkdtemp %s: %s", tmpl, strerror(errno));
    char real[PATH_MAX];
    cr_assert_not_null(realpath(tmpl, real), "realpath %s: %s", tmpl, strerror(errno));
    cr_assert_lt(strlen(real), len);
    snprintf(out, len, "%s", real);
}

static inline void tp_join(char *out, size_t len, const char *dir, const char *rel)
{
    int n = snprintf(out, len, "%s/%s", dir, rel);
    cr_assert(n > 0 && (size_t)n < len, "path too long: %s/%s", dir, rel);
}

/* mkdir -p dir/rel */
static inline void tp_mkdir(const char *dir, const char *rel)
{
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, dir, rel);
    for (char *s = path + strlen(dir) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                cr_assert_fail("mkdir %s: %s", path, strerror(errno));
            *s = '/';
        }
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        cr_assert_fail("mkdir %s: %s", path, strerror(errno));
}

/* Write dir/rel (parents created) with content and mode. */
static inline void tp_put(const char *dir, const char *rel, const char *content, mode_t mode)
{
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, dir, rel);
    char *slash = strrchr(path, '/');
    if (slash > path + strlen(dir)) {
        char parent[PD_PATH_MAX];
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - path - (int)strlen(dir) - 1),
                 path + strlen(dir) + 1);
        tp_mkdir(dir, parent);
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
    fputs(content, f);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(path, mode), 0, "chmod %s: %s", path, strerror(errno));
}

/* dir/rel -> target */
static inline void tp_link(const char *dir, const char *rel, const char *target)
{
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, dir, rel);
    cr_assert_eq(symlink(target, path), 0, "symlink %s -> %s: %s", path, target, strerror(errno));
}

static inline int tp_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* rm -rf dir (only ever called on directories this process made). */
static inline void tp_rmtree(const char *dir)
{
    if (dir && strstr(dir, "/pd-"))
        nftw(dir, tp_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline bool tp_starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool tp_streq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

#define TP_S(x) ((x) ? (x) : "(null)")

/* Skip (saying so) a test that needs the machine's own programs to be of the
 * architecture the test was built for: a cross build run under qemu-user
 * sees the host's programs as foreign. */
static inline void tp_need_native(const char *path)
{
#if defined(__x86_64__)
    const unsigned machine = 62; /* EM_X86_64 */
#elif defined(__aarch64__)
    const unsigned machine = 183; /* EM_AARCH64 */
#else
    const unsigned machine = 0;
#endif
    unsigned char head[20] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    /* e_machine: little-endian half at offset 18 on both architectures */
    if (n < sizeof head || (unsigned)(head[18] | head[19] << 8) != machine)
        cr_skip_test("SKIP %s is not a program of this build's architecture (cross build?)", path);
}

#endif
