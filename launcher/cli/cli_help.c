/* launcher/cli/cli_help.c - the subcommand half of the CLI table (usage lines,
 * descriptions, dispatch) and the --help it renders: `paldron --help`,
 * `paldron help [COMMAND]`, `paldron COMMAND --help`. The option half and
 * the parser are in cli.c; launcher/cli/cli_table.h says how the two fit. */
#include <stdio.h>
#include <string.h>

#include "launcher/cli/cli_table.h"
#include "launcher/launcher.h"

/* The width --help wraps at: a usual terminal, one column spare. */
#define HELP_WIDTH 79
/* Option names longer than this get their help on the next line. */
#define OPTION_COLUMN_MAX 24

#define CLIENTS "claude-code codex"

const struct pd_subcommand pd_subcommands[] = {
    {
        .name = "check",
        .run = pd_cmd_check,
        .summary = "judge one tool call before it runs",
        .usage = {"check [--policy FILE | --no-policy] [--json] -- TOOL ['JSON-ARGS']",
                  "check [--policy FILE | --policy-from-git-root] --hook [--no-route] "
                  "[--workspace DIR] [--hook-allow-json] < hook-input.json",
                  NULL},
        .description =
            "Judge one tool call without running anything. TOOL is a tool name (read_file, "
            "write_file, edit_file, list_dir, execute_code, git_ops, network tools, or any other "
            "name, which gets the generic path pass); JSON-ARGS is its argument object (default "
            "{}).",
        .notes = "Routing: a shell call (Bash, shell, exec_command) that the gate allows or cannot "
                 "judge statically is allowed with hookSpecificOutput.updatedInput.command = the "
                 "call under 'paldron exec --routed' with the same policy; only what it names "
                 "literally and the policy denies is denied here (docs/integrations.md).\n"
                 "\n"
                 "Exit: 0 allow (stdout 'paldron: allow TOOL'), 2 deny (stderr 'paldron: deny: "
                 "...'), 1 broken (bad policy, bad JSON, usage).",
        .operand = PD_COMPLETE_NOTHING,
    },
    {
        .name = "exec",
        .run = pd_cmd_exec,
        .summary = "run a command in the sandbox under the policy, then judge the run",
        .usage = {"exec [--policy FILE | --no-policy] [--workspace DIR] [--timeout SEC] [--json] "
                  "[--stream] [--audit] [--log FILE] [--interactive] -- ARGV...",
                  "exec --routed [--policy FILE | --no-policy] [--workspace DIR] [--timeout SEC] "
                  "-- 'COMMAND'",
                  NULL},
        .description =
            "Gate ARGV with the policy, run it under kernel isolation (Landlock, seccomp, "
            "rlimits) in the current directory (the workspace), then judge the run: a file the "
            "policy forbids that the run created, changed, renamed or linked denies it, whatever "
            "the command's own exit status. The command gets no stdin; its stdout and stderr "
            "are printed in a result block once the verdict is known (each stream keeps its "
            "first 256 KiB and last 768 KiB, with the count of dropped bytes between), or as "
            "they come with --stream (redacted on the fly). "
            "Processes it leaves behind are ended with it (unless the policy sets "
            "keep_background). Every dynamically linked program of the run loads the live gate "
            "(libpaldron_preload.so): a denied open, write, connect or exec fails at once and is "
            "reported as 'paldron: deny: <program> <op> <path> (<reason> <pattern>) [live]'. "
            "PALDRON_DEBUG=1 makes it print every gated call.",
        .notes = "Exit: 0 the command succeeded and nothing was denied, 2 deny ('paldron: deny: "
                 "...'), 1 broken (usage, policy, isolation unavailable, sandbox error, timeout, "
                 "the command failed: 'paldron: command exited N').",
        .operand = PD_COMPLETE_NOTHING,
    },
    {
        .name = "explain",
        .run = pd_cmd_explain,
        .summary = "print the decision and its rule for a path or a command",
        .usage = {"explain [--policy FILE | --no-policy] [--json] "
                  "[--op read|write|create|delete|exec|name] PATH",
                  "explain [--policy FILE | --no-policy] [--json] -- PROGRAM ARGS...",
                  "explain [--policy FILE | --no-policy] [--json] -- 'SHELL COMMAND'", NULL},
        .description =
            "Print the decision for a path (for one operation, or for read, write, exec and name "
            "when --op is not given), for a command's argv, or for a shell command line (one "
            "argument holding spaces), and the rule that made it. Nothing runs.",
        .notes = "Exit: 0 allowed, 2 denied (for several operations: 2 if any is denied), 1 "
                 "broken.",
        .operand = PD_COMPLETE_FILE,
    },
    {
        .name = "schema",
        .run = pd_cmd_schema,
        .summary = "print the JSON definition of a built-in tool",
        .usage = {"schema --tool NAME", "schema --list", NULL},
        .description = "Print the JSON definition of a built-in tool (read_file, write_file, "
                       "edit_file, list_dir, execute_code), or list their names.",
        .operand = PD_COMPLETE_NOTHING,
    },
    {
        .name = "env",
        .run = pd_cmd_env,
        .summary = "print shell lines that load the live gate alone into a shell",
        .usage = {"env [--policy FILE | --no-policy]", NULL},
        .description =
            "Print shell lines that preload Paldron's live gate, with this policy and the current "
            "directory as workspace, into every program started afterwards:\n"
            "\n"
            "  eval \"$(paldron env --policy p.toml)\"\n"
            "\n"
            "This is the live gate only (file, network and exec calls of dynamically linked "
            "programs, denied with a reason on stderr). There is no kernel isolation, no post-run "
            "scan, and static binaries and raw system calls are not covered: use 'paldron exec' "
            "for the sandbox. $TMPDIR (or /tmp) is an extra writable root.",
        .operand = PD_COMPLETE_NOTHING,
    },
    {
        .name = "connect",
        .run = pd_cmd_connect,
        .summary = "open a tunnel to HOST PORT through the run's proxy (ssh's ProxyCommand)",
        .usage = {"connect HOST PORT", NULL},
        .description =
            "Inside a run whose policy sets allow_hosts: connect to the run's proxy ($HTTPS_PROXY, "
            "else $HTTP_PROXY or $ALL_PROXY: http://127.0.0.1:PORT), ask it for HOST:PORT "
            "(HTTP CONNECT) and pass bytes between the tunnel and stdin/stdout until both ends "
            "close. The run's GIT_SSH_COMMAND uses it as ssh's ProxyCommand, so that git and ssh "
            "reach an allowed host:\n"
            "\n"
            "  ssh -o ProxyCommand='paldron connect %h %p' git@github.com\n"
            "\n"
            "The proxy judges HOST and PORT (allow_hosts, deny_hosts); a refusal is printed as "
            "the proxy gave it.",
        .notes = "Exit: 0 the tunnel ended, 2 the proxy refused HOST:PORT, 1 broken (no proxy in "
                 "the environment, usage).",
        .operand = PD_COMPLETE_NOTHING,
    },
    {
        .name = "cache",
        .run = pd_cmd_cache,
        .summary = "show or remove exec's persistent cache folders",
        .usage = {"cache path", "cache clean [--all]", NULL},
        .description = "`paldron exec` keeps the tools' caches (go, pip, npm, XDG) in one folder "
                       "per workspace, outside it: $XDG_CACHE_HOME/paldron/<name>-<id> (default "
                       "~/.cache).\n"
                       "\n"
                       "  path          print the folder of the workspace in the current "
                       "directory\n"
                       "  clean         remove that folder (the next run starts with empty "
                       "caches)\n"
                       "  clean --all   remove the folders of every workspace",
        .operand = PD_COMPLETE_CHOICES,
        .operand_choices = "path clean",
        .after_operand = "--all",
    },
    {
        .name = "init",
        .run = pd_cmd_init,
        .summary = "write a starter policy, and set up Paldron's hook for an agent client",
        .usage = {"init claude-code|codex [--project DIR] [--preset NAME] [--user] [--dry-run] "
                  "[--no-route] [--policy-from-git-root] [--trust]",
                  "init [--project DIR] [--preset NAME] [--dry-run]", NULL},
        .description =
            "Without a client: write DIR/.paldron.toml, a starter policy (the preset of --preset, "
            "else the one that fits the project's files), when the project has none.\n"
            "\n"
            "With a client, set up Paldron's PreToolUse hook for it:\n"
            "\n"
            "  - DIR/.paldron.toml, a starter policy, when the project has none (never\n"
            "    overwritten);\n"
            "  - the hook, merged into the client's settings (other hooks and keys are kept):\n"
            "      claude-code  DIR/.claude/settings.json   (--user: ~/.claude/settings.json)\n"
            "      codex        DIR/.codex/hooks.json       (--user: $CODEX_HOME/hooks.json)\n"
            "    as  '<this paldron>' check --policy '<DIR/.paldron.toml>' --hook || exit 2",
        .notes = "Exit 0 when done (or nothing to change), 1 on bad input (nothing written). Then "
                 "check the setup end to end: paldron doctor",
        .operand = PD_COMPLETE_CHOICES,
        .operand_choices = CLIENTS,
        .options_anywhere = true,
    },
    {
        .name = "doctor",
        .run = pd_cmd_doctor,
        .summary = "check the hook setup of agent clients end to end",
        .usage = {"doctor [claude-code|codex] [--project DIR]", NULL},
        .description =
            "Check the Paldron hook of an agent client end to end, without a model: the client's "
            "version; the hook in its settings (project and user); for Codex, that the project "
            "and the hook are trusted; that the hook runs an existing paldron with a policy that "
            "loads and ends with `|| exit 2`; and, run exactly as configured, that a sample `cat "
            ".env` call is blocked by the policy and a harmless call is allowed (routed through "
            "paldron exec unless the hook is static-only). Without a client: every client found "
            "on PATH or in the settings.",
        .notes = "One line per check: 'ok: ...' or 'problem: ... - fix: ...'. Exit 0 when every "
                 "check passes, 2 when a check fails, 1 on bad arguments.",
        .operand = PD_COMPLETE_CHOICES,
        .operand_choices = CLIENTS,
        .options_anywhere = true,
    },
    {
        .name = "completion",
        .run = pd_cmd_completion,
        .summary = "print the bash or zsh completion script",
        .usage = {"completion bash|zsh", NULL},
        .description =
            "Print the shell completion script, generated from the same table as --help:\n"
            "\n"
            "  source <(paldron completion bash)          # bash, in this shell\n"
            "  paldron completion zsh > ~/.zfunc/_paldron  # zsh: a folder on $fpath\n"
            "\n"
            "An installed paldron brings both "
            "(share/bash-completion/completions/paldron, "
            "share/zsh/vendor-completions/_paldron).",
        .operand = PD_COMPLETE_CHOICES,
        .operand_choices = "bash zsh",
    },
    {
        .name = "help",
        .run = pd_cmd_help,
        .summary = "print the help of paldron or of one command",
        .usage = {"help [COMMAND]", "help --man", NULL},
        .description = "Print the list of commands, or the help of COMMAND (the same as "
                       "'paldron COMMAND --help').",
        .operand = PD_COMPLETE_CHOICES,
        .operand_choices = NULL, /* the commands */
    },
    {
        .name = "version",
        .run = pd_cmd_version,
        .summary = "print the version",
        .usage = {"version", "--version | -V", NULL},
        .description = "Print the version.",
        .operand = PD_COMPLETE_NOTHING,
    },
};
const size_t pd_nsubcommands = sizeof pd_subcommands / sizeof pd_subcommands[0];

