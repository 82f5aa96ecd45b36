/* launcher/cmd_explain.c - `paldron explain`: the decision and the rule that
 * made it, for a path or a command, without running anything. */
#include <stdio.h>
#include <string.h>

#include "launcher/launcher.h"

static void explain_help(void)
{
    fputs("usage: paldron explain [--policy FILE] [--op read|write|create|delete|exec|name] PATH\n"
          "       paldron explain [--policy FILE] -- PROGRAM ARGS...\n"
          "       paldron explain [--policy FILE] -- 'SHELL COMMAND'\n"
          "\n"
          "Print the decision for a path (for one operation, or for read, write, exec and\n"
          "name when --op is not given), for a command's argv, or for a shell command line\n"
          "(one argument holding spaces), and the rule that made it. Nothing runs.\n"
          "Exit: 0 allowed, 2 denied (for several operations: 2 if any is denied), 1 broken.\n",
          stdout);
}

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

static int explain_path(const struct pd_ctx *ctx, const struct pd_cli *cli, const char *path)
{
    struct pd_verdict v;
    if (cli->op) {
        int op = pd_op_parse(cli->op);
        if (op < 0) {
            pd_err("unknown --op '%s' (read, write, create, delete, exec or name)", cli->op);
            return PD_EXIT_BROKEN;
        }
        pd_gate_path(ctx, (enum pd_op)op, NULL, path, &v);
        printf("path    %s\n", path);
        print_verdict(cli->op, &v);
        return v.deny ? PD_EXIT_DENY : PD_EXIT_ALLOW;
    }
    static const enum pd_op ops[] = {PD_OP_READ, PD_OP_WRITE, PD_OP_EXEC, PD_OP_NAME};
    bool any = false;
    printf("path    %s\n", path);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        pd_gate_path(ctx, ops[k], NULL, path, &v);
        print_verdict(pd_op_name(ops[k]), &v);
        any |= v.deny;
    }
    return any ? PD_EXIT_DENY : PD_EXIT_ALLOW;
}

static int explain_command(const struct pd_ctx *ctx, int argc, char **argv)
{
    struct pd_verdict v;
    bool missing = false;
    if (argc == 1 && strpbrk(argv[0], " \t\n;|&<>$`")) {
        printf("command %s\n", argv[0]);
        pd_gate_shell(ctx, argv[0], NULL, &v);
        print_verdict("shell", &v);
        return v.deny ? PD_EXIT_DENY : PD_EXIT_ALLOW;
    }
    printf("command");
    for (int k = 0; k < argc; k++)
        printf(" %s", argv[k]);
    printf("\n");
    pd_gate_binary(ctx, argv[0], NULL, &v, &missing);
    print_verdict("program", &v);
    if (missing && !v.deny)
        printf("        (not found on PATH: the run would fail)\n");
    bool any = v.deny;
    for (int k = 1; k < argc; k++) {
        /* the argv gate's own rule (pd_gate_argv), so explain says what it does */
        const char *arg = pd_path_arg(argv[k], ctx->workspace);
        if (!arg) {
            if (argv[k][0] != '-')
                printf("%-7s not a path: %s\n", "arg", argv[k]);
            continue;
        }
        pd_gate_path(ctx, PD_OP_NAME, NULL, arg, &v);
        print_verdict("arg", &v);
        any |= v.deny;
    }
    return any ? PD_EXIT_DENY : PD_EXIT_ALLOW;
}

int pd_cmd_explain(const struct pd_cli *cli)
{
    if (cli->help) {
        explain_help();
        return PD_EXIT_ALLOW;
    }
    if (cli->argc < 1) {
        pd_err("usage: paldron explain --policy p.toml PATH | -- argv...");
        return PD_EXIT_BROKEN;
    }
    struct pd_policy pol;
    struct pd_ctx ctx;
    int rc = pd_cli_load(cli, &pol, &ctx);
    if (rc)
        return rc;
    printf("policy  %s\n", pol.file ? pol.file : "(built-in defaults)");
    if (cli->dashdash)
        rc = explain_command(&ctx, cli->argc, cli->argv);
    else
        rc = explain_path(&ctx, cli, cli->argv[0]);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
