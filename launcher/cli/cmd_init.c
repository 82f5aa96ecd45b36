/* launcher/cli/cmd_init.c - `paldron init`: a starter policy for the project,
 * and with a client named, `paldron init claude-code|codex`, the hook set up
 * the way the real clients need it (issue 13, tests/clients/README.md).
 *
 *  1. a starter .paldron.toml when the project has none (never overwritten):
 *     the preset of --preset, or without a client the one that fits the
 *     project's files (init_presets.c), else the README's policy;
 *  2. with a client, the PreToolUse hook merged into the client's settings
 *     file: absolute paths, `|| exit 2`, every other hook and key kept;
 *  3. Codex: the trust it needs, explained, and with --trust written into
 *     config.toml (key and hash asked from codex app-server, then checked).
 *
 * Everything is planned before anything is written: a file that does not
 * parse, a codex that does not answer, stop the run with nothing written.
 * --dry-run prints the plan as unified diffs. Running it twice changes
 * nothing the second time, and says so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/init/init.h"

/* One file the run would write. */
struct plan {
    char path[PD_PATH_MAX];
    char *old;      /* its text now; NULL when it does not exist */
    char *new_text; /* what it should hold */
    unsigned mode, dir_mode;
    const char *what; /* for the report */
};

struct run {
    struct plan files[3];
    int n;
    enum pd_client client;
    char project[PD_PATH_MAX];
    char policy[PD_PATH_MAX];
    char hooks[PD_PATH_MAX];
    char config[PD_PATH_MAX];
    char codex[PD_PATH_MAX];
    char *command;
    char *key, *hash;                    /* codex --trust */
    const char *project_why;             /* how the project was chosen */
    const struct pd_init_preset *preset; /* NULL: the README's starter */
    bool preset_given;                   /* --preset, not detected */
    char marker[256];                    /* the file the kind was detected by */
    char also[512];                      /* other kinds detected */
    char what[128];                      /* the policy's line in the report */
};

static void run_free(struct run *r)
{
    for (int k = 0; k < r->n; k++) {
        free(r->files[k].old);
        free(r->files[k].new_text);
    }
    free(r->command);
    free(r->key);
    free(r->hash);
}

static struct plan *add_plan(struct run *r, const char *path, char *old, char *new_text,
                             unsigned mode, unsigned dir_mode, const char *what)
{
    struct plan *p = &r->files[r->n++];
    snprintf(p->path, sizeof p->path, "%s", path);
    p->old = old;
    p->new_text = new_text;
    p->mode = mode;
    p->dir_mode = dir_mode;
    p->what = what;
    return p;
}

/* The running paldron: what the hook will start. */
static int self_path(char *out, size_t outlen)
{
    ssize_t n = readlink("/proc/self/exe", out, outlen - 1);
    if (n <= 0) {
        pd_err("init: cannot find this paldron binary (/proc/self/exe): %s", strerror(errno));
        return -1;
    }
    out[n] = '\0';
    if (strstr(out, " (deleted)")) {
        pd_err("init: this paldron binary was deleted or replaced while it ran (%s): run the "
               "installed one",
               out);
        return -1;
    }
    return 0;
}

/* The file's text (NULL when it does not exist); -1 on another error. */
static int read_existing(const char *path, char **text)
{
    size_t len;
    *text = pd_file_read(path, &len);
    if (*text && strlen(*text) != len) {
        /* a NUL byte: as C text the rest would be lost when written back */
        pd_err("init: %s holds a NUL byte: not a text file init can edit (nothing written)", path);
        free(*text);
        return -1;
    }
    if (*text || errno == ENOENT || errno == ENOTDIR)
        return 0;
    pd_err("init: cannot read %s: %s", path, strerror(errno));
    return -1;
}

/* The policy's folder: where the kind of project is seen. */
static void policy_dir(const struct run *r, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", r->policy);
    char *slash = strrchr(out, '/');
    if (slash)
        slash[slash == out ? 1 : 0] = '\0';
}

