/* policy/policy.h - Paldron's policy library: the one source of truth for
 * what may run, be read, be written, be executed or be connected to.
 *
 * Life cycle:
 *   struct pd_policy pol;  pd_policy_load(&pol, "p.toml", &err)   (or pd_policy_defaults)
 *   struct pd_ctx ctx;     pd_ctx_init(&ctx, &pol, workspace, home, &err)
 *   struct pd_verdict v;   pd_gate_path(&ctx, PD_OP_WRITE, base, "src/.env", &v) ...
 *   pd_ctx_free(&ctx);     pd_policy_free(&pol);
 *
 * The library never exits, never prints and never changes the file system.
 * It reads the file system (stat, readlink, realpath) to resolve paths and
 * programs. Every decision fills a struct pd_verdict that says allow or deny,
 * the reason word, the rule (policy key + pattern) that decided and the path
 * as resolved. Only launcher/ maps verdicts to exit codes. */
#ifndef PALDRON_POLICY_H
#define PALDRON_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define PD_PATH_MAX 4096
#define PD_MSG_MAX  1024

/* A NULL-free list of owned strings. */
struct pd_strv {
    char **v;
    size_t n;
};

enum pd_on_error { PD_ON_ERROR_DENY = 0, PD_ON_ERROR_ALLOW = 1 };

/* An immutable, validated policy. Keys and defaults: policy/policy_keys.def
 * and docs/policy.md. */
struct pd_policy {
    char *file; /* real path of the policy file; NULL for built-in defaults */
#define PD_KEY_STRV(name, doc)                    struct pd_strv name;
#define PD_KEY_BOOL(name, def, doc)               bool name;
#define PD_KEY_INT(name, def, lo, hi, doc)        long long name;
#define PD_KEY_FLOAT(name, def, doc)              double name;
#define PD_KEY_ENUM(name, ctype, def, parse, doc) ctype name;
#include "policy/policy_keys.def"
    bool protected_paths_set; /* protected_paths given (it extends the built-in list) */
    bool timeout_sec_set;     /* timeout_sec given (not 0): a routed call keeps it */
};

/* max_memory_mb = "unlimited" (or -1): no data limit (policy/load.c). */
#define PD_MEMORY_UNLIMITED (-1LL)

/* A load or validation error: "policy unknown key: bogus" + file + line. */
struct pd_error {
    char msg[PD_MSG_MAX]; /* text after "paldron: ", without location */
    char file[PD_PATH_MAX];
    int line; /* 0 when the error concerns the whole file */
};

/* Format "<msg> (<file>:<line>)" (or just msg) into buf. */
void pd_error_format(const struct pd_error *e, char *buf, size_t len);

/* Fill *p with the defaults of a run without policy file. */
void pd_policy_defaults(struct pd_policy *p);

/* Load and validate a policy file. Returns 0, or -1 with *err filled
 * ("policy file not found: ...", "policy unreadable: ...", "policy malformed: ...",
 * "policy unknown key: ..."). On error *p holds nothing to free. */
int pd_policy_load(struct pd_policy *p, const char *path, struct pd_error *err);

/* Load from a NUL-terminated buffer; name is used in error locations. */
int pd_policy_load_string(struct pd_policy *p, const char *text, const char *name,
                          struct pd_error *err);

void pd_policy_free(struct pd_policy *p);

/* Print the policy back as canonical TOML (every key, defaults included). The
 * result parses to the same policy. Returns a malloc'd string or NULL. */
char *pd_policy_dump(const struct pd_policy *p);

/* ---- built-in lists ------------------------------------------------------ */

/* NULL-terminated lists of the built-in secret and protected patterns. */
extern const char *const pd_builtin_secrets[];
extern const char *const pd_builtin_protected[];
/* Is pattern, exactly as written, an entry of pd_builtin_protected? */
bool pd_is_builtin_protected(const char *pattern);
/* Folders every run may read (NULL-terminated): the system folders. */
extern const char *const pd_system_read_dirs[];
/* Device and descriptor paths writable whatever the roots (/dev/null ...). */
extern const char *const pd_builtin_writable[];

