/* policy/shell/shell_judge.c - the outcomes of pd_gate_shell (literal deny,
 * unjudged, allow) and the primitives that judge one word in one position:
 * a path read or written, names, data, a program, an argument of a program
 * the table does not know. Relative paths are judged against every
 * possible working directory: what a path is (a secret, a deny glob, a
 * protected path) denies from any of them; where it lies (outside the
 * workspace or allow_paths) denies only from all of them, and is unjudged
 * from some. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/gate_search.h"
#include "policy/hosts.h"
#include "policy/shell/shell_judge.h"

void sj_unjudged(struct sh_judge *j, const char *fmt, ...)
{
    if (j->unjudged || j->denied)
        return;
    j->unjudged = true;
    int n = snprintf(j->umsg, sizeof j->umsg, "%s: ", PD_REASON_UNJUDGED);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->umsg + n, sizeof j->umsg - (size_t)n, fmt, ap);
    va_end(ap);
}

void sj_deny(struct sh_judge *j, const struct pd_verdict *pv, const char *prefix)
{
    if (j->denied)
        return;
    *j->v = *pv;
    if (prefix)
        snprintf(j->v->message, sizeof j->v->message, "%s%s", prefix, pv->message);
    j->denied = true;
}

void sj_deny_msg(struct sh_judge *j, const char *reason, const char *key, const char *fmt, ...)
{
    if (j->denied)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->v->message, sizeof j->v->message, fmt, ap);
    va_end(ap);
    j->v->deny = true;
    j->v->reason = reason;
    j->v->key = key;
    j->v->pattern = NULL;
    j->denied = true;
}

/* A short, one-line quote of a word for a message: from its first
 * expansion when the word is long (a here-document body). */
