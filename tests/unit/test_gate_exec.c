/* tests/unit/test_gate_exec.c - the exec gate (policy/gate_exec.h) on real
 * programs of this machine and scripts in a temp workspace: patterns on the
 * target, allow_binaries by name and by path, programs inside the writable
 * roots, "#!" interpreters (also through env, relative ones against the
 * working directory), helper directories scoped to their driver, the
 * companions of a compiler driver, the dynamic loader, identity (links,
 * descriptors) and the kernel floor (pd_exec_floor). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/gate_exec.h"
#include "policy/policy.h"
#include "policy/report.h"
#include "test_policy_fixture.h"

static char ws[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool loaded;

static void setup_ws(void)
{
    tp_mkdtemp(ws, sizeof ws, "gexec");
}

static void teardown_ws(void)
{
    if (loaded) {
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        loaded = false;
    }
    tp_rmtree(ws);
}

static void use_policy(const char *text)
{
    struct pd_error err;
    if (loaded) {
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
    }
    cr_assert_eq(pd_policy_load_string(&pol, text, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    pd_ctx_set_path_env(&ctx, "/usr/local/bin:/usr/bin:/bin");
    loaded = true;
}

static void need(const char *path)
{
    if (access(path, X_OK) != 0)
        cr_skip_test("SKIP %s: not installed here", path);
}

static void judge(const char *path, const char *caller, struct pd_verdict *v)
{
    pd_gate_exec(&ctx, path, ws, NULL, caller, v);
}

TestSuite(gate_exec, .init = setup_ws, .fini = teardown_ws);

Test(gate_exec, empty_allow_list_allows_any_program)
{
    need("/usr/bin/id");
    use_policy("allow_binaries = []\n");
    struct pd_verdict v;
    judge("/usr/bin/id", NULL, &v);
    cr_assert_not(v.deny, "%s", v.message);
    cr_assert_str_eq(v.resolved, "/usr/bin/id");
}

Test(gate_exec, name_in_list_allows_and_others_are_denied)
{
    need("/usr/bin/cat");
    need("/usr/bin/id");
    use_policy("allow_binaries = [\"cat\"]\n");
    struct pd_verdict v;
    judge("cat", "/usr/bin/python3", &v);
    cr_assert_not(v.deny, "%s", v.message);
    judge("/usr/bin/id", NULL, &v);
    cr_assert(v.deny);
    cr_assert_str_eq(v.reason, PD_REASON_BINARY);
    cr_assert_str_eq(v.key, "allow_binaries");
    cr_assert_str_eq(v.subject, "/usr/bin/id");
    cr_assert_eq(v.op, PD_OP_EXEC);
    judge("id", NULL, &v);
    cr_assert(v.deny);
    cr_assert_str_eq(v.subject, "id", "the subject is the program as passed");
}

Test(gate_exec, entry_with_slash_names_exactly_one_file)
{
    need("/usr/bin/id");
    use_policy("allow_binaries = [\"/usr/bin/id\"]\n");
    struct pd_verdict v;
    judge("/usr/bin/id", NULL, &v);
    cr_assert_not(v.deny, "%s", v.message);
    judge("/usr/bin/cat", NULL, &v);
    cr_assert(v.deny);
}

Test(gate_exec, program_inside_writable_root_is_denied_by_name)
{
    need("/usr/bin/cat");
    use_policy("allow_binaries = [\"cat\"]\n");
    tp_mkdir(ws, "bin");
    char dst[PD_PATH_MAX], cmd[3 * PD_PATH_MAX];
    tp_join(dst, sizeof dst, ws, "bin/cat");
    snprintf(cmd, sizeof cmd, "cp /usr/bin/cat '%s'", dst);
    cr_assert_eq(system(cmd), 0);
    struct pd_verdict v;
    judge("bin/cat", NULL, &v);
    cr_assert(v.deny, "a workspace copy of an allowed name must not run");
    cr_assert_str_eq(v.reason, PD_REASON_BINARY);
    cr_assert_str_eq(v.subject, "bin/cat");
    cr_assert(strstr(v.message, "writable root"), "%s", v.message);
}

Test(gate_exec, deny_globs_and_secrets_apply_to_the_target)
{
    use_policy("allow_binaries = []\ndeny_globs = [\"tools/**\"]\n");
    tp_put(ws, "tools/run", "#!/bin/sh\nexit 0\n", 0755);
    tp_put(ws, "key.pem", "#!/bin/sh\nexit 0\n", 0755);
    struct pd_verdict v;
    judge("tools/run", NULL, &v);
    cr_assert(v.deny);
    cr_assert_str_eq(v.reason, PD_REASON_DENY_GLOB);
    cr_assert_str_eq(v.key, "deny_globs");
    cr_assert_str_eq(v.pattern, "tools/**");
    judge("./key.pem", NULL, &v);
    cr_assert(v.deny);
    cr_assert_str_eq(v.reason, PD_REASON_SECRET);
    cr_assert_str_eq(v.subject, "./key.pem");
}

Test(gate_exec, script_is_judged_by_its_interpreter)
{
    need("/usr/bin/python3");
    use_policy("allow_binaries = [\"python3\"]\n");
    tp_put(ws, "direct.py", "#!/usr/bin/python3\nprint(1)\n", 0755);
    tp_put(ws, "viaenv.py", "#!/usr/bin/env python3\nprint(1)\n", 0755);
    tp_put(ws, "envS.py", "#!/usr/bin/env -S python3 -u\nprint(1)\n", 0755);
    tp_put(ws, "shell.sh", "#!/bin/sh\necho 1\n", 0755);
    struct pd_verdict v;
    judge("./direct.py", NULL, &v);
    cr_assert_not(v.deny, "%s", v.message);
    judge("./viaenv.py", NULL, &v);
    cr_assert_not(v.deny, "%s", v.message);
    judge("./envS.py", NULL, &v);
    cr_assert_not(v.deny, "%s", v.message);
    judge("./shell.sh", NULL, &v);
    cr_assert(v.deny, "sh is not allowed");
    cr_assert(strstr(v.message, "interpreter /bin/sh"), "%s", v.message);
    cr_assert_str_eq(v.subject, "./shell.sh");
}

Test(gate_exec, helper_directory_follows_the_caller)
{
    need("/usr/bin/git");
    need("/usr/lib/git-core/git");
    need("/usr/bin/python3");
    use_policy("allow_binaries = [\"git\", \"python3\"]\n");
    struct pd_verdict v;
    judge("/usr/lib/git-core/git", "/usr/bin/git", &v);
    cr_assert_not(v.deny, "git runs its own helpers: %s", v.message);
    judge("/usr/lib/git-core/git", "/usr/lib/git-core/git", &v);
    cr_assert_not(v.deny, "a helper runs helpers: %s", v.message);
    use_policy("allow_binaries = [\"python3\"]\n");
    judge("/usr/lib/git-core/git", "/usr/bin/python3", &v);
    cr_assert(v.deny, "git's helpers belong to git, not to any allowed program");
    use_policy("allow_binaries = [\"cat\"]\n");
    judge("/usr/lib/git-core/git", "/usr/bin/python3", &v);
    cr_assert(v.deny, "the caller is not allowed");
    judge("/usr/lib/git-core/git", NULL, &v);
    cr_assert(v.deny, "without a caller (the launcher) helpers need their own entry");
}

Test(gate_exec, compiler_companions)
{
    const char *driver = "/usr/bin/x86_64-linux-gnu-gcc-12";
    const char *collect2 = "/usr/lib/gcc/x86_64-linux-gnu/12/collect2";
    need(driver);
    need(collect2);
    need("/usr/bin/as");
    need("/usr/bin/ld");
    use_policy("allow_binaries = [\"gcc\"]\n");
    struct pd_verdict v;
    judge("/usr/bin/as", driver, &v);
    cr_assert_not(v.deny, "gcc runs as: %s", v.message);
    judge("/usr/bin/ld", collect2, &v);
    cr_assert_not(v.deny, "collect2 runs ld: %s", v.message);
    judge(collect2, driver, &v);
    cr_assert_not(v.deny, "gcc runs collect2: %s", v.message);
    judge("/usr/bin/as", "/usr/bin/python3", &v);
    cr_assert(v.deny, "python3 is no compiler driver");
    use_policy("allow_binaries = [\"python3\"]\n");
    judge("/usr/bin/as", driver, &v);
    cr_assert(v.deny, "the driver itself is not allowed");
}

Test(gate_exec, missing_program_is_left_to_exec)
{
    use_policy("allow_binaries = [\"cat\"]\n");
    struct pd_verdict v;
    judge("/nonexistent/prog", NULL, &v);
    cr_assert_not(v.deny);
    cr_assert_str_eq(v.resolved, "");
}

Test(gate_exec, helper_directories)
{
    cr_assert(pd_exec_is_helper("/usr/lib/git-core/git"));
    cr_assert(pd_exec_is_helper("/usr/libexec/x"));
    cr_assert(pd_exec_is_helper("/usr/local/lib/a/b"));
    cr_assert(pd_exec_is_helper("/usr/local/libexec/a"));
    cr_assert(pd_exec_is_helper("/lib/x"));
    cr_assert_not(pd_exec_is_helper("/usr/lib"));
    cr_assert_not(pd_exec_is_helper("/usr/bin/git"));
    cr_assert_not(pd_exec_is_helper("/usr/lib64x/a"));
    cr_assert_not(pd_exec_is_helper("/usr/libfoo"));
}

Test(gate_exec, program_allowed_by_identity)
{
    need("/usr/bin/python3");
    use_policy("allow_binaries = [\"python3\"]\n");
    char real[PD_PATH_MAX];
    cr_assert_not_null(realpath("/usr/bin/python3", real));
    cr_assert(pd_exec_program_allowed(&ctx, real), "%s is python3", real);
    cr_assert_not(pd_exec_program_allowed(&ctx, "/usr/bin/cat"));
    use_policy("allow_binaries = []\n");
    cr_assert(pd_exec_program_allowed(&ctx, "/usr/bin/cat"));
}

Test(gate_exec, unmonitored_targets)
{
    need("/usr/bin/cat");
    tp_need_native("/usr/bin/cat");
    cr_assert_null(pd_exec_unmonitored("/usr/bin/cat", false), "a dynamic program loads it");
    /* Debian's ldconfig is a static PIE: no PT_INTERP */
    if (access("/sbin/ldconfig", X_OK) == 0)
        cr_assert_str_eq(pd_exec_unmonitored("/sbin/ldconfig", false), PD_REPORT_STATIC);
    tp_put(ws, "dyn.sh", "#!/bin/sh\necho\n", 0755);
    char script[PD_PATH_MAX];
    tp_join(script, sizeof script, ws, "dyn.sh");
    cr_assert_null(pd_exec_unmonitored(script, false), "sh is dynamic");
    if (access("/sbin/ldconfig", X_OK) == 0) {
        tp_put(ws, "st.sh", "#!/sbin/ldconfig -p\n", 0755);
        tp_join(script, sizeof script, ws, "st.sh");
        cr_assert_str_eq(pd_exec_unmonitored(script, false), PD_REPORT_STATIC,
                         "a script is judged by its interpreter");
    }
    need("/usr/bin/su");
    cr_assert_str_eq(pd_exec_unmonitored("/usr/bin/su", false), PD_REPORT_SETUID);
    cr_assert_null(pd_exec_unmonitored("/usr/bin/su", true),
                   "with no_new_privs exec grants nothing: the loader keeps LD_PRELOAD");
    cr_assert_null(pd_exec_unmonitored("/nonexistent", false));
}

