/* launcher/cmd_check.c - `paldron check`: judge one tool call before it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "launcher/launcher.h"

static void check_help(void)
{
    fputs("usage: paldron check [--policy FILE] [--json] -- TOOL ['JSON-ARGS']\n"
          "       paldron check [--policy FILE | --policy-from-git-root] --hook [--no-route]\n"
          "                     [--workspace DIR] [--hook-allow-json] < hook-input.json\n"
          "\n"
          "Judge one tool call without running anything. TOOL is a tool name (read_file,\n"
          "write_file, edit_file, list_dir, execute_code, git_ops, network tools, or any\n"
          "other name, which gets the generic path pass); JSON-ARGS is its argument\n"
          "object (default {}).\n"
          "\n"
          "  --policy FILE  policy file (default: built-in defaults; secrets always apply)\n"
          "  --json         print the verdict as one JSON object on stdout\n"
          "  --hook         read a Claude Code / Codex PreToolUse hook input on stdin; deny is\n"
          "                 exit 2 with the reason on stderr and the JSON decision on stdout;\n"
          "                 every internal error is a deny too (exit 2), never exit 1\n"
          "  --hook-allow-json  on allow, print an explicit allow decision (default: nothing)\n"
          "  --no-route     static-only hook: an allowed shell call runs bare, one the gate\n"
          "                 cannot judge is denied (default: routed, see below)\n"
          "  --policy-from-git-root  the policy is .paldron.toml at the root of the git work\n"
          "                 tree around the call's cwd (missing: the call is denied)\n"
          "  --workspace DIR  the project (default: the policy's folder or the git work\n"
          "                 tree around cwd, whichever is nearer to cwd)\n"
          "\n"
          "Routing: a shell call (Bash, shell, exec_command) that the gate allows or cannot\n"
          "judge statically is allowed with hookSpecificOutput.updatedInput.command = the\n"
          "call under 'paldron exec --routed' with the same policy; only what it names\n"
          "literally and the policy denies is denied here (docs/integrations.md).\n"
          "\n"
          "Exit: 0 allow (stdout 'paldron: allow TOOL'), 2 deny (stderr 'paldron: deny: ...'),\n"
          "1 broken (bad policy, bad JSON, usage).\n",
          stdout);
}

/* The verdict as one JSON object for scripts (same exit codes). */
static void print_json(const char *tool, const struct pd_verdict *v)
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
    }
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

int pd_cmd_check(const struct pd_cli *cli)
{
    if (cli->help) {
        check_help();
        return PD_EXIT_ALLOW;
    }
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
        if (cli->json)
            print_json(tool, &v);
        else if (!v.deny)
            printf("paldron: allow %s\n", tool);
        if (v.deny)
            pd_err("deny: %s", v.message);
        rc = v.deny ? PD_EXIT_DENY : PD_EXIT_ALLOW;
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
