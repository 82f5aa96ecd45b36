/* launcher/git_root.c - the git work tree a folder lies in, found the way
 * git finds it: the nearest folder from dir upwards that holds a .git
 * (a folder, or the "gitdir:" file of a linked work tree or submodule).
 * The hook's project (hook_project.c), `paldron init` and exec's writable
 * git directory (exec_git_root.c) all start from it. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher/launcher.h"

bool pd_git_work_tree(const char *dir, char *out, size_t outlen)
{
    char cur[PD_PATH_MAX], probe[PD_PATH_MAX + 8];
    struct stat st;
    snprintf(cur, sizeof cur, "%s", dir);
    for (;;) {
        snprintf(probe, sizeof probe, "%s/.git", strcmp(cur, "/") == 0 ? "" : cur);
        if (lstat(probe, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
            snprintf(out, outlen, "%s", cur);
            return true;
        }
        char *slash = strrchr(cur, '/');
        if (!slash || strcmp(cur, "/") == 0)
            return false;
        if (slash == cur)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}
