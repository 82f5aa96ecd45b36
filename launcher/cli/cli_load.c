/* launcher/cli/cli_load.c - the policy of a subcommand: --policy FILE, else the
 * discovered .paldron.toml (policy_find.c), else the built-in defaults
 * (--no-policy skips discovery), bound to the workspace: --workspace DIR,
 * else the folder of a discovered policy, else the working directory. A
 * workspace that is "/", the home folder or a system folder is refused
 * unless --workspace names it: every file under it would be in reach. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "launcher/cli/policy_find.h"
#include "policy/toml/toml_lex.h"

/* The keys that weaken a built-in rule say so on every run. */
static void warn_weakened(const struct pd_policy *pol)
{
    char list[PD_MSG_MAX];
    const char *file = pol->file ? pol->file : "the policy";
    if (pol->allow_secrets.n) {
        pd_strv_join(&pol->allow_secrets, list, sizeof list);
        pd_err("warning: allow_secrets lifts the built-in secret rule for %s (%s); their values "
               "are still redacted from the output",
               list, file);
    }
    if (pol->unprotect_paths.n) {
        pd_strv_join(&pol->unprotect_paths, list, sizeof list);
        pd_err("warning: unprotect_paths removes the built-in protection of %s (%s)", list, file);
    }
}

int pd_cli_load(const struct pd_cli *cli, struct pd_policy *pol, struct pd_ctx *ctx)
{
    struct pd_error err;
    char msg[PD_MSG_MAX + PD_PATH_MAX];
    char cwd[PD_PATH_MAX], found[PD_PATH_MAX], ws[PD_PATH_MAX];
    const char *file = cli->policy;
    if (cli->policy && cli->no_policy) {
        pd_err("--policy and --no-policy exclude each other");
        return PD_EXIT_BROKEN;
    }
    if (!getcwd(cwd, sizeof cwd)) {
        pd_err("getcwd: %s", strerror(errno));
        return PD_EXIT_BROKEN;
    }
    if (!file && !cli->no_policy) {
        int rc = pd_policy_discover(cwd, found, sizeof found, msg, sizeof msg);
        if (rc < 0) {
            pd_err("%s", msg);
            return PD_EXIT_BROKEN;
        }
        if (rc > 0)
            file = found;
    }
    if (file) {
        if (pd_policy_load(pol, file, &err)) {
            pd_error_format(&err, msg, sizeof msg);
            pd_err("%s", msg);
            return PD_EXIT_BROKEN;
        }
    } else {
        pd_policy_defaults(pol);
    }
    if (cli->workspace) {
        snprintf(ws, sizeof ws, "%s", cli->workspace);
    } else if (file == found) {
        /* the discovered policy's folder: its relative paths mean that */
        snprintf(ws, sizeof ws, "%s", found);
        *strrchr(ws, '/') = '\0';
        if (!ws[0])
            snprintf(ws, sizeof ws, "/");
    } else {
        snprintf(ws, sizeof ws, "%s", cwd);
    }
    if (pd_ctx_init(ctx, pol, ws, getenv("HOME"), &err)) {
        pd_error_format(&err, msg, sizeof msg);
        pd_err("%s", msg);
        pd_policy_free(pol);
        return PD_EXIT_BROKEN;
    }
    /* relative names in argv and tool calls start where the command does */
    if (strcmp(cwd, ctx->workspace) != 0 && pd_path_under(cwd, ctx->workspace))
        snprintf(ctx->cwd, sizeof ctx->cwd, "%s", cwd);
    const char *wide = cli->workspace ? NULL : pd_workspace_too_wide(ctx->workspace, ctx->home);
    if (wide) {
        pd_err("refusing the workspace %s: it is %s, and every file under it would be in the "
               "command's reach; run in a project folder, or name it on purpose with "
               "--workspace %s",
               ctx->workspace, wide, ctx->workspace);
        pd_ctx_free(ctx);
        pd_policy_free(pol);
        return PD_EXIT_BROKEN;
    }
    if (file == found)
        pd_err("policy: %s (found from the working directory; --no-policy for the built-in "
               "defaults)",
               found);
    warn_weakened(pol);
    pd_ctx_set_path_env(ctx, getenv("PATH"));
    return 0;
}
