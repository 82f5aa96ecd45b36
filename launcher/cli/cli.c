/* launcher/cli/cli.c - the option table and the option scanner shared by the
 * subcommands. Options are recognised up to the first positional or "--";
 * everything after belongs to the command or the tool call. The table
 * (launcher/cli/cli_table.h) also drives every --help, the man page and the
 * completion scripts: an option exists once, here. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/cli/cli_table.h"
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
    /* Built whole, then written with one call: stderr is unbuffered, so a
     * character at a time was one write(2) per character (a hundred system
     * calls for the policy line of every run), and two messages from two
     * processes could interleave inside a line. */
    char line[2 * sizeof buf + 16];
    size_t n = 0;
    memcpy(line, "paldron: ", 9);
    n = 9;
    for (const char *s = buf; *s && n < sizeof line - 3; s++) {
        if (*s == '\n' || *s == '\r') {
            line[n++] = '\\';
            line[n++] = *s == '\n' ? 'n' : 'r';
        } else {
            line[n++] = *s;
        }
    }
    line[n++] = '\n';
    fwrite(line, 1, n, stderr);
}

#define FIELD(f) offsetof(struct pd_cli, f)

#define POLICY_HELP                                                                                \
    "policy file (default: .paldron.toml in the working directory or the nearest parent up to "    \
    "the repository root; --no-policy for the built-in defaults)"