/* ---- allow_binaries presets (policy/presets.c) --------------------------- */

/* The programs of a preset ("@python"), NULL-terminated; NULL if unknown. */
const char *const *pd_preset_programs(const char *name);
/* "@build, @coreutils, ..." into out. */
void pd_preset_names(char *out, size_t len);
/* Replace every "@name" entry of list by its programs, in place and order,
 * dropping repeats. Returns 0, or -1 with msg ("unknown preset '@x' (known
 * presets: ...)"); list is unchanged then. */
int pd_presets_expand(struct pd_strv *list, char *msg, size_t msglen);

/* ---- public certificates (policy/pem.c) ---------------------------------- */

/* Is the secret pattern `pattern` (built-in or a deny_globs entry) one a
 * file's content can lift? An extension class ending in "*.pem" ("*.pem",
 * "certs/" "*.pem"): a bundle of public certificates is no secret. */
bool pd_secret_by_content(const char *pattern);
/* Does the regular file at abs hold certificates only: at least one
 * "-----BEGIN CERTIFICATE-----" (or TRUSTED CERTIFICATE, X509 CRL) block,
 * no other PEM block and no "PRIVATE KEY"? Reads the file (up to
 * PD_PEM_MAX bytes; a larger, unreadable or special file is not). */
#define PD_PEM_MAX (8u << 20)
bool pd_pem_certificates_only(const char *abs);

/* ---- paths ------------------------------------------------------------- */

/* Normalise path into an absolute, physical path: "~" and "~/" expand to home,
 * a relative path is joined to base (an absolute directory), "." and ".." are
 * resolved, and symlinks in the part of the path that exists are followed
 * (so src/link -> ../.env gives <ws>/.env). The part that does not exist is
 * kept lexically. Returns 0, or -1 (errno: ENAMETOOLONG, ELOOP, EINVAL for an
 * empty path or a relative base). */
int pd_path_normalize(const char *base, const char *home, const char *path, char *out,
                      size_t outlen);

/* The same for a call that acts on the name itself, not on what a link
 * there leads to (unlink, rename, mkdir, symlink's and link's new name,
 * lchown, *at with AT_SYMLINK_NOFOLLOW): the directory part is normalised as
 * above and the last component appended as written, so a link is judged as
 * the link and a symlink loop there is no error. A last component "." or
 * "..", or the path "/", is resolved as a whole; trailing slashes are
 * dropped. Returns 0 or -1 with errno as pd_path_normalize. */
int pd_path_normalize_name(const char *base, const char *home, const char *path, char *out,
                           size_t outlen);

/* Lexically clean an absolute or relative path (no file-system access). */
void pd_path_clean(const char *path, char *out, size_t outlen);

/* If abs lies in dir (equal or below), return the remainder ("" for dir
 * itself, else without leading '/'); otherwise NULL. */
const char *pd_path_under(const char *abs, const char *dir);

/* ---- globs --------------------------------------------------------------- */

/* Match a gitignore-like pattern (docs/policy.md) against a path.
 *   rel: the path relative to the workspace, or NULL when it lies outside.
 *   abs: the absolute path. home: real $HOME for "~/" patterns (may be "").
 * Patterns without '/' match any component; patterns with '/' are anchored at
 * the workspace root; patterns starting with "/" or "~/" match absolute
 * paths; a "**" component spans zero or more directories; a trailing '/' or
 * a last component "**" covers the directory and everything below it. fold_case: compare ASCII
 * case-insensitively. */
bool pd_glob_match(const char *pattern, const char *rel, const char *abs, const char *home,
                   bool fold_case);

