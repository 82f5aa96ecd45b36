/* policy/gate_agent.c - the tools of coding agents (Claude Code, Codex) as
 * they arrive in PreToolUse hooks: shell commands, patches, file edits and
 * reads, searches, MCP tools, web access. Each is judged by what the client
 * will really do with it:
 *   - relative paths are taken against the call's directory (the hook's
 *     cwd, pd_ctx.cwd, or a Codex workdir), which must lie inside the
 *     workspace: a workdir of $HOME widens nothing;
 *   - a shell command given as argv that is a shell running a script
 *     (["bash", "-lc", S]) is the script S;
 *   - an apply_patch call, or a shell command Codex takes for one, is the
 *     files its patch changes (policy/gate_patch.c), parsed as Codex does;
 *   - Read, Grep, Glob and LS are what they read (policy/gate_search.c);
 *   - MCP tools are their path and URL arguments (policy/gate_mcp.c);
 *   - an input object with a key twice is refused: the clients use the
 *     last one, a reader that takes the first would judge another call. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "policy/gate_agent.h"
#include "policy/gate_mcp.h"
#include "policy/gate_patch.h"
#include "policy/gate_search.h"
#include "policy/hosts.h"

static const char *const shell_tools[] = {
    "Bash", "shell", "exec_command", "local_shell", "container.exec", "shell_command", NULL};

/* Claude Code's tools that touch no file, command or network themselves
 * (a Task's subagent calls its own tools, each through the hook). */
static const char *const inert_tools[] = {"TodoWrite",
                                          "TodoRead",
                                          "Task",
                                          "Agent",
                                          "ExitPlanMode",
                                          "EnterPlanMode",
                                          "BashOutput",
                                          "KillShell",
                                          "KillBash",
                                          "AskUserQuestion",
                                          "ListMcpResourcesTool",
                                          "update_plan",
                                          "list_mcp_resources",
                                          NULL};

static bool in_list(const char *const *list, const char *s)
{
    for (size_t k = 0; list[k]; k++)
        if (strcmp(list[k], s) == 0)
            return true;
    return false;
}

bool pd_agent_is_shell_tool(const char *tool)
{
    return tool && in_list(shell_tools, tool);
}

bool pd_agent_shell_is_patch(const char *command)
{
    struct pd_patch_shell form;
    return command && pd_patch_shell_form(command, &form);
}

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str_member(const cJSON *o, const char *key)
{
    const cJSON *m = member(o, key);
    return cJSON_IsString(m) ? m->valuestring : NULL;
}

/* ---- duplicate keys ------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key that occurs twice in one object, at any depth; NULL if none (or
 * *oom set). */
static const char *duplicate_key(const cJSON *node, int depth, bool *oom)
{
    if (!node || depth > 1000 || (!cJSON_IsObject(node) && !cJSON_IsArray(node)))
        return NULL;
    const cJSON *it;
    const char *dup = NULL;
    if (cJSON_IsObject(node)) {
        size_t n = (size_t)cJSON_GetArraySize(node), i = 0;
        const char **keys = n ? malloc(n * sizeof *keys) : NULL;
        if (n && !keys) {
            *oom = true;
            return NULL;
        }
        for (it = node->child; it && i < n; it = it->next)
            keys[i++] = it->string ? it->string : "";
        if (n)
            qsort(keys, n, sizeof *keys, cmp_str);
        for (i = 1; i < n && !dup; i++)
            if (strcmp(keys[i - 1], keys[i]) == 0)
                dup = keys[i];
        free(keys);
    }
    cJSON_ArrayForEach(it, node)
    {
        if (dup || *oom)
            break;
        dup = duplicate_key(it, depth + 1, oom);
    }
    return dup;
}

/* ---- where the call runs ------------------------------------------------------------ */

/* Resolve dir (relative to from) into out; deny unless it lies in the
 * workspace. */
static bool inside_workspace(const struct pd_ctx *c, const char *from, const char *dir, char *out,
                             size_t outlen, struct pd_verdict *v)
{
    if (pd_path_normalize(from, c->home, dir, out, outlen) != 0) {
        pd_verdict_deny(v, PD_REASON_UNRESOLVABLE, "path",
                        "working directory %.900s cannot be resolved", dir);
        return false;
    }
    if (pd_path_under(out, c->workspace))
        return true;
    pd_verdict_deny(v, PD_REASON_OUTSIDE_WS, "workspace",
                    "working directory %.900s is outside the workspace %.900s", dir, c->workspace);
    v->op = PD_OP_NAME;
    snprintf(v->subject, sizeof v->subject, "%s", dir);
    snprintf(v->resolved, sizeof v->resolved, "%s", out);
    return false;
}