static int plan_policy(struct run *r)
{
    struct stat st;
    if (lstat(r->policy, &st) != 0) {
        char dir[PD_PATH_MAX];
        policy_dir(r, dir, sizeof dir);
        char *text =
            r->preset ? pd_init_preset_policy(r->preset, dir) : strdup(pd_init_starter_policy());
        if (!text) {
            pd_err("out of memory");
            return -1;
        }
        if (r->preset)
            snprintf(r->what, sizeof r->what, "starter policy for a %s project", r->preset->title);
        else
            snprintf(r->what, sizeof r->what, "starter policy: the README's defaults");
        add_plan(r, r->policy, NULL, text, 0644, 0755, r->what);
        return 0;
    }
    struct pd_policy pol;
    struct pd_error err;
    if (pd_policy_load(&pol, r->policy, &err) != 0) {
        char msg[PD_MSG_MAX + PD_PATH_MAX];
        pd_error_format(&err, msg, sizeof msg);
        pd_err("warning: the existing policy does not load, so %s until it does: %s",
               r->client == PD_CLIENT_COUNT ? "every paldron call that uses it fails"
                                            : "the hook will block every call",
               msg);
    } else {
        pd_policy_free(&pol);
    }
    return 0;
}

static int plan_hooks(struct run *r, bool user)
{
    char why[PD_MSG_MAX];
    if (pd_client_hooks_file(r->client, user, r->project, r->hooks, sizeof r->hooks, why,
                             sizeof why) != 0) {
        pd_err("init: %s", why);
        return -1;
    }
    char *old;
    if (read_existing(r->hooks, &old) != 0)
        return -1;
    char *merged = NULL;
    int line;
    if (pd_hooks_merge(old ? old : "", old ? strlen(old) : 0, r->command, &merged, &line, why,
                       sizeof why) != 0) {
        if (line > 0)
            pd_err("init: %s:%d: %s (nothing written)", r->hooks, line, why);
        else
            pd_err("init: %s: %s (nothing written)", r->hooks, why);
        free(old);
        return -1;
    }
    add_plan(r, r->hooks, old, merged, 0644, user ? 0700 : 0755, "PreToolUse hook for every tool");
    return 0;
}

/* config.toml with the project trusted (not for --user: a user hook runs in
 * every project) and this hook's hash trusted. */
static int plan_trust(struct run *r, bool user, const char *hooks_text)
{
    char why[PD_MSG_MAX];
    if (!pd_init_which("codex", r->codex, sizeof r->codex)) {
        pd_err("init: --trust: codex is not on PATH, so its hook hash cannot be asked from "
               "codex app-server; nothing written");
        return -1;
    }
    if (pd_codex_config_file(r->config, sizeof r->config, why, sizeof why) != 0) {
        pd_err("init: %s", why);
        return -1;
    }
    char *old;
    if (read_existing(r->config, &old) != 0)
        return -1;
    char *cur = strdup(old ? old : ""), *next = NULL;
    int line = 0;
    if (!cur) {
        pd_err("out of memory");
        free(old);
        return -1;
    }
    const char *project_table[] = {"projects", r->project};
    if (!user && pd_toml_set_string(cur, strlen(cur), project_table, 2, "trust_level", "trusted",
                                    &next, &line, why, sizeof why) != 0)
        goto bad;
    if (next) {
        free(cur);
        cur = next;
        next = NULL;
    }
    if (pd_codex_predict_trust(r->codex, r->hooks, user, hooks_text, r->command, &r->key, &r->hash,
                               why, sizeof why) != 0) {
        pd_err("init: --trust: %s; nothing written", why);
        free(cur);
        free(old);
        return -1;
    }
    const char *state_table[] = {"hooks", "state", r->key};
    if (pd_toml_set_string(cur, strlen(cur), state_table, 3, "trusted_hash", r->hash, &next, &line,
                           why, sizeof why) != 0)
        goto bad;
    free(cur);
    if (!next) {
        pd_err("out of memory");
        free(old);
        return -1;
    }
    add_plan(r, r->config, old, next, 0600, 0700, "Codex trust");
    return 0;
bad:
    if (line > 0)
        pd_err("init: %s:%d: %s (nothing written)", r->config, line, why);
    else
        pd_err("init: %s: %s (nothing written)", r->config, why);
    free(cur);
    free(old);
    return -1;
}

static bool changes(const struct plan *p)
{
    return !p->old || strcmp(p->old, p->new_text) != 0;
}

