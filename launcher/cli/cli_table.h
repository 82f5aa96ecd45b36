/* launcher/cli/cli_table.h - the one table of paldron's subcommands and options.
 * The option parser (cli.c), every --help and the command list (cli_help.c),
 * the man page paldron(1) (man.c) and the bash and zsh completion scripts
 * (completion.c) are all generated from it, so that what the help shows is
 * what the parser takes, and a new option reaches all of them at once. */
#ifndef PALDRON_CLI_TABLE_H
#define PALDRON_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "launcher/launcher.h"

/* What completes an option's value (or a subcommand's operand). */
enum pd_complete {
    PD_COMPLETE_NOTHING, /* free text (seconds, a command) */
    PD_COMPLETE_FILE,
    PD_COMPLETE_DIR,
    PD_COMPLETE_CHOICES, /* one of the space-separated choices */
    PD_COMPLETE_TOOLS,   /* a tool name, as `paldron schema --list` prints them */
};

/* How the parser checks a value before storing it. */
enum pd_value_check {
    PD_CHECK_ANY,      /* stored as given */
    PD_CHECK_NONEMPTY, /* "--policy needs a file" for "" */
    PD_CHECK_ABSOLUTE, /* an absolute directory */
    PD_CHECK_SECONDS,  /* 1 to 604800, into a long long */
};

/* One help line of an option, for the subcommands listed in subs
 * (space-separated; NULL: every other subcommand that takes it). */
struct pd_opt_help {
    const char *subs;
    const char *text;
};

struct pd_option {
    const char *name;       /* "--policy" */
    const char *short_name; /* "-h", or NULL */
    const char *value;      /* the value's placeholder ("FILE"), NULL for a flag */
    enum pd_complete complete;
    const char *choices;        /* PD_COMPLETE_CHOICES: "python node go rust c" */
    enum pd_value_check check;  /* values only */
    size_t field;               /* offsetof(struct pd_cli, ...): bool, const char * or
                                   long long (PD_CHECK_SECONDS) */
    const char *subs;           /* subcommands that take it (space-separated), "*": all */
    const char *hidden;         /* of those, the ones whose help does not list it */
    struct pd_opt_help help[4]; /* first match wins */
};

struct pd_subcommand {
    const char *name;
    int (*run)(const struct pd_cli *);
    const char *summary; /* one line for the command list and the man page */
    /* usage lines, each after "paldron " (NULL-terminated) */
    const char *usage[4];
    /* Paragraphs separated by a blank line; a paragraph whose lines all start
     * with two spaces is shown as it is (examples, lists), the others are
     * wrapped (--help) or filled (man). */
    const char *description; /* before the options */
    const char *notes;       /* after the options, or NULL */
    /* the first positional argument, for completion */
    enum pd_complete operand;
    const char *operand_choices; /* PD_COMPLETE_CHOICES (NULL for help: the commands) */
    bool options_anywhere;       /* options after the operand too (init, doctor) */
    const char *after_operand;   /* options the subcommand itself reads after its
                                    operand ("--all" of cache clean), for completion */
};

extern const struct pd_option pd_options[];
extern const size_t pd_noptions;
extern const struct pd_subcommand pd_subcommands[];
extern const size_t pd_nsubcommands;

/* The subcommand named name, or NULL. */
const struct pd_subcommand *pd_subcommand_find(const char *name);

/* Commands paldron runs itself (`paldron __sandbox FD`, `paldron __probe
 * FD`: exec under valgrind, launcher/exec/exec_valgrind.c). Not in
 * pd_subcommands, so that no help, man page, completion or suggestion names
 * them; main dispatches them before anything else, with their arguments
 * unparsed (argv after the command word). */
struct pd_internal_command {
    const char *name;
    int (*run)(int argc, char **argv);
};
/* The internal command named name, or NULL. */
const struct pd_internal_command *pd_internal_find(const char *name);

/* Does option o apply to subcommand sub (listed or hidden)? */
bool pd_option_takes(const struct pd_option *o, const char *sub);
/* Is o listed in sub's help (taken and not hidden)? */
bool pd_option_shown(const struct pd_option *o, const char *sub);
/* o's help line for sub. */
const char *pd_option_help(const struct pd_option *o, const char *sub);

/* "paldron: unknown command 'chek' (did you mean 'check'?)" on stderr. */
void pd_unknown_command(const char *word);

/* cli_help.c: the help of one subcommand (paldron SUB --help). */
void pd_help_print(const struct pd_subcommand *s, FILE *f);
/* (pd_command_usage in launcher/launcher.h: the same by name, for the
 * cmd_*.c that read options after their operand.) */

/* Paragraph helpers shared by the help and the man page: the next
 * paragraph of text from *p (NULL at the end) as [start, start+len), and
 * whether it is shown as it is (every line indented by two spaces). */
bool pd_paragraph_next(const char **p, const char **start, size_t *len);
bool pd_paragraph_verbatim(const char *start, size_t len);

/* man.c: the man page paldron(1) as troff. */
void pd_man_print(FILE *f);
/* completion.c: the bash or zsh completion script; -1 for another shell. */
int pd_completion_print(const char *shell, FILE *f);

/* The subcommands of the table that have no cmd_*.c of their own. */
int pd_cmd_help(const struct pd_cli *cli);
int pd_cmd_completion(const struct pd_cli *cli);
int pd_cmd_version(const struct pd_cli *cli);

#endif