/* ---- shell tools ------------------------------------------------------------------ */

/* Codex sends its shell command as an argv array: quote it back into one
 * string for the shell parser (single quotes, ' as '\''). */
static char *argv_to_shell(const cJSON *arr)
{
    size_t len = 1;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (!cJSON_IsString(it))
            return NULL;
        len += strlen(it->valuestring) * 4 + 3;
    }
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    cJSON_ArrayForEach(it, arr)
    {
        if (o != out)
            *o++ = ' ';
        *o++ = '\'';
        for (const char *s = it->valuestring; *s; s++) {
            if (*s == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *s;
            }
        }
        *o++ = '\'';
    }
    *o = '\0';
    return out;
}

/* A shell the client itself starts for a script: a bare name, or one of the
 * system's, never a file of the workspace that happens to be called bash. */
static bool client_shell(const char *argv0)
{
    static const char *const names[] = {"bash", "sh", "zsh", "dash", NULL};
    static const char *const dirs[] = {"/bin/", "/usr/bin/", "/usr/local/bin/", NULL};
    if (in_list(names, argv0))
        return true;
    for (size_t k = 0; dirs[k]; k++) {
        size_t n = strlen(dirs[k]);
        if (strncmp(argv0, dirs[k], n) == 0 && in_list(names, argv0 + n))
            return true;
    }
    return false;
}

/* A patch (text[0, len)) applied in dir (relative to base; NULL = base). */
static void judge_patch_in(const struct pd_ctx *c, const char *base, const char *dir,
                           size_t dir_len, const char *text, size_t len, struct pd_verdict *v)
{
    char where[PD_PATH_MAX], given[PD_PATH_MAX];
    if (dir) {
        /* Codex joins the cd DIR to its cwd as written: "~" is a folder */
        int n =
            snprintf(given, sizeof given, "%s%.*s", dir[0] == '~' ? "./" : "", (int)dir_len, dir);
        if (n < 0 || (size_t)n >= sizeof given ||
            pd_path_normalize(base, c->home, given, where, sizeof where) != 0) {
            pd_verdict_deny(v, PD_REASON_UNRESOLVABLE, "path",
                            "apply_patch: the directory %.*s cannot be resolved",
                            (int)(dir_len > 900 ? 900 : dir_len), dir);
            return;
        }
        base = where;
    }
    pd_gate_patch(c, base, text, len, v);
}

/* A script a shell runs in base: an apply_patch invocation is its patch,
 * anything else the shell gate's. */
static void judge_script(const struct pd_ctx *c, const char *base, const char *script,
                         struct pd_verdict *v)
{
    struct pd_patch_shell form;
    if (pd_patch_shell_form(script, &form))
        judge_patch_in(c, base, form.dir, form.dir_len, form.body, form.body_len, v);
    else
        pd_gate_shell(c, script, base, v);
}

static void judge_argv(const struct pd_ctx *c, const char *base, const cJSON *argv,
                       struct pd_verdict *v)
{
    int n = cJSON_GetArraySize(argv);
    const cJSON *a0 = cJSON_GetArrayItem(argv, 0), *a1 = cJSON_GetArrayItem(argv, 1),
                *a2 = cJSON_GetArrayItem(argv, 2);
    bool strings =
        cJSON_IsString(a0) && (n < 2 || cJSON_IsString(a1)) && (n < 3 || cJSON_IsString(a2));
    /* ["apply_patch", PATCH]: Codex applies PATCH itself */
    if (strings && n == 2 &&
        (strcmp(a0->valuestring, "apply_patch") == 0 ||
         strcmp(a0->valuestring, "applypatch") == 0)) {
        pd_gate_patch(c, base, a1->valuestring, strlen(a1->valuestring), v);
        return;
    }
    /* ["bash", "-lc", SCRIPT]: the client's shell runs SCRIPT */
    if (strings && n == 3 && client_shell(a0->valuestring) &&
        (strcmp(a1->valuestring, "-lc") == 0 || strcmp(a1->valuestring, "-c") == 0)) {
        judge_script(c, base, a2->valuestring, v);
        return;
    }
    char *text = argv_to_shell(argv);
    if (!text) {
        pd_verdict_deny(v, "unparsable command", "tools",
                        "the shell call's argv holds a value that is not a string");
        return;
    }
    pd_gate_shell(c, text, base, v);
    free(text);
}