/* After writing: does Codex now trust the hook? */
static int verify_trust(struct run *r)
{
    struct pd_codex_hooks h;
    char why[PD_MSG_MAX];
    const char *problem = NULL;
    char detail[PD_MSG_MAX] = "";
    if (pd_codex_hooks_list(r->codex, r->project, NULL, &h, why, sizeof why) != 0) {
        snprintf(detail, sizeof detail, "%s", why);
        problem = "codex app-server could not be asked";
    } else {
        const struct pd_codex_hook *mine = NULL;
        for (size_t k = 0; k < h.n && !mine; k++)
            if (h.v[k].key && strcmp(h.v[k].key, r->key) == 0)
                mine = &h.v[k];
        if (h.config_error) {
            problem = "Codex finds its configuration invalid";
            snprintf(detail, sizeof detail, "%s", h.config_error);
        } else if (!mine) {
            problem = "Codex does not list the hook";
            snprintf(detail, sizeof detail, "%s",
                     h.untrusted_folder ? h.untrusted_folder
                     : h.errors         ? h.errors
                                        : "is the project inside a git work tree whose root is "
                                          "what Codex trusts? run init from the root");
        } else if (!mine->trust || strcmp(mine->trust, "trusted") != 0) {
            problem = "Codex does not trust the hook";
            snprintf(detail, sizeof detail, "trustStatus '%s'",
                     mine->trust ? mine->trust : "(none)");
        }
        pd_codex_hooks_free(&h);
    }
    if (!problem)
        return 0;
    /* take the trust back: config.toml as it was */
    struct plan *cfg = &r->files[r->n - 1];
    char werr[PD_MSG_MAX] = "";
    int rc = cfg->old
                 ? pd_file_write(cfg->path, cfg->old, cfg->mode, cfg->dir_mode, werr, sizeof werr)
                 : unlink(cfg->path);
    pd_err("init: --trust: after writing %s, %s (%s); %s", cfg->path, problem, detail,
           rc == 0 ? "it is restored as it was: no trust written"
                   : "and it could not be restored: check it by hand");
    return -1;
}

static void explain_codex_trust(const struct run *r, bool user, bool trusted)
{
    char config[PD_PATH_MAX], why[PD_MSG_MAX];
    if (pd_codex_config_file(config, sizeof config, why, sizeof why) != 0)
        snprintf(config, sizeof config, "~/.codex/config.toml");
    if (trusted) {
        printf("Codex trust written to %s:\n", config);
        if (!user)
            printf("  [projects.\"%s\"] trust_level = \"trusted\"  (Codex reads %s/.codex/)\n",
                   r->project, r->project);
        printf("  [hooks.state.\"%s\"] trusted_hash = \"%s\"\n", r->key, r->hash);
        printf("Codex now runs exactly this command before each tool call; if the hook's "
               "command changes,\nit must be trusted again (paldron init codex --trust).\n");
        return;
    }
    printf("Codex runs this hook only after you trust it, and skips it silently until then "
           "(every\ncall would run unchecked):\n");
    if (!user)
        printf("  - the project: Codex ignores %s/.codex/ until the project is trusted\n"
               "    ([projects.\"%s\"] trust_level = \"trusted\" in %s);\n",
               r->project, r->project, config);
    printf("  - the hook: Codex runs a hook only when its hash is trusted; trusting it means "
           "letting\n    Codex run exactly this command before each tool call:\n      %s\n"
           "    ([hooks.state.\"<key>\"] trusted_hash = \"sha256:...\" in %s).\n",
           r->command, config);
    if (r->key) { /* --trust --dry-run */
        printf("--trust writes both: the diff of %s above.\n", config);
        return;
    }
    printf("Trust it with:  paldron init codex%s%s%s --trust\n"
           "(or review the hook in an interactive codex session).\n",
           user ? " --user" : "", strstr(r->command, "--no-route") ? " --no-route" : "",
           !user && strstr(r->command, "--policy-from-git-root") ? " --policy-from-git-root" : "");
}

/* The policy's lines of the report: which policy, then created or kept. */
static void report_policy(const struct run *r)
{
    if (r->n == 0 || strcmp(r->files[0].path, r->policy) != 0) {
        printf("  %-12s %s (the policy exists: paldron init never overwrites it)\n", "kept",
               r->policy);
        return;
    }
    if (r->preset_given)
        printf("  %-12s %s (--preset)\n", "preset", r->preset->name);
    else if (r->preset)
        printf("  %-12s %s (detected: %s%s%s)\n", "preset", r->preset->name, r->marker,
               r->also[0] ? "; also found: " : "", r->also);
    else if (r->client == PD_CLIENT_COUNT)
        printf("  %-12s none detected (no Python, Node.js, Go, Rust or C project files; see "
               "--help): the README's policy\n",
               "preset");
}

