/* launcher/cli/cmd_cache.c - `paldron cache`: the persistent cache folders of
 * `paldron exec` (launcher/exec/exec_cache.c).
 *   paldron cache path          print the current workspace's folder
 *   paldron cache clean         remove the current workspace's folder
 *   paldron cache clean --all   remove every workspace's folder
 * Removal never follows a link (every directory is opened with O_NOFOLLOW
 * relative to its parent: a run may have left links in its cache), and
 * makes read-only directories writable first (Go's module cache is 0555). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

/* Remove everything in the directory dirfd (closed here). */
static int empty_dir(int dirfd)
{
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return -1;
    }
    int rc = 0;
    fchmod(dirfd, 0700); /* entries of a 0555 directory cannot be removed */
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(dirfd, e->d_name, 0) == 0)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            rc = -1;
            continue;
        }
        int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0 || empty_dir(sub) != 0 || unlinkat(dirfd, e->d_name, AT_REMOVEDIR) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

/* Remove dir (a path of the user's cache) and everything in it. */
static int remove_tree(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    if (empty_dir(fd) != 0)
        return -1;
    return rmdir(dir) == 0 || errno == ENOENT ? 0 : -1;
}

int pd_cmd_cache(const struct pd_cli *cli)
{
    char dir[PD_PATH_MAX], err[PD_MSG_MAX], cwd[PD_PATH_MAX];
    const char *action = cli->argc > 0 ? cli->argv[0] : NULL;
    bool all = false;
    for (int k = 1; k < cli->argc; k++) {
        if (strcmp(cli->argv[k], "--all") == 0 && action && strcmp(action, "clean") == 0) {
            all = true;
        } else if (strcmp(cli->argv[k], "--help") == 0 || strcmp(cli->argv[k], "-h") == 0) {
            pd_command_usage(cli->sub, true);
            return PD_EXIT_ALLOW;
        } else {
            pd_err("cache: unexpected argument '%s' (see 'paldron cache --help')", cli->argv[k]);
            return PD_EXIT_BROKEN;
        }
    }
    if (!action || (strcmp(action, "path") != 0 && strcmp(action, "clean") != 0)) {
        pd_command_usage(cli->sub, false);
        return PD_EXIT_BROKEN;
    }
    int rc = all ? pd_cache_base(dir, sizeof dir, err, sizeof err)
                 : (getcwd(cwd, sizeof cwd)
                        ? pd_cache_dir(cwd, dir, sizeof dir, err, sizeof err)
                        : (snprintf(err, sizeof err, "getwd: %s", strerror(errno)), -1));
    if (rc != 0) {
        pd_err("cache: %s", err);
        return PD_EXIT_BROKEN;
    }
    if (strcmp(action, "path") == 0) {
        printf("%s\n", dir);
        return PD_EXIT_ALLOW;
    }
    struct stat st;
    if (lstat(dir, &st) != 0) {
        printf("paldron: cache: nothing to remove (%s)\n", dir);
        return PD_EXIT_ALLOW;
    }
    if (remove_tree(dir) != 0) {
        pd_err("cache: cannot remove all of %s: %s", dir, strerror(errno));
        return PD_EXIT_BROKEN;
    }
    printf("paldron: cache: removed %s\n", dir);
    return PD_EXIT_ALLOW;
}
