/* tests/unit/test_exec_env.c - the pieces of `paldron exec` that need no
 * child process: the command's environment (launcher/exec/exec_env.c), the
 * findings list (launcher/exec/exec_findings.c) and the sandbox spec
 * (launcher/exec/exec_sandbox.c). The runs themselves are proven by
 * tests/integration/test_exec_*.py. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdio.h>
#include <sys/stat.h>

#include "launcher/exec/exec.h"
#include "policy/toml/toml_lex.h"

static const char *get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (char **e = env; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static char *caller[] = {"PATH=/usr/bin:/bin",
                         "HOME=/home/u",
                         "USER=u",
                         "LANG=C.UTF-8",
                         "TERM=xterm",
                         "TMPDIR=/var/tmp",
                         "VIRTUAL_ENV=/tmp/venv",
                         "PYTHONPATH=/w/lib",
                         "CI=true",
                         "NODE_ENV=test",
                         "JEV_API_KEY=k",
                         "AWS_SECRET_ACCESS_KEY=s",
                         "GITHUB_TOKEN=t",
                         "SSH_AUTH_SOCK=/s",
                         "http_proxy=http://p:1",
                         "LD_PRELOAD=/tmp/evil.so",
                         "LD_AUDIT=/tmp/evil.so",
                         "LD_LIBRARY_PATH=/tmp",
                         "BASH_ENV=/w/x.sh",
                         "ENV=/w/x.sh",
                         "PS4=$(id)",
                         "BASH_FUNC_ls%%=() { id; }",
                         "PROMPT_COMMAND=id",
                         "PALDRON_RUN=/x",
                         "GOCACHE=/home/u/.cache/go-build",
                         "NPM_CONFIG_CACHE=/home/u/.npm",
                         "PYTHON=python3",
                         "NOEQUALS",
                         NULL};

static struct pd_env_opts iso(bool net)
{
    return (struct pd_env_opts){.isolated = true,
                                .temp_home = "/run/x/reeve-sandbox-home",
                                .cache = "/home/u/.cache/paldron/w-0123",
                                .allow_network = net,
                                .cargo_home = "/home/u/.cargo",
                                .rustup_home = "/home/u/.rustup"};
}

Test(exec_env, isolated_mode_passes_ordinary_variables_and_moves_home_and_caches)
{
    const struct pd_env_opts o = iso(false);
    char **env = pd_exec_env(caller, &o);
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "PATH"), "/usr/bin:/bin");
    cr_expect_str_eq(get(env, "USER"), "u");
    cr_expect_str_eq(get(env, "PYTHON"), "python3");
    cr_expect_str_eq(get(env, "PYTHONPATH"), "/w/lib");
    cr_expect_str_eq(get(env, "CI"), "true");
    cr_expect_str_eq(get(env, "NODE_ENV"), "test");
    cr_expect_str_eq(get(env, "VIRTUAL_ENV"), "/tmp/venv");
    cr_expect_str_eq(get(env, "SSH_AUTH_SOCK"), "/s");
    cr_expect_str_eq(get(env, "HOME"), "/run/x/reeve-sandbox-home");
    cr_expect_str_eq(get(env, "TMPDIR"), "/run/x/reeve-sandbox-home");
    cr_expect_str_eq(get(env, "GOCACHE"), "/home/u/.cache/paldron/w-0123/go-build");
    cr_expect_str_eq(get(env, "GOMODCACHE"), "/home/u/.cache/paldron/w-0123/go-mod");
    cr_expect_str_eq(get(env, "XDG_CACHE_HOME"), "/home/u/.cache/paldron/w-0123/xdg");
    cr_expect_str_eq(get(env, "npm_config_cache"), "/home/u/.cache/paldron/w-0123/npm");
    cr_expect_str_eq(get(env, "PIP_CACHE_DIR"), "/home/u/.cache/paldron/w-0123/pip");
    cr_expect_str_eq(get(env, "CARGO_HOME"), "/home/u/.cargo");
    cr_expect_str_eq(get(env, "RUSTUP_HOME"), "/home/u/.rustup");
    cr_expect_str_eq(get(env, "CARGO_NET_OFFLINE"), "true");
    cr_expect_str_eq(get(env, "ASAN_OPTIONS"), "verify_asan_link_order=0");
    for (const char *bad[] = {"JEV_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "http_proxy",
                              "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PS4",
                              "BASH_FUNC_ls%%", "PROMPT_COMMAND", "PALDRON_RUN", "NPM_CONFIG_CACHE",
                              "PYTHONPYCACHEPREFIX", "NOEQUALS", NULL},
                    **b = bad;
         *b; b++)
        cr_expect_null(get(env, *b), "%s leaked", *b);
    /* one GOCACHE: the launcher's replaces the caller's */
    size_t ngo = 0;
    for (char **e = env; *e; e++)
        ngo += strncmp(*e, "GOCACHE=", 8) == 0;
    cr_expect_eq(ngo, 1);
    pd_exec_env_free(env);
}

