/* launcher/cmd_exec.c - `paldron exec`: options, then exec_run.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/exec.h"
#include "launcher/launcher.h"

static void exec_help(void)
{
    fputs(
        "usage: paldron exec [--policy FILE] [--workspace DIR] [--timeout SEC] [--interactive] -- "
        "ARGV...\n"
        "       paldron exec --routed [--policy FILE] [--workspace DIR] [--timeout SEC] -- "
        "'COMMAND'\n"
        "\n"
        "Gate ARGV with the policy, run it under kernel isolation (Landlock, seccomp,\n"
        "rlimits) in the current directory (the workspace), then judge the run: a file\n"
        "the policy forbids that the run created, changed, renamed or linked denies it,\n"
        "whatever the command's own exit status. The command gets no stdin; its stdout\n"
        "and stderr (each up to 1 MiB) are printed in a result block once the verdict\n"
        "is known. Processes it leaves behind are ended with it (unless the policy sets\n"
        "keep_background). Every dynamically linked program of the run loads the live\n"
        "gate (libpaldron_preload.so): a denied open, write, connect or exec fails at once\n"
        "and is reported as 'paldron: deny: <program> <op> <path> (<reason> <pattern>)\n"
        "[live]'. PALDRON_DEBUG=1 makes it print every gated call.\n"
        "\n"
        "  --policy FILE  policy file (default: built-in defaults; secrets always apply)\n"
        "  --workspace DIR  the project (default: the current directory, where the\n"
        "                 command runs; it must lie inside DIR)\n"
        "  --routed       run a shell call that the hook routed (check --hook): COMMAND is\n"
        "                 one command text, run by Paldron's own bash (not judged against\n"
        "                 allow_binaries; the programs it starts are). Its stdout, stderr\n"
        "                 and exit status pass through as if it ran bare (after the output\n"
        "                 scan), plus 'paldron: deny: ...' lines on stderr; a run with a\n"
        "                 denial ends non-zero (2 when the command itself exited 0),\n"
        "                 a timeout 124, a sandbox failure 126. --timeout is the client's\n"
        "                 limit unless the policy file sets timeout_sec.\n"
        "  --timeout SEC  end the run after SEC seconds (at most the policy's timeout_sec)\n"
        "  --audit        the live gate only logs: it prints what it would have denied and\n"
        "                 the smallest policy change that would allow it (kernel layers on)\n"
        "  --log FILE     write every live-gate record (denials, coverage) as JSON lines\n"
        "  --interactive  wrap a long-lived program (an agent's CLI): it gets paldron's\n"
        "                 stdin, stdout and stderr (the terminal) and stays in paldron's\n"
        "                 process group (terminal keys reach it; Ctrl-C is its to handle).\n"
        "                 Nothing is captured, so its output cannot be held back, scanned\n"
        "                 or redacted: it reaches the terminal as it is written. The argv\n"
        "                 gate, kernel layers, live gate and post-run scan still apply to\n"
        "                 everything it runs; live denials are printed on stderr as they\n"
        "                 happen, then 'paldron: interactive run ended: N live denial(s),\n"
        "                 exit CODE' and the verdict lines. No time limit unless --timeout\n"
        "                 (the policy's timeout_sec limits one captured command, not a\n"
        "                 session; --timeout is not capped by it here). keep_background\n"
        "                 does not apply: every process is ended when the program exits.\n"
        "\n"
        "Exit: 0 the command succeeded and nothing was denied, 2 deny ('paldron: deny: ...'),\n"
        "1 broken (usage, policy, isolation unavailable, sandbox error, timeout, the command\n"
        "failed: 'paldron: command exited N').\n",
        stdout);
}

int pd_cmd_exec(const struct pd_cli *cli)
{
    if (cli->help) {
        exec_help();
        return PD_EXIT_ALLOW;
    }
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
    struct pd_exec_opts opts = {.timeout = cli->timeout,
                                .audit = cli->audit,
                                .interactive = cli->interactive,
                                .log = cli->log,
                                .routed = cli->routed,
                                .cwd = cwd};
    rc = pd_exec_run(&ctx, cli->argc, cli->argv, &opts);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
