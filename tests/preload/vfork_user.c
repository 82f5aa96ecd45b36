/* tests/preload/vfork_user.c - start a program with vfork + execv, as
 * older build tools do: vfork_user PROGRAM [ARG...]. Exits with the child's
 * status; 127 when the exec failed (the child prints "exec <errno>"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: vfork_user PROGRAM [ARG...]\n");
        return 2;
    }
    pid_t pid = vfork();
    if (pid < 0)
        return 3;
    if (pid == 0) {
        execv(argv[1], argv + 1);
        char msg[64];
        int n = snprintf(msg, sizeof msg, "exec %d\n", errno);
        if (write(1, msg, (size_t)n) < 0)
            _exit(126);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return 4;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