const struct pd_subcommand *pd_subcommand_find(const char *name)
{
    for (size_t k = 0; k < pd_nsubcommands; k++)
        if (strcmp(pd_subcommands[k].name, name) == 0)
            return &pd_subcommands[k];
    return NULL;
}

static const struct pd_internal_command internal[] = {
    {"__sandbox", pd_cmd_sandbox_stage},
    {"__probe", pd_cmd_probe_stage},
};

const struct pd_internal_command *pd_internal_find(const char *name)
{
    for (size_t k = 0; k < sizeof internal / sizeof internal[0]; k++)
        if (strcmp(internal[k].name, name) == 0)
            return &internal[k];
    return NULL;
}

void pd_unknown_command(const char *word)
{
    const char *names[sizeof pd_subcommands / sizeof pd_subcommands[0]];
    for (size_t k = 0; k < pd_nsubcommands; k++)
        names[k] = pd_subcommands[k].name;
    const char *near = pd_suggest(word, names, pd_nsubcommands);
    if (near)
        pd_err("unknown command '%s' (did you mean '%s'?)", word, near);
    else
        pd_err("unknown command '%s' (see 'paldron help')", word);
}

bool pd_paragraph_next(const char **p, const char **start, size_t *len)
{
    const char *s = *p;
    if (!s)
        return false;
    while (*s == '\n')
        s++;
    if (!*s) {
        *p = s;
        return false;
    }
    const char *end = strstr(s, "\n\n");
    if (!end)
        end = s + strlen(s);
    *start = s;
    *len = (size_t)(end - s);
    *p = end;
    return true;
}

