/* tests/unit/test_exec_env.c - the pieces of `paldron exec` that need no
 * child process: the command's environment (launcher/exec_env.c), the
 * findings list (launcher/exec_findings.c) and the sandbox spec
 * (launcher/exec_sandbox.c). The runs themselves are proven by
 * tests/integration/test_exec_*.py. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec.h"

static const char *get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (char **e = env; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static size_t count(char **env)
{
    size_t n = 0;
    while (env[n])
        n++;
    return n;
}

static char *caller[] = {"PATH=/usr/bin:/bin",
                         "HOME=/home/u",
                         "USER=u",
                         "LANG=C.UTF-8",
                         "TERM=xterm",
                         "TMPDIR=/var/tmp",
                         "VIRTUAL_ENV=/tmp/untrusted-venv",
                         "JEV_API_KEY=k",
                         "SSH_AUTH_SOCK=/s",
                         "http_proxy=http://p:1",
                         "LD_PRELOAD=/tmp/evil.so",
                         "PATHX=no",
                         "PYTHON=python3",
                         NULL};

Test(exec_env, isolated_mode_filters_and_moves_home_and_caches)
{
    char **env = pd_exec_env(caller, true, "/run/x/reeve-sandbox-home", false, "/home/u/.cargo",
                             "/home/u/.rustup");
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "PATH"), "/usr/bin:/bin");
    cr_expect_str_eq(get(env, "USER"), "u");
    cr_expect_str_eq(get(env, "PYTHON"), "python3");
    cr_expect_str_eq(get(env, "HOME"), "/run/x/reeve-sandbox-home");
    cr_expect_str_eq(get(env, "TMPDIR"), "/run/x/reeve-sandbox-home");
    cr_expect_str_eq(get(env, "GOCACHE"), "/run/x/reeve-sandbox-home/go-cache");
    cr_expect_str_eq(get(env, "XDG_CACHE_HOME"), "/run/x/reeve-sandbox-home/xdg-cache");
    cr_expect_str_eq(get(env, "NPM_CONFIG_CACHE"), "/run/x/reeve-sandbox-home/npm-cache");
    cr_expect_str_eq(get(env, "PIP_CACHE_DIR"), "/run/x/reeve-sandbox-home/pip-cache");
    cr_expect_str_eq(get(env, "PYTHONPYCACHEPREFIX"), "/run/x/reeve-sandbox-home/python-cache");
    cr_expect_str_eq(get(env, "CARGO_HOME"), "/home/u/.cargo");
    cr_expect_str_eq(get(env, "RUSTUP_HOME"), "/home/u/.rustup");
    cr_expect_str_eq(get(env, "CARGO_NET_OFFLINE"), "true");
    for (const char *bad[] = {"VIRTUAL_ENV", "JEV_API_KEY", "SSH_AUTH_SOCK", "http_proxy",
                              "LD_PRELOAD", "PATHX", NULL},
                    **b = bad;
         *b; b++)
        cr_expect_null(get(env, *b), "%s leaked", *b);
    pd_exec_env_free(env);
}

Test(exec_env, network_on_keeps_cargo_online)
{
    char **env = pd_exec_env(caller, true, "/h", true, "/c", "/r");
    cr_assert_not_null(env);
    cr_expect_null(get(env, "CARGO_NET_OFFLINE"));
    pd_exec_env_free(env);
}

Test(exec_env, degraded_mode_only_filters)
{
    char **env = pd_exec_env(caller, false, "", false, "/c", "/r");
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "HOME"), "/home/u");
    cr_expect_str_eq(get(env, "TMPDIR"), "/var/tmp");
    cr_expect_null(get(env, "GOCACHE"));
    cr_expect_null(get(env, "CARGO_NET_OFFLINE"));
    cr_expect_null(get(env, "CARGO_HOME"));
    cr_expect_eq(count(env), 7); /* PATH HOME USER LANG TERM TMPDIR PYTHON */
    pd_exec_env_free(env);
}

Test(exec_env, findings_sort_by_path_and_keep_one_per_path)
{
    struct pd_findings f = {0};
    pd_findings_add(&f, "src/z.pem", "run produced %s", "src/z.pem");
    pd_findings_add(&f, "src/a.env", "run removed %s", "src/a.env");
    pd_findings_add(&f, "src/a.env", "run produced %s", "src/a.env");
    pd_findings_add(&f, ".env", "run produced %s", ".env");
    pd_findings_sort(&f);
    cr_assert_eq(f.n, 3);
    cr_expect_str_eq(f.v[0].path, ".env");
    cr_expect_str_eq(f.v[1].message, "run produced src/a.env");
    cr_expect_str_eq(f.v[2].path, "src/z.pem");
    struct pd_findings all = {0};
    cr_expect_eq(pd_findings_take(&all, &f), 0);
    cr_expect_eq(all.n, 3);
    cr_expect_eq(f.n, 0);
    pd_findings_free(&all);
}