/* In the order the help lists them. */
const struct pd_option pd_options[] = {
    /* "schema" and "version" take --policy and ignore it: the original read
     * the policy there (docs/compat.md, L09), so scripts pass it */
    {"--policy",
     NULL,
     "FILE",
     PD_COMPLETE_FILE,
     NULL,
     PD_CHECK_NONEMPTY,
     FIELD(policy),
     "check exec explain env schema version",
     "schema version",
     {{NULL, POLICY_HELP}}},
    {"--no-policy",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(no_policy),
     "check exec explain env",
     NULL,
     {{NULL, "use the built-in defaults: no policy file, no discovery"}}},
    {"--policy-from-git-root",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(policy_from_git_root),
     "check init",
     NULL,
     {{"check", "the policy is .paldron.toml at the root of the git work tree around the call's "
                "cwd (missing: the call is denied)"},
      {"init", "the hook reads .paldron.toml at the git root of each call"}}},
    {"--workspace",
     NULL,
     "DIR",
     PD_COMPLETE_DIR,
     NULL,
     PD_CHECK_ABSOLUTE,
     FIELD(workspace),
     "exec check",
     NULL,
     {{"exec", "the project (default: the current directory, where the command runs; it must lie "
               "inside DIR)"},
      {"check", "the project (default: the policy's folder or the git work tree around cwd, "
                "whichever is nearer to cwd)"}}},
    {"--json",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(json),
     "check exec explain",
     NULL,
     {{"check", "print the verdict as one JSON object on stdout"},
      {"exec", "print one JSON result object on stdout instead of the result block"},
      {"explain", "print the decisions as one JSON object on stdout (same exit codes)"}}},
    {"--hook",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(hook),
     "check",
     NULL,
     {{NULL, "read a Claude Code / Codex PreToolUse hook input on stdin; deny is exit 2 with the "
             "reason on stderr and the JSON decision on stdout; every internal error is a deny "
             "too (exit 2), never exit 1"}}},
    {"--hook-allow-json",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(hook_allow_json),
     "check",
     NULL,
     {{NULL, "on allow, print an explicit allow decision (default: nothing)"}}},
    {"--no-route",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(no_route),
     "check init",
     NULL,
     {{"check", "static-only hook: an allowed shell call runs bare, one the gate cannot judge is "
                "denied (default: routed, see below)"},
      {"init", "static-only hook: allowed shell calls run bare, not under paldron exec "
               "(docs/integrations.md, Routing)"}}},
    {"--stream",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(stream),
     "exec",
     NULL,
     {{NULL, "print the command's output as it comes (redacted on the fly) instead of a result "
             "block at the end"}}},
    {"--timeout",
     NULL,
     "SEC",
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_SECONDS,
     FIELD(timeout),
     "exec",
     NULL,
     {{NULL, "end the run after SEC seconds (at most the policy's timeout_sec)"}}},
    {"--audit",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(audit),
     "exec",
     NULL,
     {{NULL, "the argv gate and the live gate only log: they print what they would have "
             "denied and the smallest narrow policy change that would allow it (kernel layers "
             "on; what they refuse is printed as 'blocked')"}}},
    {"--log",
     NULL,
     "FILE",
     PD_COMPLETE_FILE,
     NULL,
     PD_CHECK_ANY,
     FIELD(log),
     "exec",
     NULL,
     {{NULL, "write every live-gate record (denials, coverage) as JSON lines"}}},
    {"--interactive",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(interactive),
     "exec",
     NULL,
     {{NULL, "wrap a long-lived program (an agent's CLI): it gets paldron's stdin, stdout and "
             "stderr (the terminal) and stays in paldron's process group (terminal keys reach "
             "it; Ctrl-C is its to handle). Nothing is captured, so its output cannot be held "
             "back, scanned or redacted: it reaches the terminal as it is written. The argv gate, "
             "kernel layers, live gate and post-run scan still apply to everything it runs; live "
             "denials are printed on stderr as they happen, then 'paldron: interactive run "
             "ended: N live denial(s), exit CODE' and the verdict lines. No time limit unless "
             "--timeout (the policy's timeout_sec limits one captured command, not a session; "
             "--timeout is not capped by it here). keep_background does not apply: every "
             "process is ended when the program exits."}}},
    {"--routed",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(routed),
     "exec",
     NULL,
     {{NULL, "run a shell call that the hook routed (check --hook): COMMAND is one command text, "
             "run by Paldron's own bash (not judged against allow_binaries; the programs it "
             "starts are). Its stdout, stderr and exit status pass through as if it ran bare "
             "(after the output scan), plus 'paldron: deny: ...' lines on stderr; a run with a "
             "denial ends non-zero (2 when the command itself exited 0), a timeout 124, a "
             "sandbox failure 126. --timeout is the client's limit unless the policy file sets "
             "timeout_sec."}}},
    {"--op",
     NULL,
     "OP",
     PD_COMPLETE_CHOICES,
     "read write create delete exec name",
     PD_CHECK_ANY,
     FIELD(op),
     "explain",
     NULL,
     {{NULL, "read, write, create, delete, exec or name: judge PATH for this operation only "
             "(default: read, write, exec and name)"}}},
    {"--tool",
     NULL,
     "NAME",
     PD_COMPLETE_TOOLS,
     NULL,
     PD_CHECK_NONEMPTY,
     FIELD(tool),
     "schema",
     NULL,
     {{NULL, "print the JSON definition of the built-in tool NAME"}}},
    {"--list",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(list),
     "schema",
     NULL,
     {{NULL, "list the names of the built-in tools"}}},
    {"--project",
     NULL,
     "DIR",
     PD_COMPLETE_DIR,
     NULL,
     PD_CHECK_NONEMPTY,
     FIELD(project),
     "init doctor",
     NULL,
     {{NULL, "the project (default: the git work tree around the current directory, else the "
             "current directory)"}}},
    {"--user",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(user),
     "init",
     NULL,
     {{NULL, "the user's settings: one hook for every project, which finds each project's policy "
             "itself (--policy-from-git-root)"}}},
    {"--preset",
     NULL,
     "NAME",
     PD_COMPLETE_CHOICES,
     "python node go rust c",
     PD_CHECK_ANY,
     FIELD(preset),
     "init",
     NULL,
     {{NULL, "python|node|go|rust|c: the starter policy for this kind of project"}}},
    {"--trust",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(trust),
     "init",
     NULL,
     {{NULL, "codex: write the trust Codex needs into $CODEX_HOME/config.toml (the project, and "
             "this hook's hash from codex app-server)"}}},
    {"--dry-run",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(dry_run),
     "init",
     NULL,
     {{NULL, "print the diff of every file it would write; write nothing"}}},
    {"--man",
     NULL,
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(man),
     "help",
     NULL,
     {{NULL, "print the manual page paldron(1) as troff (paldron help --man | man -l -)"}}},
    {"--help",
     "-h",
     NULL,
     PD_COMPLETE_NOTHING,
     NULL,
     PD_CHECK_ANY,
     FIELD(help),
     "*",
     NULL,
     {{NULL, "print this help"}}},
};
const size_t pd_noptions = sizeof pd_options / sizeof pd_options[0];