Test(exec_env, without_a_persistent_cache_the_caches_are_in_the_temp_home)
{
    struct pd_env_opts o = iso(false);
    o.cache = "";
    char **env = pd_exec_env(caller, &o);
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "GOCACHE"), "/run/x/reeve-sandbox-home/cache-go-build");
    cr_expect_str_eq(get(env, "PIP_CACHE_DIR"), "/run/x/reeve-sandbox-home/cache-pip");
    pd_exec_env_free(env);
}

Test(exec_env, network_off_sets_the_tools_offline_switches)
{
    const struct pd_env_opts off = iso(false), on = iso(true);
    char **env = pd_exec_env(caller, &off);
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "NO_UPDATE_NOTIFIER"), "1");
    cr_expect_str_eq(get(env, "npm_config_update_notifier"), "false");
    cr_expect_str_eq(get(env, "PIP_DISABLE_PIP_VERSION_CHECK"), "1");
    cr_expect_str_eq(get(env, "GOPROXY"), "off");
    cr_expect_str_eq(get(env, "GOTOOLCHAIN"), "local");
    pd_exec_env_free(env);
    env = pd_exec_env(caller, &on);
    cr_assert_not_null(env);
    for (const char *n[] = {"CARGO_NET_OFFLINE", "NO_UPDATE_NOTIFIER", "npm_config_update_notifier",
                            "PIP_DISABLE_PIP_VERSION_CHECK", "GOPROXY", NULL},
                    **b = n;
         *b; b++)
        cr_expect_null(get(env, *b), "%s set with the network on", *b);
    cr_expect_str_eq(get(env, "http_proxy"), "http://p:1", "proxies pass with the network on");
    pd_exec_env_free(env);
}

Test(exec_env, degraded_mode_keeps_home_and_caches)
{
    const struct pd_env_opts o = {.isolated = false, .temp_home = "", .allow_network = true};
    char **env = pd_exec_env(caller, &o);
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "HOME"), "/home/u");
    cr_expect_str_eq(get(env, "TMPDIR"), "/var/tmp");
    cr_expect_str_eq(get(env, "GOCACHE"), "/home/u/.cache/go-build");
    cr_expect_null(get(env, "CARGO_NET_OFFLINE"));
    cr_expect_null(get(env, "CARGO_HOME"));
    cr_expect_null(get(env, "LD_PRELOAD"));
    cr_expect_null(get(env, "AWS_SECRET_ACCESS_KEY"));
    pd_exec_env_free(env);
}

Test(exec_env, env_pass_and_env_drop)
{
    struct pd_strv pass = {0}, drop = {0};
    cr_assert_eq(pd_strv_push(&pass, "GITHUB_TOKEN"), 0);
    cr_assert_eq(pd_strv_push(&pass, "AWS_*"), 0);
    cr_assert_eq(pd_strv_push(&pass, "LD_AUDIT"), 0); /* hooks never pass */
    cr_assert_eq(pd_strv_push(&drop, "NODE_*"), 0);
    cr_assert_eq(pd_strv_push(&drop, "CI"), 0);
    cr_assert_eq(pd_strv_push(&drop, "AWS_SECRET_ACCESS_KEY"), 0); /* drop wins */
    struct pd_env_opts o = iso(false);
    o.pass = &pass;
    o.drop = &drop;
    char *said = NULL;
    size_t saidlen = 0;
    o.say = open_memstream(&said, &saidlen);
    cr_assert_not_null(o.say);
    char **env = pd_exec_env(caller, &o);
    fclose(o.say);
    cr_assert_not_null(env);
    cr_expect_str_eq(get(env, "GITHUB_TOKEN"), "t");
    cr_expect_null(get(env, "AWS_SECRET_ACCESS_KEY"));
    cr_expect_null(get(env, "LD_AUDIT"));
    cr_expect_null(get(env, "NODE_ENV"));
    cr_expect_null(get(env, "CI"));
    cr_expect_str_eq(get(env, "PYTHONPATH"), "/w/lib");
    cr_expect(strstr(said, "paldron: env: dropped AWS_SECRET_ACCESS_KEY (env_drop)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: env: dropped NODE_ENV (env_drop)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: env: dropped JEV_API_KEY (secret-looking)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: env: dropped LD_AUDIT (loader hook)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: env: dropped BASH_ENV (shell hook)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: env: dropped http_proxy (network off)\n"), "%s", said);
    cr_expect_null(strstr(said, "GITHUB_TOKEN"), "%s", said);
    cr_expect_null(strstr(said, "GOCACHE"), "replaced, not dropped: %s", said);
    free(said);
    pd_exec_env_free(env);
    pd_strv_free(&pass);
    pd_strv_free(&drop);
}

