/* launcher/cli/man.c - the man page paldron(1) as troff, generated from the CLI
 * table (launcher/cli/cli_table.h) by `paldron help --man`; the build writes it
 * to paldron.1 (launcher/CMakeLists.txt). The synopsis, every command's
 * usage, description and options come from the table, so the page says
 * what --help says. */
#include <stdio.h>
#include <string.h>

#include "launcher/cli/cli_table.h"
#include "launcher/launcher.h"

#ifndef PALDRON_DOC_DIR
#define PALDRON_DOC_DIR "/usr/local/share/doc/paldron"
#endif

/* s[0..len) as troff text: backslashes and hyphens escaped (options stay
 * ASCII "--" when copied), a line that would start with a control
 * character ('.' or '\'') guarded by \&. */
static void put_text(FILE *f, const char *s, size_t len)
{
    bool line_start = true;
    for (size_t k = 0; k < len; k++) {
        char c = s[k];
        if (line_start && (c == '.' || c == '\''))
            fputs("\\&", f);
        line_start = false;
        if (c == '\\')
            fputs("\\e", f);
        else if (c == '-')
            fputs("\\-", f);
        else
            fputc(c, f);
        if (c == '\n')
            line_start = true;
    }
}

static void put_str(FILE *f, const char *s)
{
    put_text(f, s, strlen(s));
}

/* Paragraphs: filled text, or (indented in the table) kept as it is. */
static void put_paragraphs(FILE *f, const char *text)
{
    const char *p = text, *start;
    size_t len;
    while (pd_paragraph_next(&p, &start, &len)) {
        fputs(".PP\n", f);
        if (!pd_paragraph_verbatim(start, len)) {
            put_text(f, start, len);
            fputc('\n', f);
            continue;
        }
        fputs(".RS 2\n.nf\n", f);
        /* drop the two spaces that mark the paragraph; keep the rest */
        for (const char *line = start; line < start + len;) {
            const char *nl = memchr(line, '\n', (size_t)(start + len - line));
            const char *end = nl ? nl : start + len;
            put_text(f, line + 2, (size_t)(end - line - 2));
            fputc('\n', f);
            line = nl ? nl + 1 : end;
        }
        fputs(".fi\n.RE\n", f);
    }
}

/* "paldron check [--policy FILE ...]": the command in bold, a [group], a
 * 'quoted text' or "< file" never broken across lines, continuation lines
 * indented. */
static void put_usage_line(FILE *f, const char *line)
{
    const char *sp = strchr(line, ' ');
    size_t n = sp ? (size_t)(sp - line) : strlen(line);
    fputs(".ti -4n\n\\fBpaldron ", f);
    put_text(f, line, n);
    fputs("\\fR", f);
    int depth = 0;
    bool quoted = false;
    for (const char *c = sp; c && *c; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']' && depth > 0)
            depth--;
        else if (*c == '\'')
            quoted = !quoted;
        if (*c == ' ' && (depth > 0 || quoted || (c > sp && c[-1] == '<')))
            fputs("\\ ", f); /* an unbreakable space */
        else
            put_text(f, c, 1);
    }
    fputs("\n.br\n", f);
}

static void put_usage(FILE *f, const char *const *usage, size_t max)
{
    fputs(".in +4n\n", f);
    for (size_t k = 0; k < max && usage[k]; k++)
        put_usage_line(f, usage[k]);
    fputs(".in -4n\n", f);
}