static void gate_shell_tool(const struct pd_ctx *c, const char *cwd, const cJSON *in,
                            struct pd_verdict *v)
{
    static const char *const cmd_keys[] = {"command", "cmd", NULL};
    static const char *const dir_keys[] = {"workdir", "working_directory", NULL};
    char base[PD_PATH_MAX];
    snprintf(base, sizeof base, "%s", cwd);
    for (size_t k = 0; dir_keys[k]; k++) {
        const cJSON *d = member(in, dir_keys[k]);
        if (!d || cJSON_IsNull(d))
            continue;
        if (!cJSON_IsString(d)) {
            pd_verdict_deny(v, "unparsable command", "tools", "the shell call's %s is not a string",
                            dir_keys[k]);
            return;
        }
        char wd[PD_PATH_MAX];
        if (d->valuestring[0] && !inside_workspace(c, cwd, d->valuestring, wd, sizeof wd, v))
            return;
        if (d->valuestring[0])
            snprintf(base, sizeof base, "%s", wd);
    }
    bool any = false;
    for (size_t k = 0; cmd_keys[k]; k++) {
        const cJSON *cmd = member(in, cmd_keys[k]);
        if (!cmd)
            continue;
        any = true;
        if (cJSON_IsString(cmd))
            judge_script(c, base, cmd->valuestring, v);
        else if (cJSON_IsArray(cmd))
            judge_argv(c, base, cmd, v);
        else
            pd_verdict_deny(v, "unparsable command", "tools",
                            "the shell call's %s is neither a string nor an argv array",
                            cmd_keys[k]);
        if (v->deny)
            return;
    }
    if (!any)
        pd_verdict_deny(v, "unparsable command", "tools",
                        "the shell call carries no command string");
}

/* ---- the other tools ----------------------------------------------------------------- */

static void gate_file(const struct pd_ctx *c, const char *base, const cJSON *in, const char *key,
                      enum pd_op op, struct pd_verdict *v)
{
    const char *path = str_member(in, key);
    if (!path || !path[0]) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "the call carries no %s", key);
        return;
    }
    if (op == PD_OP_READ)
        pd_gate_agent_read(c, base, path, v);
    else
        pd_gate_path(c, op, base, path, v);
}

/* apply_patch: the patch text in tool_input.command (Codex's hook), input
 * (its function tool) or patch; every one given is judged. */
static void gate_patch_tool(const struct pd_ctx *c, const char *base, const cJSON *in,
                            struct pd_verdict *v)
{
    static const char *const keys[] = {"command", "input", "patch", NULL};
    bool any = false;
    for (size_t k = 0; keys[k] && !v->deny; k++) {
        const cJSON *m = member(in, keys[k]);
        if (!m)
            continue;
        any = true;
        struct pd_patch_shell form;
        if (!cJSON_IsString(m))
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "the patch in %s is not a string",
                            keys[k]);
        else if (pd_patch_shell_form(m->valuestring, &form))
            judge_patch_in(c, base, form.dir, form.dir_len, form.body, form.body_len, v);
        else
            pd_gate_patch(c, base, m->valuestring, strlen(m->valuestring), v);
    }
    if (!any)
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "the patch call carries no patch text");
}

/* WebFetch and WebSearch under allow_hosts: WebFetch's url is judged by
 * its host and port; WebSearch reaches hosts it does not name. */
