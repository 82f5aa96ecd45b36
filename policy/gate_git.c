/* policy/gate_git.c - which git configuration and hooks the gate protects.
 *
 * A repository's config (config, config.worktree) and hooks (everything in hooks/)
 * name programs that git runs later, outside any sandbox: writing them is
 * how an agent would persist. So is commondir (git reads the config and
 * hooks of the directory it names instead), and so is the git directory
 * itself: moved away, a "gitdir:" file in its place names a repository the
 * run made. But `git init` and `git clone` must write
 * exactly these files for the repository they create. So:
 *
 *   exec (ctx->git_dirs_known): the launcher lists the git directories that
 *     exist when the run starts (launcher/scan/scan_git.c); their config and
 *     hooks are protected, wherever they lie (the workspace's own, nested
 *     repositories, .git/modules/<name>, .git/worktrees/<name>). A
 *     repository created during the run is not protected live: the post-run
 *     git check judges what the run put in it.
 *   check, env (no run, no list): every path shaped like a git directory's
 *     config or hooks inside the workspace or a writable root is protected,
 *     whether it exists or not (a tool call that names .git/hooks/x is the
 *     persistence move; git init through a command names no such path).
 *
 * The rule stands in for the built-in patterns that start with ".git/";
 * a policy that gives protected_paths gets its own patterns, as written. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/policy.h"

bool pd_git_builtin_pattern(const char *pattern)
{
    return strncmp(pattern, ".git/", 5) == 0 || strcmp(pattern, ".git") == 0;
}

int pd_ctx_add_git_dir(struct pd_ctx *c, const char *dir)
{
    for (size_t k = 0; k < c->ngit_dirs; k++)
        if (strcmp(c->git_dirs[k], dir) == 0)
            return 0;
    char *copy = strdup(dir);
    char **nv = copy ? realloc(c->git_dirs, (c->ngit_dirs + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(copy);
        return -1;
    }
    c->git_dirs = nv;
    c->git_dirs[c->ngit_dirs++] = copy;
    return 0;
}

/* The pattern a protected tail is reported as (the built-in list's text). */
static const char *tail_rule(const char *tail)
{
    if (strcasecmp(tail, "config") == 0)
        return ".git/config";
    if (strcasecmp(tail, "config.worktree") == 0)
        return ".git/config.worktree";
    if (strcasecmp(tail, "commondir") == 0)
        return ".git/commondir";
    if (strncasecmp(tail, "hooks", 5) == 0 && (tail[5] == '\0' || tail[5] == '/'))
        return ".git/hooks/**";
    return NULL;
}

/* Does the component ending at end (exclusive) in abs equal name (folded)? */
static bool comp_is(const char *abs, size_t end, const char *name)
{
    size_t n = strlen(name);
    return end > n && abs[end - n - 1] == '/' && strncasecmp(abs + end - n, name, n) == 0;
}

/* Without a list: a directory called .git, or one below .git/modules or
 * .git/worktrees (submodules nest: .git/modules/a/modules/b). */
static bool shaped_like_git_dir(const char *abs, size_t len)
{
    if (comp_is(abs, len, ".git"))
        return true;
    for (size_t k = 0; k + 6 <= len; k++) {
        if (abs[k] != '/')
            continue;
        size_t next = k + 1;
        while (next < len && abs[next] != '/')
            next++;
        if (next < len && comp_is(abs, k, ".git") &&
            (comp_is(abs, next, "modules") || comp_is(abs, next, "worktrees")))
            return true;
    }
    return false;
}

static bool in_scope(const struct pd_ctx *c, const char *abs)
{
    if (pd_path_under(abs, c->workspace))
        return true;
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(abs, c->roots[k]))
            return true;
    return false;
}

const char *pd_git_dir_protected(const struct pd_ctx *c, const char *abs)
{
    if (pd_builtin_unprotected(c->policy, ".git"))
        return NULL;
    if (c->git_dirs_known) {
        for (size_t k = 0; k < c->ngit_dirs; k++)
            if (strcasecmp(c->git_dirs[k], abs) == 0)
                return ".git";
        return NULL;
    }
    return comp_is(abs, strlen(abs), ".git") && in_scope(c, abs) ? ".git" : NULL;
}

const char *pd_git_protected(const struct pd_ctx *c, const char *abs)
{
    /* Every split "<git dir>/<tail>" whose tail is config, commondir or
     * hooks; case folded, as the protected patterns are (fail closed). */
    for (const char *s = strchr(abs, '/'); s; s = strchr(s + 1, '/')) {
        const char *rule = tail_rule(s + 1);
        if (!rule)
            continue;
        size_t len = (size_t)(s - abs);
        if (c->git_dirs_known) {
            for (size_t k = 0; k < c->ngit_dirs; k++)
                if (strlen(c->git_dirs[k]) == len && strncasecmp(c->git_dirs[k], abs, len) == 0)
                    return rule;
        } else if (shaped_like_git_dir(abs, len) && in_scope(c, abs)) {
            return rule;
        }
    }
    return NULL;
}