static void report(const struct run *r, const struct pd_cli *cli)
{
    printf("paldron init %s: project %s\n", pd_client_name(r->client), r->project);
    report_policy(r);
    bool any = false;
    for (int k = 0; k < r->n; k++) {
        const struct plan *p = &r->files[k];
        bool ch = changes(p);
        any |= ch;
        printf("  %-12s %s (%s%s)\n",
               !ch      ? "unchanged"
               : p->old ? (cli->dry_run ? "would update" : "updated")
                        : (cli->dry_run ? "would create" : "created"),
               p->path, p->what, ch ? "" : ": already as wanted");
    }
    printf("hook command: %s\n", r->command);
    if (!any)
        printf("nothing to change: the setup is already in place\n");
    if (cli->dry_run)
        printf("dry run: nothing written\n");
}

/* The project, and how it was chosen (said in the report). */
static int resolve_project(struct run *r, const struct pd_cli *cli)
{
    char why[PD_MSG_MAX], root[PD_PATH_MAX];
    if (pd_init_project(cli->project, r->project, sizeof r->project, why, sizeof why) != 0) {
        pd_err("init: %s", why);
        return -1;
    }
    if (cli->project)
        r->project_why = "--project";
    else if (pd_git_work_tree(r->project, root, sizeof root) && strcmp(root, r->project) == 0)
        r->project_why = "the git work tree around the current directory";
    else
        r->project_why = "the current directory: it is in no git work tree";
    return 0;
}

static int plan_all(struct run *r, const struct pd_cli *cli)
{
    char self[PD_PATH_MAX], root[PD_PATH_MAX];
    if (self_path(self, sizeof self) != 0)
        return -1;
    if (resolve_project(r, cli) != 0)
        return -1;
    bool from_git_root = cli->policy_from_git_root || cli->user;
    const char *policy_dir = r->project;
    if (from_git_root) {
        if (pd_git_work_tree(r->project, root, sizeof root))
            policy_dir = root;
        else
            pd_err("warning: %s is in no git work tree: the hook (--policy-from-git-root) finds "
                   "no policy there and blocks every call made in it until there is one "
                   "(git init)",
                   r->project);
    }
    snprintf(r->policy, sizeof r->policy, "%s/.paldron.toml",
             strcmp(policy_dir, "/") == 0 ? "" : policy_dir);
    struct pd_hook_cmd_opts o = {.paldron = self,
                                 .policy = from_git_root ? NULL : r->policy,
                                 .from_git_root = from_git_root,
                                 .no_route = cli->no_route};
    r->command = pd_hook_cmd_build(&o);
    if (!r->command) {
        pd_err("out of memory");
        return -1;
    }
    if (plan_policy(r) != 0 || plan_hooks(r, cli->user) != 0)
        return -1;
    if (cli->trust && plan_trust(r, cli->user, r->files[r->n - 1].new_text) != 0)
        return -1;
    return 0;
}

/* --dry-run: the diff of every planned file; else write them. */
static int carry_out(struct run *r, const struct pd_cli *cli)
{
    if (cli->dry_run) {
        struct pd_text t = {0};
        for (int k = 0; k < r->n; k++)
            pd_diff_unified(&t, r->files[k].path, r->files[k].old, r->files[k].new_text);
        char *diff = pd_text_take(&t);
        if (!diff) {
            pd_err("out of memory");
            return -1;
        }
        fputs(diff, stdout);
        free(diff);
        return 0;
    }
    for (int k = 0; k < r->n; k++) {
        char why[PD_MSG_MAX];
        const struct plan *p = &r->files[k];
        if (changes(p) &&
            pd_file_write(p->path, p->new_text, p->mode, p->dir_mode, why, sizeof why) != 0) {
            pd_err("init: %s%s", why,
                   k ? " (the files listed before it were written)" : " (nothing written)");
            return -1;
        }
    }
    return 0;
}

