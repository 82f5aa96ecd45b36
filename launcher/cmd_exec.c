/* launcher/cmd_exec.c - `paldron exec` (placeholder until the exec issue lands). */
#include "launcher/launcher.h"

int pd_cmd_exec(const struct pd_cli *cli)
{
    if (cli->argc < 1) {
        pd_err("usage: paldron exec --policy p.toml -- argv...");
        return PD_EXIT_BROKEN;
    }
    pd_err("exec is not available in this build");
    return PD_EXIT_BROKEN;
}
