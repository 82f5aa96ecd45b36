/* launcher/exec/exec_sandbox.c - what the sandboxed command may touch (the spec
 * handed to platform/). Read + execute: the system directories a normal
 * toolchain needs and the resolved program itself (an allowed program named
 * by absolute path runs wherever it lives). With allow_binaries set, the
 * kernel floor: the system directories are only readable and execution is
 * granted on the files pd_exec_floor names alone (the allowed programs,
 * their interpreters, helper trees and companions, the loader); a writable
 * root executes nothing unless an allowed program lives there. Shared
 * libraries keep working from the read right: Landlock checks execve and
 * the loader's open for execution, not mmap with PROT_EXEC. Read: the
 * workspace, read_paths, /proc, the CPU topology (nproc, multiprocessing), the
 * cgroup limits and memory layout runtimes read at start. Everything:
 * the writable roots, the private temp home and /dev/shm (POSIX
 * semaphores), the workspace's persistent cache folder. The usual devices; /dev/tty only in
 * interactive mode (a captured command has no terminal, and what it writes must pass the output
 * scan). Nothing else: not $HOME, not /tmp, not the run directory around the home. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/exec/exec.h"
#include "policy/gate_exec.h"

static const char *const devices[] = {"/dev/null",    "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom", "/dev/pts",  "/dev/ptmx"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Keep dir/name (owned by the lists) and return it, or NULL. */
static const char *own(struct pd_exec_lists *l, const char *dir, const char *name)
{
    if (l->nowned == COUNT(l->owned))
        return NULL;
    char *s = NULL;
    if (asprintf(&s, "%s/%s", dir, name) < 0)
        return NULL;
    l->owned[l->nowned++] = s;
    return s;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return path && path[0] == '/' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* pd_exec_floor's callback: keep a copy of path. */
static int floor_add(void *arg, const char *path)
{
    struct pd_exec_lists *l = arg;
    if (l->nfloor == l->capfloor) {
        size_t cap = l->capfloor ? 2 * l->capfloor : 32;
        char **v = realloc(l->floor, cap * sizeof *v);
        if (!v)
            return -1;
        l->floor = v;
        l->capfloor = cap;
    }
    if (!(l->floor[l->nfloor] = strdup(path)))
        return -1;
    l->nfloor++;
    return 0;
}

/* Does an allowed program (a floor path) lie in root? */
static bool holds_allowed(const struct pd_exec_lists *l, const char *root)
{
    for (size_t k = 0; k < l->nfloor; k++)
        if (pd_path_under(l->floor[k], root))
            return true;
    return false;
}

/* Drop repeated entries of v, keeping the first: each is one Landlock rule
 * the child opens and adds (the floor names /usr/lib/git-core twice, the
 * program is often an allowed binary too). Returns the new count. */
static size_t distinct(const char **v, size_t n)
{
    size_t out = 0;
    for (size_t k = 0; k < n; k++) {
        bool seen = false;
        for (size_t j = 0; j < out && !seen; j++)
            seen = strcmp(v[j], v[k]) == 0;
        if (!seen)
            v[out++] = v[k];
    }
    return out;
}

int pd_exec_spec(struct pd_exec_plan *p)
{
    const struct pd_ctx *c = p->ctx;
    const struct pd_policy *pol = c->policy;
    struct pd_exec_lists *l = &p->lists;
    struct pd_sandbox_spec *s = &p->spec;
    const bool floor = pol->allow_binaries.n > 0;
    size_t n = 0, nread = 0;
    memset(l, 0, sizeof *l);
    memset(s, 0, sizeof *s);

    if (floor && pd_exec_floor(c, floor_add, l) != 0) {
        pd_exec_spec_free(p);
        errno = ENOMEM;
        return -1;
    }
    size_t nsystem = 0;
    while (pd_system_read_dirs[nsystem])
        nsystem++;
    l->exec = calloc(nsystem + l->nfloor + c->npolicy_roots + 9, sizeof *l->exec);
    l->read = calloc(nsystem + c->nread_roots + 12, sizeof *l->read);
    if (!l->exec || !l->read) {
        pd_exec_spec_free(p);
        errno = ENOMEM;
        return -1;
    }
    for (size_t k = 0; k < nsystem; k++) {
        if (floor)
            l->read[nread++] = pd_system_read_dirs[k];
        else
            l->exec[n++] = pd_system_read_dirs[k];
    }
    for (size_t k = 0; k < l->nfloor; k++)
        l->exec[n++] = l->floor[k];
    /* a writable root that holds an allowed program keeps execution (the
     * program may be built by the run: gcc -o src/app) */
    for (size_t k = 0; floor && k < c->npolicy_roots; k++)
        if (holds_allowed(l, c->roots[k]))
            l->exec[n++] = c->roots[k];
    s->no_exec_writes = floor;
    /* The program by its real path (what execve ends up running) and, when
     * it differs, by the path it was invoked as. */
    l->exec[n++] = p->program_real;
    if (strcmp(p->program, p->program_real) != 0)
        l->exec[n++] = p->program;
    /* Dependency caches of cargo and rustup, read-only as in the original
     * (their real homes; HOME itself is the temp home). */
    char cargo[PD_PATH_MAX], rustup[PD_PATH_MAX];
    pd_exec_tool_home("CARGO_HOME", ".cargo", cargo, sizeof cargo);
    pd_exec_tool_home("RUSTUP_HOME", ".rustup", rustup, sizeof rustup);
    const char *reg = cargo[0] ? own(l, cargo, "registry") : NULL;
    const char *tc = rustup[0] ? own(l, rustup, "toolchains") : NULL;
    if (is_dir(reg))
        l->exec[n++] = reg;
    if (is_dir(tc))
        l->exec[n++] = tc;
    if (p->live) /* the preload is mapped into every dynamic program */
        l->exec[n++] = p->live->lib;
    if (c->connect_helper[0]) /* allow_hosts: ssh's ProxyCommand (gate_exec.h, rule h) */
        l->exec[n++] = c->connect_helper;
    s->exec_paths = (struct pd_path_list){l->exec, distinct(l->exec, n)};

    n = nread;
    l->read[n++] = c->workspace;
    for (size_t k = 0; k < c->nread_roots; k++) /* read_paths */
        l->read[n++] = c->read_roots[k];
    l->read[n++] = "/proc";
    l->read[n++] = "/sys/devices/system/cpu";
    /* runtimes (node, the JVM, cargo, go) read their limits and memory
     * layout here at every start and carry on when refused */
    l->read[n++] = "/sys/fs/cgroup";
    l->read[n++] = "/sys/kernel/mm/transparent_hugepage";
    l->read[n++] = "/sys/devices/system/node";
    if (p->live) /* read by the preload in every process; the run dir stays read-only */
        l->read[n++] = p->live->compiled;
    /* allow_hosts_without_namespace: the network is the host's, held by the
     * live gate alone (exec_net.c) */
    const bool direct = pol->allow_network || p->net.fallback;
    if (direct)
        l->read[n++] = "/run/systemd/resolve"; /* the stub resolver's resolv.conf */
    s->read_paths = (struct pd_path_list){l->read, distinct(l->read, n)};

    l->write = calloc(c->npolicy_roots + 6, sizeof *l->write);
    if (!l->write) {
        pd_exec_spec_free(p);
        errno = ENOMEM;
        return -1;
    }
    n = 0;
    for (size_t k = 0; k < c->npolicy_roots; k++)
        l->write[n++] = c->roots[k];
    for (size_t k = 0; k < 2; k++) /* git allowed: its repository's git directory */
        if (p->git_roots[k][0])
            l->write[n++] = p->git_roots[k];
    l->write[n++] = p->rundir.home;
    /* where the run directory lies in it, /dev/shm is writable only as the
     * run's own (Landlock adds it with the private one) */
    s->shm_private = p->rundir_shm;
    if (!s->shm_private)
        l->write[n++] = "/dev/shm";
    /* the persistent cache folder (exec_cache.c); listed here also so that
     * the namespace floor binds it back when it lies under /tmp */
    if (p->cache[0])
        l->write[n++] = p->cache;
    s->write_paths = (struct pd_path_list){l->write, distinct(l->write, n)};

    for (n = 0; n < COUNT(devices); n++)
        l->dev[n] = devices[n];
    if (p->interactive) /* the terminal the command shares with paldron */
        l->dev[n++] = "/dev/tty";
    s->dev_paths = (struct pd_path_list){l->dev, n};

    /* Every directory may be listed (ls /, ls /home) where file permissions
     * allow; what may be read stays the lists above. */
    static const char *const root[] = {"/"};
    s->list_paths = (struct pd_path_list){root, 1};
    s->allow_network = direct;
    s->limits = p->limits;
    return 0;
}

void pd_exec_spec_free(struct pd_exec_plan *p)
{
    struct pd_exec_lists *l = &p->lists;
    for (size_t k = 0; k < l->nowned; k++)
        free(l->owned[k]);
    for (size_t k = 0; k < l->nfloor; k++)
        free(l->floor[k]);
    free(l->floor);
    free(l->exec);
    free(l->read);
    free(l->write);
    memset(l, 0, sizeof *l);
}
