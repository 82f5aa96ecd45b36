/* policy/gate_tool.c - the tool-call gate of `paldron check TOOL JSON`.
 *
 * In the original's order: network capability, schema (the five built-in
 * tools), suspicious substrings, tool semantics, then the path pass. Unlike
 * the original, string values are inspected at any depth and in document
 * order (deterministic messages), execute_code is parsed as shell words, and
 * the prose fields of write_file/edit_file are not taken for paths. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "policy/gate_agent.h"
#include "policy/hosts.h"
#include "policy/policy.h"
#include "policy/shell/shell_words.h"
#include "policy/toml/toml_lex.h"
#include "policy/tools.h"

static const char *const network_tools[] = {"wolfram",    "http_request",    "web_search",
                                            "web_scrape", "ask_cloud_model", "analyze_image",
                                            NULL};

/* Last member named key (JSON duplicate keys: last wins). */
static const cJSON *member(const cJSON *obj, const char *key)
{
    const cJSON *hit = NULL, *it;
    cJSON_ArrayForEach(it, obj)
    {
        if (it->string && strcmp(it->string, key) == 0)
            hit = it;
    }
    return hit;
}

static const char *member_str(const cJSON *obj, const char *key)
{
    const cJSON *m = member(obj, key);
    return m && cJSON_IsString(m) ? m->valuestring : NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool check_schema(const struct pd_tool_schema *s, const cJSON *args, struct pd_verdict *v)
{
    for (size_t k = 0; k < s->nprops; k++) /* props are sorted, so required is too */
        if (!member(args, s->props[k].name)) {
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                            "missing required argument '%s' for tool '%s'", s->props[k].name,
                            s->name);
            return false;
        }
    size_t n = (size_t)cJSON_GetArraySize(args), i = 0;
    const char **names = calloc(n + 1, sizeof *names);
    const cJSON *it;
    if (!names) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "out of memory while checking tool '%s'",
                        s->name);
        return false;
    }
    cJSON_ArrayForEach(it, args) names[i++] = it->string;
    qsort(names, n, sizeof *names, cmp_str);
    bool ok = true;
    for (i = 0; i < n && ok; i++) {
        const struct pd_tool_prop *prop = NULL;
        for (size_t k = 0; k < s->nprops; k++)
            if (strcmp(s->props[k].name, names[i]) == 0)
                prop = &s->props[k];
        if (!prop) {
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "unknown argument '%s' for tool '%s'",
                            names[i], s->name);
            ok = false;
        } else if (!cJSON_IsString(member(args, names[i]))) {
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                            "argument '%s' for tool '%s' must be a string", names[i], s->name);
            ok = false;
        }
    }
    free(names);
    return ok;
}

struct visit {
    const struct pd_ctx *c;
    const char *tool;
    struct pd_verdict *v;
};

/* cJSON refuses deeper documents itself (CJSON_NESTING_LIMIT is 1000). */
#define PD_JSON_MAX_DEPTH 1000

/* Visit every string value in document order with its argument name. */
typedef bool (*visit_fn)(const char *name, const char *value, void *user);

static bool walk(const cJSON *node, const char *name, visit_fn fn, void *user, int depth)
{
    char child[512];
    const cJSON *it;
    if (depth > PD_JSON_MAX_DEPTH) {
        struct visit *x = user;
        pd_verdict_deny(x->v, PD_REASON_GUARDRAIL, "tools",
                        "arguments nested deeper than %d levels cannot be inspected",
                        PD_JSON_MAX_DEPTH);
        return false;
    }
    if (cJSON_IsString(node))
        return fn(name, node->valuestring, user);
    int idx = 0;
    cJSON_ArrayForEach(it, node)
    {
        if (cJSON_IsObject(node))
            snprintf(child, sizeof child, "%s%s%s", name, name[0] ? "." : "", it->string);
        else
            snprintf(child, sizeof child, "%s[%d]", name, idx);
        idx++;
        if (!walk(it, child, fn, user, depth + 1))
            return false;
    }
    return true;
}

