/* policy/compiled.c - the policy in force, with its context, as a small
 * line format the preload reads in every process: no TOML, no inih, no
 * allocation beyond the strings themselves. The launcher writes it once per
 * run into the run directory (read-only to the sandbox).
 *
 *   paldron-compiled 1
 *   <key> <value>          one line per scalar, one line per list entry
 *   end
 *
 * Values escape '\\' as "\\\\" and newline as "\\n". Context keys: workspace,
 * home, path, root (every writable root, policy roots first), npolicy_roots,
 * private_net, file (the policy file), git_dirs_known and git_dir (the git
 * directories that existed at the start of the run: policy/gate_git.c),
 * go_tmp (the go work directory, when there is one: policy/gate_exec.h),
 * temp_home (the run's private temp home, when it is $HOME: pd_in_temp_home),
 * read_root (every read_paths folder, resolved).
 *
 * What the kernel layers grant (policy/kernel_grants.h; only from
 * pd_compile_grants, read by pd_compiled_load_grants and skipped by
 * pd_compiled_load): kernel (1: Landlock applies), kernel_no_exec_writes,
 * and one line per path of each list: kernel_exec, kernel_read,
 * kernel_write, kernel_dev, kernel_readonly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/kernel_grants.h"
#include "policy/policy.h"
#include "policy/toml_lex.h"

#define MAGIC "paldron-compiled 1\n"

static void put(FILE *f, const char *key, const char *value)
{
    fprintf(f, "%s ", key);
    for (const char *s = value; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fputc('\n', f);
}

static void put_grants(FILE *f, const struct pd_kernel_grants *g)
{
    if (!g || !g->on)
        return;
    fputs("kernel 1\n", f);
    fprintf(f, "kernel_no_exec_writes %d\n", g->no_exec_writes ? 1 : 0);
    const struct {
        const char *key;
        const struct pd_strv *l;
    } lists[] = {{"kernel_exec", &g->exec},
                 {"kernel_read", &g->read},
                 {"kernel_write", &g->write},
                 {"kernel_dev", &g->dev},
                 {"kernel_readonly", &g->readonly}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (size_t j = 0; j < lists[k].l->n; j++)
            put(f, lists[k].key, lists[k].l->v[j]);
}

char *pd_compile(const struct pd_ctx *c)
{
    return pd_compile_grants(c, NULL);
}

char *pd_compile_grants(const struct pd_ctx *c, const struct pd_kernel_grants *g)
{
    const struct pd_policy *p = c->policy;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs(MAGIC, f);
    put(f, "workspace", c->workspace);
    put(f, "home", c->home);
    put(f, "path", c->path_env);
    for (size_t k = 0; k < c->nroots; k++)
        put(f, "root", c->roots[k]);
    fprintf(f, "npolicy_roots %zu\n", c->npolicy_roots);
    fprintf(f, "private_net %d\n", c->private_net ? 1 : 0);
    fprintf(f, "git_dirs_known %d\n", c->git_dirs_known ? 1 : 0);
    for (size_t k = 0; k < c->ngit_dirs; k++)
        put(f, "git_dir", c->git_dirs[k]);
    if (c->go_tmp[0])
        put(f, "go_tmp", c->go_tmp);
    if (c->temp_home[0])
        put(f, "temp_home", c->temp_home);
    for (size_t k = 0; k < c->nread_roots; k++)
        put(f, "read_root", c->read_roots[k]);
    put_grants(f, g);
    if (p->file)
        put(f, "file", p->file);
#define PD_KEY_STRV(name, doc)                                                                     \
    for (size_t k = 0; k < p->name.n; k++)                                                         \
        put(f, #name, p->name.v[k]);
#define PD_KEY_BOOL(name, def, doc)               fprintf(f, "%s %d\n", #name, p->name ? 1 : 0);
#define PD_KEY_INT(name, def, lo, hi, doc)        fprintf(f, "%s %lld\n", #name, p->name);
#define PD_KEY_FLOAT(name, def, doc)              fprintf(f, "%s %.17g\n", #name, p->name);
#define PD_KEY_ENUM(name, ctype, def, parse, doc) fprintf(f, "%s %d\n", #name, (int)p->name);
#include "policy/policy_keys.def"
    fprintf(f, "protected_paths_set %d\n", p->protected_paths_set ? 1 : 0);
    fputs("end\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Unescape value in place. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && (s[1] == '\\' || s[1] == 'n')) {
            *o++ = s[1] == 'n' ? '\n' : '\\';
            s++;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

static int set_scalar(struct pd_policy *p, const char *key, const char *value)
{
    char *end;
    errno = 0;
#define PD_KEY_STRV(name, doc)                                                                     \
    if (strcmp(key, #name) == 0)                                                                   \
        return pd_strv_push(&p->name, value);
#define PD_KEY_BOOL(name, def, doc)                                                                \
    if (strcmp(key, #name) == 0) {                                                                 \
        p->name = strcmp(value, "1") == 0;                                                         \
        return 0;                                                                                  \
    }
#define PD_KEY_INT(name, def, lo, hi, doc)                                                         \
    if (strcmp(key, #name) == 0) {                                                                 \
        p->name = strtoll(value, &end, 10);                                                        \
        return (*end || errno) ? -1 : 0;                                                           \
    }
#define PD_KEY_FLOAT(name, def, doc)                                                               \
    if (strcmp(key, #name) == 0) {                                                                 \
        p->name = strtod(value, &end);                                                             \
        return (*end || errno) ? -1 : 0;                                                           \
    }
#define PD_KEY_ENUM(name, ctype, def, parse, doc)                                                  \
    if (strcmp(key, #name) == 0) {                                                                 \
        p->name = (ctype)strtol(value, &end, 10);                                                  \
        return (*end || errno) ? -1 : 0;                                                           \
    }
#include "policy/policy_keys.def"
    if (strcmp(key, "protected_paths_set") == 0) {
        p->protected_paths_set = strcmp(value, "1") == 0;
        return 0;
    }
    return -1;
}

/* Append a copy of value to the list (v, n). 0 or -1. */
static int push(char ***v, size_t *n, const char *value)
{
    char *copy = strdup(value);
    char **nv = copy ? realloc(*v, (*n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(copy);
        return -1;
    }
    *v = nv;
    (*v)[(*n)++] = copy;
    return 0;
}

/* A kernel_* line into g (NULL: skipped). *handled false when key is none. */
static int set_grant(struct pd_kernel_grants *g, const char *key, const char *value, bool *handled)
{
    *handled = strncmp(key, "kernel", 6) == 0;
    if (!*handled || !g)
        return 0;
    if (strcmp(key, "kernel") == 0)
        g->on = strcmp(value, "1") == 0;
    else if (strcmp(key, "kernel_no_exec_writes") == 0)
        g->no_exec_writes = strcmp(value, "1") == 0;
    else if (strcmp(key, "kernel_exec") == 0)
        return pd_strv_push(&g->exec, value);
    else if (strcmp(key, "kernel_read") == 0)
        return pd_strv_push(&g->read, value);
    else if (strcmp(key, "kernel_write") == 0)
        return pd_strv_push(&g->write, value);
    else if (strcmp(key, "kernel_dev") == 0)
        return pd_strv_push(&g->dev, value);
    else if (strcmp(key, "kernel_readonly") == 0)
        return pd_strv_push(&g->readonly, value);
    else
        return -1;
    return 0;
}

static int set_context(struct pd_ctx *c, struct pd_policy *p, const char *key, const char *value,
                       bool *handled)
{
    *handled = true;
    if (strcmp(key, "workspace") == 0)
        snprintf(c->workspace, sizeof c->workspace, "%s", value);
    else if (strcmp(key, "home") == 0)
        snprintf(c->home, sizeof c->home, "%s", value);
    else if (strcmp(key, "path") == 0)
        snprintf(c->path_env, sizeof c->path_env, "%s", value);
    else if (strcmp(key, "npolicy_roots") == 0)
        c->npolicy_roots = (size_t)strtoul(value, NULL, 10);
    else if (strcmp(key, "private_net") == 0)
        c->private_net = strcmp(value, "1") == 0;
    else if (strcmp(key, "file") == 0)
        return (p->file = strdup(value)) ? 0 : -1;
    else if (strcmp(key, "git_dirs_known") == 0)
        c->git_dirs_known = strcmp(value, "1") == 0;
    else if (strcmp(key, "git_dir") == 0)
        return pd_ctx_add_git_dir(c, value);
    else if (strcmp(key, "go_tmp") == 0)
        snprintf(c->go_tmp, sizeof c->go_tmp, "%s", value);
    else if (strcmp(key, "temp_home") == 0)
        snprintf(c->temp_home, sizeof c->temp_home, "%s", value);
    else if (strcmp(key, "root") == 0)
        return push(&c->roots, &c->nroots, value);
    else if (strcmp(key, "read_root") == 0)
        return push(&c->read_roots, &c->nread_roots, value);
    else {
        *handled = false;
    }
    return 0;
}

int pd_compiled_load(const char *text, struct pd_policy *p, struct pd_ctx *c, char *err,
                     size_t errlen)
{
    return pd_compiled_load_grants(text, p, c, NULL, err, errlen);
}

int pd_compiled_load_grants(const char *text, struct pd_policy *p, struct pd_ctx *c,
                            struct pd_kernel_grants *g, char *err, size_t errlen)
{
    if (g)
        memset(g, 0, sizeof *g);
    pd_policy_defaults(p);
    memset(c, 0, sizeof *c);
    c->policy = p;
    if (strncmp(text, MAGIC, strlen(MAGIC)) != 0) {
        snprintf(err, errlen, "not a compiled policy (bad header)");
        return -1;
    }
    char *copy = strdup(text + strlen(MAGIC));
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    bool ended = false;
    int lineno = 1;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (strcmp(line, "end") == 0) {
            ended = true;
            break;
        }
        char *sp = strchr(line, ' ');
        if (!sp) {
            snprintf(err, errlen, "line %d: no value", lineno);
            goto fail;
        }
        *sp = '\0';
        unescape(sp + 1);
        bool handled;
        int rc = set_context(c, p, line, sp + 1, &handled);
        if (!handled)
            rc = set_grant(g, line, sp + 1, &handled);
        if (!handled)
            rc = set_scalar(p, line, sp + 1);
        if (rc) {
            snprintf(err, errlen, "line %d: bad entry '%s'", lineno, line);
            goto fail;
        }
    }
    free(copy);
    if (!ended || c->workspace[0] != '/' || c->npolicy_roots > c->nroots) {
        snprintf(err, errlen, "truncated or incomplete compiled policy");
        goto failed;
    }
    return 0;
fail:
    free(copy);
failed:
    pd_ctx_free(c);
    pd_policy_free(p);
    if (g)
        pd_kernel_grants_free(g);
    return -1;
}
