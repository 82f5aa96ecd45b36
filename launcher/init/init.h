/* launcher/init/init.h - the parts of `paldron init` (launcher/cli/cmd_init.c) and
 * `paldron doctor` (launcher/cli/cmd_doctor.c): where each client keeps its hook,
 * the hook command line, editing JSON and TOML files written by people
 * without reformatting them, asking Codex what it trusts, diffs, running a
 * program with a deadline.
 *
 * Both clients read the same hook shape (tests/clients/README.md):
 *   {"hooks":{"PreToolUse":[{"matcher":"*","hooks":[
 *       {"type":"command","command":CMD,"timeout":30}]}]}}
 * in Claude Code's settings.json and in Codex's hooks.json. */
#ifndef PALDRON_INIT_H
#define PALDRON_INIT_H

#include <stdbool.h>
#include <stddef.h>

#include "launcher/launcher.h"

/* ---- init_text.c: a growable text ------------------------------------- */

struct pd_text {
    char *p; /* NUL-terminated (when not oom) */
    size_t n, cap;
    bool oom; /* an allocation failed: p is incomplete */
};
void pd_text_put(struct pd_text *t, const char *s, size_t len);
void pd_text_puts(struct pd_text *t, const char *s);
__attribute__((format(printf, 2, 3))) void pd_text_printf(struct pd_text *t, const char *fmt, ...);
/* The text (malloc'd, the caller frees it), or NULL when an allocation
 * failed (then it is freed here). */
char *pd_text_take(struct pd_text *t);
void pd_text_free(struct pd_text *t);
/* The code point cp (at most 0x10FFFF) in UTF-8. */
void pd_text_put_utf8(struct pd_text *t, unsigned long cp);
/* s single-quoted for sh: ' becomes '\'' (always quoted, also when plain). */
void pd_text_put_shquoted(struct pd_text *t, const char *s);

/* ---- init_clients.c: the two clients and where their files are -------- */

enum pd_client { PD_CLIENT_CLAUDE_CODE, PD_CLIENT_CODEX, PD_CLIENT_COUNT };

/* "claude-code" or "codex" -> 0 with *c; -1 otherwise. */
int pd_client_parse(const char *name, enum pd_client *c);
const char *pd_client_name(enum pd_client c);    /* "claude-code", "codex" */
const char *pd_client_program(enum pd_client c); /* "claude", "codex" */

/* Options of init and doctor: the client name may stand before, between or
 * after the options (`paldron init codex --trust` and `paldron init --trust
 * codex`). Merges the options after the first positional into *out (a copy
 * of *cli) and collects the positionals (at most max). Returns 0, or prints
 * the problem and returns PD_EXIT_BROKEN. */
int pd_init_args(const struct pd_cli *cli, struct pd_cli *out, const char **pos, int max,
                 int *npos);

/* The project: dir (resolved; must be a directory) or, when NULL, the git
 * work tree around the current directory (pd_git_work_tree), else the
 * current directory. Returns 0, or -1 with why. */
int pd_init_project(const char *dir, char *out, size_t outlen, char *why, size_t whylen);

/* The file that holds the client's hooks: the project's
 * (.claude/settings.json, .codex/hooks.json) or the user's
 * ($CLAUDE_CONFIG_DIR or ~/.claude/settings.json, $CODEX_HOME or
 * ~/.codex/hooks.json). Returns 0, or -1 with why (no HOME). */
int pd_client_hooks_file(enum pd_client c, bool user, const char *project, char *out, size_t outlen,
                         char *why, size_t whylen);
/* Codex's config.toml ($CODEX_HOME/config.toml, else ~/.codex/config.toml). */
int pd_codex_config_file(char *out, size_t outlen, char *why, size_t whylen);
/* Every settings file of the client that may hold a hook for project, for
 * doctor: user first. Fills up to max paths; returns how many. */
int pd_client_settings_files(enum pd_client c, const char *project, char out[][PD_PATH_MAX],
                             int max);

/* A program found on PATH (as execvp would), into out. */
bool pd_init_which(const char *name, char *out, size_t outlen);

/* ---- init_policy.c: the starter policy ---------------------------------- */

/* The commented starter .paldron.toml: the README's defaults. */
const char *pd_init_starter_policy(void);

/* ---- init_presets.c: starter policies for kinds of projects ------------- */

enum pd_init_kind { PD_KIND_PYTHON, PD_KIND_NODE, PD_KIND_GO, PD_KIND_RUST, PD_KIND_C };

/* What a kind of project needs so that its usual commands run under
 * `paldron exec` as they run bare. The *_doc texts are comment lines
 * (without "# ", '\n' between lines) written above their key. */
