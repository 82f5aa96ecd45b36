/* launcher/exec/exec_env.c - the command's environment. The caller's variables
 * pass unless launcher/exec/exec_env_filter.c drops them (hooks, secret-looking
 * names, the policy's env_drop): a command must see what it sees bare. The
 * launcher then sets its own, which replace the caller's:
 *   - isolated mode: HOME and TMPDIR at the private temp home; the tools'
 *     caches in the workspace's persistent cache folder (exec_cache.c), or
 *     in the temp home when there is none; cargo and rustup keep their real
 *     homes (read-only in the sandbox);
 *   - the network off (both modes: the live gate refuses connects in both):
 *     the tools' own switches for update checks and telemetry, so that an
 *     everyday command does not try the network and get the run denied;
 *   - GOTMPDIR (both modes): the run's go work directory in the temp home,
 *     where go test and go run may start what they build (exec_run.c);
 *   - ASAN_OPTIONS: verify_asan_link_order=0, unless the caller set it (the
 *     live gate's preload comes before the ASan runtime, which aborts).
 * No PYTHONPYCACHEPREFIX: with it, Python ignores the stdlib's own .pyc
 * files and recompiles every import in every run. */
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "launcher/exec/exec.h"

/* Caches that would otherwise land in the real home (name, subdirectory). */
static const char *const caches[][2] = {
    {"GOCACHE", "go-build"},     {"GOMODCACHE", "go-mod"},  {"PIP_CACHE_DIR", "pip"},
    {"npm_config_cache", "npm"}, {"XDG_CACHE_HOME", "xdg"},
};

/* Network off: switches that keep a tool from trying it (docs/policy.md). */
static const char *const offline[][2] = {
    {"CARGO_NET_OFFLINE", "true"},
    {"NO_UPDATE_NOTIFIER", "1"},             /* the update-notifier package (many CLIs) */
    {"npm_config_update_notifier", "false"}, /* npm's and pnpm's own check */
    {"npm_config_audit", "false"},           /* npm install's advisory lookup */
    {"npm_config_fund", "false"},            /* npm install's funding lookup message */
    {"PIP_DISABLE_PIP_VERSION_CHECK", "1"},
    {"GOPROXY", "off"},       /* go fails at once on a missing module, no connect */
    {"GOTOOLCHAIN", "local"}, /* no download of the go.mod's newer toolchain */
    {"HOMEBREW_NO_AUTO_UPDATE", "1"},
    {"HOMEBREW_NO_ANALYTICS", "1"},
    {"DOTNET_CLI_TELEMETRY_OPTOUT", "1"},
    {"NEXT_TELEMETRY_DISABLED", "1"},
    {"GATSBY_TELEMETRY_DISABLED", "1"},
    {"YARN_ENABLE_TELEMETRY", "0"},
    {"CHECKPOINT_DISABLE", "1"}, /* HashiCorp tools' version check */
    {"DENO_NO_UPDATE_CHECK", "1"},
    {"GH_NO_UPDATE_NOTIFIER", "1"},
    {"HF_HUB_OFFLINE", "1"}, /* Hugging Face: use the cache, no HEAD request */
    {"DO_NOT_TRACK", "1"},   /* the shared opt-out many tools read */
};

#define COUNT(a)        (sizeof(a) / sizeof((a)[0]))
#define ASAN_LINK_ORDER "verify_asan_link_order"

static const char *lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (char *const *e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
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
        // cppcheck-suppress getpwuidCalled ; no other thread of paldron calls getpw*
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    if (home && home[0])
        snprintf(out, outlen, "%s/%s", home, dflt);
    else
        out[0] = '\0';
}

bool pd_asan_sets_link_order(const char *options)
{
    size_t n = strlen(ASAN_LINK_ORDER);
    for (const char *s = options; s && *s;) {
        s += strspn(s, ": ,\t\n");
        if (strncmp(s, ASAN_LINK_ORDER, n) == 0 && (s[n] == '=' || s[n] == '\0' || s[n] == ':'))
            return true;
        s += strcspn(s, ": ,\t\n");
    }
    return false;
}

/* The variables the launcher sets, built before the caller's are copied so
 * that a caller's variable of the same name can be left out. */
struct sets {
    char *v[COUNT(caches) + COUNT(offline) + 24];
    size_t n;
};

__attribute__((format(printf, 3, 4))) static int set(struct sets *s, const char *name,
                                                     const char *fmt, ...)
{
    char *value = NULL, *entry = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&value, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    int rc = asprintf(&entry, "%s=%s", name, value);
    free(value);
    if (rc < 0)
        return -1;
    s->v[s->n++] = entry;
    return 0;
}

/* Is the caller's entry (NAME=...) replaced by one the launcher sets? npm
 * reads npm_config_* whatever the case, so those compare without it. */
static bool replaced(const struct sets *s, const char *entry, size_t len)
{
    for (size_t k = 0; k < s->n; k++) {
        const char *ours = s->v[k];
        if (strncmp(ours, "npm_config_", 11) == 0 ? strncasecmp(ours, entry, len + 1) == 0
                                                  : strncmp(ours, entry, len + 1) == 0)
            return true;
    }
    return false;
}

/* An offline switch that stops a tool from fetching anything (not only
 * its update check): not set when allow_hosts makes the network reachable. */
static bool fetching(const char *name)
{
    return strcmp(name, "CARGO_NET_OFFLINE") == 0 || strcmp(name, "GOPROXY") == 0 ||
           strcmp(name, "GOTOOLCHAIN") == 0 || strcmp(name, "HF_HUB_OFFLINE") == 0;
}

