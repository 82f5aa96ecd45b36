/* launcher/cli/cmd_explain.c - `paldron explain`: the decision and the rule that
 * made it, for a path or a command, without running anything. As text (one
 * line per decision), or with --json as one object on stdout:
 *   {"policy": FILE|null, "kind": "path"|"command"|"shell", "subject": ...,
 *    "decisions": [{"op", "subject", "decision": "allow"|"deny"|"none", ...}],
 *    "exit": N}
 * Both come from the same walk, so they cannot disagree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "launcher/launcher.h"

/* Where the decisions go: stdout as text, or a JSON document. */
struct out {
    cJSON *doc;       /* --json; NULL for text */
    cJSON *decisions; /* doc's array */
};

static void print_verdict(const char *what, const struct pd_verdict *v)
{
    if (!v->deny) {
        printf("%-7s allow", what);
        if (v->resolved[0])
            printf("  (%s)", v->resolved);
        printf("\n");
        return;
    }
    printf("%-7s deny   %s\n", what, v->message);
    printf("        reason: %s; rule: %s%s%s\n", v->reason ? v->reason : "?", v->key ? v->key : "?",
           v->pattern ? " " : "", v->pattern ? v->pattern : "");
}

static void add_string_or_null(cJSON *o, const char *name, const char *value)
{
    if (value && value[0])
        cJSON_AddStringToObject(o, name, value);
    else
        cJSON_AddNullToObject(o, name);
}

/* One decision: what (the operation, or program / arg / shell) on subject.
 * note: a remark the text mode prints on a line of its own, or NULL. */
static void emit_verdict(struct out *o, const char *what, const char *subject,
                         const struct pd_verdict *v, const char *note)
{
    if (!o->doc) {
        print_verdict(what, v);
        if (note)
            printf("        (%s)\n", note);
        return;
    }
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "op", what);
    cJSON_AddStringToObject(d, "subject", subject);
    cJSON_AddStringToObject(d, "decision", v->deny ? "deny" : "allow");
    add_string_or_null(d, "resolved_path", v->resolved);
    if (v->deny) {
        char rule[PD_MSG_MAX];
        snprintf(rule, sizeof rule, "%s%s%s", v->key ? v->key : "?", v->pattern ? " " : "",
                 v->pattern ? v->pattern : "");
        cJSON_AddStringToObject(d, "reason", v->reason ? v->reason : "");
        cJSON_AddStringToObject(d, "rule", rule);
        add_string_or_null(d, "key", v->key);
        add_string_or_null(d, "pattern", v->pattern);
        cJSON_AddStringToObject(d, "message", v->message);
    }
    if (note)
        cJSON_AddStringToObject(d, "note", note);
    cJSON_AddItemToArray(o->decisions, d);
}

/* An argument that names no path: judged by nothing. */
static void emit_not_a_path(struct out *o, const char *arg)
{
    if (!o->doc) {
        printf("%-7s not a path: %s\n", "arg", arg);
        return;
    }
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "op", "arg");
    cJSON_AddStringToObject(d, "subject", arg);
    cJSON_AddStringToObject(d, "decision", "none");
    cJSON_AddStringToObject(d, "note", "not a path");
    cJSON_AddItemToArray(o->decisions, d);
}

/* The first line after "policy": "path    P" or "command ARGV...". */
static void emit_subject(struct out *o, const char *kind, int argc, char **argv)
{
    if (!o->doc) {
        printf("%s", strcmp(kind, "path") == 0 ? "path   " : "command");
        for (int k = 0; k < argc; k++)
            printf(" %s", argv[k]);
        printf("\n");
        return;
    }
    cJSON_AddStringToObject(o->doc, "kind", kind);
    if (strcmp(kind, "command") == 0) {
        cJSON *a = cJSON_AddArrayToObject(o->doc, "subject");
        for (int k = 0; k < argc; k++)
            cJSON_AddItemToArray(a, cJSON_CreateString(argv[k]));
    } else {
        cJSON_AddStringToObject(o->doc, "subject", argv[0]);
    }
    cJSON_AddItemToObject(o->doc, "decisions", o->decisions = cJSON_CreateArray());
}

