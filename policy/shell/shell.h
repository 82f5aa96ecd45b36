/* policy/shell/shell.h - static parser for the shell command strings agents run.
 *
 * pd_sh_parse() reads a command string the way bash parses it (POSIX sh
 * grammar plus the bash features agents use) without expanding or running
 * anything, and returns every simple command that could run, flattened, with
 * its argv, leading assignments and redirections, so that a policy can look at
 * each program, argument and file the string names.
 *
 * What is parsed:
 *   - words with every quoting form ('..', "..", $'..', $"..", \x, \<newline>),
 *     parameter expansions, $((..)) and $[..], tilde, globs (kept as written);
 *   - ; && || | |& & and newlines, ! negation, ( .. ), { ..; }, # comments;
 *   - if, while, until, for (both forms), select, case, function definitions,
 *     [[ .. ]], (( .. )), time [-p], NAME=(array) assignments;
 *   - $( .. ), `..`, <( .. ), >( .. ): their commands are part of the result;
 *   - every redirection form, here-documents and here-strings included;
 *   - wrappers (env, sudo, doas, nice, nohup, timeout, xargs, command, exec,
 *     time, stdbuf, ionice, chrt, setsid, builtin): `prog` is the real program;
 *   - the code other commands run, when it is a static word: the body of
 *     `sh|bash|dash|zsh|ksh|mksh|ash -c BODY`, the here-document or here-string
 *     a shell reads as its script (`bash <<'EOF'`, `sh <<< "cmd"`: no -c and no
 *     script file, or -s), `eval ARGS` and `trap BODY SIGNAL..`;
 *   - substitutions inside an unquoted here-document body.
 *
 * Fail closed: unbalanced quotes, parentheses or braces, a missing keyword, a
 * missing here-document terminator, nesting deeper than PD_SH_MAX_NEST and
 * syntax the parser does not support (coproc, extglob patterns, a reserved word
 * split by a line continuation, ...) make pd_sh_parse() fail; it never returns
 * a partial result.
 *
 * Pure: no I/O, no environment, no printing, no global state; thread safe.
 * Linear in the input; recursion bounded by PD_SH_MAX_NEST. */
#ifndef PALDRON_POLICY_SHELL_H
#define PALDRON_POLICY_SHELL_H

#include <stdbool.h>
#include <stddef.h>

/* Nesting limit, counted over compound commands, substitutions, ${..},
 * arithmetic, array assignments and sh -c / eval / trap / here-document
 * scripts together; deeper input fails with "nesting too deep". */
#define PD_SH_MAX_NEST 32

/* ---- word flags ---------------------------------------------------------- */

/* Some part was quoted or backslash-escaped. */
#define PD_SH_W_QUOTED 0x01u
/* Has $.., ${..}, $(..), `..`, $((..)), <(..) or >(..) outside single quotes:
 * the value is not known statically. */
#define PD_SH_W_EXPANSION 0x02u
/* Has an unquoted * or ? or [..]: pathname expansion may apply. */
#define PD_SH_W_GLOB 0x04u
/* Has an unquoted {a,b} or {1..3}: brace expansion makes several words. */
#define PD_SH_W_BRACE 0x08u
/* Starts with an unquoted ~ (in an assignment: right after = or :): tilde
 * expansion applies. */
#define PD_SH_W_TILDE 0x10u
/* Has an unquoted expansion (set together with EXPANSION): word splitting and
 * pathname expansion apply to its value, so it may become zero or several
 * words. Never set on assignments, which are not split. */
#define PD_SH_W_SPLIT 0x20u

struct pd_sh_word {
    /* After quote removal and escape processing. Expansions are kept as
     * written: "$HOME/x" gives `$HOME/x` with PD_SH_W_EXPANSION, '$HOME' gives
     * `$HOME` without it; only the flags tell them apart, so a word with
     * PD_SH_W_EXPANSION has no static value. An array assignment is rendered
     * `NAME=(elem elem ..)`. Never NULL. */
    char *text;
    unsigned flags; /* PD_SH_W_* */
};

/* ---- redirections -------------------------------------------------------- */

enum pd_sh_redir_op {
    PD_SH_R_IN,         /* <  (also <&word when word is not a number) */
    PD_SH_R_OUT,        /* > and >|  (also n>&word when word is not a number) */
    PD_SH_R_APPEND,     /* >> */
    PD_SH_R_INOUT,      /* <> */
    PD_SH_R_OUT_ERR,    /* &>file and >&file: stdout and stderr */
    PD_SH_R_APPEND_ERR, /* &>> */
    PD_SH_R_DUP,        /* n>&m n<&m n>&- n>&m-: target is the fd text or "-" */
    PD_SH_R_HEREDOC,    /* << and <<- : target is the body */
    PD_SH_R_HERESTRING, /* <<< */
};

