/* launcher/exec_env.c - the command's environment (seed-spec 4.2). Only a
 * fixed list of variables is inherited: API keys, agent sockets, proxies
 * and virtualenv settings of the caller stay out. In isolated mode HOME and
 * TMPDIR point at the private temp home and the tools' caches live under it,
 * while cargo and rustup keep their real homes (read-only in the sandbox).
 * The loader's hooks (preload/loader_env.h: LD_AUDIT, LD_LIBRARY_PATH,
 * GCONV_PATH ...) are never passed, whatever the list says: one of them is
 * enough to keep the live gate out of the command or to load a workspace
 * library into an allowed program. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec.h"
#include "preload/loader_env.h"

static const char *const inherited[] = {
    "PATH",   "HOME",   "USER",       "LANG",        "LC_ALL",    "TERM",   "TMPDIR",
    "GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "PYTHON", NULL};

/* Never inherited, even if added to the list above by mistake. */
static bool loader_hook(const char *name)
{
    return pd_loader_hook(name) || strcmp(name, PD_ENV_LIBPATH) == 0 ||
           strcmp(name, "LD_PRELOAD") == 0;
}

/* Caches that would otherwise land in the real home (name, subdirectory). */
static const char *const caches[][2] = {
    {"GOCACHE", "go-cache"},
    {"XDG_CACHE_HOME", "xdg-cache"},
    {"NPM_CONFIG_CACHE", "npm-cache"},
    {"PIP_CACHE_DIR", "pip-cache"},
    {"PYTHONPYCACHEPREFIX", "python-cache"},
};

static const char *lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (char *const *e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static int push(char **env, size_t *n, const char *name, const char *value)
{
    if (asprintf(&env[*n], "%s=%s", name, value) < 0) {
        env[*n] = NULL;
        return -1;
    }
    (*n)++;
    env[*n] = NULL;
    return 0;
}

void pd_exec_tool_home(const char *var, const char *dflt, char *out, size_t outlen)
{
    const char *v = getenv(var);
    if (v && v[0]) {
        snprintf(out, outlen, "%s", v);
        return;
    }
    const char *home = getenv("HOME");
    if (!home || !home[0]) {
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    if (home && home[0])
        snprintf(out, outlen, "%s/%s", home, dflt);
    else
        out[0] = '\0';
}

char **pd_exec_env(char *const *envp, bool isolated, const char *temp_home, bool allow_network,
                   const char *cargo_home, const char *rustup_home)
{
    const size_t max =
        sizeof inherited / sizeof inherited[0] + sizeof caches / sizeof caches[0] + 2;
    char **env = calloc(max, sizeof *env);
    size_t n = 0;
    if (!env)
        return NULL;
    for (size_t k = 0; inherited[k]; k++) {
        const char *name = inherited[k];
        const char *value = loader_hook(name) ? NULL : lookup(envp, name);
        if (isolated) {
            if (strcmp(name, "HOME") == 0 || strcmp(name, "TMPDIR") == 0)
                value = temp_home;
            else if (strcmp(name, "CARGO_HOME") == 0 && cargo_home[0])
                value = cargo_home;
            else if (strcmp(name, "RUSTUP_HOME") == 0 && rustup_home[0])
                value = rustup_home;
        }
        if (value && push(env, &n, name, value) < 0)
            goto fail;
    }
    if (isolated) {
        char dir[PD_PATH_MAX];
        for (size_t k = 0; k < sizeof caches / sizeof caches[0]; k++) {
            snprintf(dir, sizeof dir, "%s/%s", temp_home, caches[k][1]);
            if (push(env, &n, caches[k][0], dir) < 0)
                goto fail;
        }
        if (!allow_network && push(env, &n, "CARGO_NET_OFFLINE", "true") < 0)
            goto fail;
    }
    return env;
fail:
    pd_exec_env_free(env);
    return NULL;
}

void pd_exec_env_free(char **env)
{
    for (size_t k = 0; env && env[k]; k++)
        free(env[k]);
    free(env);
}
