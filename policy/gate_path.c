/* policy/gate_path.c - judge one file-system operation on one path.
 *
 * Order (most specific reason first): deny_globs, built-in secrets (unless
 * allow_secrets lifts them for the path), then for writes the policy file
 * and protected paths (the built-in list minus unprotect_paths, plus
 * protected_paths), then the scope: writes must lie in a writable root;
 * named paths (argv, tool calls) are judged as reads and must lie in the
 * readable scope (the workspace, the writable roots, read_paths, the system
 * folders). Reads and execs the live gate sees are judged by the patterns
 * only: the kernel layers decide what outside the workspace is readable. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/toml/toml_lex.h"

const char *pd_op_name(enum pd_op op)
{
    switch (op) {
    case PD_OP_READ:
        return "read";
    case PD_OP_WRITE:
        return "write";
    case PD_OP_CREATE:
        return "create";
    case PD_OP_DELETE:
        return "delete";
    case PD_OP_EXEC:
        return "exec";
    case PD_OP_NAME:
        return "name";
    }
    return "?";
}

int pd_op_parse(const char *s)
{
    for (int op = PD_OP_READ; op <= PD_OP_NAME; op++)
        if (strcmp(s, pd_op_name((enum pd_op)op)) == 0)
            return op;
    return -1;
}

void pd_verdict_allow(struct pd_verdict *v)
{
    v->deny = false;
    v->reason = NULL;
    v->key = NULL;
    v->pattern = NULL;
    v->message[0] = '\0';
}

void pd_verdict_deny(struct pd_verdict *v, const char *reason, const char *key, const char *fmt,
                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    v->deny = true;
    v->reason = reason;
    v->key = key;
    v->pattern = NULL;
}

static bool is_write(enum pd_op op)
{
    return op == PD_OP_WRITE || op == PD_OP_CREATE || op == PD_OP_DELETE;
}

static const char *match_list(const char *const *list, size_t n, const char *rel, const char *abs,
                              const char *home)
{
    for (size_t k = 0; k < n && list[k]; k++)
        if (pd_glob_match(list[k], rel, abs, home, true))
            return list[k];
    return NULL;
}

bool pd_builtin_unprotected(const struct pd_policy *p, const char *pattern)
{
    for (size_t k = 0; k < p->unprotect_paths.n; k++)
        if (strcmp(p->unprotect_paths.v[k], pattern) == 0)
            return true;
    return false;
}

/* The built-in protected patterns that unprotect_paths keeps, with git's
 * config and hooks decided by the repositories that existed at the start
 * (policy/gate_git.c). */
static const char *match_builtin_protected(const struct pd_ctx *c, const char *rel, const char *abs)
{
    const struct pd_policy *p = c->policy;
    const char *hit = pd_git_protected(c, abs);
    if (hit && !pd_builtin_unprotected(p, hit))
        return hit;
    for (size_t k = 0; pd_builtin_protected[k]; k++)
        if (!pd_git_builtin_pattern(pd_builtin_protected[k]) &&
            !pd_builtin_unprotected(p, pd_builtin_protected[k]) &&
            pd_glob_match(pd_builtin_protected[k], rel, abs, c->home, true))
            return pd_builtin_protected[k];
    return NULL;
}

const char *pd_match_protected(const struct pd_ctx *c, const char *rel, const char *abs)
{
    const struct pd_policy *p = c->policy;
    const char *hit = match_list((const char *const *)p->protected_paths.v, p->protected_paths.n,
                                 rel, abs, c->home);
    return hit ? hit : match_builtin_protected(c, rel, abs);
}

const char *pd_secret_lifted(const struct pd_ctx *c, const char *rel, const char *abs)
{
    const struct pd_strv *a = &c->policy->allow_secrets;
    for (size_t k = 0; k < a->n; k++) {
        const char *e = a->v[k];
        /* a relative entry names a path of the workspace, never ~/.npmrc */
        bool absolute = e[0] == '/' || (e[0] == '~' && e[1] == '/');
        if ((absolute || rel) && pd_glob_match(e, rel, abs, c->home, true))
            return e;
    }
    return NULL;
}

bool pd_readable_scope(const struct pd_ctx *c, const char *abs)
{
    if (pd_path_under(abs, c->workspace))
        return true;
    for (size_t k = 0; k < c->npolicy_roots; k++)
        if (pd_path_under(abs, c->roots[k]))
            return true;
    for (size_t k = 0; k < c->nread_roots; k++)
        if (pd_path_under(abs, c->read_roots[k]))
            return true;
    for (size_t k = 0; pd_system_read_dirs[k]; k++)
        if (pd_path_under(abs, pd_system_read_dirs[k]))
            return true;
    return match_list(pd_builtin_writable, (size_t)-1, NULL, abs, c->home) != NULL;
}

/* The message is "<subject> (<reason>) [<rule>]"; the bracket names the rule
 * and, when a link or ".." made it differ, the path that was judged. */
