/* preload/exec_script.c - see exec_script.h. Reads the "#!" line as
 * fs/binfmt_script.c does: the interpreter is the first word (relative to
 * the working directory when it has no leading '/'), the rest of the line,
 * trimmed, is one optional argument. Allocates with mmap only
 * (pd_scratch_map: it may run in a vfork child). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/exec_script.h"
#include "preload/vfork.h"

#define SCRIPT_LINE_MAX 256 /* the kernel reads at most this much of the line */

static bool in_roots(const struct pd_ctx *c, const char *real)
{
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(real, c->roots[k]))
            return true;
    return false;
}

/* The interpreter and optional argument of the "#!" script at abs. */
static bool read_line(const char *abs, char *interp, size_t ilen, char *arg, size_t alen)
{
    char line[SCRIPT_LINE_MAX + 1], cwd[PD_PATH_MAX], joined[2 * PD_PATH_MAX + 2];
    int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    ssize_t n = pread(fd, line, SCRIPT_LINE_MAX, 0);
    close(fd);
    if (n < 3 || line[0] != '#' || line[1] != '!')
        return false;
    line[n] = '\0';
    line[strcspn(line, "\n")] = '\0';
    char *p = line + 2 + strspn(line + 2, " \t");
    size_t wl = strcspn(p, " \t");
    if (wl == 0)
        return false;
    char *rest = p + wl + strspn(p + wl, " \t");
    p[wl] = '\0';
    size_t rl = strlen(rest);
    while (rl > 0 && (rest[rl - 1] == ' ' || rest[rl - 1] == '\t'))
        rest[--rl] = '\0';
    if (p[0] == '/')
        snprintf(joined, sizeof joined, "%s", p);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(joined, sizeof joined, "%s/%s", cwd, p);
    else
        return false;
    pd_path_clean(joined, interp, ilen);
    snprintf(arg, alen, "%s", rest);
    struct stat st;
    return stat(interp, &st) == 0 && S_ISREG(st.st_mode);
}

bool pd_script_prepare(const struct pd_state *s, const char *path, const char *abs,
                       char *const argv[], struct pd_script_run *r)
{
    char real[PD_PATH_MAX];
    r->argv = NULL;
    /* a script allowed by its own entry keeps its root executable */
    if (s->mode != PD_MODE_ACTIVE || s->img->lists[PD_IL_allow_binaries].n == 0 ||
        !realpath(abs, real))
        return false;
    const struct pd_full *f = pd_full(s);
    if (!f || !in_roots(&f->ctx, real) || pd_binary_entry_of(&f->ctx, abs) ||
        !read_line(abs, r->interp, sizeof r->interp, r->arg, sizeof r->arg))
        return false;
    size_t n = 0;
    while (argv && argv[n])
        n++;
    r->maplen = (n + 4) * sizeof(char *);
    void *m = pd_scratch_map(r->maplen);
    if (!m)
        return false;
    r->argv = m;
    size_t k = 0;
    r->argv[k++] = r->interp;
    if (r->arg[0])
        r->argv[k++] = r->arg;
    r->argv[k++] = (char *)(uintptr_t)(strchr(path, '/') ? path : abs);
    for (size_t j = 1; j < n; j++)
        r->argv[k++] = argv[j];
    r->argv[k] = NULL;
    return true;
}

void pd_script_release(struct pd_script_run *r)
{
    int err = errno;
    if (r->argv)
        pd_scratch_unmap(r->argv, r->maplen);
    r->argv = NULL;
    errno = err;
}
