/* launcher/cli/cmd_check.c - `paldron check`: judge one tool call before it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "launcher/launcher.h"

/* The verdict as one JSON object for scripts (same exit codes). */
static void print_json(const char *tool, const struct pd_verdict *v, const char *fix)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "decision", v->deny ? "deny" : "allow");
    cJSON_AddStringToObject(o, "tool", tool);
    if (v->deny) {
        cJSON_AddStringToObject(o, "reason", v->reason ? v->reason : "");
        cJSON_AddStringToObject(o, "rule", v->key ? v->key : "");
        if (v->pattern)
            cJSON_AddStringToObject(o, "pattern", v->pattern);
        else
            cJSON_AddNullToObject(o, "pattern");
        if (v->resolved[0])
            cJSON_AddStringToObject(o, "resolved_path", v->resolved);
        else
            cJSON_AddNullToObject(o, "resolved_path");
        cJSON_AddStringToObject(o, "message", v->message);
        if (fix[0])
            cJSON_AddStringToObject(o, "advice", fix);
        else
            cJSON_AddNullToObject(o, "advice");
    }
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

int pd_cmd_check(const struct pd_cli *cli)
{
    if (!cli->hook && (cli->no_route || cli->policy_from_git_root || cli->workspace)) {
        pd_err("--no-route, --policy-from-git-root and --workspace go with --hook");
        return PD_EXIT_BROKEN;
    }
    if (cli->hook && cli->policy && cli->policy_from_git_root) {
        /* hook mode: a broken setup blocks (exit 2), never lets the call run */
        pd_err("hook: --policy and --policy-from-git-root exclude each other; the tool call is "
               "blocked");
        return PD_EXIT_DENY;
    }
    if (cli->hook)
        return pd_cmd_hook(cli);
    if (cli->argc < 1) {
        pd_err("usage: paldron check --policy p.toml -- toolname '{\"args\"}'");
        return PD_EXIT_BROKEN;
    }
    struct pd_policy pol;
    struct pd_ctx ctx;
    int rc = pd_cli_load(cli, &pol, &ctx);
    if (rc)
        return rc;
    const char *tool = cli->argv[0];
    struct pd_verdict v;
    struct pd_error err;
    if (pd_gate_tool_call(&ctx, tool, cli->argc > 1 ? cli->argv[1] : NULL, pd_isolation_available(),
                          &v, &err)) {
        pd_err("%s", err.msg);
        rc = PD_EXIT_BROKEN;
    } else {
        /* the smallest change that would allow it, as exec's lines say */
        char fix[PD_PATH_MAX + 96];
        pd_verdict_advice(&ctx, &v, NULL, fix, sizeof fix);
        if (cli->json)
            print_json(tool, &v, fix);
        else if (!v.deny)
            printf("paldron: allow %s\n", tool);
        if (v.deny)
            pd_err("deny: %s%s%s%s", v.message, fix[0] ? " (" : "", fix, fix[0] ? ")" : "");
        rc = v.deny ? PD_EXIT_DENY : PD_EXIT_ALLOW;
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
