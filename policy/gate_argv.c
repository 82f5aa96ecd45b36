/* policy/gate_argv.c - the argv gate: which program may run, and which
 * arguments name paths that the policy denies. "Flags are not paths", and
 * neither are numbers, versions, URLs, package specs or prose. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "policy/toml/toml_lex.h"

/* 1.5, 3.11, v2.0.1, 1.2.3-rc1: digits and dots, an optional v, a suffix. */
static bool is_version(const char *s)
{
    if (*s == 'v' || *s == 'V')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    bool dot = false;
    for (; *s; s++) {
        if (*s == '.')
            dot = true;
        else if (!isalnum((unsigned char)*s) && *s != '-' && *s != '+')
            return false;
    }
    return dot;
}

static bool is_url(const char *s)
{
    const char *p = s;
    if (!isalpha((unsigned char)*p))
        return false;
    while (isalnum((unsigned char)*p) || *p == '+' || *p == '.' || *p == '-')
        p++;
    if (strncmp(p, "://", 3) == 0)
        return true;
    /* scp-like git remotes: user@host:path */
    const char *at = strchr(s, '@'), *colon = strchr(s, ':'), *slash = strchr(s, '/');
    return at && colon && at < colon && (!slash || colon < slash);
}

bool pd_looks_like_path(const char *arg, const char *base)
{
    if (!arg[0] || arg[0] == '-')
        return false;
    bool starts_pathy = arg[0] == '/' || arg[0] == '~' || strncmp(arg, "./", 2) == 0 ||
                        strncmp(arg, "../", 3) == 0 || strcmp(arg, ".") == 0 ||
                        strcmp(arg, "..") == 0;
    if (starts_pathy)
        return true;
    if (base) { /* an existing file is a path, whatever its name looks like */
        char joined[PD_PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(joined, sizeof joined, "%s/%s", base, arg) < sizeof joined &&
            lstat(joined, &st) == 0)
            return true;
    }
    if (strpbrk(arg, " \t\r\n"))
        return false;
    if (is_url(arg) || is_version(arg))
        return false;
    if (strstr(arg, "==") || strstr(arg, ">=") || strstr(arg, "<=") || strstr(arg, "~="))
        return false; /* package specs: requests==2.31.0 */
    if (strchr(arg, '/') || arg[0] == '.')
        return true;
    const char *dot = strrchr(arg, '.');
    return dot && dot[1];
}

const char *pd_path_arg(const char *arg, const char *base)
{
    if (arg[0] == '-') {
        const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
        return eq && pd_looks_like_path(eq + 1, base) ? eq + 1 : NULL;
    }
    return pd_looks_like_path(arg, base) ? arg : NULL;
}

static bool is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int pd_resolve_program(const struct pd_ctx *c, const char *name, const char *base, char *out,
                       size_t outlen)
{
    char cand[PD_PATH_MAX];
    if (!name[0]) {
        errno = ENOENT;
        return -1;
    }
    if (strchr(name, '/')) {
        /* as execve resolves it: the directory physically (x/../.. through a
         * link goes where the kernel goes), the last component kept, so that
         * venv/bin/python still finds its pyvenv.cfg */
        char dir[PD_PATH_MAX];
        const char *slash = strrchr(name, '/');
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - name), name);
        if (pd_path_normalize(base ? base : c->workspace, c->home, dir[0] ? dir : "/", cand,
                              sizeof cand))
            return -1;
        size_t clen = strlen(cand), slen = strlen(slash);
        if (clen + slen >= sizeof cand)
            return -1;
        if (strcmp(cand, "/") == 0)
            clen = 0;
        memcpy(cand + clen, slash, slen + 1);
        if (!is_exec_file(cand))
            return -1;
        snprintf(out, outlen, "%s", cand);
        return 0;
    }
    /* execvp's search, minus relative PATH entries: a program found through
     * "." or "" would be whatever the workspace holds under that name. */
    const char *p = c->path_env;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && p[0] == '/' &&
            (size_t)snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, name) < sizeof cand &&
            is_exec_file(cand)) {
            snprintf(out, outlen, "%s", cand);
            return 0;
        }
        p += len + (e ? 1 : 0);
    }
    errno = ENOENT;
    return -1;
}

static void binary_deny(struct pd_verdict *v, const char *name, const struct pd_policy *p,
                        const char *why)
{
    char list[PD_MSG_MAX / 2];
    pd_strv_join(&p->allow_binaries, list, sizeof list);
    v->deny = true;
    v->reason = PD_REASON_BINARY;
    v->key = "allow_binaries";
    v->pattern = NULL;
    if (why)
        snprintf(v->message, sizeof v->message, "binary '%s' %s [allow_binaries: %s]", name, why,
                 list);
    else
        snprintf(v->message, sizeof v->message,
                 "binary '%s' not in allow_binaries [allow_binaries: %s]", name, list);
}

static bool in_roots(const struct pd_ctx *c, const char *real)
{
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(real, c->roots[k]))
            return true;
    return false;
}

/* Neither the path nor the file it leads to lies in a writable root: the
 * sandboxed command cannot swap it for another program. */
