/* policy/ctx.c - the evaluation context: a policy bound to a workspace, a
 * home directory, a PATH and the writable roots derived from allow_paths. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

/* Resolve dir (relative to the workspace, "~/" to home) and append it to
 * the list *v of *n entries, once. */
static int add_resolved(struct pd_ctx *c, const char *dir, char ***v, size_t *n)
{
    char resolved[PD_PATH_MAX];
    if (pd_path_normalize(c->workspace, c->home, dir, resolved, sizeof resolved))
        return -1;
    for (size_t k = 0; k < *n; k++)
        if (strcmp((*v)[k], resolved) == 0)
            return 0;
    char *copy = strdup(resolved);
    char **nv = copy ? realloc(*v, (*n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(copy);
        errno = ENOMEM;
        return -1;
    }
    *v = nv;
    nv[(*n)++] = copy;
    return 0;
}

int pd_ctx_add_root(struct pd_ctx *c, const char *dir)
{
    return add_resolved(c, dir, &c->roots, &c->nroots);
}

void pd_ctx_set_path_env(struct pd_ctx *c, const char *path_env)
{
    snprintf(c->path_env, sizeof c->path_env, "%s",
             path_env && path_env[0] ? path_env : "/usr/local/bin:/usr/bin:/bin");
}

bool pd_in_temp_home(const struct pd_ctx *c, const char *abs)
{
    return c->temp_home[0] && abs && pd_path_under(abs, c->temp_home);
}

int pd_ctx_init(struct pd_ctx *c, const struct pd_policy *p, const char *workspace,
                const char *home, struct pd_error *err)
{
    memset(c, 0, sizeof *c);
    memset(err, 0, sizeof *err);
    c->policy = p;
    if (!realpath(workspace, c->workspace)) {
        snprintf(err->msg, sizeof err->msg, "workspace %s: %s", workspace, strerror(errno));
        return -1;
    }
    if (home && home[0] == '/') {
        if (!realpath(home, c->home))
            pd_path_clean(home, c->home, sizeof c->home);
    }
    pd_ctx_set_path_env(c, NULL);
    const struct pd_strv *ap = &p->allow_paths;
    for (size_t k = 0; k < ap->n; k++) {
        if (pd_ctx_add_root(c, ap->v[k])) {
            snprintf(err->msg, sizeof err->msg, "allow_paths entry %s: %s", ap->v[k],
                     strerror(errno));
            pd_ctx_free(c);
            return -1;
        }
    }
    if (ap->n == 0 && pd_ctx_add_root(c, c->workspace)) {
        snprintf(err->msg, sizeof err->msg, "workspace %s: %s", workspace, strerror(errno));
        pd_ctx_free(c);
        return -1;
    }
    c->npolicy_roots = c->nroots;
    const struct pd_strv *rp = &p->read_paths;
    for (size_t k = 0; k < rp->n; k++) {
        if (add_resolved(c, rp->v[k], &c->read_roots, &c->nread_roots)) {
            snprintf(err->msg, sizeof err->msg, "read_paths entry %s: %s", rp->v[k],
                     strerror(errno));
            pd_ctx_free(c);
            return -1;
        }
    }
    return 0;
}

void pd_ctx_free(struct pd_ctx *c)
{
    for (size_t k = 0; k < c->nroots; k++)
        free(c->roots[k]);
    free(c->roots);
    c->roots = NULL;
    c->nroots = 0;
    for (size_t k = 0; k < c->nread_roots; k++)
        free(c->read_roots[k]);
    free(c->read_roots);
    c->read_roots = NULL;
    c->nread_roots = 0;
    for (size_t k = 0; k < c->ngit_dirs; k++)
        free(c->git_dirs[k]);
    free(c->git_dirs);
    c->git_dirs = NULL;
    c->ngit_dirs = 0;
}