/* Is pattern well formed (balanced [...], no ".." component, not empty)?
 * Returns 0, or -1 with msg ("'[a' has an unclosed '['"). */
int pd_glob_check(const char *pattern, char *msg, size_t msglen);

/* Match one path component against a component pattern (*, ?, [...], \x). */
bool pd_glob_component(const char *pat, size_t plen, const char *s, size_t slen, bool fold_case);

/* ---- decisions ------------------------------------------------------------ */

enum pd_op {
    PD_OP_READ,   /* open for reading: deny_globs, secrets */
    PD_OP_WRITE,  /* modify: + protected, policy file, writable roots */
    PD_OP_CREATE, /* create a new entry: as write */
    PD_OP_DELETE, /* remove or rename away: as write */
    PD_OP_EXEC,   /* run a file as a program: deny_globs, secrets */
    PD_OP_NAME,   /* a path named in argv or a tool call, judged as a read:
                     deny_globs, secrets, then the readable scope (the
                     workspace, the writable roots, read_paths, the system
                     folders); the writes a command really does are judged
                     when it does them */
};

const char *pd_op_name(enum pd_op op);
/* Parse "read", "write", "create", "delete", "exec", "name"; -1 if unknown. */
int pd_op_parse(const char *s);

/* (policy/pem.c) The built-in secret pattern that denies op on abs (rel: relative to the
 * workspace or NULL), or NULL: "*.pem" does not deny a file of
 * certificates only, nor the create of a name that does not exist. */
const char *pd_match_builtin_secret(enum pd_op op, const char *rel, const char *abs,
                                    const char *home);
/* The same rule over any list of patterns (n entries, or up to a NULL):
 * deny_globs use it too, so that deny_globs = ["*.pem"] still lets pip
 * install certifi's cacert.pem, while a PEM with a private key is denied. */
const char *pd_match_secret_list(const char *const *list, size_t n, enum pd_op op, const char *rel,
                                 const char *abs, const char *home);

/* The evaluation context: policy + workspace + home + extra writable roots. */
struct pd_ctx {
    const struct pd_policy *policy;
    char workspace[PD_PATH_MAX]; /* real path of the workspace */
    char home[PD_PATH_MAX];      /* real path of the user's home ("" if unknown) */
    char path_env[PD_PATH_MAX];  /* PATH used to resolve bare program names */
    /* Where a tool call's relative paths start when no base is given: the
     * client's working directory, a folder of the workspace ("" = the
     * workspace). Set by the hook; exec and the live gate pass their base. */
    char cwd[PD_PATH_MAX];
    /* Writable roots: allow_paths directories (resolved) or the workspace,
     * plus roots added with pd_ctx_add_root (temp home, /dev/shm). */
    char **roots;
    size_t nroots;
    size_t npolicy_roots; /* the first n roots come from the policy */
    /* Readable roots named by read_paths (resolved); the workspace, the
     * writable roots and the system folders (pd_system_read_dirs) are
     * readable without them. */
    char **read_roots;
    size_t nread_roots;
    /* The run has a network namespace of its own with only lo (exec with
     * namespaces and the network off): loopback and wildcard addresses are
     * the run's own, not the host's. Where the host refuses the namespace,
     * seccomp refuses IP sockets instead. */
    bool private_net;
    /* Git directories that existed when the run started (policy/gate_git.c):
     * their config and hooks are protected. git_dirs_known false (check,
     * env): every path shaped like a git directory's config or hooks is. */
    char **git_dirs;
    size_t ngit_dirs;
    bool git_dirs_known;
    /* The run's go work directory ($GOTMPDIR, under the temp home; "" when
     * none): go compiles test and `go run` binaries there and starts them,
     * so it is the helper tree of the go driver (policy/gate_exec.h, g). */
    char go_tmp[PD_PATH_MAX];
    /* The run's private temp home ($HOME of an exec run with kernel
     * isolation; "" for check, env and a run without isolation): made empty
     * for the run and removed with it, so nothing in it is the user's. The
     * built-in secret names do not apply inside it (pd_in_temp_home): an
     * agent's own session keys, the ~/.npmrc a tool writes there; deny_globs
     * still do. */
    char temp_home[PD_PATH_MAX];
    /* exec with allow_hosts: the real path of the launcher's own binary,
     * which may start as "<it> connect HOST PORT" (ssh's ProxyCommand to
     * the run's proxy; policy/gate_exec.h, rule h); "" otherwise. */
    char connect_helper[PD_PATH_MAX];
};

