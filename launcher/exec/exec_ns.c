/* launcher/exec/exec_ns.c - the namespace floor's part of the plan (what
 * platform/linux/ns_*.c applies in the child) and its coverage line.
 *
 *   keep      the spec's paths that a private /tmp or /dev/shm would hide,
 *             bound back with their mode (write roots writable, the rest
 *             read-only), parents first;
 *   hide      secrets that exist at the start: the snapshot's outermost
 *             entries denied for reading (deny_globs, built-in secrets) in
 *             the workspace and the writable roots, and the anchored home
 *             secrets (~/.ssh, ~/.aws, ...) that exist;
 *   readonly  the snapshot's other outermost denied entries: protected
 *             paths and the policy file;
 *   sockets   bound pathname UNIX sockets of the host (/proc/net/unix, read
 *             before the run leaves the host's network namespace) outside
 *             the writable roots, the run directory and allow_unix_sockets.
 * The child reports what it did in a shared page (it may be a fork in
 * sanitizer builds, so plain memory would not do; under valgrind the page
 * is a memfd, which the native process that applies the layers maps again
 * after its exec: exec_valgrind.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"
#include "launcher/scan/scan.h"

#define SOCKETS_MAX 4096

static int list_add(struct pd_strlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return -1;
    l->v[l->n++] = copy;
    return 0;
}

static bool list_has(const struct pd_strlist *l, const char *s)
{
    for (size_t k = 0; k < l->n; k++)
        if (strcmp(l->v[k], s) == 0)
            return true;
    return false;
}

static void list_free(struct pd_strlist *l)
{
    for (size_t k = 0; k < l->n; k++)
        free(l->v[k]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static struct pd_path_list as_paths(const struct pd_strlist *l)
{
    return (struct pd_path_list){(const char *const *)l->v, l->n};
}

static bool hidden_by_private_tmp(const char *path)
{
    return pd_path_under(path, "/tmp") || pd_path_under(path, "/dev/shm");
}

/* ---- keep ----------------------------------------------------------------- */

static int keep_add(struct pd_exec_ns *n, const char *path, enum pd_keep_mode mode)
{
    if (!path || !hidden_by_private_tmp(path) || strcmp(path, "/tmp") == 0 ||
        strcmp(path, "/dev/shm") == 0)
        return 0;
    if (n->nkeep == PD_NS_KEEP_MAX) {
        errno = E2BIG;
        return -1;
    }
    n->keep[n->nkeep++] = (struct pd_keep){path, mode};
    return 0;
}

/* Shorter paths first (parents before what lies beneath them); for the same
 * path the writable entry first, so that it covers the others. */
static int keep_cmp(const void *a, const void *b)
{
    const struct pd_keep *x = a, *y = b;
    size_t lx = strlen(x->path), ly = strlen(y->path);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c != 0)
        return c;
    return (y->mode == PD_KEEP_WRITE) - (x->mode == PD_KEEP_WRITE);
}

/* Parents first; an entry beneath an earlier one of the same mode, or
 * beneath a writable one (Landlock grants everything below a write root),
 * adds nothing. */
static void keep_sort(struct pd_exec_ns *n)
{
    qsort(n->keep, n->nkeep, sizeof n->keep[0], keep_cmp);
    size_t out = 0;
    for (size_t k = 0; k < n->nkeep; k++) {
        bool covered = false;
        for (size_t j = 0; j < out && !covered; j++)
            covered = (strcmp(n->keep[j].path, n->keep[k].path) == 0 ||
                       pd_path_under(n->keep[k].path, n->keep[j].path)) &&
                      (n->keep[j].mode == n->keep[k].mode || n->keep[j].mode == PD_KEEP_WRITE);
        if (!covered)
            n->keep[out++] = n->keep[k];
    }
    n->nkeep = out;
}

static int plan_keep(struct pd_exec_plan *p)
{
    struct pd_exec_ns *n = &p->ns;
    const struct pd_sandbox_spec *s = &p->spec;
    for (size_t k = 0; k < s->exec_paths.n; k++)
        if (keep_add(n, s->exec_paths.v[k], PD_KEEP_EXEC) != 0)
            return -1;
    for (size_t k = 0; k < s->read_paths.n; k++)
        if (keep_add(n, s->read_paths.v[k], PD_KEEP_READ) != 0)
            return -1;
    for (size_t k = 0; k < s->write_paths.n; k++)
        if (keep_add(n, s->write_paths.v[k], PD_KEEP_WRITE) != 0)
            return -1;
    /* the report socket of the live gate lives in the run directory */
    if (keep_add(n, p->rundir.path, PD_KEEP_READ) != 0)
        return -1;
    keep_sort(n);
    return 0;
}

