/* launcher/cli/cmd_hook.c - `paldron check --hook`: a PreToolUse hook for Claude
 * Code and Codex. One JSON object on stdin; exit 2 blocks the call and feeds
 * stderr to the model. Every other non-zero code lets the call proceed, so in
 * hook mode every failure of Paldron itself is a deny (exit 2), never 1.
 *
 * Routing (the default, policy key hook_route): a shell call that the static
 * gate allows, or cannot judge, is allowed rewritten to run under `paldron
 * exec --routed` (launcher/hook/hook_route.c); only what it names literally and
 * the policy denies is blocked here. Static-only mode (--no-route,
 * hook_route = false) blocks what it cannot judge and lets the rest run
 * bare, which allowed interpreters and shells make advisory: it says so. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/hook/hook.h"
#include "launcher/launcher.h"
#include "launcher/cli/policy_find.h"
#include "policy/gate_agent.h"
#include "policy/shell/shell_programs.h"

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
    if (strcmp(r, PD_REASON_OUTSIDE_WS) == 0 && v->key && strcmp(v->key, "read_paths") == 0)
        return "Read only inside the project, the system folders or the policy's read_paths.";
    if (strcmp(r, PD_REASON_OUTSIDE_WS) == 0)
        return "Work inside the project (the workspace).";
    if (strcmp(r, PD_REASON_OUTSIDE_ALLOW) == 0)
        return "Write only inside the directories of allow_paths (the policy refuses writes "
               "anywhere else).";
    if (strcmp(r, PD_REASON_BINARY) == 0)
        return "Use one of the programs of allow_binaries.";
    if (strcmp(r, PD_REASON_NETWORK) == 0)
        return "Network access is disabled by the policy: work offline.";
    if (strcmp(r, "shell reads piped input") == 0)
        return "Save the script to a file, show it to the user, and run the file.";
    if (strcmp(r, PD_REASON_UNJUDGED) == 0)
        return "This hook runs in static-only mode (hook_route = false), which cannot run what it "
               "cannot read: write the command out plainly, with literal file names and no "
               "variables, globs or cd.";
    if (strcmp(r, "unparsable command") == 0)
        return "Write the command out plainly so that every program and file it uses is "
               "visible.";
    return "Do something else that the policy allows.";
}

/* The same line for both clients: Claude Code shows the model the JSON
 * reason, Codex its stderr wrapped as "Command blocked by PreToolUse hook:
 * <stderr>. Command: ..." - so the stderr line leaves out its final period,
 * which Codex adds. */