static bool outside_roots(const struct pd_ctx *c, const char *path)
{
    char real[PD_PATH_MAX];
    return pd_realpath(path, real) && !in_roots(c, path) && !in_roots(c, real);
}

static int entry_file(const struct pd_ctx *c, const char *entry, char *out, size_t outlen);

int pd_binary_entry_file(const struct pd_ctx *c, const char *entry, char *out, size_t outlen)
{
    /* the answer depends on the context and its writable roots, which grow
     * while a run is prepared (temp home, /dev/shm) */
    char key[PD_PATH_MAX + 64];
    bool keyed = (size_t)snprintf(key, sizeof key, "%p %zu %s", (const void *)c, c->nroots, entry) <
                 sizeof key;
    if (keyed && pd_memo_lookup(key, out, outlen))
        return 0;
    if (entry_file(c, entry, out, outlen) != 0)
        return -1;
    if (keyed)
        pd_memo_remember(key, out);
    return 0;
}

static int entry_file(const struct pd_ctx *c, const char *entry, char *out, size_t outlen)
{
    char cand[PD_PATH_MAX];
    if (strchr(entry, '/')) {
        /* "./bin/app", "bin/app", "~/bin/app", "/opt/x": that exact file */
        if (pd_path_normalize(c->workspace, c->home, entry, cand, sizeof cand) != 0 ||
            !is_exec_file(cand))
            return -1;
        snprintf(out, outlen, "%s", cand);
        return 0;
    }
    /* execvp's search, skipping what the run could replace: a PATH entry
     * such as .venv/bin inside a writable root names no program here. */
    for (const char *p = c->path_env; *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && p[0] == '/' &&
            (size_t)snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, entry) < sizeof cand &&
            is_exec_file(cand) && outside_roots(c, cand)) {
            snprintf(out, outlen, "%s", cand);
            return 0;
        }
        p += len + (e ? 1 : 0);
    }
    errno = ENOENT;
    return -1;
}

static bool same_file(const struct stat *st, const char *path)
{
    struct stat o;
    return stat(path, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

const char *pd_binary_entry_of(const struct pd_ctx *c, const char *file)
{
    struct stat st;
    char entry_file[PD_PATH_MAX];
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    const struct pd_strv *ab = &c->policy->allow_binaries;
    for (size_t k = 0; k < ab->n; k++)
        if (pd_binary_entry_file(c, ab->v[k], entry_file, sizeof entry_file) == 0 &&
            same_file(&st, entry_file))
            return ab->v[k];
    return NULL;
}

/* Is dir (a real path) one of the context PATH's directories outside the
 * writable roots? */
static bool path_dir(const struct pd_ctx *c, const char *dir)
{
    char d[PD_PATH_MAX], real[PD_PATH_MAX];
    for (const char *p = c->path_env; *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && p[0] == '/' && len < sizeof d) {
            snprintf(d, sizeof d, "%.*s", (int)len, p);
            if (pd_realpath(d, real) && strcmp(real, dir) == 0 && !in_roots(c, real))
                return true;
        }
        p += len + (e ? 1 : 0);
    }
    return false;
}

bool pd_binary_versioned_alias(const struct pd_ctx *c, const char *entry, const char *invoked,
                               const char *real)
{
    char file[PD_PATH_MAX], dir[PD_PATH_MAX];
    const char *slash = strrchr(real, '/');
    const char *name = strrchr(invoked, '/');
    name = name ? name + 1 : invoked;
    if (strchr(entry, '/') || !slash || strcmp(name, entry) != 0 ||
        strncmp(slash + 1, entry, strlen(entry)) != 0 ||
        pd_binary_entry_file(c, entry, file, sizeof file) == 0)
        return false;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - real), real);
    return path_dir(c, dir[0] ? dir : "/");
}

void pd_gate_binary(const struct pd_ctx *c, const char *argv0, const char *base,
                    struct pd_verdict *v, bool *missing)
{
    const struct pd_policy *p = c->policy;
    char invoked[PD_PATH_MAX], real[PD_PATH_MAX];
    pd_verdict_allow(v);
    v->op = PD_OP_EXEC;
    snprintf(v->subject, sizeof v->subject, "%s", argv0);
    v->resolved[0] = '\0';
    *missing = false;
    const char *slash = strrchr(argv0, '/');
    const char *name = slash ? slash + 1 : argv0;
    bool found = pd_resolve_program(c, argv0, base, invoked, sizeof invoked) == 0;
    if (found && pd_realpath(invoked, real))
        snprintf(v->resolved, sizeof v->resolved, "%s", real);
    else if (found)
        snprintf(v->resolved, sizeof v->resolved, "%s", invoked);
    if (p->allow_binaries.n == 0) {
        *missing = !found;
        return;
    }
    bool name_listed = false;
    for (size_t k = 0; k < p->allow_binaries.n; k++)
        name_listed |= strcmp(p->allow_binaries.v[k], name) == 0;
    if (!found) {
        /* nothing to compare: a listed name is the caller's call (the exec
         * fails by itself), any other name is not allowed */
        if (name_listed)
            *missing = true;
        else
            binary_deny(v, name, p, NULL);
        return;
    }
    /* By identity: the file that will run is the very file an entry names
     * (gmake -> make and .venv/bin/python -> python3 match their targets; a
     * link named python3 that leads to id does not). */
    if (pd_binary_entry_of(c, invoked))
        return;
    for (size_t k = 0; k < p->allow_binaries.n; k++)
        if (pd_binary_versioned_alias(c, p->allow_binaries.v[k], invoked, v->resolved))
            return;
    char why[PD_PATH_MAX + 160];
    if (name_listed && in_roots(c, v->resolved)) {
        snprintf(why, sizeof why,
                 "resolves to %s, a file the sandboxed command can write (a bare name in "
                 "allow_binaries matches only programs outside the writable roots)",
                 v->resolved);
        binary_deny(v, name, p, why);
    } else if (name_listed) {
        snprintf(why, sizeof why,
                 "resolves to %s, not the program allow_binaries names (programs are matched "
                 "by identity, not by name)",
                 v->resolved);
        binary_deny(v, name, p, why);
    } else {
        binary_deny(v, name, p, NULL);
    }
}

