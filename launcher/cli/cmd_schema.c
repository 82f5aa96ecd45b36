/* launcher/cli/cmd_schema.c - `paldron schema`: print a built-in tool schema. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/launcher.h"
#include "policy/tools.h"

int pd_cmd_schema(const struct pd_cli *cli)
{
    if (cli->list) {
        for (size_t k = 0; k < pd_tool_schema_count; k++)
            printf("%s\n", pd_tool_schemas[k].name);
        return PD_EXIT_ALLOW;
    }
    /* the original also took "--tool NAME" pairs after "--"; the last wins */
    const char *name = cli->tool;
    for (int k = 0; k < cli->argc; k++) {
        if (strcmp(cli->argv[k], "--tool") == 0) {
            if (k + 1 >= cli->argc) {
                pd_err("--tool needs a name");
                return PD_EXIT_BROKEN;
            }
            name = cli->argv[++k];
        }
    }
    if (!name) {
        pd_err("usage: paldron schema --tool name");
        return PD_EXIT_BROKEN;
    }
    const struct pd_tool_schema *s = pd_tool_schema_find(name);
    if (!s) {
        pd_err("unknown tool '%s'", name);
        return PD_EXIT_BROKEN;
    }
    char *json = pd_tool_schema_json(s);
    if (!json) {
        pd_err("out of memory");
        return PD_EXIT_BROKEN;
    }
    fputs(json, stdout);
    free(json);
    return PD_EXIT_ALLOW;
}