bool pd_paragraph_verbatim(const char *start, size_t len)
{
    for (const char *line = start; line < start + len;) {
        if (strncmp(line, "  ", 2) != 0)
            return false;
        const char *nl = memchr(line, '\n', (size_t)(start + len - line));
        line = nl ? nl + 1 : start + len;
    }
    return true;
}

/* The next word of [*p, end) into [*w, *w + *wl); with groups (a usage
 * line), a word runs on over spaces inside [...] and '...' and after "<",
 * so that "[--policy FILE | --no-policy]" stays on one line. */
static bool next_word(const char **p, const char *end, bool groups, const char **w, size_t *wl)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\n'))
        s++;
    if (s >= end)
        return false;
    const char *e = s;
    int depth = 0;
    bool quoted = false;
    while (e < end && (depth > 0 || quoted || (*e != ' ' && *e != '\n'))) {
        if (groups && *e == '[')
            depth++;
        else if (groups && *e == ']' && depth > 0)
            depth--;
        else if (groups && *e == '\'')
            quoted = !quoted; /* 'SHELL COMMAND' */
        /* "< hook-input.json" is one word too */
        if (groups && *e == '<' && e + 1 < end && e[1] == ' ' && e == s)
            e++;
        e++;
    }
    *w = s;
    *wl = (size_t)(e - s);
    *p = e;
    return true;
}

