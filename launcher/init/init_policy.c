/* launcher/init/init_policy.c - the starter .paldron.toml that `paldron init`
 * writes when a project has none: the README's policy, each key explained
 * where a user will look for it first - in the file. test_init.py checks
 * that it loads and that its values are the README's. */
#include "launcher/init/init.h"

static const char starter[] =
    "# .paldron.toml - what an AI agent may do in this project, enforced by Paldron.\n"
    "# Written by `paldron init` (which never overwrites it): edit it to fit the project.\n"
    "# Every key is optional. The reference - every key, the glob rules, the built-in\n"
    "# secrets and protected paths - is docs/policy.md (installed as\n"
    "# share/doc/paldron/policy.md). Secrets (.env, *.pem, ~/.ssh/**, ...) and protected\n"
    "# paths (.git/hooks/**, .claude/**, .codex/**, ...) are denied even without a rule\n"
    "# here, and this file can never be written through Paldron.\n"
    "# Try a rule without an agent:  paldron explain --policy .paldron.toml src/.env\n"
    "# Check the whole setup:        paldron doctor\n"
    "\n"
    "# Folders of the project (relative like src/, or absolute) that commands may write\n"
    "# in and name paths in. Empty: the whole project. Missing ones are created on first use.\n"
    "allow_paths = [\"src/\", \"docs/\"]\n"
    "\n"
    "# Paths denied for reading and writing: gitignore-like globs, matched\n"
    "# case-insensitively (\".env\" also denies src/.ENV).\n"
    "deny_globs = [\".env\", \".env.*\", \"*.pem\", \"**/secrets/**\"]\n"
    "\n"
    "# false: no network. Network programs (curl, wget, ssh, git push ...) are denied,\n"
    "# and commands run with loopback only.\n"
    "allow_network = false\n"
    "\n"
    "# The programs that may run (shell builtins need no entry); empty: any program.\n"
    "# Presets name families of programs, e.g. \"@python\" (docs/policy.md).\n"
    "allow_binaries = [\"ls\", \"cat\", \"python3\", \"git\"]\n"
    "\n"
    "# true: a command that the kernel cannot isolate (Landlock, seccomp) does not run\n"
    "# at all; false runs it with the policy gate and the live gate only, and says so.\n"
    "require_os_isolation = true\n"
    "\n"
    "# Wall-clock limit of a run, in seconds. A shell call that the agent's hook routes\n"
    "# through `paldron exec` gets the shorter of this and the client's own limit.\n"
    "timeout_sec = 30\n";

const char *pd_init_starter_policy(void)
{
    return starter;
}