static void gate_web_hosts(const struct pd_ctx *c, const char *tool, const cJSON *in,
                           struct pd_verdict *v)
{
    if (strcmp(tool, "WebSearch") == 0) {
        pd_verdict_deny(v, PD_REASON_NETWORK, "allow_network",
                        "tool '%s' reaches hosts it does not name (allow_hosts admits named hosts "
                        "only; allow_network = false)",
                        tool);
        return;
    }
    const char *url = str_member(in, "url");
    struct pd_verdict hv;
    if (!url || !pd_host_is_url(url)) {
        pd_verdict_deny(v, PD_REASON_HOST_MALFORMED, "allow_hosts",
                        "tool '%s': url '%.300s' names no host that allow_hosts can judge (%s)",
                        tool, url ? url : "", PD_REASON_HOST_MALFORMED);
        return;
    }
    if (pd_host_deny_target(c->policy, tool, url, 0, &hv))
        *v = hv;
}

bool pd_gate_agent(const struct pd_ctx *c, const char *tool, const cJSON *in, struct pd_verdict *v)
{
    bool shell = pd_agent_is_shell_tool(tool);
    static const char *const known[] = {"Write",      "Edit",         "MultiEdit",  "NotebookEdit",
                                        "Read",       "NotebookRead", "view_image", "Grep",
                                        "grep_files", "Glob",         "LS",         "apply_patch",
                                        "WebFetch",   "WebSearch",    NULL};
    if (!shell && !in_list(known, tool) && !in_list(inert_tools, tool) && !pd_mcp_tool(tool))
        return false;
    pd_verdict_allow(v);
    v->op = PD_OP_NAME;
    snprintf(v->subject, sizeof v->subject, "%s", tool);
    v->resolved[0] = '\0';

    bool oom = false;
    const char *dup = duplicate_key(in, 0, &oom);
    if (oom) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "out of memory while reading the input");
        return true;
    }
    if (dup) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "the tool input holds the key '%.200s' twice (the client would use the "
                        "last one)",
                        dup);
        return true;
    }
    /* the client's working directory (the hook sets it inside the
     * workspace; checked again, since everything below trusts it) */
    char here[PD_PATH_MAX];
    const char *base = c->workspace;
    if (c->cwd[0]) {
        if (!inside_workspace(c, "/", c->cwd, here, sizeof here, v))
            return true;
        base = here;
    }

    if (shell) {
        gate_shell_tool(c, base, in, v);
    } else if (in_list(inert_tools, tool)) {
        /* nothing to judge */
    } else if (strcmp(tool, "Write") == 0 || strcmp(tool, "Edit") == 0 ||
               strcmp(tool, "MultiEdit") == 0) {
        gate_file(c, base, in, "file_path", PD_OP_WRITE, v);
    } else if (strcmp(tool, "NotebookEdit") == 0) {
        gate_file(c, base, in, "notebook_path", PD_OP_WRITE, v);
    } else if (strcmp(tool, "Read") == 0) {
        gate_file(c, base, in, "file_path", PD_OP_READ, v);
    } else if (strcmp(tool, "NotebookRead") == 0) {
        gate_file(c, base, in, "notebook_path", PD_OP_READ, v);
    } else if (strcmp(tool, "view_image") == 0) {
        gate_file(c, base, in, "path", PD_OP_READ, v);
    } else if (strcmp(tool, "Grep") == 0 || strcmp(tool, "grep_files") == 0) {
        const char *glob = str_member(in, strcmp(tool, "Grep") == 0 ? "glob" : "include");
        pd_gate_grep(c, base, str_member(in, "path"), glob, str_member(in, "type"), v);
    } else if (strcmp(tool, "Glob") == 0) {
        pd_gate_glob(c, base, str_member(in, "path"), str_member(in, "pattern"), v);
    } else if (strcmp(tool, "LS") == 0) {
        const char *path = str_member(in, "path");
        pd_gate_agent_read(c, base, path && path[0] ? path : ".", v);
    } else if (strcmp(tool, "apply_patch") == 0) {
        gate_patch_tool(c, base, in, v);
    } else if (pd_hosts_enabled(c->policy) &&
               (strcmp(tool, "WebFetch") == 0 || strcmp(tool, "WebSearch") == 0)) {
        gate_web_hosts(c, tool, in, v);
    } else if (strcmp(tool, "WebFetch") == 0 || strcmp(tool, "WebSearch") == 0) {
        if (!c->policy->allow_network)
            pd_verdict_deny(v, PD_REASON_NETWORK, "allow_network",
                            "tool '%s' needs network access (allow_network = false)", tool);
    } else {
        pd_gate_mcp(c, tool, in, base, v);
    }
    return true;
}