struct pd_init_preset {
    enum pd_init_kind kind;
    const char *name;                 /* "python": --preset NAME */
    const char *title;                /* "Python" */
    const char *const *markers;       /* files at the top of such a project */
    const char *try_cmd;              /* its test command, for "next:" */
    bool whole_project;               /* allow_paths = []: every folder */
    const char *const *write_always;  /* allow_paths entries */
    const char *const *write_present; /* allow_paths entries when they exist */
    const char *paths_doc, *read_doc, *network_doc, *binaries_doc;
    const char *const *read_always; /* read_paths entries (NULL: none) */
    const char *const *toolchain;   /* programs whose install folder must be readable */
    const char *const *binaries;    /* allow_binaries; NULL: [] (any program) */
    long timeout_sec, cpu_time_sec;
    const char *timeout_doc;
    const char *const *commands; /* usual commands, for the closing comment */
};

/* The preset named name, or NULL. */
const struct pd_init_preset *pd_init_preset_find(const char *name);
/* Every preset, NULL-terminated, in detection order. */
const struct pd_init_preset *const *pd_init_presets(void);
/* The kind of project at dir: the first preset (in detection order) one of
 * whose markers is there, with that marker in marker; NULL when none is
 * (the generic starter). also: the other kinds found, "node (package.json)",
 * comma-separated ("" when none). */
const struct pd_init_preset *pd_init_detect(const char *dir, char *marker, size_t markerlen,
                                            char *also, size_t alsolen);

/* ---- init_preset_policy.c: a preset's policy for one project ------------ */

/* The commented .paldron.toml of preset p for the project at dir (absolute):
 * the preset's folders that the project has, the folders its toolchain is
 * installed in on this machine (PATH), go's tools, .npmrc. malloc'd, NULL
 * on allocation failure. */
char *pd_init_preset_policy(const struct pd_init_preset *p, const char *dir);

/* ---- init_command.c: the hook command line ------------------------------ */

struct pd_hook_cmd_opts {
    const char *paldron; /* absolute path of the paldron to run */
    const char *policy;  /* absolute policy path; NULL with from_git_root */
    bool from_git_root;  /* --policy-from-git-root */
    bool no_route;       /* --no-route */
};
/* '<paldron>' check --policy '<policy>' --hook [--no-route] || exit 2
 * (every path single-quoted for sh). malloc'd, NULL on allocation failure. */
char *pd_hook_cmd_build(const struct pd_hook_cmd_opts *o);

/* What a configured hook command says, read the way sh would read it:
 * words (quotes removed, $VAR and ${VAR} expanded through lookup) and the
 * operators || && ; | & as words of their own. */
struct pd_hook_cmd {
    bool paldron;       /* the first command runs a program named paldron with check ... --hook */
    char *program;      /* that program as written (expanded) */
    char *policy;       /* --policy value (expanded); NULL when absent */
    bool from_git_root; /* --policy-from-git-root */
    bool no_route;      /* --no-route */
    bool exit2;         /* the line ends with "|| exit 2" */
    bool unreadable;    /* quotes that do not close, or $(...) / backquotes in it */
};
/* lookup: the value of a variable, or NULL (expands to ""); may be NULL. */
typedef const char *(*pd_var_lookup)(const char *name, void *arg);
void pd_hook_cmd_read(const char *command, pd_var_lookup lookup, void *arg,
                      struct pd_hook_cmd *out);
void pd_hook_cmd_free(struct pd_hook_cmd *c);
/* Is command a Paldron hook (this or another paldron, check ... --hook)? */
bool pd_hook_cmd_is_paldron(const char *command);

/* ---- init_json.c: JSON text with the position of every value ------------ */

enum pd_json_kind {
    PD_JSON_OBJECT,
    PD_JSON_ARRAY,
    PD_JSON_STRING,
    PD_JSON_NUMBER,
    PD_JSON_TRUE,
    PD_JSON_FALSE,
    PD_JSON_NULL
};

struct pd_json {
    enum pd_json_kind kind;
    size_t start, end;    /* the value's bytes in the text: [start, end) */
    size_t key_start;     /* a member of an object: where its key's '"' is */
    char *key;            /* a member of an object: its key, decoded; else NULL */
    char *str;            /* a string: decoded (strings holding \u0000 are refused) */
    double num;           /* a number */
    struct pd_json *kids; /* members of an object, elements of an array */
    size_t n;
};

/* Parse a whole JSON text (RFC 8259; a key twice in one object is refused,
 * since readers disagree on which one counts). Returns 0 with *root (free
 * it with pd_json_free), or -1 with *line (1-based) and why. */
