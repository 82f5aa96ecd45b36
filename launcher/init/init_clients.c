/* launcher/init/init_clients.c - the agent clients that init and doctor know,
 * where each keeps its hooks, the project they work in, and the order of
 * the command line (the client's name among the options).
 *
 * Claude Code: project .claude/settings.json (and settings.local.json, which
 * doctor reads too), user ~/.claude/settings.json - or the folder of
 * CLAUDE_CONFIG_DIR, which moves Claude Code's whole config home.
 * Codex: project .codex/hooks.json, user $CODEX_HOME/hooks.json (default
 * ~/.codex), trust in $CODEX_HOME/config.toml. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/init/init.h"

static const struct {
    const char *name, *program;
} clients[PD_CLIENT_COUNT] = {
    [PD_CLIENT_CLAUDE_CODE] = {"claude-code", "claude"},
    [PD_CLIENT_CODEX] = {"codex", "codex"},
};

int pd_client_parse(const char *name, enum pd_client *c)
{
    for (int k = 0; k < PD_CLIENT_COUNT; k++)
        if (strcmp(name, clients[k].name) == 0) {
            *c = (enum pd_client)k;
            return 0;
        }
    return -1;
}

const char *pd_client_name(enum pd_client c)
{
    return clients[c].name;
}

const char *pd_client_program(enum pd_client c)
{
    return clients[c].program;
}

/* The options of one run of pd_cli_parse over argv[from..] into out.
 * Returns how many arguments it took, or -1 (it printed why). */
static int parse_options(const struct pd_cli *cli, int argc, char **argv, struct pd_cli *out)
{
    char **v = malloc((size_t)(argc + 2) * sizeof *v);
    if (!v) {
        pd_err("out of memory");
        return -1;
    }
    char prog[] = "paldron", sub[32];
    snprintf(sub, sizeof sub, "%s", cli->sub); /* "init" or "doctor" */
    v[0] = prog;
    v[1] = sub;
    memcpy(v + 2, argv, (size_t)argc * sizeof *v);
    struct pd_cli more;
    int rc = pd_cli_parse(argc + 2, v, &more);
    free(v);
    if (rc)
        return -1;
    if (more.dashdash) {
        pd_err("'paldron %s' takes no '--'", cli->sub);
        return -1;
    }
    out->help |= more.help;
    out->user |= more.user;
    out->dry_run |= more.dry_run;
    out->trust |= more.trust;
    out->no_route |= more.no_route;
    out->policy_from_git_root |= more.policy_from_git_root;
    if (more.project)
        out->project = more.project;
    if (more.preset)
        out->preset = more.preset;
    return argc - more.argc;
}

int pd_init_args(const struct pd_cli *cli, struct pd_cli *out, const char **pos, int max, int *npos)
{
    *out = *cli;
    *npos = 0;
    if (cli->dashdash) {
        pd_err("'paldron %s' takes no '--'", cli->sub);
        return PD_EXIT_BROKEN;
    }
    for (int k = 0; k < cli->argc;) {
        const char *a = cli->argv[k];
        if (a[0] == '-' && a[1] != '\0') {
            int took = parse_options(cli, cli->argc - k, cli->argv + k, out);
            if (took < 0)
                return PD_EXIT_BROKEN;
            k += took;
            continue;
        }
        if (*npos == max) {
            pd_err("unexpected argument '%s' (see 'paldron %s --help')", a, cli->sub);
            return PD_EXIT_BROKEN;
        }
        pos[(*npos)++] = a;
        k++;
    }
    return 0;
}

int pd_init_project(const char *dir, char *out, size_t outlen, char *why, size_t whylen)
{
    char real[PATH_MAX];
    struct stat st;
    if (dir) {
        if (!realpath(dir, real) || stat(real, &st) != 0) {
            snprintf(why, whylen, "--project %s: %s", dir, strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "--project %s: not a directory", dir);
            return -1;
        }
        snprintf(out, outlen, "%s", real);
        return 0;
    }
    if (!getcwd(real, sizeof real)) {
        snprintf(why, whylen, "getcwd: %s", strerror(errno));
        return -1;
    }
    char resolved[PATH_MAX];
    if (!realpath(real, resolved)) {
        snprintf(why, whylen, "%s: %s", real, strerror(errno));
        return -1;
    }
    if (!pd_git_work_tree(resolved, out, outlen))
        snprintf(out, outlen, "%s", resolved);
    return 0;
}

/* $HOME, which must be absolute. */
static const char *home(char *why, size_t whylen)
{
    const char *h = getenv("HOME");
    if (!h || h[0] != '/') {
        snprintf(why, whylen,
                 "HOME is not set to an absolute path: cannot find the user's "
                 "settings");
        return NULL;
    }
    return h;
}

/* $NAME when absolute, else $HOME/fallback. */
static int config_home(const char *var, const char *fallback, char *out, size_t outlen, char *why,
                       size_t whylen)
{
    const char *v = getenv(var);
    if (v && v[0] == '/') {
        snprintf(out, outlen, "%s", v);
        return 0;
    }
    const char *h = home(why, whylen);
    if (!h)
        return -1;
    snprintf(out, outlen, "%s/%s", strcmp(h, "/") == 0 ? "" : h, fallback);
    return 0;
}

int pd_client_hooks_file(enum pd_client c, bool user, const char *project, char *out, size_t outlen,
                         char *why, size_t whylen)
{
    char dir[PD_PATH_MAX];
    const char *name = c == PD_CLIENT_CODEX ? "hooks.json" : "settings.json";
    if (!user) {
        snprintf(out, outlen, "%s/%s/%s", strcmp(project, "/") == 0 ? "" : project,
                 c == PD_CLIENT_CODEX ? ".codex" : ".claude", name);
        return 0;
    }
    if (config_home(c == PD_CLIENT_CODEX ? "CODEX_HOME" : "CLAUDE_CONFIG_DIR",
                    c == PD_CLIENT_CODEX ? ".codex" : ".claude", dir, sizeof dir, why, whylen) != 0)
        return -1;
    snprintf(out, outlen, "%s/%s", dir, name);
    return 0;
}

int pd_codex_config_file(char *out, size_t outlen, char *why, size_t whylen)
{
    char dir[PD_PATH_MAX];
    if (config_home("CODEX_HOME", ".codex", dir, sizeof dir, why, whylen) != 0)
        return -1;
    snprintf(out, outlen, "%s/config.toml", dir);
    return 0;
}

int pd_client_settings_files(enum pd_client c, const char *project, char out[][PD_PATH_MAX],
                             int max)
{
    char why[PD_MSG_MAX];
    int n = 0;
    if (n < max &&
        pd_client_hooks_file(c, true, project, out[n], PD_PATH_MAX, why, sizeof why) == 0)
        n++;
    if (n < max &&
        pd_client_hooks_file(c, false, project, out[n], PD_PATH_MAX, why, sizeof why) == 0)
        n++;
    if (c == PD_CLIENT_CLAUDE_CODE && n < max) {
        snprintf(out[n], PD_PATH_MAX, "%s/.claude/settings.local.json",
                 strcmp(project, "/") == 0 ? "" : project);
        n++;
    }
    return n;
}

bool pd_init_which(const char *name, char *out, size_t outlen)
{
    if (strchr(name, '/')) {
        snprintf(out, outlen, "%s", name);
        return access(name, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char cand[PD_PATH_MAX];
        struct stat st;
        if (len > 0 &&
            snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, name) < (int)sizeof cand &&
            stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            snprintf(out, outlen, "%s", cand);
            return true;
        }
        if (!end)
            return false;
        p = end;
    }
}