/* ---- identity, loader, interpreters, descriptors, floor ------------------ */

Test(gate_exec, link_in_a_writable_root_is_judged_by_its_target)
{
    need("/usr/bin/python3");
    need("/usr/bin/id");
    use_policy("allow_binaries = [\"python3\"]\n");
    char link[PD_PATH_MAX + 16], venv[PD_PATH_MAX + 16];
    snprintf(link, sizeof link, "%s/python3", ws);
    cr_assert_eq(symlink("/usr/bin/id", link), 0);
    struct pd_verdict v;
    judge("./python3", "/usr/bin/python3", &v);
    cr_assert(v.deny, "a link named python3 that leads to id is id");
    snprintf(venv, sizeof venv, "%s/python", ws);
    cr_assert_eq(symlink("/usr/bin/python3", venv), 0);
    judge("./python", "/usr/bin/python3", &v);
    cr_assert_not(v.deny, ".venv/bin/python -> python3 is python3: %s", v.message);
    bool missing;
    pd_gate_binary(&ctx, "./python3", ws, &v, &missing);
    cr_assert(v.deny, "the launcher's gate judges by identity too");
    pd_gate_binary(&ctx, "./python", ws, &v, &missing);
    cr_assert_not(v.deny, "%s", v.message);
}

Test(gate_exec, alias_outside_the_roots_matches_its_target)
{
    need("/usr/bin/gmake");
    need("/usr/bin/make");
    use_policy("allow_binaries = [\"make\"]\n");
    struct pd_verdict v;
    judge("/usr/bin/gmake", NULL, &v);
    cr_assert_not(v.deny, "gmake -> make: %s", v.message);
    cr_assert_str_eq(pd_binary_entry_of(&ctx, "/usr/bin/gmake"), "make");
    cr_assert_null(pd_binary_entry_of(&ctx, "/usr/bin/id"));
}