int pd_json_parse(const char *text, size_t len, struct pd_json *root, int *line, char *why,
                  size_t whylen);
void pd_json_free(struct pd_json *v);
/* The member key of object v, or NULL. */
const struct pd_json *pd_json_get(const struct pd_json *v, const char *key);
/* The JSON string literal of s ("..." with escapes) appended to t. */
void pd_json_put_string(struct pd_text *t, const char *s);

/* ---- init_hooks.c: the Paldron hook in a settings / hooks.json text ----- */

/* Merge the hook {"type":"command","command":command,"timeout":30} into
 * hooks.PreToolUse of text (len bytes; empty = no file yet), as the only
 * Paldron hook, in a group with matcher "*". Every other byte of the file is
 * kept: an existing Paldron hook (pd_hook_cmd_is_paldron) is rewritten in
 * place, further ones removed, a new group appended. Returns 0 with *out
 * (malloc'd; equal to text when nothing changes), or -1 with *line (0: the
 * whole file) and why (invalid JSON, "hooks" not an object, ...). */
int pd_hooks_merge(const char *text, size_t len, const char *command, char **out, int *line,
                   char *why, size_t whylen);

/* A Paldron hook found in a parsed settings / hooks.json text. */
struct pd_found_hook {
    char *command;
    char *matcher; /* the group's matcher; NULL when it has none */
    bool async;    /* "async": true - the client does not wait for it */
    int line;      /* line of the handler in the file */
};
/* The Paldron hooks of hooks.PreToolUse in root (at most max). Returns how
 * many were found (their strings malloc'd; pd_found_hook_free each). */
size_t pd_hooks_find(const struct pd_json *root, const char *text, struct pd_found_hook *out,
                     size_t max);
void pd_found_hook_free(struct pd_found_hook *h);

/* ---- init_toml.c: a TOML file written by people and by Codex ----------- */

/* One statement of a TOML document: a table header or a key = value. */
enum pd_toml_stmt_kind { PD_TSTMT_TABLE, PD_TSTMT_ARRAY_TABLE, PD_TSTMT_KEYVAL };
struct pd_toml_stmt {
    enum pd_toml_stmt_kind kind;
    char **path; /* full key path: the table's, plus the dotted key */
    size_t npath;
    size_t ntable;       /* the first ntable parts of path are the table's */
    int line;            /* where the statement starts */
    size_t line_start;   /* its first byte (start of its line) */
    size_t line_end;     /* the byte after its last line's newline */
    size_t vstart, vend; /* a keyval: the value's bytes */
    char *str;           /* a keyval whose value is a one-line string: decoded */
    bool inline_table;   /* a keyval whose value is an inline table { ... } */
    size_t table;        /* a keyval: index of its table header, or (size_t)-1 (root) */
};
struct pd_toml_file {
    struct pd_toml_stmt *v;
    size_t n;
};
/* Read the structure of a TOML text: every header and key = value with
 * its full key path, strings, arrays, inline tables and comments skipped
 * correctly; a table or a key defined twice is refused. Not a complete
 * validator (numbers and dates are only checked for their characters).
 * Returns 0, or -1 with *line and why. */
int pd_toml_file_read(const char *text, size_t len, struct pd_toml_file *doc, int *line, char *why,
                      size_t whylen);
void pd_toml_file_free(struct pd_toml_file *doc);
/* The keyval at path (table path + key), or NULL. */
const struct pd_toml_stmt *pd_toml_file_find(const struct pd_toml_file *doc,
                                             const char *const *path, size_t npath);
/* Set key = "value" in the table [table...] of text, keeping every other
 * line as it is: the value of an existing key is replaced, a missing key is
 * added under the table's header, a missing table is appended at the end.
 * A table defined another way (dotted keys elsewhere, an inline table) is
 * refused rather than rewritten. Returns 0 with *out (malloc'd), or -1 with
 * *line and why. */
int pd_toml_set_string(const char *text, size_t len, const char *const *table, size_t ntable,
                       const char *key, const char *value, char **out, int *line, char *why,
                       size_t whylen);

/* ---- init_diff.c: unified diffs for --dry-run --------------------------- */

/* A unified diff (3 lines of context) of old (NULL: no file) to new, with
 * path in its --- / +++ lines, appended to t. Nothing when they are equal. */
void pd_diff_unified(struct pd_text *t, const char *path, const char *old, const char *new_text);

/* ---- init_files.c: reading and writing the files ----------------------- */

/* The whole file (NUL-terminated, *len bytes). NULL with errno (ENOENT when
 * it does not exist; EFBIG beyond 16 MiB). */