static const char *excerpt(const char *text, char *buf, size_t len)
{
    const size_t max = 60;
    const char *s = text;
    if (strlen(s) > max) {
        const char *d = strpbrk(s, "$`");
        if (d)
            s = d;
    }
    size_t n = 0;
    for (; *s && n + 4 < len && n < max; s++)
        buf[n++] = (*s == '\n' || *s == '\t' || *s == '\r') ? ' ' : *s;
    if (*s && n + 4 < len) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static void where_text(const struct sh_judge *j, enum sj_where where, char *out, size_t len)
{
    const char *p = j->prog && j->prog[0] ? j->prog : NULL;
    switch (where) {
    case SJ_ARGS:
        snprintf(out, len, "in the arguments of %s", p ? p : "the command");
        break;
    case SJ_REDIR:
        snprintf(out, len, p ? "in a redirection of %s" : "in a redirection%s", p ? p : "");
        break;
    case SJ_PROGRAM:
        snprintf(out, len, "as the program name");
        break;
    case SJ_HEREDOC:
        snprintf(out, len, "in the here-document or here-string of %s", p ? p : "the command");
        break;
    }
}

static void unjudged_word(struct sh_judge *j, const char *text, unsigned kind, enum sj_where where)
{
    char ex[80], at[128];
    where_text(j, where, at, sizeof at);
    sj_unjudged(j, "`%s` is %s %s", excerpt(text, ex, sizeof ex), sj_kind_name(kind), at);
}

bool sj_runtime_word(const struct sh_judge *j, const struct pd_sh_word *w)
{
    return j->runtime_mark && strstr(w->text, j->runtime_mark);
}

static const char *op_prefix(enum pd_op op)
{
    switch (op) {
    case PD_OP_READ:
        return "read ";
    case PD_OP_WRITE:
        return "write ";
    case PD_OP_CREATE:
        return "create ";
    case PD_OP_DELETE:
        return "delete ";
    case PD_OP_EXEC:
        return "exec ";
    case PD_OP_NAME:
        break;
    }
    return NULL;
}

/* A deny by where the path lies (outside the workspace or allow_paths),
 * not by what it is. */
static bool scope_deny(const struct pd_verdict *pv)
{
    return strcmp(pv->reason, PD_REASON_OUTSIDE_WS) == 0 ||
           strcmp(pv->reason, PD_REASON_OUTSIDE_ALLOW) == 0;
}

/* Judge the literal path against every working directory (once when it
 * does not depend on one). What the path is (a secret, a deny glob, a
 * protected path) denies from any of them; where it lies denies only when
 * it lies outside from all of them - from some only (`cd src && echo x >
 * out.txt`: out.txt is outside allow_paths only if the cd failed, when the
 * && does not run the echo at all), the command is unjudged. */
static void judge_literal(struct sh_judge *j, enum pd_op op, const char *path)
{
    bool relative = path[0] != '/' && path[0] != '~';
    size_t n = relative ? j->cwd->n : 1, scoped = 0;
    struct pd_verdict first;
    for (size_t k = 0; k < n && !j->denied; k++) {
        struct pd_verdict pv;
        const char *base = relative ? j->cwd->dir[k] : j->c->workspace;
        const char *cred = pd_proc_credential(base, path);
        if (cred) { /* a process's environment or memory: a secret no pattern names */
            pd_verdict_allow(&pv);
            pv.op = op;
            snprintf(pv.subject, sizeof pv.subject, "%s", path);
            pv.resolved[0] = '\0';
            pd_verdict_deny(&pv, PD_REASON_SECRET, "secrets", "%s (%s) [credential source: %s]",
                            path, PD_REASON_SECRET, cred);
            pv.pattern = cred;
            sj_deny(j, &pv, op_prefix(op));
            return;
        }
        if (op == PD_OP_CREATE || op == PD_OP_DELETE)
            pd_gate_name(j->c, op, base, path, &pv);
        else
            pd_gate_path(j->c, op, base, path, &pv);
        if (!pv.deny)
            continue;
        if (strcmp(pv.reason, PD_REASON_UNRESOLVABLE) == 0) {
            char ex[80];
            sj_unjudged(j, "`%s` cannot be resolved (%s)", excerpt(path, ex, sizeof ex),
                        pv.message);
            continue;
        }
        if (!scope_deny(&pv)) {
            sj_deny(j, &pv, op_prefix(op));
            return;
        }
        if (scoped++ == 0)
            first = pv;
    }
    if (scoped == n) {
        sj_deny(j, &first, op_prefix(op));
    } else if (scoped) {
        char ex[80];
        sj_unjudged(j, "%s%s is %s from some of the directories the command may run in",
                    op_prefix(op), excerpt(path, ex, sizeof ex), first.reason);
    }
}

void sj_path_at(struct sh_judge *j, enum pd_op op, const struct pd_sh_word *w, const char *text,
                enum sj_where where)
{
    if (!text)
        text = w->text;
    if (j->denied || !text[0] || sj_runtime_word(j, w))
        return;
    unsigned kind = sj_word_kind(w, text);
    if (kind) {
        unjudged_word(j, text, kind, where);
        return;
    }
    if (strcmp(text, "-") == 0)
        return; /* stdin / stdout */
    char path[PD_PATH_MAX];
    if (!sj_literal_path(j, w, text, path, sizeof path)) {
        unjudged_word(j, text, SJX_LONG, where);
        return;
    }
    judge_literal(j, op, path);
}

void sj_read(struct sh_judge *j, const struct pd_sh_word *w, const char *text)
{
    sj_path_at(j, PD_OP_READ, w, text, SJ_ARGS);
}

void sj_write(struct sh_judge *j, enum pd_op op, const struct pd_sh_word *w, const char *text)
{
    sj_path_at(j, op, w, text, SJ_ARGS);
}

void sj_names(struct sh_judge *j, const struct pd_sh_word *w, const char *text)
{
    if (!text)
        text = w->text;
    unsigned kind = sj_word_kind(w, text);
    if (kind & (SJX_PARAM | SJX_CODEVAR | SJX_ARITHVAR | SJX_GLOB))
        unjudged_word(j, text, kind, SJ_ARGS);
}

void sj_data(struct sh_judge *j, const struct pd_sh_word *w, const char *text, bool split_ok)
{
    if (!text)
        text = w->text;
    unsigned kind = sj_word_kind(w, text);
    /* a glob names files of the working directory, secret folders among
     * them: it matters even where its names are only printed */
    unsigned bad = SJX_PARAM | SJX_CODEVAR | SJX_ARITHVAR | SJX_GLOB;
    if (!split_ok)
        bad |= SJX_BRACE | SJX_TILDE | SJX_SPLIT;
    if (kind & bad)
        unjudged_word(j, text, kind, SJ_ARGS);
}

bool sj_looks_like_path(const struct sh_judge *j, const char *text)
{
    for (size_t k = 0; k < j->cwd->n; k++)
        if (pd_looks_like_path(text, j->cwd->dir[k]))
            return true;
    return false;
}

static bool stat_any(const struct sh_judge *j, const char *text, bool dir)
{
    char abs[PD_PATH_MAX];
    struct stat st;
    for (size_t k = 0; k < j->cwd->n; k++)
        if (pd_path_normalize(j->cwd->dir[k], j->c->home, text, abs, sizeof abs) == 0 &&
            stat(abs, &st) == 0 && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
            return true;
    return false;
}

bool sj_is_dir(const struct sh_judge *j, const char *text)
{
    return stat_any(j, text, true);
}

bool sj_is_file(const struct sh_judge *j, const char *text)
{
    return stat_any(j, text, false);
}

void sj_generic(struct sh_judge *j, const struct pd_sh_word *w)
{
    const char *t = w->text;
    if (j->denied || sj_runtime_word(j, w))
        return;
    unsigned kind = sj_word_kind(w, NULL);
    if (t[0] == '-' && t[1] == '-') {
        const char *eq = strchr(t, '=');
        if (!eq) {
            if (kind)
                unjudged_word(j, t, kind, SJ_ARGS);
            return;
        }
        if (strpbrk(t, "$`") && strpbrk(t, "$`") < eq) {
            unjudged_word(j, t, kind, SJ_ARGS);
            return;
        }
        unsigned vk = sj_word_kind(w, eq + 1);
        if (vk & ~(SJX_ARITH | SJX_NUMPARAM))
            unjudged_word(j, eq + 1, vk, SJ_ARGS);
        else if (!vk && sj_looks_like_path(j, eq + 1))
            sj_read(j, w, eq + 1);
        return;
    }
    if (kind && !(kind & ~(SJX_NUMPARAM | SJX_ARITH)))
        return; /* a number: $?, $$, $((2*3)) */
    if (t[0] == '-') {
        if (kind)
            unjudged_word(j, t, kind, SJ_ARGS);
        return;
    }
    if (kind) {
        unjudged_word(j, t, kind, SJ_ARGS);
        return;
    }
    char path[PD_PATH_MAX];
    if (sj_literal_path(j, w, t, path, sizeof path) && sj_looks_like_path(j, path))
        judge_literal(j, PD_OP_READ, path);
    else if (strlen(t) >= PD_PATH_MAX)
        unjudged_word(j, t, SJX_LONG, SJ_ARGS);
}

/* Programs that only talk to the network (or exist to reach it). */
static const char *const network_programs[] = {
    "curl",     "wget",   "nc",          "ncat",         "netcat",      "ssh",   "scp",
    "sftp",     "telnet", "ftp",         "aria2c",       "http",        "https", "socat",
    "torsocks", "tsocks", "proxychains", "proxychains4", "lftp",        "rsh",   "rlogin",
    "mosh",     "ftpget", "ftpput",      "tftp",         "ssh-copy-id", NULL};

bool sj_network_program(const char *name)
{
    for (size_t k = 0; network_programs[k]; k++)
        if (strcmp(network_programs[k], name) == 0)
            return true;
    return false;
}

void sj_program_name(struct sh_judge *j, const char *name)
{
    const struct pd_policy *p = j->c->policy;
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    if (j->denied || !name[0])
        return;
    if (!slash && sj_is_builtin(name))
        return;
    /* allow_hosts: the network goes through the run's proxy; the hosts a
     * command names are judged with its words (sj_dispatch) */
    if (!p->allow_network && !pd_hosts_enabled(p) && sj_network_program(base)) {
        sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                    "%s needs the network (allow_network = false)", base);
        return;
    }
    if (!p->allow_binaries.n)
        return;
    /* a name with a slash is resolved from where the command runs */
    size_t n = slash && name[0] != '/' ? j->cwd->n : 1;
    for (size_t k = 0; k < n && !j->denied; k++) {
        struct pd_verdict pv;
        bool missing;
        pd_gate_binary(j->c, name, j->cwd->dir[k], &pv, &missing);
        if (pv.deny)
            sj_deny(j, &pv, NULL);
    }
}

bool sj_binary_allowed(const struct sh_judge *j, const char *name)
{
    if (!j->c->policy->allow_binaries.n)
        return true;
    for (size_t k = 0; k < j->cwd->n; k++) {
        struct pd_verdict pv;
        bool missing;
        pd_gate_binary(j->c, name, j->cwd->dir[k], &pv, &missing);
        if (pv.deny)
            return false;
    }
    return true;
}

void sj_program(struct sh_judge *j, const struct pd_sh_word *w)
{
    if (j->denied)
        return;
    if (sj_runtime_word(j, w)) {
        sj_unjudged(j, "%s runs a program named at run time (`%s`)", j->prog, w->text);
        return;
    }
    unsigned kind = sj_word_kind(w, NULL);
    if (kind) {
        unjudged_word(j, w->text, kind, SJ_PROGRAM);
        return;
    }
    sj_program_name(j, w->text);
}

/* Programs besides the network programs whose URL arguments name the
 * hosts they fetch from (pip install https://..., npm --registry=URL). */
static const char *const url_programs[] = {"pip",  "pip3", "pipx", "uv",    "npm", "npx",
                                           "yarn", "pnpm", "gem",  "cargo", NULL};

static bool url_program(const char *name)
{
    if (sj_network_program(name))
        return true;
    for (size_t k = 0; url_programs[k]; k++)
        if (strcmp(url_programs[k], name) == 0)
            return true;
    return false;
}

/* allow_hosts: every literal URL among the words of a program that reaches
 * the network (an operand, or the value of --opt=URL) is judged by its host
 * and port: `curl https://evil.test/x` is a literal deny. */
static void judge_urls(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n && !j->denied; k++) {
        if (!sj_is_literal(&w[k]))
            continue;
        const char *t = w[k].text;
        if (t[0] == '-') {
            const char *eq = strchr(t, '=');
            if (!eq)
                continue;
            t = eq + 1;
        }
        struct pd_verdict hv;
        if (pd_host_is_url(t) && pd_host_deny_target(j->c->policy, j->prog, t, 0, &hv))
            sj_deny(j, &hv, NULL);
    }
}

void sj_dispatch(struct sh_judge *j, const struct pd_sh_word *words, size_t n)
{
    if (n == 0 || j->denied)
        return;
    if (j->depth >= SJ_MAX_DEPTH) {
        sj_unjudged(j, "programs that run programs are nested more than %d deep", SJ_MAX_DEPTH);
        return;
    }
    const char *saved = j->prog;
    const char *slash = strrchr(words[0].text, '/');
    j->depth++;
    j->prog = slash ? slash + 1 : words[0].text;
    if (pd_hosts_enabled(j->c->policy) && url_program(j->prog))
        judge_urls(j, words, n);
    if (!j->denied && !sj_builtin(j, words, n) && !sj_unknown_wrapper(j, words, n))
        sj_program_args(j, words, n);
    j->prog = saved;
    j->depth--;
}