/* workspace: absolute directory (it is resolved with realpath); home may be
 * NULL or "". Returns 0 or -1 with *err filled. */
int pd_ctx_init(struct pd_ctx *c, const struct pd_policy *p, const char *workspace,
                const char *home, struct pd_error *err);
/* Add a writable root (resolved). Returns 0 or -1 (ENOMEM). */
int pd_ctx_add_root(struct pd_ctx *c, const char *dir);
void pd_ctx_set_path_env(struct pd_ctx *c, const char *path_env);
/* Does abs (absolute, resolved) lie in the run's private temp home
 * (c->temp_home)? Where it does, the built-in secret names are not judged
 * (policy/gate_path.c). Always false when c->temp_home is "". */
bool pd_in_temp_home(const struct pd_ctx *c, const char *abs);
void pd_ctx_free(struct pd_ctx *c);

/* ---- git's own programs (policy/gate_git.c) ------------------------------ */

/* Record dir (absolute, resolved) as a git directory that exists at the
 * start of the run. Returns 0 or -1 (ENOMEM). */
int pd_ctx_add_git_dir(struct pd_ctx *c, const char *dir);
/* Is abs (absolute, resolved) the config, config.worktree, commondir or a
 * hook of a protected git directory? Returns the built-in pattern it is
 * reported as (".git/config", ".git/hooks/<all>", ...) or NULL. */
const char *pd_git_protected(const struct pd_ctx *c, const char *abs);
/* Is abs a protected git directory itself (pd_gate_path judges its removal
 * or rename by it, nothing else)? ".git" or NULL; unprotect_paths = [".git"]
 * lifts it. */
const char *pd_git_dir_protected(const struct pd_ctx *c, const char *abs);
/* Is pattern one of the built-in ".git" patterns that pd_git_protected and
 * pd_git_dir_protected decide instead? */
bool pd_git_builtin_pattern(const char *pattern);

/* Reason words (stable interface, compared by tests and scripts). */
#define PD_REASON_OUTSIDE_WS    "outside workspace"
#define PD_REASON_DENY_GLOB     "policy deny_glob"
#define PD_REASON_SECRET        "secret"
#define PD_REASON_OUTSIDE_ALLOW "outside allow_paths"
#define PD_REASON_PROTECTED     "protected"
#define PD_REASON_BINARY        "not in allow_binaries"
#define PD_REASON_NETWORK       "network disabled"
#define PD_REASON_GUARDRAIL     "guardrail"
#define PD_REASON_UNRESOLVABLE  "unresolvable path"
/* pd_gate_shell: nothing is denied literally, but some part of the command
 * cannot be read statically (an expansion, a glob, code a program runs, a
 * cd, ...). Static-only hook mode denies it; the routing hook runs it under
 * `paldron exec`, where the sandbox judges what it really does. */
#define PD_REASON_UNJUDGED "cannot judge statically"

struct pd_verdict {
    bool deny;
    const char *reason;  /* PD_REASON_* on deny, NULL on allow */
    const char *key;     /* policy key that decided: "deny_globs", "secrets"
                            (built-in), "protected_paths", "allow_paths",
                            "allow_binaries", "allow_network", "tools" */
    const char *pattern; /* pattern that matched, or NULL */
    enum pd_op op;
    char subject[PD_PATH_MAX];  /* what was judged, as given */
    char resolved[PD_PATH_MAX]; /* absolute resolved path ("" if none) */
    char message[PD_MSG_MAX];   /* text after "paldron: deny: " */
};