static int explain_path(struct out *o, const struct pd_ctx *ctx, const struct pd_cli *cli,
                        char *path)
{
    struct pd_verdict v;
    if (cli->op) {
        int op = pd_op_parse(cli->op);
        if (op < 0) {
            pd_err("unknown --op '%s' (read, write, create, delete, exec or name)", cli->op);
            return PD_EXIT_BROKEN;
        }
        pd_gate_path(ctx, (enum pd_op)op, NULL, path, &v);
        emit_subject(o, "path", 1, &path);
        emit_verdict(o, cli->op, path, &v, NULL);
        return v.deny ? PD_EXIT_DENY : PD_EXIT_ALLOW;
    }
    static const enum pd_op ops[] = {PD_OP_READ, PD_OP_WRITE, PD_OP_EXEC, PD_OP_NAME};
    bool any = false;
    emit_subject(o, "path", 1, &path);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        pd_gate_path(ctx, ops[k], NULL, path, &v);
        emit_verdict(o, pd_op_name(ops[k]), path, &v, NULL);
        any |= v.deny;
    }
    return any ? PD_EXIT_DENY : PD_EXIT_ALLOW;
}

static int explain_command(struct out *o, const struct pd_ctx *ctx, int argc, char **argv)
{
    struct pd_verdict v;
    bool missing = false;
    if (argc == 1 && strpbrk(argv[0], " \t\n;|&<>$`")) {
        emit_subject(o, "shell", 1, argv);
        pd_gate_shell(ctx, argv[0], NULL, &v);
        emit_verdict(o, "shell", argv[0], &v, NULL);
        return v.deny ? PD_EXIT_DENY : PD_EXIT_ALLOW;
    }
    emit_subject(o, "command", argc, argv);
    pd_gate_binary(ctx, argv[0], NULL, &v, &missing);
    emit_verdict(o, "program", argv[0], &v,
                 missing && !v.deny ? "not found on PATH: the run would fail" : NULL);
    bool any = v.deny;
    for (int k = 1; k < argc; k++) {
        /* the argv gate's own rule (pd_gate_argv), so explain says what it does */
        const char *arg = pd_path_arg(argv[k], ctx->workspace);
        if (!arg) {
            if (argv[k][0] != '-')
                emit_not_a_path(o, argv[k]);
            continue;
        }
        pd_gate_path(ctx, PD_OP_NAME, NULL, arg, &v);
        emit_verdict(o, "arg", argv[k], &v, NULL);
        any |= v.deny;
    }
    return any ? PD_EXIT_DENY : PD_EXIT_ALLOW;
}

int pd_cmd_explain(const struct pd_cli *cli)
{
    if (cli->argc < 1) {
        pd_err("usage: paldron explain --policy p.toml PATH | -- argv...");
        return PD_EXIT_BROKEN;
    }
    struct pd_policy pol;
    struct pd_ctx ctx;
    int rc = pd_cli_load(cli, &pol, &ctx);
    if (rc)
        return rc;
    struct out o = {0};
    if (cli->json) {
        o.doc = cJSON_CreateObject();
        if (!o.doc) {
            pd_err("out of memory");
            pd_ctx_free(&ctx);
            pd_policy_free(&pol);
            return PD_EXIT_BROKEN;
        }
        add_string_or_null(o.doc, "policy", pol.file);
    } else {
        printf("policy  %s\n", pol.file ? pol.file : "(built-in defaults)");
    }
    if (cli->dashdash)
        rc = explain_command(&o, &ctx, cli->argc, cli->argv);
    else
        rc = explain_path(&o, &ctx, cli, cli->argv[0]);
    if (o.doc) {
        /* a broken explain (a bad --op) prints its error only */
        char *text = NULL;
        if (rc != PD_EXIT_BROKEN) {
            cJSON_AddNumberToObject(o.doc, "exit", rc);
            text = cJSON_PrintUnformatted(o.doc);
            if (text)
                printf("%s\n", text);
            else {
                pd_err("out of memory");
                rc = PD_EXIT_BROKEN;
            }
        }
        free(text);
        cJSON_Delete(o.doc);
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