/* The words of text[0..len) from column col, wrapped before HELP_WIDTH,
 * continuation lines indented to indent; ends the line. */
static void put_wrapped(FILE *f, const char *text, size_t len, size_t col, size_t indent,
                        bool groups)
{
    const char *p = text, *end = text + len, *w;
    size_t wl;
    bool first = true;
    while (next_word(&p, end, groups, &w, &wl)) {
        if (!first && col + 1 + wl > HELP_WIDTH) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fwrite(w, 1, wl, f);
        col += wl;
        first = false;
    }
    fputc('\n', f);
}

/* Paragraphs of text, a blank line before each. */
static void put_paragraphs(FILE *f, const char *text)
{
    const char *p = text, *start;
    size_t len;
    while (pd_paragraph_next(&p, &start, &len)) {
        fputc('\n', f);
        if (pd_paragraph_verbatim(start, len)) {
            fwrite(start, 1, len, f);
            fputc('\n', f);
        } else {
            put_wrapped(f, start, len, 0, 0, false);
        }
    }
}

/* "--policy FILE" or "-h, --help" into buf; returns its length. */
static size_t option_label(const struct pd_option *o, char *buf, size_t len)
{
    int n =
        snprintf(buf, len, "%s%s%s%s%s", o->short_name ? o->short_name : "",
                 o->short_name ? ", " : "", o->name, o->value ? " " : "", o->value ? o->value : "");
    return n < 0 ? 0 : (size_t)n;
}

