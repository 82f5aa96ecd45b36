/* launcher/exec_sandbox.c - what the sandboxed command may touch (the spec
 * handed to platform/). Read + execute: the system directories a normal
 * toolchain needs and the resolved program itself (an allowed program named
 * by absolute path runs wherever it lives). Read: the workspace, /proc, the
 * CPU topology (nproc, multiprocessing). Everything: the writable roots, the
 * private temp home and /dev/shm (POSIX semaphores). The usual devices.
 * Nothing else: not $HOME, not /tmp, not the run directory around the home. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/exec.h"

static const char *const system_dirs[] = {"/usr",   "/bin",    "/sbin", "/lib", "/lib32",
                                          "/lib64", "/libx32", "/etc",  "/opt"};

static const char *const devices[] = {"/dev/null",    "/dev/zero", "/dev/full", "/dev/random",
                                      "/dev/urandom", "/dev/tty",  "/dev/pts",  "/dev/ptmx"};

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

int pd_exec_spec(struct pd_exec_plan *p)
{
    const struct pd_ctx *c = p->ctx;
    const struct pd_policy *pol = c->policy;
    struct pd_exec_lists *l = &p->lists;
    struct pd_sandbox_spec *s = &p->spec;
    size_t n = 0;
    memset(l, 0, sizeof *l);
    memset(s, 0, sizeof *s);

    for (size_t k = 0; k < COUNT(system_dirs); k++)
        l->exec[n++] = system_dirs[k];
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
    s->exec_paths = (struct pd_path_list){l->exec, n};

    n = 0;
    l->read[n++] = c->workspace;
    l->read[n++] = "/proc";
    l->read[n++] = "/sys/devices/system/cpu";
    if (p->live) /* read by the preload in every process; the run dir stays read-only */
        l->read[n++] = p->live->compiled;
    if (pol->allow_network)
        l->read[n++] = "/run/systemd/resolve"; /* the stub resolver's resolv.conf */
    s->read_paths = (struct pd_path_list){l->read, n};

    l->write = calloc(c->npolicy_roots + 2, sizeof *l->write);
    if (!l->write) {
        pd_exec_spec_free(p);
        errno = ENOMEM;
        return -1;
    }
    n = 0;
    for (size_t k = 0; k < c->npolicy_roots; k++)
        l->write[n++] = c->roots[k];
    l->write[n++] = p->rundir.home;
    l->write[n++] = "/dev/shm";
    s->write_paths = (struct pd_path_list){l->write, n};

    for (n = 0; n < COUNT(devices); n++)
        l->dev[n] = devices[n];
    s->dev_paths = (struct pd_path_list){l->dev, n};

    /* Every directory may be listed (ls /, ls /home) where file permissions
     * allow; what may be read stays the lists above. */
    static const char *const root[] = {"/"};
    s->list_paths = (struct pd_path_list){root, 1};
    s->allow_network = pol->allow_network;
    s->limits = p->limits;
    return 0;
}

void pd_exec_spec_free(struct pd_exec_plan *p)
{
    struct pd_exec_lists *l = &p->lists;
    for (size_t k = 0; k < l->nowned; k++)
        free(l->owned[k]);
    free(l->write);
    memset(l, 0, sizeof *l);
}