Test(exec_env, spec_lists_what_the_command_may_touch)
{
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol,
                                       "allow_paths = [\"src/\", \"/srv/build\"]\n"
                                       "allow_network = true\nmax_memory_mb = 100\n",
                                       "t.toml", &err),
                 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, "/tmp", NULL, &err), 0, "%s", err.msg);
    struct pd_exec_plan *p = calloc(1, sizeof *p);
    cr_assert_not_null(p);
    p->ctx = &ctx;
    strcpy(p->program, "/usr/bin/python3");
    strcpy(p->program_real, "/usr/bin/python3.11");
    strcpy(p->rundir.home, "/tmp/paldron-run-x/reeve-sandbox-home");
    p->limits.mem_bytes = 100ULL << 20;
    cr_assert_eq(pd_exec_spec(p), 0);
    const struct pd_sandbox_spec *s = &p->spec;
    bool has_usr = false, has_prog = false, has_inv = false;
    for (size_t k = 0; k < s->exec_paths.n; k++) {
        has_usr |= strcmp(s->exec_paths.v[k], "/usr") == 0;
        has_prog |= strcmp(s->exec_paths.v[k], "/usr/bin/python3.11") == 0;
        has_inv |= strcmp(s->exec_paths.v[k], "/usr/bin/python3") == 0;
    }
    cr_expect(has_usr && has_prog && has_inv);
    cr_expect_str_eq(s->read_paths.v[0], ctx.workspace);
    cr_expect_str_eq(s->read_paths.v[s->read_paths.n - 1], "/run/systemd/resolve");
    cr_assert_eq(s->write_paths.n, 4);
    cr_expect_str_eq(s->write_paths.v[0], "/tmp/src");
    cr_expect_str_eq(s->write_paths.v[1], "/srv/build");
    cr_expect_str_eq(s->write_paths.v[2], "/tmp/paldron-run-x/reeve-sandbox-home");
    cr_expect_str_eq(s->write_paths.v[3], "/dev/shm");
    cr_expect_eq(s->dev_paths.n, 7);
    for (size_t k = 0; k < s->dev_paths.n; k++) /* capture mode: no terminal */
        cr_expect_neq(strcmp(s->dev_paths.v[k], "/dev/tty"), 0);
    cr_expect_not(s->no_exec_writes, "no allow_binaries: no floor");
    cr_expect(s->allow_network);
    cr_expect_eq(s->limits.mem_bytes, 100ULL << 20);
    /* nothing of the real home, /tmp or the run directory itself */
    for (size_t k = 0; k < s->write_paths.n; k++)
        cr_expect_neq(strcmp(s->write_paths.v[k], "/tmp/paldron-run-x"), 0);
    pd_exec_spec_free(p);
    free(p);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
}

/* allow_binaries: the system directories are only readable, execution is
 * granted on the allowed files (and the loader), writable roots execute
 * nothing unless an allowed program lives there. */
Test(exec_env, spec_floor_with_allow_binaries)
{
    if (access("/usr/bin/python3", X_OK) != 0)
        cr_skip_test("SKIP no python3 here");
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol,
                                       "allow_paths = [\"src/\", \"/srv/build\"]\n"
                                       "allow_binaries = [\"python3\", \"/srv/build/app\"]\n",
                                       "t.toml", &err),
                 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, "/tmp", NULL, &err), 0, "%s", err.msg);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin");
    struct pd_exec_plan *p = calloc(1, sizeof *p);
    cr_assert_not_null(p);
    p->ctx = &ctx;
    strcpy(p->program, "/usr/bin/python3");
    strcpy(p->program_real, "/usr/bin/python3.11");
    strcpy(p->rundir.home, "/tmp/paldron-run-x/reeve-sandbox-home");
    cr_assert_eq(pd_exec_spec(p), 0);
    const struct pd_sandbox_spec *s = &p->spec;
    bool usr_exec = false, usr_read = false, py = false, srv = false, src = false;
    for (size_t k = 0; k < s->exec_paths.n; k++) {
        usr_exec |= strcmp(s->exec_paths.v[k], "/usr") == 0;
        py |= strcmp(s->exec_paths.v[k], "/usr/bin/python3") == 0;
        srv |= strcmp(s->exec_paths.v[k], "/srv/build") == 0;
        src |= strcmp(s->exec_paths.v[k], "/tmp/src") == 0;
    }
    for (size_t k = 0; k < s->read_paths.n; k++)
        usr_read |= strcmp(s->read_paths.v[k], "/usr") == 0;
    cr_expect_not(usr_exec, "/usr is readable, not executable");
    cr_expect(usr_read);
    cr_expect(py, "the allowed program is executable");
    cr_expect(srv, "/srv/build holds an allowed program");
    cr_expect_not(src, "src/ holds none");
    cr_expect(s->no_exec_writes);
    pd_exec_spec_free(p);
    free(p);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
}
