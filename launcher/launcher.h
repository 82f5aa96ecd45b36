/* launcher/launcher.h - the paldron CLI's internal interfaces. Only the
 * launcher maps results to exit codes (0 allow, 2 deny, 1 broken). */
#ifndef PALDRON_LAUNCHER_H
#define PALDRON_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "platform/platform.h"
#include "policy/policy.h"

enum pd_exit { PD_EXIT_ALLOW = 0, PD_EXIT_BROKEN = 1, PD_EXIT_DENY = 2 };

/* Options shared by the subcommands, scanned by pd_cli_parse. */
struct pd_cli {
    const char *sub;       /* subcommand */
    const char *policy;    /* --policy FILE, NULL when not given */
    bool help;             /* --help / -h */
    bool json;             /* --json (check) */
    bool hook;             /* --hook (check) */
    bool hook_allow_json;  /* --hook-allow-json (check) */
    bool list;             /* --list (schema) */
    bool audit;            /* --audit (exec) */
    bool interactive;      /* --interactive (exec) */
    const char *tool;      /* --tool NAME (schema) */
    const char *log;       /* --log FILE (exec) */
    const char *op;        /* --op OP (explain) */
    long long timeout;     /* --timeout SEC (exec), 0 = from the policy */
    const char *workspace; /* --workspace DIR (exec, check): the project; cwd lies in it */
    bool routed;   /* --routed (exec): a hook-routed shell call (launcher/exec/exec_routed.c) */
    bool no_route; /* --no-route (check --hook): static gate only */
    bool policy_from_git_root; /* --policy-from-git-root (check --hook, init) */
    const char *project;       /* --project DIR (init, doctor) */
    bool user;                 /* --user (init): the user's settings, not the project's */
    bool dry_run;              /* --dry-run (init): print the diffs, write nothing */
    bool trust;                /* --trust (init codex): write Codex's trust state */
    bool no_policy;            /* --no-policy: built-in defaults, no discovery */
    bool stream;               /* --stream (exec): print the output as it comes */
    const char *preset;        /* --preset NAME (init): python, node, go, rust, c */
    bool man;                  /* --man (help): the man page paldron(1) */
    bool dashdash;             /* the positionals came after "--" */
    int argc;                  /* positionals (after options, or after --) */
    char **argv;
};

/* Scan argv[2..] for sub. Options are recognised up to the first
 * positional or "--". Returns 0, or prints the problem and returns
 * PD_EXIT_BROKEN. */
int pd_cli_parse(int argc, char **argv, struct pd_cli *cli);

/* Load cli->policy (or the defaults) and bind it to the current directory.
 * Prints the error and returns PD_EXIT_BROKEN on failure. */
int pd_cli_load(const struct pd_cli *cli, struct pd_policy *pol, struct pd_ctx *ctx);

/* The command list (paldron --help), on stdout or stderr (cli_help.c). */
void pd_usage(bool to_stdout);
/* The help of subcommand sub (paldron SUB --help), on stdout or stderr. */
void pd_command_usage(const char *sub, bool to_stdout);

/* Does this machine offer what `paldron exec` needs to isolate a command
 * with the network off (Landlock ABI 4 and seccomp)? execute_code is allowed
 * by `check` only then. */
bool pd_isolation_available(void);
/* pd_platform_probe, or under valgrind the same probe made natively by
 * `paldron __probe` (launcher/exec/exec_valgrind.c): valgrind knows neither the
 * Landlock system calls nor seccomp(2). */
void pd_exec_platform_probe(struct pd_platform_info *info);
int pd_cmd_check(const struct pd_cli *cli);
int pd_cmd_hook(const struct pd_cli *cli);
int pd_cmd_schema(const struct pd_cli *cli);
int pd_cmd_exec(const struct pd_cli *cli);
int pd_cmd_explain(const struct pd_cli *cli);
int pd_cmd_env(const struct pd_cli *cli);
int pd_cmd_connect(const struct pd_cli *cli);
int pd_cmd_cache(const struct pd_cli *cli);
int pd_cmd_init(const struct pd_cli *cli);
int pd_cmd_doctor(const struct pd_cli *cli);
/* The internal commands of exec under valgrind (exec_valgrind.c), given
 * their arguments after the command word: `__sandbox FD` makes the child's
 * last step from the sealed memfd FD, `__probe FD` writes the platform
 * probe into the memfd FD. Anything else: one line, exit 1. */
int pd_cmd_sandbox_stage(int argc, char **argv);
int pd_cmd_probe_stage(int argc, char **argv);

const char *pd_version(void);

/* git_root.c: the git work tree around dir (absolute): the nearest folder
 * from dir upwards holding a .git folder or file, into out. */
bool pd_git_work_tree(const char *dir, char *out, size_t outlen);

/* Absolute path of libpaldron_preload.so (PALDRON_PRELOAD_LIB, next to the
 * binary, or the install tree's library directory). Returns 0 or -1. */
int pd_preload_path(char *out, size_t len);

/* "paldron: " + formatted message + newline on stderr. */
__attribute__((format(printf, 1, 2))) void pd_err(const char *fmt, ...);

/* kept.c: the file naming a process a run left for the next one ("<pid>
 * <start time>\n" in basefd's name, the user's own, one link, written by no
 * one else): read and removed. false when absent or not that. */
bool pd_kept_read(int basefd, const char *name, pid_t *pid, unsigned long long *start);
/* The same of the open file fd, left in place. */
bool pd_kept_parse_fd(int fd, pid_t *pid, unsigned long long *start);
/* A pidfd of pid if it is still the paldron started at start, else -1. */
int pd_kept_pidfd(pid_t pid, unsigned long long start);
bool pd_kept_signal(int pidfd, int sig);

#endif