void pd_verdict_allow(struct pd_verdict *v);
/* Make v a deny with reason, key and a formatted message (pattern NULL). */
__attribute__((format(printf, 4, 5))) void pd_verdict_deny(struct pd_verdict *v, const char *reason,
                                                           const char *key, const char *fmt, ...);

/* Judge one file-system operation on path (relative paths against base, an
 * absolute directory; NULL base = workspace). */
void pd_gate_path(const struct pd_ctx *c, enum pd_op op, const char *base, const char *path,
                  struct pd_verdict *v);

/* The same for an operation on the name itself (pd_path_normalize_name):
 * a link in the last component is judged as the link, not its target. */
void pd_gate_name(const struct pd_ctx *c, enum pd_op op, const char *base, const char *path,
                  struct pd_verdict *v);

/* Is pattern (a built-in protected pattern) removed by unprotect_paths? */
bool pd_builtin_unprotected(const struct pd_policy *p, const char *pattern);
/* The protected pattern that abs (rel: relative to the workspace or NULL)
 * matches: protected_paths first, then the built-ins unprotect_paths keeps
 * (git's config and hooks by pd_git_protected); NULL if none. */
const char *pd_match_protected(const struct pd_ctx *c, const char *rel, const char *abs);
/* The allow_secrets entry that lifts the built-in secret rule for abs, or
 * NULL. A relative entry matches in the workspace only (".npmrc" never
 * lifts ~/.npmrc); deny_globs are never lifted. */
const char *pd_secret_lifted(const struct pd_ctx *c, const char *rel, const char *abs);
/* Does abs lie where a named path may be read: the workspace, a writable
 * root, read_paths, a system folder, or a bit bucket (/dev/null)? */
bool pd_readable_scope(const struct pd_ctx *c, const char *abs);

/* (policy/advice.c) The smallest policy change that would allow what the
 * rule key (a pd_verdict key: "deny_globs", "secrets", "protected_paths",
 * "policy_file", "allow_network", "allow_paths", "workspace",
 * "read_paths"; pattern: what matched) refused on abs (absolute, resolved;
 * is_dir: abs is a folder), into out: "add \"build/\" to allow_paths", or
 * "none narrow: <why>" where every change would open much more. "" when
 * there is nothing to say (another key: the caller knows better). */
void pd_advice(const struct pd_ctx *c, const char *key, const char *pattern, const char *abs,
               bool is_dir, char *out, size_t len);
/* pd_advice for a deny verdict (its key, pattern and resolved path; a
 * program outside allow_binaries is named by program, as typed). */
void pd_verdict_advice(const struct pd_ctx *c, const struct pd_verdict *v, const char *program,
                       char *out, size_t len);

/* Does arg look like a path? (flags, numbers, versions, URLs and prose are not.) */
bool pd_looks_like_path(const char *arg, const char *base);

/* The part of a command argument to judge as a path: the argument itself,
 * or the value of --opt=value, when it looks like a path (relative to
 * base); NULL for flags, numbers, URLs, prose. */
const char *pd_path_arg(const char *arg, const char *base);

/* Resolve a program name as execvp would (PATH from the context; a name with
 * '/' against base). Writes the absolute invocation path. Returns 0 or -1. */
int pd_resolve_program(const struct pd_ctx *c, const char *name, const char *base, char *out,
                       size_t outlen);

/* Remembered resolution while the launcher prepares a run (resolve_memo.c):
 * between pd_memo_begin and pd_memo_end, pd_realpath and the PATH lookups
 * of pd_binary_entry_file answer a repeated question from memory (only
 * successes are kept). Outside them, and always in the preload, they ask
 * the kernel. pd_memo_end forgets everything; call it before the command
 * starts. Not thread-safe: the preparing thread alone. */