static bool in_list(const char *list, const char *sub)
{
    if (!list)
        return false;
    size_t n = strlen(sub);
    for (const char *p = list; (p = strstr(p, sub)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

bool pd_option_takes(const struct pd_option *o, const char *sub)
{
    return strcmp(o->subs, "*") == 0 || in_list(o->subs, sub);
}

bool pd_option_shown(const struct pd_option *o, const char *sub)
{
    return pd_option_takes(o, sub) && !in_list(o->hidden, sub);
}

const char *pd_option_help(const struct pd_option *o, const char *sub)
{
    for (size_t k = 0; k < sizeof o->help / sizeof o->help[0] && o->help[k].text; k++)
        if (!o->help[k].subs || in_list(o->help[k].subs, sub))
            return o->help[k].text;
    return "";
}

/* "unknown option '--polcy' for exec (did you mean '--policy'?)": the
 * nearest option sub takes, compared without the leading dashes. */
static void unknown_option(const char *sub, const char *word, size_t len)
{
    const char *names[sizeof pd_options / sizeof pd_options[0]];
    size_t n = 0;
    for (size_t k = 0; k < pd_noptions; k++)
        if (pd_option_takes(&pd_options[k], sub))
            names[n++] = pd_options[k].name + 2;
    char bare[128];
    size_t skip = strspn(word, "-");
    snprintf(bare, sizeof bare, "%.*s", (int)(len > skip ? len - skip : 0), word + skip);
    const char *near = bare[0] ? pd_suggest(bare, names, n) : NULL;
    if (near)
        pd_err("unknown option '%.*s' for %s (did you mean '--%s'?)", (int)len, word, sub, near);
    else
        pd_err("unknown option '%.*s' for %s (see 'paldron %s --help')", (int)len, word, sub, sub);
}

/* The noun of "--policy needs a file". */
static const char *value_noun(const struct pd_option *o)
{
    if (strcmp(o->value, "FILE") == 0)
        return "file";
    if (strcmp(o->value, "DIR") == 0)
        return "directory";
    if (strcmp(o->value, "NAME") == 0)
        return "name";
    if (strcmp(o->value, "SEC") == 0)
        return "number of seconds";
    return "value";
}

static int set_value(struct pd_cli *cli, const struct pd_option *o, const char *value)
{
    char *at = (char *)cli + o->field;
    switch (o->check) {
    case PD_CHECK_ANY:
        break;
    case PD_CHECK_NONEMPTY:
        if (!value[0]) {
            pd_err("%s needs a %s", o->name, value_noun(o));
            return PD_EXIT_BROKEN;
        }
        break;
    case PD_CHECK_ABSOLUTE:
        if (value[0] != '/') {
            pd_err("%s needs an absolute directory, got '%s'", o->name, value);
            return PD_EXIT_BROKEN;
        }
        break;
    case PD_CHECK_SECONDS: {
        char *end;
        errno = 0;
        long long t = strtoll(value, &end, 10);
        if (errno || *end || t <= 0 || t > 604800) {
            pd_err("%s needs a number of seconds from 1 to 604800, got '%s'", o->name, value);
            return PD_EXIT_BROKEN;
        }
        memcpy(at, &t, sizeof t);
        return 0;
    }
    }
    memcpy(at, &value, sizeof value);
    return 0;
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
        if (a[0] != '-' || a[1] == '\0')
            break; /* first positional: the rest is the command */
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        const struct pd_option *o = NULL;
        for (size_t i = 0; i < pd_noptions && !o; i++) {
            const struct pd_option *c = &pd_options[i];
            if ((strlen(c->name) == nlen && strncmp(c->name, a, nlen) == 0) ||
                (c->short_name && strlen(c->short_name) == nlen &&
                 strncmp(c->short_name, a, nlen) == 0))
                o = c;
        }
        if (!o || !pd_option_takes(o, cli->sub)) {
            unknown_option(cli->sub, a, nlen);
            return PD_EXIT_BROKEN;
        }
        if (!o->value) {
            if (eq) {
                pd_err("option %s takes no value", o->name);
                return PD_EXIT_BROKEN;
            }
            *((bool *)((char *)cli + o->field)) = true;
            continue;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (k + 1 >= argc) {
                pd_err("%s needs a %s", o->name, value_noun(o));
                return PD_EXIT_BROKEN;
            }
            value = argv[++k];
        }
        int rc = set_value(cli, o, value);
        if (rc)
            return rc;
    }
    cli->argc = argc - k;
    cli->argv = argv + k;
    return 0;
}

bool pd_isolation_available(void)
{
    struct pd_platform_info info;
    pd_exec_platform_probe(&info);
    return info.landlock_abi >= 4 && info.seccomp;
}
