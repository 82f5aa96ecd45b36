/* policy/gate_agent.c - the tools of coding agents (Claude Code, Codex) as
 * they arrive in PreToolUse hooks: shell commands, file edits and reads, web
 * access. Paths are judged against the context's workspace (the hook's cwd). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "policy/gate_agent.h"

static const char *str_member(const cJSON *o, const char *key)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(m) ? m->valuestring : NULL;
}

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

static void gate_shell_tool(const struct pd_ctx *c, const cJSON *in, struct pd_verdict *v)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(in, "command");
    const char *workdir = str_member(in, "workdir");
    char *owned = NULL;
    const char *text = NULL;
    if (cJSON_IsString(cmd))
        text = cmd->valuestring;
    else if (cJSON_IsArray(cmd))
        text = owned = argv_to_shell(cmd);
    if (!text) {
        pd_verdict_deny(v, "unparsable command", "tools",
                        "the shell call carries no command string");
        return;
    }
    char base[PD_PATH_MAX];
    if (workdir && workdir[0] &&
        pd_path_normalize(c->workspace, c->home, workdir, base, sizeof base) == 0) {
        pd_gate_path(c, PD_OP_NAME, NULL, workdir, v);
        if (!v->deny)
            pd_gate_shell(c, text, base, v);
    } else {
        pd_gate_shell(c, text, NULL, v);
    }
    free(owned);
}

static void gate_file(const struct pd_ctx *c, const cJSON *in, const char *key, enum pd_op op,
                      struct pd_verdict *v)
{
    const char *path = str_member(in, key);
    if (!path || !path[0]) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "the call carries no %s", key);
        return;
    }
    pd_gate_path(c, op, NULL, path, v);
}

/* Codex apply_patch (the patch text in tool_input.command): "*** Add File: p", "*** Update File:
 * p", "*** Delete File: p", "*** Move to: p" lines name what the patch writes. */
static void gate_patch(const struct pd_ctx *c, const cJSON *in, struct pd_verdict *v)
{
    const char *patch = str_member(in, "command"); /* Codex hooks put the patch here */
    if (!patch)
        patch = str_member(in, "input");
    if (!patch)
        patch = str_member(in, "patch");
    if (!patch) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "the patch call carries no patch text");
        return;
    }
    static const char *const heads[] = {
        "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", NULL};
    for (const char *line = patch; line && *line && !v->deny;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        for (size_t k = 0; heads[k]; k++) {
            size_t h = strlen(heads[k]);
            if (len > h && strncmp(line, heads[k], h) == 0) {
                char path[PD_PATH_MAX];
                snprintf(path, sizeof path, "%.*s", (int)(len - h), line + h);
                pd_gate_path(c, k == 2 ? PD_OP_DELETE : PD_OP_WRITE, NULL, path, v);
                break;
            }
        }
        line = end ? end + 1 : NULL;
    }
}

bool pd_gate_agent(const struct pd_ctx *c, const char *tool, const cJSON *in, struct pd_verdict *v)
{
    static const char *const shells[] = {"Bash", "shell", "exec_command", "local_shell", NULL};
    for (size_t k = 0; shells[k]; k++)
        if (strcmp(tool, shells[k]) == 0) {
            gate_shell_tool(c, in, v);
            return true;
        }
    if (strcmp(tool, "Write") == 0 || strcmp(tool, "Edit") == 0 || strcmp(tool, "MultiEdit") == 0) {
        gate_file(c, in, "file_path", PD_OP_WRITE, v);
        return true;
    }
    if (strcmp(tool, "NotebookEdit") == 0) {
        gate_file(c, in, "notebook_path", PD_OP_WRITE, v);
        return true;
    }
    if (strcmp(tool, "Read") == 0) {
        gate_file(c, in, "file_path", PD_OP_READ, v);
        return true;
    }
    if (strcmp(tool, "Glob") == 0 || strcmp(tool, "Grep") == 0 || strcmp(tool, "LS") == 0) {
        const char *path = str_member(in, "path");
        pd_gate_path(c, PD_OP_READ, NULL, path && path[0] ? path : ".", v);
        return true;
    }
    if (strcmp(tool, "apply_patch") == 0) {
        gate_patch(c, in, v);
        return true;
    }
    if (strcmp(tool, "WebFetch") == 0 || strcmp(tool, "WebSearch") == 0) {
        if (!c->policy->allow_network)
            pd_verdict_deny(v, PD_REASON_NETWORK, "allow_network",
                            "tool '%s' needs network access (allow_network = false)", tool);
        return true;
    }
    return false;
}
