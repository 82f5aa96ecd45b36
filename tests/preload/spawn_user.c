/* tests/preload/spawn_user.c - start a program with posix_spawn (or
 * posix_spawnp with -p) and the caller's environment, or with an empty
 * one (-e): spawn_user [-p] [-e] PROGRAM [ARG...]. Prints
 * "spawn <error number>" when the spawn fails, else waits and exits with
 * the child's status. */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
    int k = 1;
    int use_path = 0;
    char *empty[] = {NULL};
    char **env = environ;
    for (; k < argc && argv[k][0] == '-'; k++) {
        if (strcmp(argv[k], "-p") == 0)
            use_path = 1;
        else if (strcmp(argv[k], "-e") == 0)
            env = empty;
    }
    if (k >= argc) {
        fprintf(stderr, "usage: spawn_user [-p] [-e] PROGRAM [ARG...]\n");
        return 2;
    }
    pid_t pid;
    int rc = use_path ? posix_spawnp(&pid, argv[k], NULL, NULL, argv + k, env)
                      : posix_spawn(&pid, argv[k], NULL, NULL, argv + k, env);
    if (rc != 0) {
        printf("spawn %d %s\n", rc, strerror(rc));
        return 3;
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return 4;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