static int hook_deny(const char *reason_for_model)
{
    char line[4 * PD_MSG_MAX];
    snprintf(line, sizeof line, "paldron: %s", reason_for_model);
    print_decision("deny", line);
    size_t n = strlen(line);
    if (n && line[n - 1] == '.')
        line[n - 1] = '\0';
    fprintf(stderr, "%s\n", line);
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

/* Static-only mode lets every allowed call run bare: a shell or an
 * interpreter that the policy allows runs code the gate never reads. Say
 * so when the policy is loaded, once per call (the client shows a hook's
 * stderr in its debug view). */
static void warn_static_only(const struct pd_policy *pol)
{
    const struct pd_strv *ab = &pol->allow_binaries;
    if (ab->n == 0) {
        pd_err("warning: static-only hook mode (hook_route = false or --no-route) with no "
               "allow_binaries: every program may run bare, shells and interpreters included, "
               "so the gate is advisory for code they run");
        return;
    }
    char list[PD_MSG_MAX] = "";
    size_t n = 0;
    for (size_t k = 0; k < ab->n && n < sizeof list; k++)
        if (pd_shell_program_runs_code(ab->v[k]))
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", ab->v[k]);
    if (n)
        pd_err("warning: static-only hook mode (hook_route = false or --no-route): the allowed "
               "shells and interpreters (%s) run code the gate cannot read, bare on this machine; "
               "the gate is advisory for them. Routing (the default) runs them in the sandbox.",
               list);
}

struct hook_call {
    const char *policy; /* the policy file, NULL for the built-in defaults */
    const char *tool;
    const cJSON *input; /* the tool_input object */
    const char *cwd;    /* the client's working directory (absolute) */
};

static int route(const struct pd_ctx *ctx, const struct hook_call *h)
{
    char self[PD_PATH_MAX], policy[PD_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return hook_broken("cannot find the paldron binary to route the call: %s", strerror(errno));
    self[n] = '\0';
    if (h->policy && !realpath(h->policy, policy))
        return hook_broken("policy %s: %s", h->policy, strerror(errno));
    char *text = pd_hook_command_text(h->input);
    if (!text)
        return hook_broken("the shell call carries no command to route");
    struct pd_hook_route r = {.paldron = self,
                              .policy = h->policy ? policy : NULL,
                              .workspace = ctx->workspace,
                              .timeout = pd_hook_client_timeout(h->input)};
    char *routed = pd_hook_routed_command(&r, text);
    free(text);
    int rc = routed && pd_hook_print_routed(h->input, routed,
                                            "paldron: allowed; runs under paldron exec (the "
                                            "sandbox judges what it does)") == 0
                 ? PD_EXIT_ALLOW
                 : hook_broken("out of memory");
    free(routed);
    return rc;
}

/* A shell call that is Codex's apply_patch (a command string, or the argv
 * ["apply_patch", PATCH]): judged as a patch, and left as it is so that the
 * client still recognises and applies it itself. */
static bool is_patch(const cJSON *input)
{
    const cJSON *cmd = pd_hook_command_item(input);
    if (cJSON_IsString(cmd))
        return pd_agent_shell_is_patch(cmd->valuestring);
    const cJSON *first = cJSON_IsArray(cmd) ? cJSON_GetArrayItem(cmd, 0) : NULL;
    return cJSON_IsString(first) && cJSON_GetArraySize(cmd) == 2 &&
           (strcmp(first->valuestring, "apply_patch") == 0 ||
            strcmp(first->valuestring, "applypatch") == 0);
}

static int decide(const struct pd_cli *cli, const struct pd_ctx *ctx, const struct hook_call *h)
{
    const bool routing = !cli->no_route && ctx->policy->hook_route;
    if (!routing)
        warn_static_only(ctx->policy);
    char *args = cJSON_PrintUnformatted(h->input);
    if (!args)
        return hook_broken("out of memory");
    struct pd_verdict v;
    struct pd_error err;
    int rc = pd_gate_tool_call(ctx, h->tool, args, pd_isolation_available(), &v, &err);
    free(args);
    if (rc)
        return hook_broken("%s", err.msg);
    const bool unjudged = v.deny && v.reason && strcmp(v.reason, PD_REASON_UNJUDGED) == 0;
    if (v.deny && !(routing && unjudged)) {
        char line[2 * PD_MSG_MAX];
        snprintf(line, sizeof line, "deny: %s tool call: %s. %s", h->tool, v.message, advice(&v));
        return hook_deny(line);
    }
    if (routing && pd_agent_is_shell_tool(h->tool) && !is_patch(h->input))
        return route(ctx, h);
    if (cli->hook_allow_json)
        print_decision("allow", "allowed by the Paldron policy");
    return PD_EXIT_ALLOW;
}

static int judge(const struct pd_cli *cli, const struct hook_call *h)
{
    struct pd_policy pol;
    struct pd_ctx ctx;
    struct pd_error err;
    char msg[PD_MSG_MAX + PD_PATH_MAX], ws[PD_PATH_MAX];
    if (h->policy && pd_policy_load(&pol, h->policy, &err)) {
        pd_error_format(&err, msg, sizeof msg);
        return hook_broken("%s", msg); /* a broken policy blocks, never routes */
    }
    if (!h->policy)
        pd_policy_defaults(&pol);
    if (cli->workspace)
        snprintf(ws, sizeof ws, "%s", cli->workspace);
    else if (pd_hook_project(h->policy, h->cwd, ws, sizeof ws, msg, sizeof msg) != 0) {
        pd_policy_free(&pol);
        return hook_broken("%s", msg);
    }
    if (pd_ctx_init(&ctx, &pol, ws, getenv("HOME"), &err)) {
        pd_policy_free(&pol);
        return hook_broken("workspace %s: %s", ws, err.msg);
    }
    pd_ctx_set_path_env(&ctx, getenv("PATH"));
    int rc;
    char real_cwd[PD_PATH_MAX];
    if (!realpath(h->cwd, real_cwd))
        rc = hook_broken("the hook's cwd %s: %s", h->cwd, strerror(errno));
    else if (!pd_path_under(real_cwd, ctx.workspace)) {
        char line[2 * PD_PATH_MAX + 128];
        snprintf(line, sizeof line,
                 "deny: %s tool call: the working directory %s is outside the workspace %s. %s",
                 h->tool, real_cwd, ctx.workspace, "Work inside the project (the workspace).");
        rc = hook_deny(line);
    } else {
        snprintf(ctx.cwd, sizeof ctx.cwd, "%s", real_cwd);
        rc = decide(cli, &ctx, h);
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}

int pd_cmd_hook(const struct pd_cli *cli)
{
    size_t len = 0;
    char *text = pd_hook_read_stdin(&len);
    if (!text)
        return hook_broken("cannot read the hook input: %s", strerror(errno));
    cJSON *in = NULL;
    char why[PD_MSG_MAX];
    int bad = pd_hook_parse(text, len, &in, why, sizeof why);
    free(text);
    if (bad)
        return hook_broken("%s", why);
    const cJSON *event = cJSON_GetObjectItemCaseSensitive(in, "hook_event_name");
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(in, "tool_name");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(in, "tool_input");
    const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(in, "cwd");
    char here[PD_PATH_MAX], found[PD_PATH_MAX];
    int rc, nfound = 0;
    /* no --policy: the .paldron.toml of the call's working directory */
    const bool discover = !cli->policy_from_git_root && !cli->policy && !cli->no_policy;
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
    else if (cli->policy_from_git_root &&
             pd_hook_policy_from_git_root(cwd ? cwd->valuestring : here, found, sizeof found, why,
                                          sizeof why) != 0)
        rc = hook_broken("%s", why); /* no policy found: block, never the defaults */
    else if (discover && (nfound = pd_policy_discover(cwd ? cwd->valuestring : here, found,
                                                      sizeof found, why, sizeof why)) < 0)
        rc = hook_broken("%s", why); /* an unsafe .paldron.toml blocks */
    else {
        cJSON *empty = input ? NULL : cJSON_CreateObject();
        /* --policy-from-git-root, else --policy, else the discovered one */
        const struct hook_call h = {.policy = cli->policy_from_git_root || nfound > 0 ? found
                                                                                      : cli->policy,
                                    .tool = tool->valuestring,
                                    .input = input ? input : empty,
                                    .cwd = cwd ? cwd->valuestring : here};
        rc = judge(cli, &h);
        cJSON_Delete(empty);
    }
    cJSON_Delete(in);
    return rc;
}
