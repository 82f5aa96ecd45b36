/* launcher/cli/policy_find.c - which .paldron.toml a command uses when no
 * --policy names one, and which workspaces are too wide to be one.
 *
 * Discovery looks in the working directory, then in each parent up to and
 * including the root of the git work tree around it; outside a work tree,
 * only the working directory counts. A policy from further up (/tmp, /home)
 * could have been left there by anyone, so the file found must also be
 * owned by the caller or root and writable by nobody else: otherwise the
 * command stops (exit 1) rather than run under another user's rules. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/cli/policy_find.h"

#define POLICY_NAME ".paldron.toml"

/* Is the file at path safe to take rules from? */
static bool trusted(const char *path, const struct stat *st, char *why, size_t whylen)
{
    if (st->st_uid != geteuid() && st->st_uid != 0) {
        snprintf(why, whylen,
                 "%s belongs to uid %u, not to you: refusing to take rules from it "
                 "(name it with --policy if you mean it)",
                 path, (unsigned)st->st_uid);
        return false;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, whylen,
                 "%s is writable by other users: refusing to take rules from it (chmod go-w, "
                 "or name it with --policy)",
                 path);
        return false;
    }
    return true;
}

int pd_policy_discover(const char *cwd, char *out, size_t outlen, char *why, size_t whylen)
{
    char top[PD_PATH_MAX], dir[PD_PATH_MAX], probe[PD_PATH_MAX + sizeof POLICY_NAME + 1];
    /* outside a work tree, the working directory alone */
    if (!pd_git_work_tree(cwd, top, sizeof top))
        snprintf(top, sizeof top, "%s", cwd);
    snprintf(dir, sizeof dir, "%s", cwd);
    for (;;) {
        snprintf(probe, sizeof probe, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, POLICY_NAME);
        struct stat st;
        if (lstat(probe, &st) == 0) {
            if (S_ISLNK(st.st_mode) && stat(probe, &st) != 0) {
                snprintf(why, whylen, "policy unreadable: %s: %s", probe, strerror(errno));
                return -1;
            }
            if (!S_ISREG(st.st_mode)) {
                snprintf(why, whylen, "policy unreadable: %s: not a regular file", probe);
                return -1;
            }
            if (!trusted(probe, &st, why, whylen))
                return -1;
            snprintf(out, outlen, "%s", probe);
            return 1;
        }
        if (strcmp(dir, top) == 0 || strcmp(dir, "/") == 0)
            return 0;
        char *slash = strrchr(dir, '/');
        if (!slash)
            return 0;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}

const char *pd_workspace_too_wide(const char *ws, const char *home)
{
    if (strcmp(ws, "/") == 0)
        return "the root folder";
    if (home && home[0] && strcmp(ws, home) == 0)
        return "your home folder";
    if (!strchr(ws + 1, '/'))
        return "a top-level system folder";
    for (size_t k = 0; pd_system_read_dirs[k]; k++)
        if (strcmp(ws, pd_system_read_dirs[k]) == 0)
            return "a system folder";
    return NULL;
}