/* allow_hosts: every client to the run's proxy, by the literal loopback
 * address (a "localhost" would be looked up, and may be ::1 where the
 * proxy is not); loopback alone bypasses it. The caller's values of these
 * names are replaced; JAVA_TOOL_OPTIONS keeps the caller's options after
 * ours, git's configuration from the environment keeps the caller's
 * entries before ours. */
static int proxy_sets(struct sets *s, char *const *envp, const struct pd_env_opts *o)
{
    static const char *const vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                       "http_proxy", "https_proxy", "all_proxy"};
    for (size_t k = 0; k < COUNT(vars); k++)
        if (set(s, vars[k], "%s", o->proxy_url) < 0)
            return -1;
    if (set(s, "NO_PROXY", "localhost,127.0.0.1,::1") < 0 ||
        set(s, "no_proxy", "localhost,127.0.0.1,::1") < 0 || set(s, "NODE_USE_ENV_PROXY", "1") < 0)
        return -1;
    const char *port = strrchr(o->proxy_url, ':') + 1;
    const char *java = lookup(envp, "JAVA_TOOL_OPTIONS");
    if (set(s, "JAVA_TOOL_OPTIONS",
            "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=%s -Dhttps.proxyHost=127.0.0.1 "
            "-Dhttps.proxyPort=%s -Dhttp.nonProxyHosts=localhost|127.*|[::1]%s%s",
            port, port, java && java[0] ? " " : "", java ? java : "") < 0)
        return -1;
    const char *count = lookup(envp, "GIT_CONFIG_COUNT");
    long n = count ? strtol(count, NULL, 10) : 0;
    if (n < 0 || n > 1000)
        n = 0;
    char key[48], value[48];
    snprintf(key, sizeof key, "GIT_CONFIG_KEY_%ld", n);
    snprintf(value, sizeof value, "GIT_CONFIG_VALUE_%ld", n);
    if (set(s, "GIT_CONFIG_COUNT", "%ld", n + 1) < 0 || set(s, key, "http.proxy") < 0 ||
        set(s, value, "%s", o->proxy_url) < 0)
        return -1;
    if (o->ssh_command && set(s, "GIT_SSH_COMMAND", "%s", o->ssh_command) < 0)
        return -1;
    return 0;
}

static int launcher_sets(struct sets *s, char *const *envp, const struct pd_env_opts *o)
{
    if (o->isolated) {
        if (set(s, "HOME", "%s", o->temp_home) < 0 || set(s, "TMPDIR", "%s", o->temp_home) < 0)
            return -1;
        const bool persistent = o->cache && o->cache[0];
        for (size_t k = 0; k < COUNT(caches); k++)
            if (set(s, caches[k][0], persistent ? "%s/%s" : "%s/cache-%s",
                    persistent ? o->cache : o->temp_home, caches[k][1]) < 0)
                return -1;
        if (o->cargo_home && o->cargo_home[0] && set(s, "CARGO_HOME", "%s", o->cargo_home) < 0)
            return -1;
        if (o->rustup_home && o->rustup_home[0] && set(s, "RUSTUP_HOME", "%s", o->rustup_home) < 0)
            return -1;
    }
    /* both modes: the live gate lets go start what it builds there alone
     * (policy/gate_exec.h, rule g); a caller's GOTMPDIR would lie outside
     * it and outside the writable roots */
    if (o->go_tmp && o->go_tmp[0] && set(s, "GOTMPDIR", "%s", o->go_tmp) < 0)
        return -1;
    /* through the proxy the network is there for what allow_hosts names:
     * the switches that stop fetching altogether stay off, those of update
     * checks and telemetry stay on */
    for (size_t k = 0; !o->allow_network && k < COUNT(offline); k++)
        if ((!o->proxy_url || !fetching(offline[k][0])) &&
            set(s, offline[k][0], "%s", offline[k][1]) < 0)
            return -1;
    if (o->proxy_url && proxy_sets(s, envp, o) < 0)
        return -1;
    const char *asan = lookup(envp, "ASAN_OPTIONS");
    if (!pd_asan_sets_link_order(asan) && set(s, "ASAN_OPTIONS", "%s%s" ASAN_LINK_ORDER "=0",
                                              asan ? asan : "", asan && asan[0] ? ":" : "") < 0)
        return -1;
    return 0;
}

char **pd_exec_env(char *const *envp, const struct pd_env_opts *o)
{
    struct sets s = {.n = 0};
    size_t ncaller = 0;
    while (envp && envp[ncaller])
        ncaller++;
    char **env = calloc(ncaller + COUNT(s.v) + 1, sizeof *env);
    if (!env || launcher_sets(&s, envp, o) < 0)
        goto fail;
    size_t n = 0;
    for (size_t k = 0; k < ncaller; k++) {
        const char *eq = strchr(envp[k], '=');
        if (!eq || eq == envp[k])
            continue; /* not a variable */
        size_t len = (size_t)(eq - envp[k]);
        if (replaced(&s, envp[k], len))
            continue;
        const char *why = pd_env_drop_reason(envp[k], len, o->pass, o->drop, o->allow_network);
        if (why) {
            /* PALDRON_*: the live gate's own are added after this list */
            if (o->say && strncmp(envp[k], "PALDRON_", 8) != 0)
                fprintf(o->say, "paldron: env: dropped %.*s (%s)\n", (int)len, envp[k], why);
            continue;
        }
        if (!(env[n++] = strdup(envp[k])))
            goto fail;
    }
    for (size_t k = 0; k < s.n; k++) {
        env[n++] = s.v[k];
        s.v[k] = NULL;
    }
    return env;
fail:
    for (size_t k = 0; k < s.n; k++)
        free(s.v[k]);
    pd_exec_env_free(env);
    return NULL;
}

void pd_exec_env_free(char **env)
{
    for (size_t k = 0; env && env[k]; k++)
        free(env[k]);
    free(env);
}
