/* launcher/main.c - the paldron command: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "launcher/launcher.h"

int main(int argc, char **argv)
{
    struct pd_cli cli;
    if (argc < 2) {
        pd_usage(false);
        return PD_EXIT_BROKEN;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        pd_usage(true);
        return PD_EXIT_ALLOW;
    }
    static const struct {
        const char *name;
        int (*run)(const struct pd_cli *);
    } subs[] = {
        {"check", pd_cmd_check},     {"exec", pd_cmd_exec},     {"schema", pd_cmd_schema},
        {"explain", pd_cmd_explain}, {"env", pd_cmd_env},       {"cache", pd_cmd_cache},
        {"init", pd_cmd_init},       {"doctor", pd_cmd_doctor}, {"version", NULL},
    };
    for (size_t k = 0; k < sizeof subs / sizeof subs[0]; k++) {
        if (strcmp(argv[1], subs[k].name) != 0)
            continue;
        int rc = pd_cli_parse(argc, argv, &cli);
        if (rc)
            return rc;
        if (!subs[k].run) {
            if (cli.help)
                fputs("usage: paldron version\n\nPrint the version.\n", stdout);
            else
                printf("paldron %s\n", pd_version());
            return PD_EXIT_ALLOW;
        }
        rc = subs[k].run(&cli);
        if (fflush(stdout) != 0 && rc == PD_EXIT_ALLOW)
            rc = PD_EXIT_BROKEN; /* an allow that could not be written is not an allow */
        return rc;
    }
    pd_usage(false);
    return PD_EXIT_BROKEN;
}
