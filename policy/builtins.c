/* policy/builtins.c - the patterns that apply with or without a policy file.
 * Secrets are denied for read and write (reason "secret"); protected paths
 * are readable but never writable (reason "protected"), because writing them
 * lets an agent persist or escalate (git hooks run later, agent and editor
 * configuration runs commands). protected_paths extends the second list,
 * unprotect_paths removes entries of it, allow_secrets lifts the first for
 * named paths (policy/gate_path.c).
 * "~/" patterns name files of the home: exec masks those that exist
 * (launcher/exec/exec_ns.c), the live gate and the static gates judge them all. */
#include <stddef.h>
#include <string.h>

#include "policy/policy.h"

const char *const pd_builtin_secrets[] = {
    /* the original's four, in its order */
    ".env", ".env.*", "*.pem", "**/secrets/**",
    /* private keys and key stores */
    "*.key", "id_rsa*", "id_dsa*", "id_ed25519*", "id_ecdsa*", "*.p12", "*.pfx",
    /* credential files of common tools */
    ".netrc", ".npmrc", ".pypirc", ".git-credentials",
    /* credential folders in the user's home */
    "~/.ssh/**", "~/.aws/**", "~/.gnupg/**", "~/.config/gcloud/**", "~/.kube/config",
    "~/.docker/config.json",
    /* tokens of command-line tools and of the agents themselves */
    "~/.config/gh/hosts.yml", "~/.cargo/credentials", "~/.cargo/credentials.toml",
    "~/.gem/credentials", "~/.terraform.d/credentials.tfrc.json", "~/.claude/.credentials.json",
    "~/.codex/auth.json",
    /* the system's own: password hashes and host keys (/etc is readable, and
     * a named path under it is a read like any other) */
    "/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_*_key", NULL};
/* Not here: /proc/<pid>/environ. procps-ng 4's `ps aux` and `ps -ef` read
 * every process's environ, so as a secret it would deny those runs under
 * exec; the agents' own tools refuse it (policy/gate_search.c). */

/* The ".git" entries are decided by policy/gate_git.c: a repository's
 * config, commondir and hooks are protected where the repository existed
 * at the start of the run (nested ones and submodules included), not in one
 * it creates; ".git" itself stands for that git directory's removal or
 * rename (policy/gate_path.c judges it for PD_OP_DELETE only). */
const char *const pd_builtin_protected[] = {".git", ".git/hooks/**", ".git/config",
                                            ".git/config.worktree", ".git/commondir", ".gitmodules",
                                            /* agent configuration */
                                            ".claude/**", ".codex/**", ".mcp.json",
                                            /* editor task and launch files */
                                            ".vscode/**", ".idea/**", NULL};

bool pd_is_builtin_protected(const char *pattern)
{
    for (size_t k = 0; pd_builtin_protected[k]; k++)
        if (strcmp(pd_builtin_protected[k], pattern) == 0)
            return true;
    return false;
}

/* Folders readable without read_paths: the ones a toolchain needs, which
 * the kernel layers grant for reading in every run (launcher/exec/exec_sandbox.c). */
const char *const pd_system_read_dirs[] = {"/usr",   "/bin",    "/sbin", "/lib", "/lib32",
                                           "/lib64", "/libx32", "/etc",  "/opt", NULL};

/* Writes that are never judged by the writable roots: the terminal, the
 * bit buckets and the process's own descriptors (/dev/stdout resolves to
 * /proc/<pid>/fd/1). The kernel layers decide what else under /dev is open.
 * The /proc entries after them are settings of a process, not files: the
 * maps of a user namespace the process made (bwrap, unshare -r, Codex's
 * and Chromium's own sandboxes write them), a thread's name
 * (pthread_setname_np for another thread) and its OOM score. Writing one
 * stores nothing and the kernel applies its own permission checks, so the
 * live gate leaves them to it; the kernel layers of exec refuse namespaces
 * altogether (seccomp) and keep /proc read-only (Landlock). */
const char *const pd_builtin_writable[] = {"/dev/null",
                                           "/dev/zero",
                                           "/dev/full",
                                           "/dev/tty",
                                           "/dev/pts/**",
                                           "/dev/fd/**",
                                           "/dev/stdout",
                                           "/dev/stderr",
                                           "/proc/self/fd/**",
                                           "/proc/*/fd/**",
                                           "/proc/*/uid_map",
                                           "/proc/*/gid_map",
                                           "/proc/*/setgroups",
                                           "/proc/*/projid_map",
                                           "/proc/*/comm",
                                           "/proc/*/task/*/comm",
                                           "/proc/*/oom_score_adj",
                                           NULL};
