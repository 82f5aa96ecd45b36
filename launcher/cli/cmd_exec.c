/* launcher/cli/cmd_exec.c - `paldron exec`: options, then exec_run.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

/* Options that cannot go together, and --stream with a policy whose remote
 * verdict judges the whole output after the run (it would judge output that
 * is already out). The message, or NULL. */
static const char *option_clash(const struct pd_cli *cli, const struct pd_policy *pol, char *buf,
                                size_t len)
{
    if (cli->stream && cli->interactive)
        return "--stream and --interactive exclude each other (an interactive run's output "
               "already goes to the terminal as it comes, unscanned)";
    if (cli->stream && cli->routed)
        return "--stream and --routed exclude each other";
    if (cli->json && (cli->stream || cli->interactive || cli->routed))
        return cli->stream        ? "--json and --stream exclude each other"
               : cli->interactive ? "--json and --interactive exclude each other"
                                  : "--json and --routed exclude each other";
    if (cli->stream && pol->jev_verdict) {
        snprintf(buf, len,
                 "--stream cannot be used with jev_verdict = true (%s): the remote verdict "
                 "judges the whole output after the run, and streamed output is already out",
                 pol->file ? pol->file : "policy");
        return buf;
    }
    return NULL;
}

int pd_cmd_exec(const struct pd_cli *cli)
{
    if (cli->argc < 1) {
        pd_err("usage: paldron exec --policy p.toml -- argv...");
        return PD_EXIT_BROKEN;
    }
    struct pd_policy pol;
    struct pd_ctx ctx;
    int rc = pd_cli_load(cli, &pol, &ctx);
    if (rc)
        return rc;
    char cwd[PD_PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        pd_err("getcwd: %s", strerror(errno));
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        return PD_EXIT_BROKEN;
    }
    if (!pd_path_under(cwd, ctx.workspace)) {
        /* the workspace is what the policy's relative paths and the scans
         * mean: a command started elsewhere is not in the project */
        pd_err("deny: the working directory %s is outside the workspace %s", cwd, ctx.workspace);
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        return PD_EXIT_DENY;
    }
    if (cli->interactive && cli->routed) {
        pd_err("--routed and --interactive exclude each other");
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        return PD_EXIT_BROKEN;
    }
    char clash_msg[PD_PATH_MAX + 160];
    const char *clash = option_clash(cli, &pol, clash_msg, sizeof clash_msg);
    if (clash) {
        pd_err("%s", clash);
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        return PD_EXIT_BROKEN;
    }
    struct pd_exec_opts opts = {.timeout = cli->timeout,
                                .audit = cli->audit,
                                .interactive = cli->interactive,
                                .log = cli->log,
                                .routed = cli->routed,
                                .cwd = cwd,
                                .stream = cli->stream,
                                .json = cli->json};
    rc = pd_exec_run(&ctx, cli->argc, cli->argv, &opts);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