/* --preset NAME: a known one, or a one-line error with the nearest name. */
static int find_preset(struct run *r, const char *name)
{
    r->preset = pd_init_preset_find(name);
    r->preset_given = r->preset != NULL;
    if (r->preset)
        return 0;
    const struct pd_init_preset *const *all = pd_init_presets();
    const char *names[8];
    size_t n = 0;
    char known[128] = "";
    size_t len = 0;
    for (; n < sizeof names / sizeof names[0] && all[n]; n++) {
        names[n] = all[n]->name;
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", n ? ", " : "", names[n]);
    }
    const char *near = pd_suggest(name, names, n);
    if (near)
        pd_err("unknown preset '%s' (did you mean '%s'?)", name, near);
    else
        pd_err("unknown preset '%s' (presets: %s)", name, known);
    return -1;
}

/* `paldron init` with no client: the policy alone. */
static int init_policy_only(struct run *r, const struct pd_cli *cli)
{
    const struct {
        bool given;
        const char *name;
    } client_only[] = {{cli->user, "--user"},
                       {cli->trust, "--trust"},
                       {cli->no_route, "--no-route"},
                       {cli->policy_from_git_root, "--policy-from-git-root"}};
    for (size_t k = 0; k < sizeof client_only / sizeof client_only[0]; k++)
        if (client_only[k].given) {
            pd_err("init: %s sets up an agent client's hook: paldron init claude-code|codex %s",
                   client_only[k].name, client_only[k].name);
            return -1;
        }
    if (resolve_project(r, cli) != 0)
        return -1;
    snprintf(r->policy, sizeof r->policy, "%s/.paldron.toml",
             strcmp(r->project, "/") == 0 ? "" : r->project);
    if (!r->preset)
        r->preset =
            pd_init_detect(r->project, r->marker, sizeof r->marker, r->also, sizeof r->also);
    if (plan_policy(r) != 0 || carry_out(r, cli) != 0)
        return -1;
    printf("paldron init: project %s (%s)\n", r->project, r->project_why);
    report_policy(r);
    if (r->n > 0)
        printf("  %-12s %s (%s)\n", cli->dry_run ? "would create" : "created", r->policy, r->what);
    if (cli->dry_run)
        printf("dry run: nothing written\n");
    char exec_cmd[PD_MSG_MAX];
    snprintf(exec_cmd, sizeof exec_cmd, "paldron exec -- %s",
             r->preset ? r->preset->try_cmd : "<test command>");
    printf("next:\n");
    printf("  %-40s %s\n", "paldron explain .env",
           "how the policy treats a path (a secret: denied)");
    printf("  %-40s %s\n", exec_cmd, "run a command under the policy");
    printf("  %-40s %s\n", "paldron init claude-code",
           "or codex: route an agent's calls through it");
    return 0;
}

int pd_cmd_init(const struct pd_cli *cli0)
{
    struct pd_cli cli;
    const char *pos[1];
    int npos;
    if (pd_init_args(cli0, &cli, pos, 1, &npos) != 0)
        return PD_EXIT_BROKEN;
    if (cli.help) {
        pd_command_usage(cli.sub, true);
        return PD_EXIT_ALLOW;
    }
    struct run r = {.client = PD_CLIENT_COUNT};
    if (cli.preset && find_preset(&r, cli.preset) != 0)
        return PD_EXIT_BROKEN;
    if (npos == 0) {
        int rc = init_policy_only(&r, &cli);
        run_free(&r);
        return rc == 0 ? PD_EXIT_ALLOW : PD_EXIT_BROKEN;
    }
    if (pd_client_parse(pos[0], &r.client) != 0) {
        pd_err("init: unknown client '%s': claude-code or codex (or none: paldron init "
               "[--preset NAME] writes the policy alone)",
               pos[0]);
        return PD_EXIT_BROKEN;
    }
    if (cli.trust && r.client != PD_CLIENT_CODEX) {
        pd_err("init: --trust is for codex (Claude Code runs the hooks of its settings files "
               "without a trust step)");
        return PD_EXIT_BROKEN;
    }
    if (plan_all(&r, &cli) != 0 || carry_out(&r, &cli) != 0) {
        run_free(&r);
        return PD_EXIT_BROKEN;
    }
    if (!cli.dry_run && cli.trust && verify_trust(&r) != 0) {
        run_free(&r);
        return PD_EXIT_BROKEN;
    }
    report(&r, &cli);
    if (r.client == PD_CLIENT_CODEX)
        explain_codex_trust(&r, cli.user, cli.trust && !cli.dry_run);
    printf("check the setup: paldron doctor %s%s%s\n", pd_client_name(r.client),
           cli.project ? " --project " : "", cli.project ? r.project : "");
    run_free(&r);
    return PD_EXIT_ALLOW;
}