/* ---- masks ---------------------------------------------------------------- */

struct mask_ctx {
    struct pd_exec_plan *p;
    int failed;
};

static void mask_entry(const char *path, void *user)
{
    struct mask_ctx *m = user;
    struct pd_exec_ns *n = &m->p->ns;
    const struct pd_ctx *c = m->p->ctx;
    struct pd_verdict v;
    /* Judged by the rules the live gate uses for a read: a denied read is a
     * secret; what may be read but not written is protected. */
    pd_gate_path(c, PD_OP_READ, NULL, path, &v);
    if (list_add(v.deny ? &n->hide : &n->readonly, path) != 0)
        m->failed = 1;
}

/* A home pattern names a path when only a trailing globstar follows a
 * literal: "~/.ssh/" + "**" is <home>/.ssh, "~/.kube/config" is itself. A
 * pattern with a wildcard elsewhere is left to Landlock (the home is not in
 * the run's read set). */
static int home_secret(struct pd_exec_ns *n, const char *home, const char *pat,
                       const struct pd_ctx *lifted)
{
    if (strncmp(pat, "~/", 2) != 0 || !home[0])
        return 0;
    char rel[PD_PATH_MAX], abs[PD_PATH_MAX];
    snprintf(rel, sizeof rel, "%s", pat + 2);
    size_t len = strlen(rel);
    if (len >= 3 && strcmp(rel + len - 3, "/**") == 0)
        rel[len - 3] = '\0';
    if (!rel[0] || strpbrk(rel, "*?[\\"))
        return 0;
    if ((size_t)snprintf(abs, sizeof abs, "%s/%s", home, rel) >= sizeof abs)
        return 0;
    struct stat st;
    if (lstat(abs, &st) != 0 || list_has(&n->hide, abs) ||
        (lifted && pd_secret_lifted(lifted, NULL, abs)))
        return 0;
    return list_add(&n->hide, abs);
}

static int plan_masks(struct pd_exec_plan *p, const struct pd_scan *scan)
{
    struct mask_ctx m = {p, 0};
    pd_scan_each_denied_top(scan, mask_entry, &m);
    if (m.failed)
        return -1;
    const struct pd_ctx *c = p->ctx;
    for (const char *const *b = pd_builtin_secrets; *b; b++)
        if (home_secret(&p->ns, c->home, *b, c) != 0) /* unless allow_secrets lifts it */
            return -1;
    const struct pd_strv *deny = &c->policy->deny_globs;
    for (size_t k = 0; k < deny->n; k++)
        if (home_secret(&p->ns, c->home, deny->v[k], NULL) != 0)
            return -1;
    return 0;
}

/* ---- host sockets --------------------------------------------------------- */

static bool socket_allowed(const struct pd_exec_plan *p, const char *path)
{
    const struct pd_ctx *c = p->ctx;
    if (hidden_by_private_tmp(path) || pd_path_under(path, p->rundir.path))
        return true;
    for (size_t k = 0; k < c->nroots; k++)
        if (strcmp(path, c->roots[k]) == 0 || pd_path_under(path, c->roots[k]))
            return true;
    const struct pd_strv *allow = &c->policy->allow_unix_sockets;
    for (size_t k = 0; k < allow->n; k++)
        if (strcmp(path, allow->v[k]) == 0)
            return true;
    return false;
}

/* Every bound pathname socket of the host's network namespace, from
 * /proc/net/unix: "Num RefCount Protocol Flags Type St Inode Path". */