static void put_option(FILE *f, const struct pd_option *o, const char *sub)
{
    fputs(".TP\n", f);
    if (o->short_name) {
        fputs("\\fB", f);
        put_str(f, o->short_name);
        fputs("\\fR, ", f);
    }
    fputs("\\fB", f);
    put_str(f, o->name);
    fputs("\\fR", f);
    if (o->value) {
        fputs(" \\fI", f);
        put_str(f, o->value);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    put_str(f, pd_option_help(o, sub));
    fputc('\n', f);
}

static void put_command(FILE *f, const struct pd_subcommand *s)
{
    fprintf(f, ".SS %s\n.PP\n", s->name);
    put_usage(f, s->usage, sizeof s->usage / sizeof s->usage[0]);
    put_paragraphs(f, s->description);
    bool any = false;
    for (size_t k = 0; k < pd_noptions; k++) {
        /* --help, which every command takes, is said once in DESCRIPTION */
        if (!pd_option_shown(&pd_options[k], s->name) || strcmp(pd_options[k].subs, "*") == 0)
            continue;
        if (!any)
            fputs(".PP\nOptions:\n", f);
        any = true;
        put_option(f, &pd_options[k], s->name);
    }
    if (s->notes)
        put_paragraphs(f, s->notes);
}

static const char description[] =
    "Paldron decides whether a command that an AI coding agent wants to run may run, and runs it "
    "in a sandbox (namespaces, Landlock, seccomp, rlimits) so that the answer stays true while it "
    "runs. One small policy file keeps the agent away from your secrets, outside the workspace "
    "and off the network, and every denial says exactly what was denied and why.\n"
    "\n"
    "paldron check judges a tool call before anything runs; paldron check --hook is the "
    "PreToolUse hook of Claude Code and Codex, which paldron init sets up and paldron doctor "
    "checks. paldron exec runs a command under the policy in the sandbox and judges what the "
    "run did. paldron explain prints the decision and the rule for a path or a command without "
    "running anything.\n"
    "\n"
    "Options are recognised up to the first argument that is not an option, or up to --; what "
    "follows belongs to the command or the tool call. Every command takes -h, --help; "
    "'paldron help COMMAND' prints the same. An unknown command, option or policy key is "
    "reported with the nearest known name.";

static const char exit_status[] =
    ".TP\n.B 0\n"
    "allow: the call may run, the run was clean; for help, version, completion, schema, cache, "
    "init: done\n"
    ".TP\n.B 2\n"
    "deny: the policy refused it (also what agent hooks read as \"block\"); for doctor: a check "
    "failed\n"
    ".TP\n.B 1\n"
    "broken: bad policy, bad input or usage, missing program, failed or timed-out command, "
    "isolation unavailable\n"
    ".PP\n"
    "Paldron fails closed: no error ends in allow, and nothing runs with less isolation than the "
    "policy asked for without saying so.\n";

void pd_man_print(FILE *f)
{
    fputs(".\\\" paldron(1), generated by 'paldron help --man' from the CLI table\n"
          ".\\\" (launcher/cli/cli_table.h); edit the table, not this file.\n",
          f);
    fprintf(f, ".TH PALDRON 1 \"\" \"paldron %s\" \"User Commands\"\n", pd_version());
    fputs(".nh\n.ad l\n", f);
    fputs(".SH NAME\npaldron \\- policy gate and sandbox for the commands AI coding agents run\n",
          f);
    fputs(".SH SYNOPSIS\n", f);
    for (size_t k = 0; k < pd_nsubcommands; k++)
        put_usage(f, pd_subcommands[k].usage,
                  sizeof pd_subcommands[k].usage / sizeof pd_subcommands[k].usage[0]);
    fputs(".SH DESCRIPTION\n", f);
    put_paragraphs(f, description);
    fputs(".SH COMMANDS\n", f);
    for (size_t k = 0; k < pd_nsubcommands; k++)
        put_command(f, &pd_subcommands[k]);
    fputs(".SH EXIT STATUS\n", f);
    fputs(exit_status, f);
    fputs(".SH FILES\n"
          ".TP\n.I .paldron.toml\n",
          f);
    put_str(f, "The policy. Without --policy or --no-policy, the one in the working directory or "
               "the nearest parent up to the repository root; paldron init writes a starter "
               "policy. Every key: policy.md in the documentation.");
    fputs("\n.TP\n.I $XDG_CACHE_HOME/paldron/\n", f);
    put_str(f, "(default ~/.cache/paldron/) the persistent caches of paldron exec, one folder per "
               "workspace; see paldron cache.");
    fputs("\n.SH ENVIRONMENT\n"
          ".TP\n.B PALDRON_DEBUG\n",
          f);
    put_str(f, "Set to 1: the live gate prints every gated call and its decision on stderr.");
    fputs("\n.TP\n.B PALDRON_PRELOAD_LIB\n", f);
    put_str(f, "The path of libpaldron_preload.so, the live gate, used instead of the one next "
               "to paldron or in its library directory (lib/paldron/).");
    fputs("\n.SH SEE ALSO\n", f);
    put_str(f, "The documentation in " PALDRON_DOC_DIR
               "/ (docs/ in the source tree): README.md; policy.md, every policy key; "
               "integrations.md, the Claude Code and Codex hooks; wrap-agent.md; "
               "threat-model.md; preload.md, the live gate; output-scan.md; jev.md; compat.md.");
    fputc('\n', f);
}