static void deny(struct pd_verdict *v, const struct pd_ctx *c, const char *reason, const char *key,
                 const char *pattern, const char *rule_text)
{
    char shown[PD_PATH_MAX + 16] = "";
    v->deny = true;
    v->reason = reason;
    v->key = key;
    v->pattern = pattern;
    const char *rel = pd_path_under(v->resolved, c->workspace);
    char cleaned[PD_PATH_MAX];
    pd_path_clean(v->subject, cleaned, sizeof cleaned);
    const char *judged = rel ? (rel[0] ? rel : ".") : v->resolved;
    if (v->resolved[0] && strcmp(cleaned, judged) != 0 && strcmp(cleaned, v->resolved) != 0)
        snprintf(shown, sizeof shown, "; resolved %s", judged);
    snprintf(v->message, sizeof v->message, "%s (%s) [%s%s]", v->subject, reason, rule_text, shown);
}

/* follow: judge what the path leads to (pd_path_normalize); else judge the
 * name itself (pd_path_normalize_name). */
static void gate(const struct pd_ctx *c, enum pd_op op, const char *base, const char *path,
                 bool follow, struct pd_verdict *v)
{
    const struct pd_policy *p = c->policy;
    char rule[PD_PATH_MAX + 64];
    pd_verdict_allow(v);
    v->op = op;
    snprintf(v->subject, sizeof v->subject, "%s", path);
    v->resolved[0] = '\0';
    if (!base)
        base = c->cwd[0] ? c->cwd : c->workspace;
    int rc = follow ? pd_path_normalize(base, c->home, path, v->resolved, sizeof v->resolved)
                    : pd_path_normalize_name(base, c->home, path, v->resolved, sizeof v->resolved);
    if (rc != 0) {
        snprintf(rule, sizeof rule, "%s", strerror(errno));
        deny(v, c, PD_REASON_UNRESOLVABLE, "path", NULL, rule);
        return;
    }
    const char *rel = pd_path_under(v->resolved, c->workspace);
    const char *hit;

    if ((hit = pd_match_secret_list((const char *const *)p->deny_globs.v, p->deny_globs.n, op, rel,
                                    v->resolved, c->home))) {
        snprintf(rule, sizeof rule, "deny_globs: %s", hit);
        deny(v, c, PD_REASON_DENY_GLOB, "deny_globs", hit, rule);
        return;
    }
    /* the run's own temp home holds nothing of the user's (pd_in_temp_home) */
    if (!pd_in_temp_home(c, v->resolved) &&
        (hit = pd_match_builtin_secret(op, rel, v->resolved, c->home)) &&
        !pd_secret_lifted(c, rel, v->resolved)) {
        snprintf(rule, sizeof rule, "built-in secret: %s", hit);
        deny(v, c, PD_REASON_SECRET, "secrets", hit, rule);
        return;
    }
    if (op == PD_OP_READ || op == PD_OP_EXEC)
        return;
    if (is_write(op)) {
        if (p->file && strcmp(p->file, v->resolved) == 0) {
            deny(v, c, PD_REASON_PROTECTED, "policy_file", p->file, "the policy file in use");
            return;
        }
        if ((hit = pd_match_protected(c, rel, v->resolved)) ||
            (op == PD_OP_DELETE && (hit = pd_git_dir_protected(c, v->resolved)))) {
            snprintf(rule, sizeof rule, "protected_paths: %s", hit);
            deny(v, c, PD_REASON_PROTECTED, "protected_paths", hit, rule);
            return;
        }
        if (match_list(pd_builtin_writable, (size_t)-1, NULL, v->resolved, c->home))
            return;
        /* /dev/stdout and friends as written: the stream the process already
         * holds, wherever it was redirected to */
        char given[PD_PATH_MAX];
        pd_path_clean(path, given, sizeof given);
        if (strncmp(given, "/dev/", 5) == 0 &&
            match_list(pd_builtin_writable, (size_t)-1, NULL, given, c->home))
            return;
    }
    if (op == PD_OP_NAME) {
        /* a named path is read: what the command writes is judged when it
         * writes (the live gate, Landlock, the post-run scan) */
        if (pd_readable_scope(c, v->resolved))
            return;
        char list[PD_PATH_MAX];
        pd_strv_join(&p->read_paths, list, sizeof list);
        snprintf(rule, sizeof rule, "readable: the workspace %s, the system folders%s%s",
                 c->workspace, list[0] ? ", read_paths: " : "", list);
        deny(v, c, PD_REASON_OUTSIDE_WS, "read_paths", NULL, rule);
        return;
    }
    /* scope: writes may touch every root */
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(v->resolved, c->roots[k]))
            return;
    if (!rel) {
        snprintf(rule, sizeof rule, "workspace: %s", c->workspace);
        deny(v, c, PD_REASON_OUTSIDE_WS, "workspace", NULL, rule);
        return;
    }
    char list[PD_PATH_MAX];
    pd_strv_join(&p->allow_paths, list, sizeof list);
    snprintf(rule, sizeof rule, "allow_paths: %s", list);
    deny(v, c, PD_REASON_OUTSIDE_ALLOW, "allow_paths", NULL, rule);
}

void pd_gate_path(const struct pd_ctx *c, enum pd_op op, const char *base, const char *path,
                  struct pd_verdict *v)
{
    gate(c, op, base, path, true, v);
}

void pd_gate_name(const struct pd_ctx *c, enum pd_op op, const char *base, const char *path,
                  struct pd_verdict *v)
{
    gate(c, op, base, path, false, v);
}
