/* launcher/hook/hook_route.c - rewrite an allowed shell call so that the client
 * runs it under `paldron exec --routed` (hookSpecificOutput.updatedInput,
 * which Claude Code and Codex both honour with permissionDecision "allow").
 * A hook can only read the command; static reading of a shell command is
 * never complete, so what it allows still runs in the sandbox, where the
 * kernel layers, the live gate and the scans judge what it really does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "launcher/hook/hook.h"

/* Claude Code's Bash default (2 minutes); its maximum is 10 minutes. */
#define CLIENT_DEFAULT_TIMEOUT 120
/* A background call has no client limit; the run still ends some day. */
#define BACKGROUND_TIMEOUT 86400

/* Append s to out (at *n, capacity cap) single-quoted: ' becomes '\''.
 * The caller sized out for the worst case. */
static void put_quoted(char *out, size_t *n, const char *s)
{
    out[(*n)++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy(out + *n, "'\\''", 4);
            *n += 4;
        } else {
            out[(*n)++] = *s;
        }
    }
    out[(*n)++] = '\'';
}

static void put_raw(char *out, size_t *n, const char *s)
{
    size_t len = strlen(s);
    memcpy(out + *n, s, len);
    *n += len;
}

char *pd_hook_routed_command(const struct pd_hook_route *r, const char *text)
{
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%lld", r->timeout);
    const char *parts[] = {r->paldron, r->policy, r->workspace, text};
    size_t cap = 128 + strlen(timeout);
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        cap += parts[k] ? 4 * strlen(parts[k]) + 2 : 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = 0;
    put_quoted(out, &n, r->paldron);
    put_raw(out, &n, " exec --routed");
    if (r->policy) {
        put_raw(out, &n, " --policy ");
        put_quoted(out, &n, r->policy);
    }
    put_raw(out, &n, " --workspace ");
    put_quoted(out, &n, r->workspace);
    put_raw(out, &n, " --timeout ");
    put_raw(out, &n, timeout);
    put_raw(out, &n, " -- ");
    put_quoted(out, &n, text);
    out[n] = '\0';
    return out;
}

long long pd_hook_client_timeout(const cJSON *in)
{
    const cJSON *bg = cJSON_GetObjectItemCaseSensitive(in, "run_in_background");
    if (cJSON_IsTrue(bg))
        return BACKGROUND_TIMEOUT;
    static const char *const keys[] = {"timeout", "timeout_ms"};
    for (size_t k = 0; k < 2; k++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(in, keys[k]);
        if (cJSON_IsNumber(t) && t->valuedouble > 0 && t->valuedouble < 1e12) {
            long long ms = (long long)t->valuedouble;
            long long s = (ms + 999) / 1000;
            return s < 1 ? 1 : s > 604800 ? 604800 : s;
        }
    }
    return CLIENT_DEFAULT_TIMEOUT;
}

/* ["bash", "-lc", SCRIPT] (also sh, dash, zsh; bare or under /bin,
 * /usr/bin, /usr/local/bin; -c or -lc): the client's own shell running
 * SCRIPT. Routed, SCRIPT runs in Paldron's shell: the client's shell is
 * not the agent's program. */
static const char *shell_script(const cJSON *argv)
{
    static const char *const shells[] = {"bash", "sh", "dash", "zsh", NULL};
    static const char *const dirs[] = {"", "/bin/", "/usr/bin/", "/usr/local/bin/", NULL};
    if (cJSON_GetArraySize(argv) != 3)
        return NULL;
    const cJSON *a = cJSON_GetArrayItem(argv, 0), *b = cJSON_GetArrayItem(argv, 1),
                *c = cJSON_GetArrayItem(argv, 2);
    if (!cJSON_IsString(a) || !cJSON_IsString(b) || !cJSON_IsString(c) ||
        (strcmp(b->valuestring, "-c") != 0 && strcmp(b->valuestring, "-lc") != 0))
        return NULL;
    char name[64];
    for (size_t d = 0; dirs[d]; d++)
        for (size_t s = 0; shells[s]; s++) {
            snprintf(name, sizeof name, "%s%s", dirs[d], shells[s]);
            if (strcmp(a->valuestring, name) == 0)
                return c->valuestring;
        }
    return NULL;
}

const cJSON *pd_hook_command_item(const cJSON *in)
{
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(in, "command");
    return cmd ? cmd : cJSON_GetObjectItemCaseSensitive(in, "cmd");
}

char *pd_hook_command_text(const cJSON *in)
{
    const cJSON *cmd = pd_hook_command_item(in);
    if (cJSON_IsString(cmd))
        return strdup(cmd->valuestring);
    if (!cJSON_IsArray(cmd) || cJSON_GetArraySize(cmd) == 0)
        return NULL;
    const char *script = shell_script(cmd);
    if (script)
        return strdup(script);
    size_t cap = 1;
    const cJSON *it;
    cJSON_ArrayForEach(it, cmd)
    {
        if (!cJSON_IsString(it))
            return NULL;
        cap += 4 * strlen(it->valuestring) + 3;
    }
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = 0;
    cJSON_ArrayForEach(it, cmd)
    {
        if (n)
            out[n++] = ' ';
        put_quoted(out, &n, it->valuestring);
    }
    out[n] = '\0';
    return out;
}

int pd_hook_print_routed(const cJSON *tool_input, const char *routed, const char *reason)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *h = o ? cJSON_AddObjectToObject(o, "hookSpecificOutput") : NULL;
    cJSON *upd = tool_input ? cJSON_Duplicate(tool_input, true) : cJSON_CreateObject();
    cJSON *cmd = cJSON_CreateString(routed);
    int rc = -1;
    if (h && upd && cmd && cJSON_AddStringToObject(h, "hookEventName", "PreToolUse") &&
        cJSON_AddStringToObject(h, "permissionDecision", "allow") &&
        cJSON_AddStringToObject(h, "permissionDecisionReason", reason)) {
        /* a "cmd" key goes: the clients run "command", and the original must
         * not stay beside the rewrite */
        cJSON_DeleteItemFromObjectCaseSensitive(upd, "cmd");
        if (cJSON_GetObjectItemCaseSensitive(upd, "command"))
            cJSON_ReplaceItemInObjectCaseSensitive(upd, "command", cmd);
        else
            cJSON_AddItemToObject(upd, "command", cmd);
        cmd = NULL;
        cJSON_AddItemToObject(h, "updatedInput", upd);
        upd = NULL;
        char *s = cJSON_PrintUnformatted(o);
        if (s) {
            printf("%s\n", s);
            fflush(stdout);
            free(s);
            rc = 0;
        }
    }
    cJSON_Delete(cmd);
    cJSON_Delete(upd);
    cJSON_Delete(o);
    return rc;
}
