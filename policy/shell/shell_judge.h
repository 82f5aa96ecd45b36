/* policy/shell/shell_judge.h - the state of one pd_gate_shell() call and the
 * primitives that every file judging a part of a shell command uses
 * (internal; not part of the library's interface).
 *
 * A command has three possible outcomes (policy.h, pd_gate_shell):
 *   - a literal deny: something written plainly in the command is denied
 *     (a path, a program, the network); the first one found wins and stops
 *     the scan;
 *   - unjudged: nothing is denied literally, but some part cannot be read
 *     statically (an expansion, a glob, code a program runs on names found
 *     at run time, a cd to an unknown place, ...). The first such construct
 *     is remembered and the scan goes on, because a literal deny anywhere
 *     later still wins;
 *   - allow.
 *
 * Relative paths are judged against every directory the command may be in
 * (shell_cwd.c): the flattened script has lost its control flow. */
#ifndef PALDRON_POLICY_SHELL_JUDGE_H
#define PALDRON_POLICY_SHELL_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"
#include "policy/shell/shell.h"

/* At most this many possible working directories; more is unjudged. */
#define SJ_MAX_CWD 8
/* Nested dispatch of a program's words to another program's rules
 * (find -exec, unknown wrappers, busybox applets): deeper is unjudged. */
#define SJ_MAX_DEPTH 4

/* A set of possible working directories (absolute, normalised). */
struct sj_cwds {
    char dir[SJ_MAX_CWD][PD_PATH_MAX];
    size_t n;
};

struct sh_judge {
    const struct pd_ctx *c;
    struct pd_verdict *v; /* the result; valid once denied */
    bool denied;          /* v holds a literal deny: the scan stops */
    bool unjudged;        /* umsg holds the first unjudged construct */
    char umsg[PD_MSG_MAX];
    const struct sj_cwds *cwd;   /* where relative paths of the current words resolve */
    const struct pd_sh_cmd *cmd; /* the command being judged */
    const char *prog;            /* base name of the program whose words are judged */
    /* A placeholder that stands for names found at run time in the words
     * of the program being judged ("{}" of find -exec and xargs -I): words
     * that contain it are not judged (the command is unjudged already). */
    const char *runtime_mark;
    unsigned depth;
};

/* ---- outcomes (shell_judge.c) -------------------------------------------- */

/* Remember the first construct that cannot be judged statically; the
 * message is "cannot judge statically: " followed by fmt. */
__attribute__((format(printf, 2, 3))) void sj_unjudged(struct sh_judge *j, const char *fmt, ...);
/* A literal deny: copy *pv (a pd_gate_path/pd_gate_binary verdict) into the
 * result, its message prefixed with prefix (e.g. "read ") unless NULL. */
void sj_deny(struct sh_judge *j, const struct pd_verdict *pv, const char *prefix);
/* A literal deny made here: reason, key and a formatted message. */
__attribute__((format(printf, 4, 5))) void sj_deny_msg(struct sh_judge *j, const char *reason,
                                                       const char *key, const char *fmt, ...);

/* ---- what a word is (shell_literal.c) ------------------------------------ */

/* Bits of what a word holds besides plain text. */
#define SJX_PARAM    0x001u /* $x, ${x}, ${x:-y}, $1 ...: a parameter expansion */
#define SJX_CODEVAR  0x002u /* a parameter form that evaluates code: ${x@P}, ${!x}, ${a[..]} */
#define SJX_CMD      0x004u /* $( ) or ` `: command substitution */
#define SJX_PROC     0x008u /* <( ) or >( ): process substitution */
#define SJX_ARITH    0x010u /* $(( )) or $[ ] with numbers only */
#define SJX_ARITHVAR 0x020u /* $(( )) or $[ ] naming variables */
#define SJX_GLOB     0x040u /* unquoted * ? [..] */
#define SJX_BRACE    0x080u /* unquoted {a,b} {1..3} */
#define SJX_TILDE    0x100u /* ~+ ~- ~user (plain ~ and ~/x are the home: literal) */
#define SJX_LONG     0x200u /* longer than PD_PATH_MAX - 1 bytes */
#define SJX_SPLIT    0x400u /* an unquoted expansion: may become 0 or several words */
#define SJX_NUMPARAM 0x800u /* $? $# $$ $!: a number, whatever the script did */

/* The SJX_* bits of word w, or of the part text of it (a suffix such as
 * the value of --opt=value); 0 means a plain literal. */
unsigned sj_word_kind(const struct pd_sh_word *w, const char *text);
/* The most telling description of the bits ("a variable expansion", ...). */
const char *sj_kind_name(unsigned kind);
/* The static value of a literal part (sj_word_kind == 0) as a path for
 * pd_gate_path: a leading ~ that bash does not expand (quoted) becomes
 * "./~"; "$HOME" at the start of an otherwise literal word becomes the home.
 * Returns false when it does not fit. */
bool sj_literal_path(const struct sh_judge *j, const struct pd_sh_word *w, const char *text,
                     char *out, size_t len);
