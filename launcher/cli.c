/* launcher/cli.c - option scanning shared by the subcommands, policy
 * loading, usage text. Options are recognised up to the first positional or
 * "--"; everything after belongs to the command or the tool call. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "platform/platform.h"

/* One message, one line: a newline or carriage return inside it (a
 * command's argument quoted in a deny line) is written as \n or \r, so
 * that a reader taking one line per message gets all of it. */
void pd_err(const char *fmt, ...)
{
    char buf[4 * PD_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs("paldron: ", stderr);
    for (const char *s = buf; *s; s++) {
        if (*s == '\n')
            fputs("\\n", stderr);
        else if (*s == '\r')
            fputs("\\r", stderr);
        else
            fputc(*s, stderr);
    }
    fputc('\n', stderr);
}

void pd_usage(bool to_stdout)
{
    FILE *f = to_stdout ? stdout : stderr;
    fputs("paldron — policy gate and sandboxed exec (exits 0 allow, 2 deny, 1 broken)\n"
          "\n"
          "  paldron check --policy p.toml -- toolname '{\"json\":\"args\"}'\n"
          "  paldron exec  --policy p.toml -- argv...\n"
          "  paldron schema --tool name\n"
          "  paldron explain --policy p.toml PATH | -- argv...\n"
          "  paldron env     --policy p.toml     (eval \"$(...)\": the live gate only)\n"
          "  paldron cache   path | clean [--all] (exec's persistent caches)\n"
          "  paldron init    claude-code|codex [--project DIR] [--user] [--trust] [--dry-run]\n"
          "  paldron doctor  [claude-code|codex] [--project DIR]\n"
          "  paldron version\n"
          "\n"
          "Run 'paldron SUBCOMMAND --help' for the options of each subcommand.\n",
          f);
}

enum opt_arg { OPT_FLAG, OPT_VALUE };

struct opt {
    const char *name;
    enum opt_arg arg;
    const char *subs; /* space-separated subcommands that take it */
};

static const struct opt options[] = {
    {"--policy", OPT_VALUE, "check exec schema version explain env"},
    {"--json", OPT_FLAG, "check"},
    {"--hook", OPT_FLAG, "check"},
    {"--hook-allow-json", OPT_FLAG, "check"},
    {"--tool", OPT_VALUE, "schema"},
    {"--list", OPT_FLAG, "schema"},
    {"--audit", OPT_FLAG, "exec"},
    {"--interactive", OPT_FLAG, "exec"},
    {"--log", OPT_VALUE, "exec"},
    {"--timeout", OPT_VALUE, "exec"},
    {"--workspace", OPT_VALUE, "exec check"},
    {"--routed", OPT_FLAG, "exec"},
    {"--no-route", OPT_FLAG, "check init"},
    {"--policy-from-git-root", OPT_FLAG, "check init"},
    {"--project", OPT_VALUE, "init doctor"},
    {"--user", OPT_FLAG, "init"},
    {"--dry-run", OPT_FLAG, "init"},
    {"--trust", OPT_FLAG, "init"},
    {"--op", OPT_VALUE, "explain"},
};

static bool takes(const struct opt *o, const char *sub)
{
    size_t n = strlen(sub);
    for (const char *p = o->subs; (p = strstr(p, sub)); p += n)
        if ((p == o->subs || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

static int set_value(struct pd_cli *cli, const char *name, const char *value)
{
    if (strcmp(name, "--policy") == 0) {
        if (!value[0]) {
            pd_err("--policy needs a file");
            return PD_EXIT_BROKEN;
        }
        cli->policy = value;
    } else if (strcmp(name, "--tool") == 0) {
        if (!value[0]) {
            pd_err("--tool needs a name");
            return PD_EXIT_BROKEN;
        }
        cli->tool = value;
    } else if (strcmp(name, "--workspace") == 0) {
        if (value[0] != '/') {
            pd_err("--workspace needs an absolute directory, got '%s'", value);
            return PD_EXIT_BROKEN;
        }
        cli->workspace = value;
    } else if (strcmp(name, "--project") == 0) {
        if (!value[0]) {
            pd_err("--project needs a directory");
            return PD_EXIT_BROKEN;
        }
        cli->project = value;
    } else if (strcmp(name, "--log") == 0) {
        cli->log = value;
    } else if (strcmp(name, "--op") == 0) {
        cli->op = value;
    } else if (strcmp(name, "--timeout") == 0) {
        char *end;
        errno = 0;
        long long t = strtoll(value, &end, 10);
        if (errno || *end || t <= 0 || t > 604800) {
            pd_err("--timeout needs a number of seconds from 1 to 604800, got '%s'", value);
            return PD_EXIT_BROKEN;
        }
        cli->timeout = t;
    }
    return 0;
}

static void set_flag(struct pd_cli *cli, const char *name)
{
    if (strcmp(name, "--json") == 0)
        cli->json = true;
    else if (strcmp(name, "--hook") == 0)
        cli->hook = true;
    else if (strcmp(name, "--hook-allow-json") == 0)
        cli->hook_allow_json = true;
    else if (strcmp(name, "--list") == 0)
        cli->list = true;
    else if (strcmp(name, "--audit") == 0)
        cli->audit = true;
    else if (strcmp(name, "--interactive") == 0)
        cli->interactive = true;
    else if (strcmp(name, "--routed") == 0)
        cli->routed = true;
    else if (strcmp(name, "--no-route") == 0)
        cli->no_route = true;
    else if (strcmp(name, "--policy-from-git-root") == 0)
        cli->policy_from_git_root = true;
    else if (strcmp(name, "--user") == 0)
        cli->user = true;
    else if (strcmp(name, "--dry-run") == 0)
        cli->dry_run = true;
    else if (strcmp(name, "--trust") == 0)
        cli->trust = true;
}

int pd_cli_parse(int argc, char **argv, struct pd_cli *cli)
{
    memset(cli, 0, sizeof *cli);
    cli->sub = argv[1];
    int k = 2;
    for (; k < argc; k++) {
        const char *a = argv[k];
        if (strcmp(a, "--") == 0) {
            cli->dashdash = true;
            k++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli->help = true;
            continue;
        }
        if (a[0] != '-' || a[1] == '\0')
            break; /* first positional: the rest is the command */
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        const struct opt *o = NULL;
        for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
            if (strlen(options[i].name) == nlen && strncmp(options[i].name, a, nlen) == 0)
                o = &options[i];
        if (!o || !takes(o, cli->sub)) {
            pd_err("unknown option '%.*s' for %s (see 'paldron %s --help')", (int)nlen, a, cli->sub,
                   cli->sub);
            return PD_EXIT_BROKEN;
        }
        if (o->arg == OPT_FLAG) {
            if (eq) {
                pd_err("option %s takes no value", o->name);
                return PD_EXIT_BROKEN;
            }
            set_flag(cli, o->name);
            continue;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (k + 1 >= argc) {
                pd_err("%s needs a %s", o->name,
                       strcmp(o->name, "--tool") == 0 ? "name"
                       : (strcmp(o->name, "--policy") == 0 || strcmp(o->name, "--log") == 0)
                           ? "file"
                           : "value");
                return PD_EXIT_BROKEN;
            }
            value = argv[++k];
        }
        int rc = set_value(cli, o->name, value);
        if (rc)
            return rc;
    }
    cli->argc = argc - k;
    cli->argv = argv + k;
    return 0;
}

int pd_cli_load(const struct pd_cli *cli, struct pd_policy *pol, struct pd_ctx *ctx)
{
    struct pd_error err;
    char msg[PD_MSG_MAX + PD_PATH_MAX];
    char cwd[PD_PATH_MAX];
    if (cli->policy) {
        if (pd_policy_load(pol, cli->policy, &err)) {
            pd_error_format(&err, msg, sizeof msg);
            pd_err("%s", msg);
            return PD_EXIT_BROKEN;
        }
    } else {
        pd_policy_defaults(pol);
    }
    if (!getcwd(cwd, sizeof cwd)) {
        pd_err("getwd: %s", strerror(errno));
        pd_policy_free(pol);
        return PD_EXIT_BROKEN;
    }
    if (pd_ctx_init(ctx, pol, cli->workspace ? cli->workspace : cwd, getenv("HOME"), &err)) {
        pd_error_format(&err, msg, sizeof msg);
        pd_err("%s", msg);
        pd_policy_free(pol);
        return PD_EXIT_BROKEN;
    }
    pd_ctx_set_path_env(ctx, getenv("PATH"));
    return 0;
}

bool pd_isolation_available(void)
{
    struct pd_platform_info info;
    pd_platform_probe(&info);
    return info.landlock_abi >= 4 && info.seccomp;
}