Test(gate_exec, entry_file_skips_the_writable_roots)
{
    need("/usr/bin/cat");
    use_policy("allow_binaries = [\"cat\", \"./bin/app\"]\n");
    char dir[PD_PATH_MAX + 16], out[PD_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/bin", ws);
    cr_assert_eq(mkdir(dir, 0755), 0);
    tp_put(ws, "bin/cat", "#!/bin/sh\n", 0755);
    tp_put(ws, "bin/app", "#!/bin/sh\n", 0755);
    char path[2 * PD_PATH_MAX];
    snprintf(path, sizeof path, "%s:/usr/bin", dir);
    pd_ctx_set_path_env(&ctx, path);
    cr_assert_eq(pd_binary_entry_file(&ctx, "cat", out, sizeof out), 0);
    cr_assert_str_eq(out, "/usr/bin/cat", "bin/ lies in a writable root: skipped");
    cr_assert_eq(pd_binary_entry_file(&ctx, "./bin/app", out, sizeof out), 0);
    cr_assert(strstr(out, "/bin/app") && strncmp(out, ws, strlen(ws)) == 0, "%s", out);
    cr_assert_neq(pd_binary_entry_file(&ctx, "nosuchprogram-x", out, sizeof out), 0);
}

Test(gate_exec, loader_runs_what_its_arguments_name)
{
    const char *loader = "/lib64/ld-linux-x86-64.so.2";
    need(loader);
    need("/usr/bin/id");
    need("/usr/bin/python3");
    use_policy("allow_binaries = [\"python3\"]\n");
    cr_assert(pd_exec_is_loader(loader));
    cr_assert_not(pd_exec_is_loader("/usr/bin/ld"));
    struct pd_verdict v;
    const char *const run_id[] = {"ld", "/usr/bin/id", NULL};
    pd_gate_exec(&ctx, loader, ws, run_id, "/usr/bin/python3", &v);
    cr_assert(v.deny, "ld.so /usr/bin/id is id");
    const char *const run_py[] = {"ld", "--argv0", "x", "/usr/bin/python3", NULL};
    pd_gate_exec(&ctx, loader, ws, run_py, "/usr/bin/python3", &v);
    cr_assert_not(v.deny, "ld.so python3 is python3: %s", v.message);
    const char *const bare[] = {"ld", "id", NULL};
    pd_gate_exec(&ctx, loader, ws, bare, "/usr/bin/python3", &v);
    cr_assert(v.deny, "a name without '/' is searched by the loader: denied");
    pd_gate_exec(&ctx, loader, ws, NULL, "/usr/bin/python3", &v);
    cr_assert(v.deny, "no program: denied (the loader is never a helper)");
}

Test(gate_exec, interpreter_is_resolved_against_the_working_directory)
{
    need("/usr/bin/python3");
    use_policy("allow_binaries = [\"python3\"]\n");
    char sub[PD_PATH_MAX + 16], out[PD_PATH_MAX], env[PD_PATH_MAX];
    snprintf(sub, sizeof sub, "%s/src", ws);
    cr_assert_eq(mkdir(sub, 0755), 0);
    tp_put(ws, "src/tool", "#!/bin/sh\n", 0755);
    tp_put(ws, "rel", "#!src/tool\n", 0755);
    tp_put(ws, "missing", "#!src/nothing\n", 0755);
    tp_put(ws, "viaenv", "#!/usr/bin/env python3\n", 0755);
    char script[2 * PD_PATH_MAX];
    snprintf(script, sizeof script, "%s/rel", ws);
    cr_assert_eq(pd_exec_interpreter(&ctx, script, ws, out, sizeof out, env, sizeof env), 0);
    cr_assert(strstr(out, "/src/tool") && strncmp(out, ws, strlen(ws)) == 0, "%s", out);
    cr_assert_str_eq(env, "");
    cr_assert_eq(pd_exec_interpreter(&ctx, script, "/", out, sizeof out, NULL, 0), -1,
                 "resolved from / there is no src/tool");
    snprintf(script, sizeof script, "%s/viaenv", ws);
    cr_assert_eq(pd_exec_interpreter(&ctx, script, ws, out, sizeof out, env, sizeof env), 0);
    cr_assert_str_eq(env, "/usr/bin/env");
    cr_assert(strstr(out, "python3"), "%s", out);
    snprintf(script, sizeof script, "%s/src/tool", ws);
    struct pd_verdict v;
    judge("./rel", "/usr/bin/python3", &v);
    cr_assert(v.deny, "the interpreter is a workspace program");
    judge("./missing", "/usr/bin/python3", &v);
    cr_assert(v.deny, "an interpreter that cannot be resolved is denied");
    cr_assert(strstr(v.message, "cannot be resolved"), "%s", v.message);
}

Test(gate_exec, descriptor_is_judged_by_its_file)
{
    need("/usr/bin/python3");
    need("/usr/bin/id");
    use_policy("allow_binaries = [\"python3\"]\n");
    struct pd_verdict v;
    int fd = open("/usr/bin/python3", O_RDONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0);
    cr_assert(pd_gate_exec_fd(&ctx, fd, ws, NULL, NULL, &v));
    cr_assert_not(v.deny, "%s", v.message);
    close(fd);
    fd = open("/usr/bin/id", O_RDONLY | O_CLOEXEC);
    cr_assert(pd_gate_exec_fd(&ctx, fd, ws, NULL, NULL, &v));
    cr_assert(v.deny);
    close(fd);
    fd = memfd_create("x", MFD_CLOEXEC);
    cr_assert_geq(fd, 0);
    cr_assert_not(pd_gate_exec_fd(&ctx, fd, ws, NULL, NULL, &v), "a memfd names no file");
    cr_assert(v.deny);
    use_policy("allow_binaries = []\n");
    cr_assert_not(pd_gate_exec_fd(&ctx, fd, ws, NULL, NULL, &v));
    cr_assert_not(v.deny, "any program may run: the caller reports it");
    close(fd);
}

struct floor_seen {
    bool python3, gitcore, loader, as;
    size_t n;
};

static int floor_cb(void *arg, const char *path)
{
    struct floor_seen *s = arg;
    char real[PD_PATH_MAX];
    s->n++;
    if (realpath(path, real) && strcmp(real, "/usr/bin/python3.11") == 0)
        s->python3 = true;
    s->python3 |= strcmp(path, "/usr/bin/python3") == 0;
    s->gitcore |= strcmp(path, "/usr/lib/git-core") == 0;
    s->loader |= strcmp(path, "/lib64/ld-linux-x86-64.so.2") == 0;
    s->as |= strcmp(path, "/usr/bin/as") == 0;
    return 0;
}

Test(gate_exec, floor_names_the_allowed_files_only)
{
    need("/usr/bin/python3");
    need("/usr/bin/git");
    need("/usr/lib/git-core");
    struct floor_seen s = {0};
    use_policy("allow_binaries = []\n");
    cr_assert_eq(pd_exec_floor(&ctx, floor_cb, &s), 0);
    cr_assert_eq(s.n, 0, "no list: no floor");
    use_policy("allow_binaries = [\"python3\", \"git\"]\n");
    cr_assert_eq(pd_exec_floor(&ctx, floor_cb, &s), 0);
    cr_assert(s.python3);
    cr_assert(s.gitcore, "git's exec-path comes with git");
    cr_assert(s.loader);
    cr_assert_not(s.as, "no compiler driver: no companions");
}

Test(gate_exec, bare_name_missing_from_path_matches_a_versioned_program)
{
    need("/usr/bin/python3");
    need("/usr/bin/id");
    if (access("/usr/bin/python", X_OK) == 0)
        cr_skip_test("SKIP /usr/bin/python exists: the entry names it directly");
    use_policy("allow_binaries = [\"python\"]\n");
    char real[PD_PATH_MAX], venv[PD_PATH_MAX + 16], bad[PD_PATH_MAX + 16];
    cr_assert_not_null(realpath("/usr/bin/python3", real));
    cr_assert(pd_binary_versioned_alias(&ctx, "python", "/x/bin/python", real));
    cr_assert_not(pd_binary_versioned_alias(&ctx, "python", "/x/bin/python", "/usr/bin/id"));
    cr_assert_not(pd_binary_versioned_alias(&ctx, "python", "/x/bin/py", real));
    snprintf(venv, sizeof venv, "%s/python", ws);
    cr_assert_eq(symlink("/usr/bin/python3", venv), 0);
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(&ctx, "./python", ws, &v, &missing);
    cr_assert_not(v.deny, "a venv's python: %s", v.message);
    snprintf(bad, sizeof bad, "%s/sub", ws);
    cr_assert_eq(mkdir(bad, 0755), 0);
    snprintf(bad, sizeof bad, "%s/sub/python", ws);
    cr_assert_eq(symlink("/usr/bin/id", bad), 0);
    pd_gate_binary(&ctx, "./sub/python", ws, &v, &missing);
    cr_assert(v.deny, "a link named python that leads to id");
}