void pd_memo_begin(void);
void pd_memo_end(void);
/* realpath(3) into out (PD_PATH_MAX bytes), remembered while the memo is on. */
char *pd_realpath(const char *path, char *out);
/* A remembered lookup result for key (false: none, or too long for out). */
bool pd_memo_lookup(const char *key, char *out, size_t outlen);
void pd_memo_remember(const char *key, const char *val);

/* The file an allow_binaries entry names: an entry with '/' is that path
 * (relative to the workspace, "~/" to home); a bare name is the first
 * executable of that name on the context PATH whose path and real path both
 * lie outside the writable roots. Returns 0, or -1 (no such file). */
int pd_binary_entry_file(const struct pd_ctx *c, const char *entry, char *out, size_t outlen);

/* The allow_binaries entry that names file by identity (same device and
 * inode as pd_binary_entry_file of the entry, links followed), or NULL. */
const char *pd_binary_entry_of(const struct pd_ctx *c, const char *file);

/* A bare entry that PATH does not find (python where only python3 is
 * installed) still names a file called exactly entry (invoked) whose real
 * file lies in a PATH directory outside the writable roots and has a name
 * that begins with entry (a virtualenv's bin/python -> /usr/bin/python3.11,
 * as the original allowed). A link to any other program is not it. */
bool pd_binary_versioned_alias(const struct pd_ctx *c, const char *entry, const char *invoked,
                               const char *real);

/* allow_binaries for argv0 (as typed), by identity: allowed when the file
 * it resolves to is the file an entry names (pd_binary_entry_of). A program that cannot be found is
 * reported with v->deny = false and *missing = true (the caller decides). */
void pd_gate_binary(const struct pd_ctx *c, const char *argv0, const char *base,
                    struct pd_verdict *v, bool *missing);

/* argv gate: binary, then each path-looking argument (and --opt=value values)
 * as PD_OP_NAME, in order; first deny wins. */
void pd_gate_argv(const struct pd_ctx *c, int argc, char *const argv[], struct pd_verdict *v,
                  bool *missing);

/* A shell command string (an agent's Bash call), parsed with pd_sh_parse
 * and judged program by program (policy/shell/shell_programs.c: which arguments
 * are paths read or written, which are data, which run other programs).
 * Three outcomes: a literal deny (a program outside allow_binaries, sudo
 * or doas, a wrapper that is not allowed, the network when allow_network
 * is false, an interpreter fed by a pipe, a path whose read - secrets,
 * deny_globs - or write - writable roots, protected paths - the policy
 * denies); PD_REASON_UNJUDGED with key "tools" when nothing is denied
 * literally but some part cannot be read statically (an expansion, a glob,
 * code a program runs on names found at run time, a cd to an unknown
 * place, data-as-code; the first such construct is named, and a literal
 * deny anywhere wins; a command the parser cannot read is unjudged too); or
 * allow. base: the directory the command runs in (NULL =
 * the context's cwd, else the workspace). */
void pd_gate_shell(const struct pd_ctx *c, const char *command, const char *base,
                   struct pd_verdict *v);

/* Tool-call gate of `paldron check`: tool name + JSON object text.
 * Returns 0 with *v filled, or -1 when the JSON is bad (err filled). */
int pd_gate_tool_call(const struct pd_ctx *c, const char *tool, const char *json,
                      bool os_isolation_available, struct pd_verdict *v, struct pd_error *err);

/* ---- did you mean (policy/suggest.c) ------------------------------------ */

/* The candidate nearest to a mistyped word, for "did you mean": within
 * max(1, strlen(word) / 3) insertions, deletions, substitutions or swaps of
 * neighbours (case ignored), else the only candidate that word (3 letters or
 * more) begins; NULL when none is close. Returns one of candidates[0..n). */
const char *pd_suggest(const char *word, const char *const *candidates, size_t n);

#endif