static void put_options(FILE *f, const struct pd_subcommand *s)
{
    char label[64];
    size_t width = 0;
    for (size_t k = 0; k < pd_noptions; k++) {
        size_t n = option_label(&pd_options[k], label, sizeof label);
        if (pd_option_shown(&pd_options[k], s->name) && n <= OPTION_COLUMN_MAX && n > width)
            width = n;
    }
    size_t column = 2 + width + 2;
    fputs("\nOptions:\n", f);
    for (size_t k = 0; k < pd_noptions; k++) {
        const struct pd_option *o = &pd_options[k];
        if (!pd_option_shown(o, s->name))
            continue;
        size_t n = option_label(o, label, sizeof label);
        const char *help = pd_option_help(o, s->name);
        if (n > width) {
            fprintf(f, "  %s\n%*s", label, (int)column, "");
        } else {
            fprintf(f, "  %-*s  ", (int)width, label);
        }
        put_wrapped(f, help, strlen(help), column, column, false);
    }
}

void pd_help_print(const struct pd_subcommand *s, FILE *f)
{
    for (size_t k = 0; k < sizeof s->usage / sizeof s->usage[0] && s->usage[k]; k++) {
        const char *lead = k == 0 ? "usage: paldron " : "       paldron ";
        fputs(lead, f);
        /* continuation lines start under the first option */
        const char *sp = strchr(s->usage[k], ' ');
        size_t indent = strlen(lead) + (sp ? (size_t)(sp - s->usage[k]) + 1 : 0);
        put_wrapped(f, s->usage[k], strlen(s->usage[k]), strlen(lead), indent, true);
    }
    put_paragraphs(f, s->description);
    put_options(f, s);
    if (s->notes)
        put_paragraphs(f, s->notes);
}

void pd_command_usage(const char *sub, bool to_stdout)
{
    const struct pd_subcommand *s = pd_subcommand_find(sub);
    if (s)
        pd_help_print(s, to_stdout ? stdout : stderr);
}

void pd_usage(bool to_stdout)
{
    FILE *f = to_stdout ? stdout : stderr;
    fputs("paldron \xe2\x80\x94 policy gate and sandboxed exec (exits 0 allow, 2 deny, 1 broken)\n"
          "\n"
          "usage: paldron COMMAND [OPTIONS] [ARGS...]\n"
          "       paldron --help | --version\n"
          "\n"
          "Commands:\n",
          f);
    size_t width = 0;
    for (size_t k = 0; k < pd_nsubcommands; k++)
        if (strlen(pd_subcommands[k].name) > width)
            width = strlen(pd_subcommands[k].name);
    for (size_t k = 0; k < pd_nsubcommands; k++)
        fprintf(f, "  %-*s  %s\n", (int)width, pd_subcommands[k].name, pd_subcommands[k].summary);
    fputs("\nRun 'paldron help COMMAND' (or 'paldron COMMAND --help') for its options.\n", f);
}

int pd_cmd_help(const struct pd_cli *cli)
{
    if (cli->man) {
        if (cli->argc > 0) {
            pd_err("help: --man takes no command (see 'paldron help --help')");
            return PD_EXIT_BROKEN;
        }
        pd_man_print(stdout);
        return PD_EXIT_ALLOW;
    }
    if (cli->argc == 0) {
        pd_usage(true);
        return PD_EXIT_ALLOW;
    }
    if (cli->argc > 1) {
        pd_err("help: unexpected argument '%s' (see 'paldron help --help')", cli->argv[1]);
        return PD_EXIT_BROKEN;
    }
    const struct pd_subcommand *s = pd_subcommand_find(cli->argv[0]);
    if (!s) {
        pd_unknown_command(cli->argv[0]);
        return PD_EXIT_BROKEN;
    }
    pd_help_print(s, stdout);
    return PD_EXIT_ALLOW;
}

int pd_cmd_version(const struct pd_cli *cli)
{
    (void)cli;
    printf("paldron %s\n", pd_version());
    return PD_EXIT_ALLOW;
}