/* Is the word plain literal text (no expansion of any kind)? */
bool sj_is_literal(const struct pd_sh_word *w);
/* Does arithmetic text name a variable (a letter or _ outside numbers)? */
bool sj_arith_names_variable(const char *expr);
/* Is the name one whose value changes what programs run or what a shell
 * does (PATH, PS4, BASH_ENV, GIT_*, LD_*, ...)? See shell_literal.c. */
bool sj_special_name(const char *name, size_t len);

/* ---- positions (shell_judge.c) ------------------------------------------- */

/* Where the word stands, for messages: "the arguments of cat". */
enum sj_where { SJ_ARGS, SJ_REDIR, SJ_PROGRAM, SJ_HEREDOC };

/* A path the program reads / writes (op WRITE, CREATE or DELETE). text is
 * the word's text or the part of it that names the path. Non-literal:
 * unjudged. "-" (stdin / stdout) and "" are nothing. */
void sj_read(struct sh_judge *j, const struct pd_sh_word *w, const char *text);
void sj_write(struct sh_judge *j, enum pd_op op, const struct pd_sh_word *w, const char *text);
void sj_path_at(struct sh_judge *j, enum pd_op op, const struct pd_sh_word *w, const char *text,
                enum sj_where where);
/* Names the program only looks at (stat, basename, test): not judged, but
 * a parameter expansion (its value is unknown, and may be a secret of the
 * environment) and a glob (it names the files of a folder) are unjudged. */
void sj_names(struct sh_judge *j, const struct pd_sh_word *w, const char *text);
/* Data: text the program prints, a pattern, a message, code. A command
 * substitution is fine (its commands are judged; its value names no file)
 * unless it may split into several words and !split_ok; braces and ~user
 * likewise. Parameter expansions, arithmetic on variables and globs (they
 * name the files of a folder, secret ones too) are unjudged. */
void sj_data(struct sh_judge *j, const struct pd_sh_word *w, const char *text, bool split_ok);
/* An argument of a program the table does not know: an option is skipped
 * (the value of --opt=value is judged when it looks like a path), a word
 * that looks like a path (pd_looks_like_path against every working
 * directory) is judged as a read; a non-literal word is unjudged. */
void sj_generic(struct sh_judge *j, const struct pd_sh_word *w);
/* Does the literal text look like a path against any working directory? */
bool sj_looks_like_path(const struct sh_judge *j, const char *text);
/* Is the literal text an existing directory / regular file against any
 * working directory? */
bool sj_is_dir(const struct sh_judge *j, const char *text);
bool sj_is_file(const struct sh_judge *j, const char *text);
/* A program another program runs (find -exec, an unknown wrapper's
 * command): allow_binaries (builtins exempt), the network. */
void sj_program(struct sh_judge *j, const struct pd_sh_word *w);
/* Judge a literal program name (allow_binaries by identity; builtins
 * exempt; network programs when allow_network is false). */
void sj_program_name(struct sh_judge *j, const char *name);
/* Does allow_binaries (by identity) allow the literal program name from
 * every working directory? True when allow_binaries is empty. */
bool sj_binary_allowed(const struct sh_judge *j, const char *name);
/* Words that contain the runtime mark ("{}") are names found at run time. */
bool sj_runtime_word(const struct sh_judge *j, const struct pd_sh_word *w);
/* Judge words[0..n) (words[0] the program) by the program's rules with
 * the current working directories; nested dispatch is bounded. */
void sj_dispatch(struct sh_judge *j, const struct pd_sh_word *words, size_t n);

/* ---- options (shell_opts.c) ---------------------------------------------- */

/* What an option of a program takes or does, in option specs:
 *   f  a flag (every option a spec does not name)
 *   D  an argument that is data (not a path)      R  a path it reads
 *   W  a path it writes    C  a path it creates    X  a path it deletes
 *   U  an argument; the command cannot be judged statically (it runs a
 *      program, loads code, reads names at run time, ...)
 *   u  a flag with which the command cannot be judged statically
 *   P  the pattern or script, given as an option (data): the first operand
 *      is no longer the pattern
 *   Q  a file holding the pattern or script (read): likewise
 *   T  the target directory (cp -t)      L  code (an interpreter's -c/-e)
 *   M  a module name (python -m)         A  data, or a file after @ or <
 *   2  two data arguments (jq --arg NAME VALUE)
 *   F  a data argument, then a path it reads (jq --rawfile NAME FILE)
 *   p  a flag that gives the pattern or mode (chmod -x): as P
 *   I  in place: the operands are written (an attached suffix is optional)
 *   r  recursive      o  output to stdout (gzip -c)
 *   N  nothing is run or changed (a dry run, a listing) */
struct sj_opt {
    char kind;
    const char *name; /* the option's letter or name (len bytes, no dashes) */
    size_t len;
    const struct pd_sh_word *optw; /* the word of the option */
    const struct pd_sh_word *argw; /* the word holding the argument, or NULL */
    const char *arg;               /* the argument (inside argw), or NULL */
};

struct sj_walk_cb {
    void (*opt)(struct sh_judge *j, void *ud, const struct sj_opt *o);
    /* index counts operands only */
    void (*operand)(struct sh_judge *j, void *ud, size_t index, const struct pd_sh_word *w);
    void *ud;
};

