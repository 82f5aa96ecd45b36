/* preload/wrap_cwd.c - chdir, fchdir and chroot: not gated (Landlock decides
 * where a process may go), but they move the base of every relative path,
 * so the gate's cached working directory is dropped after each. */
#include "preload/judge.h"

int pdw_chdir(const char *path)
{
    PD_NEED(chdir, -1);
    int rc = pd_real.chdir(path);
    pd_cwd_changed();
    return rc;
}

int pdw_fchdir(int fd)
{
    PD_NEED(fchdir, -1);
    int rc = pd_real.fchdir(fd);
    pd_cwd_changed();
    return rc;
}

int pdw_chroot(const char *path)
{
    PD_NEED(chroot, -1);
    int rc = pd_real.chroot(path);
    pd_cwd_changed();
    return rc;
}