Test(exec_env, drop_reasons)
{
    cr_expect_null(pd_env_drop_reason("PYTHONPATH", 10, NULL, NULL, false));
    cr_expect_null(pd_env_drop_reason("CI", 2, NULL, NULL, false));
    cr_expect_str_eq(pd_env_drop_reason("OPENAI_API_KEY", 14, NULL, NULL, true), "secret-looking");
    cr_expect_str_eq(pd_env_drop_reason("GLIBC_TUNABLES", 14, NULL, NULL, true), "loader hook");
    cr_expect_str_eq(pd_env_drop_reason("SHELLOPTS", 9, NULL, NULL, true), "shell hook");
    cr_expect_null(pd_env_drop_reason("HTTPS_PROXY", 11, NULL, NULL, true));
    cr_expect_str_eq(pd_env_drop_reason("HTTPS_PROXY", 11, NULL, NULL, false), "network off");
    /* "ENV" is a hook, "ENVIRONMENT" and "NODE_ENV" are not */
    cr_expect_null(pd_env_drop_reason("ENVIRONMENT", 11, NULL, NULL, false));
}

Test(exec_env, asan_options_get_the_link_order_switch_once)
{
    char *with[] = {"ASAN_OPTIONS=detect_leaks=0", NULL};
    char *set[] = {"ASAN_OPTIONS=verify_asan_link_order=1:detect_leaks=0", NULL};
    char *empty[] = {"ASAN_OPTIONS=", NULL};
    const struct pd_env_opts o = iso(true);
    char **env = pd_exec_env(with, &o);
    cr_expect_str_eq(get(env, "ASAN_OPTIONS"), "detect_leaks=0:verify_asan_link_order=0");
    pd_exec_env_free(env);
    env = pd_exec_env(set, &o);
    cr_expect_str_eq(get(env, "ASAN_OPTIONS"), "verify_asan_link_order=1:detect_leaks=0");
    pd_exec_env_free(env);
    env = pd_exec_env(empty, &o);
    cr_expect_str_eq(get(env, "ASAN_OPTIONS"), "verify_asan_link_order=0");
    pd_exec_env_free(env);
    cr_expect(pd_asan_sets_link_order("a=1,verify_asan_link_order=0"));
    cr_expect_not(pd_asan_sets_link_order("no_verify_asan_link_order=0"));
    cr_expect_not(pd_asan_sets_link_order(NULL));
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

/* A scratch directory under /tmp, removed by the caller with rm -rf. */
static char *scratch(void)
{
    char *d = strdup("/tmp/pd-unit-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

static void rm_rf(const char *d)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", d, d);
    cr_expect_eq(system(cmd), 0);
}

Test(exec_cache, one_folder_per_workspace_made_0700_never_through_a_link)
{
    char *d = scratch(), ws1[256], ws2[256], xdg[256], a[4096], b[4096], c[4096];
    snprintf(ws1, sizeof ws1, "%s/proj", d);
    snprintf(ws2, sizeof ws2, "%s/other", d);
    snprintf(xdg, sizeof xdg, "%s/xdg", d);
    cr_assert_eq(mkdir(ws1, 0755), 0);
    cr_assert_eq(mkdir(ws2, 0755), 0);
    setenv("XDG_CACHE_HOME", xdg, 1);
    cr_assert_eq(pd_cache_dir(ws1, a, sizeof a, NULL, 0), 0);
    cr_assert_eq(pd_cache_dir(ws1, b, sizeof b, NULL, 0), 0);
    cr_assert_eq(pd_cache_dir(ws2, c, sizeof c, NULL, 0), 0);
    cr_expect_str_eq(a, b, "stable");
    cr_expect_str_neq(a, c, "one per workspace");
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s/paldron/proj-", xdg);
    cr_expect_eq(strncmp(a, prefix, strlen(prefix)), 0, "%s", a);
    cr_assert_eq(pd_cache_prepare(ws1, b, sizeof b, NULL, 0), 0);
    struct stat st;
    cr_assert_eq(stat(a, &st), 0);
    cr_expect(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700, "mode %o", st.st_mode);
    /* a link where the folder should be is refused, not followed */
    char err[256] = "";
    cr_assert_eq(rmdir(a), 0);
    cr_assert_eq(symlink(ws2, a), 0);
    cr_expect_eq(pd_cache_prepare(ws1, b, sizeof b, err, sizeof err), -1);
    cr_expect(strstr(err, "symbolic link"), "%s", err);
    unsetenv("XDG_CACHE_HOME");
    rm_rf(d);
    free(d);
}

Test(exec_roots, missing_allow_paths_folders_are_created_inside_the_workspace_only)
{
    char *d = scratch(), ws[256], out[256], pol_text[1024], path[512];
    snprintf(ws, sizeof ws, "%s/ws", d);
    snprintf(out, sizeof out, "%s/out", d);
    cr_assert_eq(mkdir(ws, 0755), 0);
    cr_assert_eq(mkdir(out, 0755), 0);
    snprintf(path, sizeof path, "%s/lnk", ws);
    cr_assert_eq(symlink(out, path), 0);
    snprintf(path, sizeof path, "%s/in", ws);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/inlnk", ws);
    cr_assert_eq(symlink("in", path), 0);
    snprintf(pol_text, sizeof pol_text,
             "allow_paths = [\"build/\", \"a/b/c\", \"lnk/x\", \"inlnk/y\", \"%s/z\", "
             "\"src/\"]\n",
             out);
    snprintf(path, sizeof path, "%s/src", ws);
    cr_assert_eq(mkdir(path, 0755), 0);
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, pol_text, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    char *said = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&said, &n);
    pd_exec_make_roots(&ctx, f);
    fclose(f);
    struct stat st;
    snprintf(path, sizeof path, "%s/build", ws);
    cr_expect_eq(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/a/b/c", ws);
    cr_expect_eq(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/x", out);
    cr_expect_neq(lstat(path, &st), 0, "created through a link");
    snprintf(path, sizeof path, "%s/in/y", ws);
    cr_expect_neq(lstat(path, &st), 0, "created through a link inside");
    snprintf(path, sizeof path, "%s/z", out);
    cr_expect_neq(lstat(path, &st), 0, "created outside");
    cr_expect(strstr(said, "paldron: created build/ (allow_paths)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: created a/b/c (allow_paths)\n"), "%s", said);
    cr_expect(strstr(said, "paldron: not created lnk/x (allow_paths): outside the workspace"), "%s",
              said);
    cr_expect(strstr(said, "paldron: not created inlnk/y (allow_paths): it leads through a "
                           "symbolic link"),
              "%s", said);
    cr_expect_null(strstr(said, "src/"), "src/ exists: nothing to say: %s", said);
    /* a second time: nothing to say */
    free(said);
    said = NULL;
    f = open_memstream(&said, &n);
    pd_exec_make_roots(&ctx, f);
    fclose(f);
    cr_expect_null(strstr(said, "created build/"), "%s", said);
    free(said);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    rm_rf(d);
    free(d);
}

Test(exec_env, spec_makes_the_cache_folder_writable)
{
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, "allow_paths = [\"src/\"]\n", "t.toml", &err), 0);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, "/tmp", NULL, &err), 0, "%s", err.msg);
    struct pd_exec_plan *p = calloc(1, sizeof *p);
    cr_assert_not_null(p);
    p->ctx = &ctx;
    strcpy(p->program, "/usr/bin/true");
    strcpy(p->program_real, "/usr/bin/true");
    strcpy(p->rundir.home, "/tmp/paldron-run-x/reeve-sandbox-home");
    strcpy(p->cache, "/home/u/.cache/paldron/w-0123");
    cr_assert_eq(pd_exec_spec(p), 0);
    cr_assert_eq(p->spec.write_paths.n, 4);
    cr_expect_str_eq(p->spec.write_paths.v[3], "/home/u/.cache/paldron/w-0123");
    pd_exec_spec_free(p);
    free(p);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
}
