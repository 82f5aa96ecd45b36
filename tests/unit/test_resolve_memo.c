/* tests/unit/test_resolve_memo.c - realpath and PATH lookups remembered while
 * a run is prepared (policy/resolve_memo.c): answered from memory only
 * between pd_memo_begin and pd_memo_end, failures never remembered, and a
 * lookup asked again once the writable roots grew. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/rundir.h"
#include "policy/policy.h"
#include "test_path_at.h"

static char base[] = "/tmp/paldron-memo-XXXXXX";

static const char *at(const char *rel)
{
    return test_path_at(base, rel);
}

static void setup(void)
{
    cr_assert_not_null(mkdtemp(base));
    cr_assert_eq(mkdir(at("a"), 0755), 0);
    cr_assert_eq(mkdir(at("b"), 0755), 0);
    cr_assert_eq(symlink("a", at("link")), 0);
}

static void teardown(void)
{
    pd_memo_end();
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        pd_remove_below(fd);
    rmdir(base);
}

TestSuite(memo, .init = setup, .fini = teardown);

static void retarget(const char *to)
{
    cr_assert_eq(unlink(at("link")), 0);
    cr_assert_eq(symlink(to, at("link")), 0);
}

Test(memo, off_every_call_asks_the_kernel)
{
    char out[PD_PATH_MAX];
    cr_assert_not_null(pd_realpath(at("link"), out));
    cr_assert_str_eq(out, at("a"));
    retarget("b");
    cr_assert_not_null(pd_realpath(at("link"), out));
    cr_assert_str_eq(out, at("b"));
}

Test(memo, on_a_repeated_question_is_answered_from_memory_until_the_end)
{
    char out[PD_PATH_MAX];
    pd_memo_begin();
    cr_assert_not_null(pd_realpath(at("link"), out));
    cr_assert_str_eq(out, at("a"));
    retarget("b");
    cr_assert_not_null(pd_realpath(at("link"), out));
    cr_assert_str_eq(out, at("a"), "remembered while the run is prepared");
    pd_memo_end();
    cr_assert_not_null(pd_realpath(at("link"), out));
    cr_assert_str_eq(out, at("b"), "forgotten when the preparation ends");
}

Test(memo, a_failure_is_not_remembered)
{
    char out[PD_PATH_MAX];
    pd_memo_begin();
    cr_assert_null(pd_realpath(at("later"), out));
    cr_assert_eq(mkdir(at("later"), 0755), 0);
    cr_assert_not_null(pd_realpath(at("later"), out), "a path created since is found");
    cr_assert_str_eq(out, at("later"));
}

static void write_exec(const char *rel)
{
    int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0755);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "\177ELF", 4), 4);
    close(fd);
}

Test(memo, a_path_lookup_is_asked_again_once_the_writable_roots_grow)
{
    write_exec("a/tool");
    write_exec("b/tool");
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, "allow_binaries = [\"tool\"]\n", "t.toml", &err), 0,
                 "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, at("b"), "/nonexistent-home", &err), 0, "%s", err.msg);
    char path_env[2 * PD_PATH_MAX + 2];
    snprintf(path_env, sizeof path_env, "%s:%s", at("a"), at("b"));
    pd_ctx_set_path_env(&ctx, path_env);
    pd_memo_begin();
    char file[PD_PATH_MAX];
    cr_assert_eq(pd_binary_entry_file(&ctx, "tool", file, sizeof file), 0);
    cr_assert_str_eq(file, at("a/tool"));
    cr_assert_eq(pd_binary_entry_file(&ctx, "tool", file, sizeof file), 0);
    cr_assert_str_eq(file, at("a/tool"));
    /* a/ becomes writable: its tool is one the run could swap */
    cr_assert_eq(pd_ctx_add_root(&ctx, at("a")), 0);
    int rc = pd_binary_entry_file(&ctx, "tool", file, sizeof file);
    cr_assert(rc != 0 || strcmp(file, at("a/tool")) != 0,
              "a stale answer: %s is in a writable root now", file);
    pd_memo_end();
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
}