#define SJW_POSIX 0x1u /* options end at the first operand */

/* Walk w[start..n) per spec (see shell_opts.c), calling cb. */
void sj_walk(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t start,
             const char *spec, unsigned flags, const struct sj_walk_cb *cb);
/* The kind spec gives the option word (0 when word is no option). */
char sj_opt_kind(const char *spec, const char *word);
/* Is word a single-dash option of several letters that spec names (-ex)? */
bool sj_opt_single_long(const char *spec, const char *word);

/* ---- the per-program table (shell_programs.c) ---------------------------- */

enum sj_stdin {
    SJ_STDIN_UNKNOWN, /* a program the table does not know, or whose stdin is code */
    SJ_STDIN_DATA,    /* a filter: stdin is data it prints, counts, writes */
    SJ_STDIN_NAMES,   /* names of files or arguments (xargs) */
    SJ_STDIN_SCRIPT,  /* a shell that reads its script from it (parsed: judged) */
};

/* Judge w[1..n) as the arguments of program w[0] (by base name) per the
 * table, or as a program the table does not know (sj_generic). */
void sj_program_args(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
/* What the program w[0] reads from its stdin. */
enum sj_stdin sj_program_stdin(const struct pd_sh_word *w, size_t n);
/* A program that exists to reach the network (curl, ssh, ...). */
bool sj_network_program(const char *name);
/* Judge one option of a table program the common way (kinds D R W C X U u
 * L M A Q P); returns false for the kinds the caller must handle. */
bool sj_opt_common(struct sh_judge *j, const struct sj_opt *o);

/* Handlers of their own (one file each). */
void sj_find(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_git(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_sed(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_grep(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_copy(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_tar(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_unpack(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
void sj_interp(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
/* Does the shell or interpreter w[0] read its program from stdin (no code
 * option, no script, or the script "-")? */
bool sj_interp_reads_stdin(const struct pd_sh_word *w, size_t n);
void sj_xargs(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
/* The sed script text: report the files it reads and writes and what makes
 * it unjudgeable (shell_sed.c). */
void sj_sed_script(struct sh_judge *j, const struct pd_sh_word *w, const char *script);

/* ---- working directories (shell_cwd.c) ----------------------------------- */

/* Resolve the literal directory text against every directory of from into
 * *to (deduplicated). Returns false when the result would exceed the cap. */
bool sj_cwd_apply(const struct sh_judge *j, const struct sj_cwds *from, const char *text,
                  struct sj_cwds *to);
/* Add dir (absolute) to set unless present; false when the set is full. */
bool sj_cwd_add(struct sj_cwds *set, const char *dir);
/* Pass one of pd_gate_shell: every cd, pushd and popd of the script. */
void sj_cwd_collect(struct sh_judge *j, const struct pd_sh_script *s, const char *src,
                    struct sj_cwds *set);

/* ---- what the flattened parse loses (shell_raw.c) ------------------------ */

/* May a command of the raw text run more than once, or after a later cd
 * (a loop, a function, a trap)? Quoted text counts too: on the safe side. */
bool sj_raw_may_repeat(const char *src);
/* `for NAME in` / `select NAME in` / `for NAME;` assign NAME, which the
 * parse does not show: a special NAME (PATH, ...) is unjudged. */
void sj_raw_loop_vars(struct sh_judge *j, const char *src);
/* ${!x}, ${x@P}, ${a[expr]}, $((var)) and for ((var...)) anywhere outside
 * single quotes, so also in the case, for and select words the parse does
 * not list: unjudged. */
void sj_raw_code_forms(struct sh_judge *j, const char *src);

/* ---- bash's builtins and assignments (shell_builtins.c) ------------------- */

/* Is name a shell builtin (no allow_binaries check)? */
bool sj_is_builtin(const char *name);
/* Judge a builtin's words (words[0] the builtin). Returns false when name
 * is not a builtin this file judges. */
bool sj_builtin(struct sh_judge *j, const struct pd_sh_word *w, size_t n);
/* One NAME=value (prefix assignment, declare argument, env operand). */
void sj_assignment(struct sh_judge *j, const struct pd_sh_word *w, const char *via);
/* [[ .. ]] and (( .. )). */
void sj_test(struct sh_judge *j, const struct pd_sh_cmd *cmd);
void sj_arith(struct sh_judge *j, const struct pd_sh_cmd *cmd);

/* ---- wrappers (shell_wrap.c) --------------------------------------------- */

/* The words before cmd->prog: the wrappers the parser unwrapped (env, sudo,
 * xargs, time, ...) with their options. */
void sj_wrappers(struct sh_judge *j, const struct pd_sh_cmd *cmd);
/* Is name a program that runs another program given in its arguments that
 * the parser does not unwrap (taskset, strace, flock, ...)? Then judge its
 * words: the wrapped program literally, and the command is unjudged. */
bool sj_unknown_wrapper(struct sh_judge *j, const struct pd_sh_word *w, size_t n);

#endif
