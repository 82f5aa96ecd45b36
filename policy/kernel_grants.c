/* policy/kernel_grants.c - which Landlock list grants which right
 * (kernel_grants.h). The mapping is platform/linux/landlock.c's GRANT_*
 * read in the other direction: keep the two in step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/kernel_grants.h"
#include "policy/toml/toml_lex.h"

static bool under_any(const struct pd_strv *l, const char *abs)
{
    for (size_t k = 0; k < l->n; k++)
        if (pd_path_under(abs, l->v[k]))
            return true;
    return false;
}

bool pd_kernel_grants_allow(const struct pd_kernel_grants *g, enum pd_op op, const char *abs)
{
    if (!g || !g->on)
        return true;
    switch (op) {
    case PD_OP_READ:
    case PD_OP_NAME:
        return under_any(&g->exec, abs) || under_any(&g->read, abs) || under_any(&g->write, abs) ||
               under_any(&g->dev, abs);
    case PD_OP_WRITE:
        return under_any(&g->write, abs) || under_any(&g->dev, abs);
    case PD_OP_CREATE:
    case PD_OP_DELETE: {
        /* the MAKE_* and REMOVE_* rights are checked on the parent */
        char parent[PD_PATH_MAX];
        snprintf(parent, sizeof parent, "%s", abs);
        char *slash = strrchr(parent, '/');
        if (!slash)
            return true;
        slash[slash == parent ? 1 : 0] = '\0';
        return under_any(&g->write, parent);
    }
    case PD_OP_EXEC:
        return under_any(&g->exec, abs) || (!g->no_exec_writes && under_any(&g->write, abs));
    }
    return true;
}

const char *pd_kernel_grants_readonly(const struct pd_kernel_grants *g, const char *abs)
{
    if (!g)
        return NULL;
    for (size_t k = 0; k < g->readonly.n; k++)
        if (pd_path_under(abs, g->readonly.v[k]))
            return g->readonly.v[k];
    return NULL;
}

void pd_kernel_grants_free(struct pd_kernel_grants *g)
{
    pd_strv_free(&g->exec);
    pd_strv_free(&g->read);
    pd_strv_free(&g->write);
    pd_strv_free(&g->dev);
    pd_strv_free(&g->readonly);
    g->on = false;
    g->no_exec_writes = false;
}
