/* launcher/cmd_hook.c - `paldron check --hook`: a PreToolUse hook for Claude
 * Code and Codex. One JSON object on stdin; exit 2 blocks the call and feeds
 * stderr to the model. Every other non-zero code lets the call proceed, so in
 * hook mode every failure of Paldron itself is a deny (exit 2), never 1. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/launcher.h"

#define HOOK_INPUT_MAX (16u << 20)

static void print_decision(const char *decision, const char *reason)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *h = cJSON_AddObjectToObject(o, "hookSpecificOutput");
    cJSON_AddStringToObject(h, "hookEventName", "PreToolUse");
    cJSON_AddStringToObject(h, "permissionDecision", decision);
    cJSON_AddStringToObject(h, "permissionDecisionReason", reason);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

/* What the model should do instead, by reason word. */
static const char *advice(const struct pd_verdict *v)
{
    const char *r = v->reason ? v->reason : "";
    if (strcmp(r, PD_REASON_SECRET) == 0)
        return "It holds secrets: do not read, write or print it; ask the user for what you need.";
    if (strcmp(r, PD_REASON_DENY_GLOB) == 0)
        return "The policy denies this path: leave it alone.";
    if (strcmp(r, PD_REASON_PROTECTED) == 0)
        return "This path is protected (it can run code later or changes agent settings): ask "
               "the user to change it.";
    if (strcmp(r, PD_REASON_OUTSIDE_WS) == 0)
        return "Work inside the workspace.";
    if (strcmp(r, PD_REASON_OUTSIDE_ALLOW) == 0)
        return "Write only inside the directories of allow_paths.";
    if (strcmp(r, PD_REASON_BINARY) == 0)
        return "Use one of the programs of allow_binaries.";
    if (strcmp(r, PD_REASON_NETWORK) == 0)
        return "Network access is disabled by the policy: work offline.";
    if (strcmp(r, "shell reads piped input") == 0)
        return "Save the script to a file, show it to the user, and run the file.";
    if (strcmp(r, "unparsable command") == 0 || strcmp(r, "dynamic command") == 0)
        return "Write the command out plainly so that every program and file it uses is "
               "visible.";
    return "Do something else that the policy allows.";
}

static int hook_deny(const char *reason_for_model)
{
    fprintf(stderr, "paldron: %s\n", reason_for_model);
    print_decision("deny", reason_for_model);
    return PD_EXIT_DENY;
}

/* Paldron failed: block the call, and say it was Paldron, not the policy. */
__attribute__((format(printf, 1, 2))) static int hook_broken(const char *fmt, ...)
{
    char what[PD_MSG_MAX], line[PD_MSG_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line,
             "hook: Paldron itself failed (%s); the tool call is blocked so that nothing runs "
             "unchecked",
             what);
    return hook_deny(line);
}

static char *read_stdin(size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap >= HOOK_INPUT_MAX) {
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                break;
            buf = nb;
        }
        ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        if (r == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        n += (size_t)r;
    }
    free(buf);
    return NULL;
}

static int judge(const struct pd_cli *cli, const char *cwd, const char *tool, const cJSON *input)
{
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    char msg[PD_MSG_MAX + PD_PATH_MAX];
    if (cli->policy && pd_policy_load(&pol, cli->policy, &err)) {
        pd_error_format(&err, msg, sizeof msg);
        return hook_broken("%s", msg);
    }
    if (!cli->policy)
        pd_policy_defaults(&pol);
    if (pd_ctx_init(&ctx, &pol, cwd, getenv("HOME"), &err)) {
        pd_policy_free(&pol);
        return hook_broken("cwd %s", err.msg);
    }
    pd_ctx_set_path_env(&ctx, getenv("PATH"));
    char *args = cJSON_PrintUnformatted(input);
    struct pd_verdict v;
    int rc;
    if (!args) {
        rc = hook_broken("out of memory");
    } else if (pd_gate_tool_call(&ctx, tool, args, pd_isolation_available(), &v, &err)) {
        rc = hook_broken("%s", err.msg);
    } else if (v.deny) {
        char line[2 * PD_MSG_MAX];
        snprintf(line, sizeof line, "deny: %s tool call: %s. %s", tool, v.message, advice(&v));
        rc = hook_deny(line);
    } else {
        if (cli->hook_allow_json)
            print_decision("allow", "allowed by the Paldron policy");
        rc = PD_EXIT_ALLOW;
    }
    free(args);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}

int pd_cmd_hook(const struct pd_cli *cli)
{
    size_t len = 0;
    char *text = read_stdin(&len);
    if (!text)
        return hook_broken("cannot read the hook input: %s", strerror(errno));
    if (len == 0 || strspn(text, " \t\r\n") == len) {
        free(text);
        return hook_broken("the hook input on stdin is empty");
    }
    const char *end = NULL;
    cJSON *in = cJSON_ParseWithOpts(text, &end, true);
    if (!in || !cJSON_IsObject(in)) {
        size_t off = end ? (size_t)(end - text) : 0;
        free(text);
        cJSON_Delete(in);
        return hook_broken("the hook input is not a JSON object (error near byte %zu)", off);
    }
    free(text);
    const cJSON *event = cJSON_GetObjectItemCaseSensitive(in, "hook_event_name");
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(in, "tool_name");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(in, "tool_input");
    const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(in, "cwd");
    char here[PD_PATH_MAX];
    int rc;
    if (!cJSON_IsString(event) || strcmp(event->valuestring, "PreToolUse") != 0)
        rc = hook_broken("unexpected hook event %s%s%s (Paldron judges PreToolUse only)",
                         cJSON_IsString(event) ? "'" : "",
                         cJSON_IsString(event) ? event->valuestring : "(missing)",
                         cJSON_IsString(event) ? "'" : "");
    else if (!cJSON_IsString(tool) || !tool->valuestring[0])
        rc = hook_broken("the hook input has no tool_name");
    else if (input && !cJSON_IsObject(input))
        rc = hook_broken("tool_input is not a JSON object");
    else if (cwd && (!cJSON_IsString(cwd) || cwd->valuestring[0] != '/'))
        rc = hook_broken("cwd is not an absolute path");
    else if (!cwd && !getcwd(here, sizeof here))
        rc = hook_broken("getcwd: %s", strerror(errno));
    else {
        cJSON *empty = input ? NULL : cJSON_CreateObject();
        rc = judge(cli, cwd ? cwd->valuestring : here, tool->valuestring, input ? input : empty);
        cJSON_Delete(empty);
    }
    cJSON_Delete(in);
    return rc;
}
