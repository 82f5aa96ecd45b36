/* launcher/exec/exec_git_root.c - git keeps working under allow_paths = ["src/"]:
 * when the policy allows git, the git directory of the repository the
 * workspace lies in is a writable root of the run (objects, refs, the index,
 * logs, packed refs, the lock files beside them). Its config, config.worktree
 * and hooks stay protected as in every repository that existed at the start
 * (policy/gate_git.c; read-only binds in the namespace floor, the live gate,
 * the post-run git scan). Without this, `git commit` through a routed hook
 * call fails on .git/index.lock although the policy allows git. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

/* The git directory of the work tree around dir: its .git folder, or
 * what the "gitdir: PATH" file of a linked work tree names. Resolved. */
static bool find_git_dir(const char *dir, char *out, size_t outlen)
{
    char top[PD_PATH_MAX], probe[PD_PATH_MAX + 8];
    struct stat st;
    if (!pd_git_work_tree(dir, top, sizeof top))
        return false;
    snprintf(probe, sizeof probe, "%s/.git", strcmp(top, "/") == 0 ? "" : top);
    if (lstat(probe, &st) == 0 && S_ISDIR(st.st_mode))
        return realpath(probe, out) != NULL && strlen(out) < outlen;
    char line[PD_PATH_MAX], target[PD_PATH_MAX + PD_PATH_MAX];
    FILE *f = fopen(probe, "re");
    bool ok = f && fgets(line, sizeof line, f) && strncmp(line, "gitdir: ", 8) == 0;
    if (f)
        fclose(f);
    if (!ok)
        return false;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[8] == '/')
        snprintf(target, sizeof target, "%s", line + 8);
    else
        snprintf(target, sizeof target, "%s/%s", top, line + 8);
    return realpath(target, out) != NULL && strlen(out) < outlen;
}

/* A linked work tree's objects and refs live in the common directory
 * (its "commondir" file, relative to the git directory). */
static bool common_dir(const char *git_dir, char *out, size_t outlen)
{
    char probe[PD_PATH_MAX + 16], line[PD_PATH_MAX], target[2 * PD_PATH_MAX];
    snprintf(probe, sizeof probe, "%s/commondir", git_dir);
    FILE *f = fopen(probe, "re");
    if (!f)
        return false;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return false;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '/')
        snprintf(target, sizeof target, "%s", line);
    else
        snprintf(target, sizeof target, "%s/%s", git_dir, line);
    return realpath(target, out) != NULL && strlen(out) < outlen;
}

static bool git_allowed(const struct pd_ctx *c)
{
    if (c->policy->allow_binaries.n == 0)
        return true;
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(c, "git", c->workspace, &v, &missing);
    return !v.deny && !missing;
}

static bool in_roots(const struct pd_ctx *c, const char *dir)
{
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(dir, c->roots[k]))
            return true;
    return false;
}

int pd_exec_git_roots(struct pd_exec_plan *p, struct pd_ctx *c)
{
    char dirs[2][PD_PATH_MAX];
    size_t n = 0;
    p->git_roots[0][0] = p->git_roots[1][0] = '\0';
    if (!git_allowed(c) || !find_git_dir(c->workspace, dirs[0], sizeof dirs[0]))
        return 0;
    n = 1;
    if (common_dir(dirs[0], dirs[1], sizeof dirs[1]) && strcmp(dirs[0], dirs[1]) != 0)
        n = 2;
    for (size_t k = 0; k < n; k++) {
        if (in_roots(c, dirs[k]))
            continue;
        if (pd_ctx_add_root(c, dirs[k]) != 0)
            return -1;
        snprintf(p->git_roots[k], sizeof p->git_roots[k], "%s", dirs[k]);
    }
    return 0;
}