/* A named path denied only for where a link in its last component leads
 * (outside the workspace or allow_paths, or a loop) while the name itself
 * is in scope: the command may act on the link itself (rm, mv, ln -sf,
 * cp -a, tar), and what it does through the link is judged when it does it
 * (the live gate, Landlock). What the target matches - a deny glob, a
 * secret, a protected path - still denies: src/link -> ../.env is .env. */
static bool only_the_link_leads_out(const struct pd_ctx *c, const char *arg,
                                    const struct pd_verdict *v)
{
    if (strcmp(v->reason, PD_REASON_OUTSIDE_WS) != 0 &&
        strcmp(v->reason, PD_REASON_OUTSIDE_ALLOW) != 0 &&
        strcmp(v->reason, PD_REASON_UNRESOLVABLE) != 0)
        return false;
    struct pd_verdict name;
    pd_gate_name(c, PD_OP_NAME, c->cwd[0] ? c->cwd : c->workspace, arg, &name);
    return !name.deny;
}

/* Shells and script interpreters: what follows their code option is code
 * (it runs under the live gate), never a path. */
static bool is_interpreter(const char *prog)
{
    const char *base = strrchr(prog, '/');
    base = base ? base + 1 : prog;
    static const char *const shells[] = {"sh",   "bash", "dash",    "zsh", "ksh",
                                         "mksh", "fish", "busybox", NULL};
    for (size_t k = 0; shells[k]; k++)
        if (strcmp(base, shells[k]) == 0)
            return true;
    static const char *const families[] = {"python", "pypy", "node", "nodejs", "perl",    "ruby",
                                           "php",    "lua",  "deno", "bun",    "Rscript", NULL};
    for (size_t k = 0; families[k]; k++) {
        size_t n = strlen(families[k]);
        /* python3, python3.11, perl5.36: the family name and a version */
        if (strncmp(base, families[k], n) == 0 &&
            strspn(base + n, "0123456789.") == strlen(base + n))
            return true;
    }
    return false;
}

/* "-c", "-e", "-E", "-m", "-p", "--eval", "--print", "--command", and
 * combined short flags ending in c or e ("-lc", "-ec", perl's "-ne",
 * node's "-pe"): the next word is code (or a module name), never a path. */
static bool code_option(const char *opt)
{
    static const char *const opts[] = {"-c",     "-e",      "-E",        "-m", "-p",
                                       "--eval", "--print", "--command", NULL};
    for (size_t k = 0; opts[k]; k++)
        if (strcmp(opt, opts[k]) == 0)
            return true;
    size_t n = strlen(opt);
    return n > 2 && opt[0] == '-' && opt[1] != '-' && (opt[n - 1] == 'c' || opt[n - 1] == 'e') &&
           strspn(opt + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == n - 1;
}

/* "--eval=CODE", "--print=CODE", "--command=CODE": code in the word itself. */
static bool attached_code(const char *arg)
{
    static const char *const opts[] = {"--eval=", "--print=", "--command=", NULL};
    for (size_t k = 0; opts[k]; k++)
        if (strncmp(arg, opts[k], strlen(opts[k])) == 0)
            return true;
    return false;
}

void pd_gate_argv(const struct pd_ctx *c, int argc, char *const argv[], struct pd_verdict *v,
                  bool *missing)
{
    /* relative names start where the command starts */
    const char *base = c->cwd[0] ? c->cwd : c->workspace;
    pd_gate_binary(c, argv[0], base, v, missing);
    if (v->deny)
        return;
    bool missing_bin = *missing;
    const bool interp = is_interpreter(argv[0]);
    for (int k = 1; k < argc; k++) {
        if (interp && (code_option(argv[k - 1]) || attached_code(argv[k])))
            continue; /* code, judged when it runs */
        const char *arg = pd_path_arg(argv[k], base);
        if (!arg)
            continue;
        pd_gate_path(c, PD_OP_NAME, base, arg, v);
        if (v->deny && !only_the_link_leads_out(c, arg, v))
            return;
    }
    pd_verdict_allow(v);
    *missing = missing_bin;
}
