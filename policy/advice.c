/* policy/advice.c - the smallest policy change that would allow what a
 * rule refused, for deny lines, --audit and the hook's reason.
 *
 * Advice is only ever narrow: a folder relative to the workspace (the
 * top-level folder that holds the path: ".pytest_cache/", "build/"), an
 * absolute folder outside it that is not "/", the home folder itself, a
 * system folder or a parent of the workspace, a single program, a single
 * secret by its relative path. Where the only change would open much more
 * than the refused call (the whole workspace, the network), the advice says
 * "none narrow" and why: a user who follows advice must not end up with a
 * policy that allows everything. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/hosts.h"
#include "policy/policy.h"

/* "src/" for "src/a/b.txt"; "" when rel is a top-level file (no folder). */
static void top_folder(const char *rel, bool is_dir, char *out, size_t len)
{
    const char *slash = strchr(rel, '/');
    if (slash)
        snprintf(out, len, "%.*s/", (int)(slash - rel), rel);
    else if (is_dir && rel[0])
        snprintf(out, len, "%s/", rel);
    else
        out[0] = '\0';
}

/* Would granting dir (absolute) open too much? Returns why ("the home
 * folder"), or NULL when dir is narrow enough. */
static const char *too_wide(const struct pd_ctx *c, const char *dir)
{
    if (!dir[0] || strcmp(dir, "/") == 0)
        return "the root folder";
    if (!strchr(dir + 1, '/'))
        return "a top-level folder";
    if (c->home[0] && strcmp(dir, c->home) == 0)
        return "the home folder";
    if (pd_path_under(c->workspace, dir))
        return "a folder that holds the workspace";
    for (size_t k = 0; pd_system_read_dirs[k]; k++)
        if (pd_path_under(dir, pd_system_read_dirs[k]))
            return "a system folder";
    return NULL;
}

/* The folder that holds abs (abs itself when is_dir). */
static void holder(const char *abs, bool is_dir, char *out, size_t len)
{
    snprintf(out, len, "%s", abs);
    char *slash = strrchr(out, '/');
    if (!is_dir && slash)
        *(slash == out ? slash + 1 : slash) = '\0';
}

/* A folder for key ("allow_paths" or "read_paths") that holds abs. */
static void folder_advice(const struct pd_ctx *c, const char *key, const char *abs, bool is_dir,
                          char *out, size_t len)
{
    const char *rel = pd_path_under(abs, c->workspace);
    char dir[PD_PATH_MAX];
    if (rel) {
        top_folder(rel, is_dir, dir, sizeof dir);
        if (dir[0])
            snprintf(out, len, "add \"%s\" to %s", dir, key);
        else
            snprintf(out, len,
                     "none narrow: %s lies at the top of the workspace, and allowing the whole "
                     "workspace would allow every file; put it in a folder of %s",
                     rel[0] ? rel : ".", key);
        return;
    }
    holder(abs, is_dir, dir, sizeof dir);
    const char *why = too_wide(c, dir);
    if (why)
        snprintf(out, len, "none narrow: %s is %s", dir, why);
    else
        snprintf(out, len, "add \"%s\" to %s", dir, key);
}

void pd_advice(const struct pd_ctx *c, const char *key, const char *pattern, const char *abs,
               bool is_dir, char *out, size_t len)
{
    out[0] = '\0';
    if (!key)
        return;
    const char *rel = abs && abs[0] == '/' ? pd_path_under(abs, c->workspace) : NULL;
    if (strcmp(key, "deny_globs") == 0 && pattern && abs && abs[0] == '/' &&
        pd_match_builtin_secret(PD_OP_READ, rel, abs, c->home) && !pd_secret_lifted(c, rel, abs)) {
        /* removing the glob would only uncover the built-in rule */
        snprintf(out, len, "none narrow: %s is also a built-in secret", rel && rel[0] ? rel : abs);
    } else if (strcmp(key, "deny_globs") == 0 && pattern) {
        snprintf(out, len, "remove \"%s\" from deny_globs", pattern);
    } else if (strcmp(key, "secrets") == 0) {
        if (rel && rel[0])
            snprintf(out, len, "add \"%s\" to allow_secrets", rel);
        else
            snprintf(out, len, "none: %s is a built-in secret outside the workspace",
                     abs && abs[0] ? abs : "the file");
    } else if (strcmp(key, "protected_paths") == 0 && pattern) {
        snprintf(out, len,
                 pd_is_builtin_protected(pattern) ? "add \"%s\" to unprotect_paths"
                                                  : "remove \"%s\" from protected_paths",
                 pattern);
    } else if (strcmp(key, "policy_file") == 0) {
        snprintf(out, len, "none: the policy file is never writable through Paldron");
    } else if (strcmp(key, "allow_network") == 0 && pd_hosts_enabled(c->policy)) {
        snprintf(out, len,
                 "none narrow: only the hosts of allow_hosts are reachable, through the run's "
                 "proxy, and allow_network = true would allow every host");
    } else if (strcmp(key, "allow_network") == 0) {
        snprintf(out, len,
                 "none narrow: the network is off, and allow_network = true would "
                 "allow every host");
    } else if (strcmp(key, "allow_hosts") == 0 && abs && abs[0] && abs[0] != '/') {
        /* abs: the "<host>:<port>" refused; the one entry that admits it */
        snprintf(out, len, "add \"%s\" to allow_hosts", abs);
    } else if (strcmp(key, "deny_hosts") == 0 && pattern) {
        snprintf(out, len, "remove \"%s\" from deny_hosts", pattern);
    } else if ((strcmp(key, "allow_paths") == 0 || strcmp(key, "workspace") == 0) && abs &&
               abs[0] == '/') {
        folder_advice(c, "allow_paths", abs, is_dir, out, len);
    } else if (strcmp(key, "read_paths") == 0 && abs && abs[0] == '/') {
        folder_advice(c, "read_paths", abs, is_dir, out, len);
    }
}

void pd_verdict_advice(const struct pd_ctx *c, const struct pd_verdict *v, const char *program,
                       char *out, size_t len)
{
    out[0] = '\0';
    if (!v->deny || !v->key)
        return;
    if (strcmp(v->key, "allow_binaries") == 0) {
        if (program && program[0])
            snprintf(out, len, "add \"%s\" to allow_binaries", program);
        return;
    }
    if (strcmp(v->key, "allow_hosts") == 0) {
        /* a host not in allow_hosts: its "<host>:<port>" (pd_host_decide);
         * a malformed host has no entry that would admit it */
        if (v->reason && strcmp(v->reason, PD_REASON_HOST_NOT_ALLOWED) == 0)
            pd_advice(c, v->key, v->pattern, v->subject, false, out, len);
        return;
    }
    struct stat st;
    bool is_dir = v->resolved[0] == '/' && stat(v->resolved, &st) == 0 && S_ISDIR(st.st_mode);
    pd_advice(c, v->key, v->pattern, v->resolved, is_dir, out, len);
}
