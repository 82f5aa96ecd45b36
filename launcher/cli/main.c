/* launcher/cli/main.c - the paldron command: dispatch to a subcommand of the
 * CLI table (launcher/cli/cli_table.h), which also answers every --help. */
#include <stdio.h>
#include <string.h>

#include "launcher/cli/cli_table.h"
#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

/* An option before the command: only --help and --version are known there. */
static void unknown_option(const char *word)
{
    static const char *const known[] = {"help", "version"};
    const char *near = pd_suggest(word + strspn(word, "-"), known, 2);
    if (near)
        pd_err("unknown option '%s' (did you mean '--%s'?)", word, near);
    else
        pd_err("unknown option '%s' (see 'paldron help')", word);
}

int main(int argc, char **argv)
{
    pd_timing_mark("main");
    if (argc < 2) {
        pd_usage(false);
        return PD_EXIT_BROKEN;
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        pd_usage(true);
        return PD_EXIT_ALLOW;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        int rc = pd_cmd_version(NULL);
        return fflush(stdout) == 0 ? rc : PD_EXIT_BROKEN;
    }
    const struct pd_internal_command *internal = pd_internal_find(first);
    if (internal)
        return internal->run(argc - 2, argv + 2);
    const struct pd_subcommand *sub = pd_subcommand_find(first);
    if (!sub) {
        if (first[0] == '-' && first[1] != '\0')
            unknown_option(first);
        else
            pd_unknown_command(first);
        return PD_EXIT_BROKEN;
    }
    struct pd_cli cli;
    int rc = pd_cli_parse(argc, argv, &cli);
    if (rc)
        return rc;
    if (cli.help) {
        pd_help_print(sub, stdout);
        rc = PD_EXIT_ALLOW;
    } else {
        rc = sub->run(&cli);
    }
    if (fflush(stdout) != 0 && rc == PD_EXIT_ALLOW)
        rc = PD_EXIT_BROKEN; /* an allow that could not be written is not an allow */
    return rc;
}