static bool suspicious(const char *name, const char *value, void *user)
{
    struct visit *x = user;
    if (strcasestr(value, "../") || strcasestr(value, "~/.ssh") || strcasestr(value, "/etc/")) {
        pd_verdict_deny(x->v, PD_REASON_GUARDRAIL, "tools",
                        "suspicious path or system access pattern in argument '%s'", name);
        return false;
    }
    return true;
}

static bool is_prose(const char *tool, const char *name)
{
    return (strcmp(tool, "write_file") == 0 && strcmp(name, "content") == 0) ||
           (strcmp(tool, "edit_file") == 0 &&
            (strcmp(name, "old_text") == 0 || strcmp(name, "new_text") == 0));
}

static bool path_pass(const char *name, const char *value, void *user)
{
    struct visit *x = user;
    if (is_prose(x->tool, name) || strcmp(x->tool, "execute_code") == 0)
        return true;
    if (!pd_looks_like_path(value, x->c->workspace))
        return true;
    bool writes = (strcmp(x->tool, "write_file") == 0 || strcmp(x->tool, "edit_file") == 0) &&
                  strcmp(name, "path") == 0;
    pd_gate_path(x->c, writes ? PD_OP_WRITE : PD_OP_NAME, NULL, value, x->v);
    return !x->v->deny;
}

/* execute_code: one program, no shell operators; its words are judged like argv. */
static void check_execute_code(const struct pd_ctx *c, const cJSON *args, struct pd_verdict *v)
{
    const char *cmd = member_str(args, "command"), *dir = member_str(args, "dir");
    const char *op = NULL;
    struct pd_strv words;
    const char *p = cmd ? cmd : "";
    while (isspace((unsigned char)*p))
        p++;
    if (!*p) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "execute_code requires a non-empty command");
        return;
    }
    if (!dir || dir[0] != '/') {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "execute_code requires an absolute working directory");
        return;
    }
    int rc = pd_shell_words(cmd, &words, &op);
    if (rc == -2) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "execute_code command has an unterminated quote");
        return;
    }
    if (rc < 0) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "out of memory while parsing the execute_code command");
        return;
    }
    if (op) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "execute_code command contains unsafe shell operator '%s'",
                        strcmp(op, "\n") == 0 ? "\\n" : op);
    } else if (words.n == 0) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "execute_code requires a non-empty command");
    } else {
        if (c->policy->allow_binaries.n) {
            bool missing;
            pd_gate_binary(c, words.v[0], dir, v, &missing);
        }
        for (size_t k = 1; k < words.n && !v->deny; k++) {
            const char *w = pd_path_arg(words.v[k], dir);
            if (w)
                pd_gate_path(c, PD_OP_NAME, dir, w, v);
        }
        if (!v->deny)
            pd_gate_path(c, PD_OP_NAME, NULL, dir, v);
    }
    pd_strv_free(&words);
}

static void check_semantics(const struct pd_ctx *c, const char *tool, const cJSON *args,
                            struct pd_verdict *v)
{
    if (strcmp(tool, "read_file") == 0 || strcmp(tool, "write_file") == 0 ||
        strcmp(tool, "edit_file") == 0) {
        const char *path = member_str(args, "path");
        if (path && path[0] && path[0] != '/')
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "tool '%s' requires an absolute path",
                            tool);
    } else if (strcmp(tool, "execute_code") == 0) {
        check_execute_code(c, args, v);
    } else if (strcmp(tool, "git_ops") == 0) {
        const char *cwd = member_str(args, "cwd");
        if (cwd && cwd[0] && cwd[0] != '/')
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "git_ops requires an absolute cwd");
    }
}

/* walk's user: a struct visit first (walk reports too deep a document
 * through it) */
struct url_visit {
    struct visit x;
    size_t urls;
};

/* allow_hosts: a URL argument is judged by its host and port. */
static bool url_pass(const char *name, const char *value, void *user)
{
    struct url_visit *u = user;
    struct pd_verdict hv;
    if (!pd_host_is_url(value))
        return true;
    u->urls++;
    if (!pd_host_deny_target(u->x.c->policy, NULL, value, 0, &hv))
        return true;
    *u->x.v = hv;
    snprintf(u->x.v->message, sizeof u->x.v->message, "argument '%.200s': %s", name, hv.message);
    return false;
}