struct pd_sh_redir {
    /* The fd redirected: the number written, or the default (0 for < <> << <<<
     * <&, 1 for > >> >| >& &> &>>), or -1 for the {NAME}>file form (bash picks
     * a free fd and stores it in NAME). */
    int fd;
    enum pd_sh_redir_op op;
    /* File name; fd text for DUP; the string for HERESTRING; the body for
     * HEREDOC: with a quoted delimiter verbatim and PD_SH_W_QUOTED, otherwise
     * with \$ \` \\ \<newline> processed and expansions kept as written
     * (PD_SH_W_EXPANSION). */
    struct pd_sh_word target;
};

/* ---- commands ------------------------------------------------------------ */

enum pd_sh_origin {
    /* The string itself. */
    PD_SH_O_TOP,
    /* Inside $( ), ` `, <( ) or >( ). */
    PD_SH_O_SUBST,
    /* The body of sh -c (or bash, dash, zsh, ksh, mksh, ash), or the
     * here-document / here-string such a shell reads as its script. */
    PD_SH_O_SHELL_C,
    /* The arguments of eval, or the action of trap. */
    PD_SH_O_EVAL,
};

enum pd_sh_kind {
    /* A simple command; it may have only assignments and/or redirections. */
    PD_SH_K_SIMPLE,
    /* The redirections of the compound command just before it, e.g. the
     * `> out` of `{ a; b; } > out` or the `< in` of `while ..; done < in`. No
     * words. */
    PD_SH_K_REDIR,
    /* [[ .. ]]: words are "[[", the operands and operators, "]]". */
    PD_SH_K_TEST,
    /* (( .. )): words are "((", the expression as written, "))". */
    PD_SH_K_ARITH,
};

struct pd_sh_cmd {
    enum pd_sh_kind kind;
    /* Leading NAME=value words (also NAME+=, NAME[i]=, NAME=(..)). */
    struct pd_sh_word *assigns;
    size_t nassigns;
    /* argv as written, wrappers included. */
    struct pd_sh_word *words;
    size_t nwords;
    /* Index in words of the program that really runs, after skipping the
     * wrappers listed above with their options and option arguments, nested
     * (`sudo -u x env A=1 nice -n 5 python3 x.py` -> python3). The words before
     * prog are wrappers: a consumer that resolves programs should gate them
     * too. When a wrapper is given no program (`env`, `sudo -l`, `xargs`, which
     * runs echo, `command -v x`, which does not run x, `exec 2>&1`, `timeout`
     * without duration) prog indexes that wrapper: it is the program that runs.
     * prog == nwords only when no program runs: no words (assignments or
     * redirections only, PD_SH_K_REDIR), PD_SH_K_TEST and PD_SH_K_ARITH. */
    size_t prog;
    struct pd_sh_redir *redirs;
    size_t nredirs;
    /* 0 at top level; +1 per enclosing $( ) ` ` <( ) >( ), sh -c, eval, trap
     * or here-document script. */
    unsigned depth;
    /* The innermost of those constructs. */
    enum pd_sh_origin origin;
    /* The parser cannot tell statically everything this command runs: the
     * program word (after unwrapping) has EXPANSION, GLOB or BRACE; or a word
     * before it may change the options or split (an unquoted expansion, or an
     * expansion where an option is expected: prog then indexes that word); or
     * the code it runs (sh -c, eval, trap, env -S, a shell's here-document or
     * here-string) has expansions, so its commands were not parsed. A consumer
     * should treat the command as running an unknown program. */
    bool dynamic;
    /* The and-or list the command belongs to ends with &. */
    bool background;
    /* stdin may be a pipe from an earlier element of a pipeline (`curl x |
     * sh`): set for every command in a pipeline element after | or |&,
     * including the commands nested in it (its substitutions and sh -c
     * bodies, which inherit stdin), and for the commands of >( ). */
    bool piped_in;
    /* stdout goes to a pipe: the command is in a pipeline element followed by
     * | or |& (except commands whose output a $( ) inside it captures), or in
     * <( ). */
    bool piped_out;
};

/* Every command, flattened, in source order. The commands of a substitution
 * come before the command whose word contains it; the commands of an sh -c,
 * eval or trap body right after the command that runs them; the commands of a
 * here-document body (its substitutions if unquoted, or the script a shell
 * reads from it) when the body is read, i.e. after the command that owns the
 * here-document and the rest of its line. case patterns, for/select words and
 * function names are not commands (their substitutions are); function bodies
 * are listed where they are defined. */
struct pd_sh_script {
    struct pd_sh_cmd *cmds;
    size_t ncmds;
};

/* Parse the NUL-terminated string src. Returns 0 with *out filled (free it
 * with pd_sh_script_free), or -1 with *out empty and a one-line reason in err,
 * e.g. "unterminated single quote at offset 12". Offsets are bytes in src, or
 * in the body named by each trailing "(in sh -c body at offset N)", innermost
 * first. err may be NULL when errlen is 0. An empty or comment-only string
 * parses to no commands. */
int pd_sh_parse(const char *src, struct pd_sh_script *out, char *err, size_t errlen);

/* Free what pd_sh_parse() filled in; s may be NULL. */
void pd_sh_script_free(struct pd_sh_script *s);

#endif
