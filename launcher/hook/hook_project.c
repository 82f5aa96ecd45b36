/* launcher/hook/hook_project.c - the workspace of a hook call: the project, not
 * wherever the client happens to stand. The client gives its current
 * directory (`cwd`), which is the project root or a folder in it (Claude
 * Code after a `cd`, a client started in a sub-folder, a Codex `workdir`).
 * Judging paths - and routing the call - with that folder as the workspace
 * would make the project's own files "outside the workspace" and a `cd ~`
 * would make the home the workspace. So: the folder of the policy file when
 * cwd lies in it, or the git repository (work tree) around cwd, whichever
 * is nearer to cwd (a user-wide ~/.paldron.toml does not make the home the
 * project of every repository below it; a sub-project's own policy in a
 * monorepo makes the sub-project the workspace); else cwd. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/hook/hook.h"

int pd_hook_policy_from_git_root(const char *cwd, char *out, size_t outlen, char *why,
                                 size_t whylen)
{
    char real_cwd[PATH_MAX], root[PD_PATH_MAX];
    struct stat st;
    if (!realpath(cwd, real_cwd)) {
        snprintf(why, whylen, "the hook's cwd %s: %s", cwd, strerror(errno));
        return -1;
    }
    if (!pd_git_work_tree(real_cwd, root, sizeof root)) {
        snprintf(why, whylen,
                 "--policy-from-git-root: %s is in no git repository, so there is no policy to "
                 "apply",
                 real_cwd);
        return -1;
    }
    snprintf(out, outlen, "%s/.paldron.toml", strcmp(root, "/") == 0 ? "" : root);
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, whylen,
                 "--policy-from-git-root: no policy at %s (write one, e.g. with 'paldron init')",
                 out);
        return -1;
    }
    return 0;
}

int pd_hook_project(const char *policy, const char *cwd, char *out, size_t outlen, char *why,
                    size_t whylen)
{
    char real_cwd[PATH_MAX], dir[PATH_MAX];
    if (!realpath(cwd, real_cwd)) {
        snprintf(why, whylen, "the hook's cwd %s: %s", cwd, strerror(errno));
        return -1;
    }
    bool have_policy_dir = false;
    if (policy && realpath(policy, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            slash[1] = '\0';
        else if (slash)
            *slash = '\0';
        have_policy_dir = pd_path_under(real_cwd, dir) != NULL;
    }
    char repo[PD_PATH_MAX];
    bool have_repo = pd_git_work_tree(real_cwd, repo, sizeof repo);
    /* both lie above cwd, so the longer one is the nearer */
    if (have_policy_dir && (!have_repo || strlen(dir) >= strlen(repo)))
        snprintf(out, outlen, "%s", dir);
    else if (have_repo)
        snprintf(out, outlen, "%s", repo);
    else
        snprintf(out, outlen, "%s", real_cwd);
    return 0;
}