/* A network tool under allow_hosts: allowed when it names its hosts in URL
 * arguments and allow_hosts allows them all. */
static bool network_by_name(const struct pd_ctx *c, const char *tool, const cJSON *args,
                            struct pd_verdict *v)
{
    struct url_visit u = {{c, tool, v}, 0};
    if (!walk(args, "", url_pass, &u, 0))
        return false;
    if (u.urls == 0) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "tool '%s' needs network access to hosts it does not name (allow_hosts "
                        "admits the hosts of URL arguments only)",
                        tool);
        return false;
    }
    return true;
}

static bool check_network(const struct pd_ctx *c, const char *tool, const cJSON *args,
                          bool isolated, struct pd_verdict *v)
{
    if (c->policy->allow_network)
        return true;
    for (size_t k = 0; network_tools[k]; k++)
        if (strcmp(tool, network_tools[k]) == 0) {
            if (pd_hosts_enabled(c->policy))
                return network_by_name(c, tool, args, v);
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                            "tool '%s' needs network access (disabled in config)", tool);
            return false;
        }
    if (strcmp(tool, "execute_code") == 0 && !isolated) {
        pd_verdict_deny(
            v, PD_REASON_GUARDRAIL, "tools",
            "tool 'execute_code' is disabled while network access is disabled because this "
            "execution path has no enforced network isolation");
        return false;
    }
    if (strcmp(tool, "git_ops") == 0) {
        const char *action = member_str(args, "action");
        char low[32] = "";
        if (action) {
            while (isspace((unsigned char)*action))
                action++;
            size_t n = 0;
            for (; action[n] && n + 1 < sizeof low; n++)
                low[n] = (char)tolower((unsigned char)action[n]);
            while (n && isspace((unsigned char)low[n - 1]))
                n--;
            low[n] = '\0';
        }
        if (strcmp(low, "push") == 0)
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                            "git push needs network access (disabled in config)");
        else
            pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                            "tool 'git_ops' is disabled while network access is disabled because "
                            "repository-controlled Git helpers are not network-isolated");
        return false;
    }
    return true;
}

int pd_gate_tool_call(const struct pd_ctx *c, const char *tool, const char *json,
                      bool os_isolation_available, struct pd_verdict *v, struct pd_error *err)
{
    memset(err, 0, sizeof *err);
    pd_verdict_allow(v);
    v->op = PD_OP_NAME;
    snprintf(v->subject, sizeof v->subject, "%s", tool);
    v->resolved[0] = '\0';
    const char *end = NULL;
    cJSON *args = cJSON_ParseWithOpts(json ? json : "{}", &end, true);
    if (!args) {
        size_t off = end && json ? (size_t)(end - json) : 0;
        snprintf(err->msg, sizeof err->msg, "bad JSON args: invalid JSON at offset %zu", off);
        return -1;
    }
    if (cJSON_IsNull(args)) {
        cJSON_Delete(args);
        args = cJSON_CreateObject();
    }
    if (!cJSON_IsObject(args)) {
        snprintf(err->msg, sizeof err->msg, "bad JSON args: expected a JSON object, found %s",
                 cJSON_IsArray(args) ? "an array" : "a scalar value");
        cJSON_Delete(args);
        return -1;
    }
    struct visit x = {c, tool, v};
    if (pd_gate_agent(c, tool, args, v)) {
        cJSON_Delete(args);
        return 0;
    }
    const struct pd_tool_schema *schema = pd_tool_schema_find(tool);
    if (check_network(c, tool, args, os_isolation_available, v) &&
        (!schema || check_schema(schema, args, v)) && walk(args, "", suspicious, &x, 0)) {
        check_semantics(c, tool, args, v);
        if (!v->deny)
            walk(args, "", path_pass, &x, 0);
    }
    cJSON_Delete(args);
    return 0;
}