static int plan_sockets(struct pd_exec_plan *p)
{
    FILE *f = fopen("/proc/net/unix", "re");
    if (!f) /* no procfs view of sockets: nothing to list (said in the docs) */
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0 && p->ns.sockets.n < SOCKETS_MAX) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        /* the path is what follows the seventh field */
        char *s = line;
        for (int field = 0; field < 7 && s; field++) {
            s += strspn(s, " ");
            s = strchr(s, ' ');
        }
        if (!s)
            continue;
        s += strspn(s, " ");
        if (s[0] != '/' || socket_allowed(p, s) || list_has(&p->ns.sockets, s))
            continue;
        if (list_add(&p->ns.sockets, s) != 0) {
            rc = -1;
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* ---- the plan ------------------------------------------------------------- */

/* Under valgrind: the report page in a memfd (close-on-exec here; the
 * child keeps it open for the native process that maps it again). */
static int report_memfd(struct pd_exec_plan *p)
{
    int fd = memfd_create("paldron-ns-report", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    void *page = MAP_FAILED;
    if (ftruncate(fd, (off_t)sizeof *p->ns.report) == 0)
        page = mmap(NULL, sizeof *p->ns.report, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    p->ns.report = page;
    p->ns.report_fd = fd;
    p->ns.report_memfd = true;
    return 0;
}

/* p->envp with TMPDIR=/tmp: what the command gets when the private /tmp is
 * there (the child chooses; it alone knows). */
static int plan_env(struct pd_exec_plan *p)
{
    size_t n = 0;
    while (p->envp[n])
        n++;
    p->ns.envp = calloc(n + 1, sizeof *p->ns.envp);
    if (!p->ns.envp)
        return -1;
    for (size_t k = 0; k < n; k++)
        p->ns.envp[k] = strncmp(p->envp[k], "TMPDIR=", 7) == 0 ? "TMPDIR=/tmp" : p->envp[k];
    return 0;
}

int pd_exec_ns_plan(struct pd_exec_plan *p, const struct pd_scan *scan)
{
    struct pd_ns_spec *ns = &p->spec.ns;
    const struct pd_policy *pol = p->ctx->policy;
    memset(ns, 0, sizeof *ns);
    ns->enable = pol->namespaces;
    ns->require = pol->require_namespaces;
    ns->workdir = p->cwd[0] ? p->cwd : p->ctx->workspace;
    if (p->valgrind) {
        if (report_memfd(p) != 0)
            return -1;
    } else {
        p->ns.report = mmap(NULL, sizeof *p->ns.report, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p->ns.report == MAP_FAILED) {
            p->ns.report = NULL;
            return -1;
        }
    }
    memset(p->ns.report, 0, sizeof *p->ns.report);
    ns->report = p->ns.report;
    if (!ns->enable)
        return 0;
    if (plan_keep(p) != 0 || plan_masks(p, scan) != 0 || plan_sockets(p) != 0 || plan_env(p) != 0)
        return -1;
    ns->keep = p->ns.keep;
    ns->nkeep = p->ns.nkeep;
    ns->hide = as_paths(&p->ns.hide);
    ns->readonly = as_paths(&p->ns.readonly);
    ns->sockets = as_paths(&p->ns.sockets);
    return 0;
}

void pd_exec_ns_coverage(const struct pd_exec_plan *p, bool always, FILE *out)
{
    const struct pd_ns_report *r = p->ns.report;
    const struct pd_policy *pol = p->ctx->policy;
    if (!p->isolated || !r)
        return;
    if (r->state == PD_NS_ACTIVE) {
        if (!always)
            return;
        fprintf(out,
                "paldron: coverage: kernel floor: %u secret path(s) masked, %u protected path(s) "
                "read-only, %u host socket(s) out of reach (%snamespaces)\n",
                r->hidden, r->readonly, r->sockets,
                r->user_ns ? (r->net_ns ? "user, mount, ipc, net " : "user, mount, ipc ")
                           : (r->net_ns ? "mount, ipc, net " : "mount, ipc "));
        return;
    }
    const char *cause = r->state == PD_NS_REFUSED ? r->cause
                        : !pol->namespaces        ? "namespaces = false in the policy"
                                                  : NULL;
    if (!cause) /* the run ended before the child got there */
        return;
    fprintf(out,
            "paldron: coverage: no namespaces (%s): without a private /tmp and /dev/shm, private "
            "IPC, kernel masks of secrets and protected paths, host UNIX sockets out of reach%s\n",
            cause,
            pol->allow_network ? ""
            /* allow_hosts_without_namespace: the host's network, the live
             * gate alone (the warning before the run said so) */
            : p->net.fallback ? ", a loopback-only network (allow_hosts is held by the live gate "
                                "alone)"
                              : ", a loopback-only network (non-UNIX sockets are refused instead)");
}

void pd_exec_ns_free(struct pd_exec_plan *p)
{
    list_free(&p->ns.hide);
    list_free(&p->ns.readonly);
    list_free(&p->ns.sockets);
    free(p->ns.envp);
    p->ns.envp = NULL;
    if (p->ns.report)
        munmap(p->ns.report, sizeof *p->ns.report);
    p->ns.report = NULL;
    if (p->ns.report_memfd)
        close(p->ns.report_fd);
    p->ns.report_memfd = false;
    p->ns.nkeep = 0;
}