char *pd_file_read(const char *path, size_t *len);
/* Write text to path atomically (a temporary file beside it, renamed over
 * it), creating missing parent folders (dir_mode). A link is followed (the
 * file it points at is written: dotfile managers link settings files); an
 * existing file keeps its mode, a new one gets mode. Returns 0, or -1 with
 * why. */
int pd_file_write(const char *path, const char *text, unsigned mode, unsigned dir_mode, char *why,
                  size_t whylen);

/* ---- init_run.c: running a program with a deadline ---------------------- */

struct pd_run_opts {
    const char *const *argv; /* argv[0] is looked up on PATH */
    const char *cwd;         /* NULL: the current directory */
    const char *const *env;  /* "NAME=value" to set (NULL-terminated), or NULL */
    const char *input;       /* written to stdin */
    size_t inputlen;
    bool keep_stdin_open; /* leave stdin open after the input (until done) */
    /* Stop reading once done(stdout so far) says so (then stdin is closed
     * and the program ended if it does not exit by itself). */
    bool (*done)(const char *out, size_t len, void *arg);
    void *arg;
    int timeout_ms;
};
struct pd_run_result {
    int status;      /* exit code, 128+N for a signal, -1 when it did not run */
    bool timed_out;  /* ended by the deadline */
    bool stopped;    /* done() said so */
    char *out, *err; /* what it wrote (NUL-terminated; at most 4 MiB each) */
    size_t outlen, errlen;
};
/* Run it. Returns 0 (see r->status), or -1 with why when it could not be
 * started. r is filled either way; pd_run_result_free it. */
int pd_run(const struct pd_run_opts *o, struct pd_run_result *r, char *why, size_t whylen);
void pd_run_result_free(struct pd_run_result *r);

/* ---- init_codex.c: what Codex sees and trusts --------------------------- */

/* A hook as `codex app-server` lists it (hooks/list). */
struct pd_codex_hook {
    char *key;   /* "<hooks file>:pre_tool_use:<group>:<handler>" */
    char *event; /* "preToolUse" */
    char *command;
    char *matcher;
    char *source_path; /* the file it comes from */
    char *source;      /* "project", "user", ... */
    char *hash;        /* currentHash "sha256:..." */
    char *trust;       /* "trusted", "untrusted", "modified" */
    bool enabled;
};
struct pd_codex_hooks {
    struct pd_codex_hook *v;
    size_t n;
    char *config_error;     /* Codex found its configuration invalid: its message */
    char *untrusted_folder; /* Codex ignores this project folder until trusted */
    char *errors;           /* hooks/list errors, one per line */
};
/* Ask `codex app-server` (codex: its path) which hooks apply in cwd.
 * codex_home: CODEX_HOME for it, NULL to keep the environment's. Returns 0,
 * or -1 with why (did not start, no answer within a minute, ...). */
int pd_codex_hooks_list(const char *codex, const char *cwd, const char *codex_home,
                        struct pd_codex_hooks *out, char *why, size_t whylen);
void pd_codex_hooks_free(struct pd_codex_hooks *h);

/* The trust state Codex will want for the hook command in a hooks file
 * that will hold hooks_text at hooks_path: its key and hash, asked from
 * `codex app-server` over a scratch copy (a temporary project and
 * CODEX_HOME holding that text; Codex's hash covers the hook, not the
 * file's place). Returns 0 with *key and *hash (malloc'd), or -1 with why. */
int pd_codex_predict_trust(const char *codex, const char *hooks_path, bool user,
                           const char *hooks_text, const char *command, char **key, char **hash,
                           char *why, size_t whylen);

/* ---- cmd_doctor.c / init_probe.c: checking an installation ------------- */

/* One client's checks: every line says ok or problem (+ how to fix it). */
struct pd_doctor {
    enum pd_client client;
    const char *project; /* resolved */
    int problems;
};
__attribute__((format(printf, 2, 3))) void pd_doctor_ok(struct pd_doctor *d, const char *fmt, ...);
/* fix: what to run or change (may be NULL). */
__attribute__((format(printf, 3, 4))) void pd_doctor_problem(struct pd_doctor *d, const char *fix,
                                                             const char *fmt, ...);

/* init_probe.c: check one configured hook command (found in where, a file
 * name for the lines): its paldron, its policy, `|| exit 2`, and two
 * sample calls piped through it with sh -c exactly as configured - `cat
 * .env` must be blocked by the policy (exit 2, "paldron: deny:"), a
 * harmless `echo` allowed and routed through paldron exec (unless the hook
 * is static-only). fix_init: the paldron init line that rewrites it. */
void pd_doctor_check_command(struct pd_doctor *d, const char *where, const char *command,
                             const char *fix_init);

#endif
