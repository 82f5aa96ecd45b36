/* launcher/exec/exec_env_filter.c - which of the caller's variables the command
 * inherits. Ordinary variables pass (PYTHONPATH, CI, NODE_ENV ...: a command
 * must see what it sees bare). Dropped, in this order:
 *   loader hook     preload/loader_env.h, LD_PRELOAD, LD_LIBRARY_PATH: one of
 *                   them keeps the live gate out or loads a workspace library
 *                   into an allowed program; never passed, env_pass or not;
 *   shell hook      BASH_ENV, ENV, PROMPT_COMMAND, PS4, exported functions ...:
 *                   code a shell runs that the command line does not show;
 *                   never passed either;
 *   live gate       PALDRON_*: the launcher sets the live gate's own;
 *   env_drop        the policy's own list (wins over env_pass);
 *   (env_pass       the policy's list passes what the rules below drop;)
 *   secret-looking  the output scanner's rule for secret names
 *                   (launcher/outscan/outscan_names.c): API keys and tokens stay out;
 *   network off     proxies, which no run without network can reach (a
 *                   tool would send loopback traffic to them instead). */
#include <string.h>

#include "launcher/exec/exec.h"
#include "launcher/outscan/outscan.h"
#include "preload/loader_env.h"

/* A trailing '*' makes a prefix. */
static const char *const shell_hooks[] = {
    "BASH_ENV", /* sourced by every non-interactive bash */
    "ENV",      /* sourced by sh (POSIX mode) */
    "PROMPT_COMMAND",
    "PS0",
    "PS4", /* expanded with command substitution */
    "SHELLOPTS",
    "BASHOPTS",    /* turn on xtrace, and with it PS4 */
    "ZDOTDIR",     /* where zsh reads its startup files */
    "BASH_FUNC_*", /* exported functions override commands */
    NULL,
};

static const char *const proxies[] = {
    "http_proxy",  "https_proxy", "ftp_proxy", "all_proxy", "HTTP_PROXY",
    "HTTPS_PROXY", "FTP_PROXY",   "ALL_PROXY", NULL,
};

/* Does name[0..len) match entry (a name, or a prefix ending in '*')? */
static bool matches(const char *entry, const char *name, size_t len)
{
    size_t n = strlen(entry);
    if (n > 0 && entry[n - 1] == '*')
        return len >= n - 1 && strncmp(entry, name, n - 1) == 0;
    return n == len && strncmp(entry, name, len) == 0;
}

static bool in_list(const char *const *list, const char *name, size_t len)
{
    for (size_t k = 0; list[k]; k++)
        if (matches(list[k], name, len))
            return true;
    return false;
}

static bool in_strv(const struct pd_strv *s, const char *name, size_t len)
{
    for (size_t k = 0; s && k < s->n; k++)
        if (matches(s->v[k], name, len))
            return true;
    return false;
}

static bool loader_hook(const char *name, size_t len)
{
    char buf[64];
    if (len >= sizeof buf)
        return false; /* longer than every hook's name */
    memcpy(buf, name, len);
    buf[len] = '\0';
    return pd_loader_hook(buf) || strcmp(buf, PD_ENV_LIBPATH) == 0 ||
           strcmp(buf, "LD_PRELOAD") == 0;
}

const char *pd_env_drop_reason(const char *name, size_t len, const struct pd_strv *pass,
                               const struct pd_strv *drop, bool allow_network)
{
    if (loader_hook(name, len))
        return "loader hook";
    if (in_list(shell_hooks, name, len))
        return "shell hook";
    if (len >= 8 && strncmp(name, "PALDRON_", 8) == 0)
        return "the live gate sets its own";
    if (in_strv(drop, name, len))
        return "env_drop";
    if (in_strv(pass, name, len))
        return NULL;
    /* git's configuration from the environment: GIT_CONFIG_KEY_<n> holds a
     * key's name (its value, in GIT_CONFIG_VALUE_<n>, is judged as any
     * value: by the output scan); dropping one name breaks every git
     * command (GIT_CONFIG_COUNT would count a missing entry) */
    if (len > 15 && strncmp(name, "GIT_CONFIG_KEY_", 15) == 0 &&
        strspn(name + 15, "0123456789") == len - 15)
        return NULL;
    if (pd_outscan_env_name_is_secret(name, len))
        return "secret-looking";
    if (!allow_network && in_list(proxies, name, len))
        return "network off";
    return NULL;
}
