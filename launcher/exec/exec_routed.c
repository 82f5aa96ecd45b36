/* launcher/exec/exec_routed.c - `paldron exec --routed -- 'COMMAND'`: the run of
 * an agent's shell call that the PreToolUse hook rewrote (launcher/cli/cmd_hook.c).
 * The model must see what it would have seen bare: the command's own stdout,
 * stderr and exit status, plus Paldron's deny lines on stderr. So the result
 * is not the original's block but the streams themselves.
 *
 * The command text runs in Paldron's own shell (PD_ROUTED_SHELL), which is
 * not judged against allow_binaries: the agent did not ask for bash, the
 * client would have run the text in one anyway. Every program that shell
 * starts is judged (the live gate, the kernel floor). A text that is one
 * plain command - literal words, no redirection, no assignment, no shell
 * builtin - runs directly instead: same result, one process start less
 * (a routed `ls` costs what `exec -- ls` costs). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"
#include "policy/shell/shell.h"

/* Names bash runs itself (`compgen -b -k`): a direct exec of /usr/bin/echo
 * or /usr/bin/test would not behave as the builtin does (echo --help). */
static const char *const shell_words[] = {
    ".",      ":",       "[",         "alias",    "bg",       "bind",    "break",    "builtin",
    "caller", "cd",      "command",   "compgen",  "complete", "compopt", "continue", "declare",
    "dirs",   "disown",  "echo",      "enable",   "eval",     "exec",    "exit",     "export",
    "false",  "fc",      "fg",        "getopts",  "hash",     "help",    "history",  "jobs",
    "kill",   "let",     "local",     "logout",   "mapfile",  "popd",    "printf",   "pushd",
    "pwd",    "read",    "readarray", "readonly", "return",   "set",     "shift",    "shopt",
    "source", "suspend", "test",      "times",    "trap",     "true",    "type",     "typeset",
    "ulimit", "umask",   "unalias",   "unset",    "wait",     "if",      "then",     "else",
    "elif",   "fi",      "case",      "esac",     "for",      "select",  "while",    "until",
    "do",     "done",    "in",        "function", "time",     "{",       "}",        "!",
    "[[",     "]]",      "coproc",    NULL};

static bool shell_word(const char *w)
{
    for (size_t k = 0; shell_words[k]; k++)
        if (strcmp(shell_words[k], w) == 0)
            return true;
    return false;
}

/* One simple command of literal words that a program found on PATH (or
 * named by path) runs: bash would only fork and exec it. */
static bool plain_command(const struct pd_ctx *c, const struct pd_sh_script *s, const char *cwd)
{
    if (s->ncmds != 1)
        return false;
    const struct pd_sh_cmd *cmd = &s->cmds[0];
    if (cmd->kind != PD_SH_K_SIMPLE || cmd->nassigns || cmd->nredirs || cmd->nwords == 0 ||
        cmd->prog != 0 || cmd->dynamic || cmd->background || cmd->depth)
        return false;
    const unsigned expands = PD_SH_W_EXPANSION | PD_SH_W_GLOB | PD_SH_W_BRACE | PD_SH_W_TILDE;
    for (size_t k = 0; k < cmd->nwords; k++)
        if (cmd->words[k].flags & expands)
            return false;
    char path[PD_PATH_MAX];
    return !shell_word(cmd->words[0].text) &&
           pd_resolve_program(c, cmd->words[0].text, cwd, path, sizeof path) == 0;
}

int pd_exec_routed_argv(const struct pd_ctx *c, const char *text, const char *cwd, char ***out,
                        int *argc, bool *own_shell)
{
    struct pd_sh_script s;
    char err[256];
    *out = NULL;
    if (pd_sh_parse(text, &s, err, sizeof err) == 0) {
        if (plain_command(c, &s, cwd)) {
            const struct pd_sh_cmd *cmd = &s.cmds[0];
            const size_t n = cmd->nwords;
            char **v = calloc(n + 1, sizeof *v);
            for (size_t k = 0; v && k < n; k++)
                if (!(v[k] = strdup(cmd->words[k].text))) {
                    pd_exec_routed_free(v);
                    v = NULL;
                }
            pd_sh_script_free(&s);
            if (!v)
                return -1;
            *out = v;
            *argc = (int)n;
            *own_shell = false;
            return 0;
        }
        pd_sh_script_free(&s);
    }
    /* Anything else (also what the parser cannot read: bash reports its
     * own syntax errors, as it would bare). */
    char **v = calloc(4, sizeof *v);
    if (!v || !(v[0] = strdup(PD_ROUTED_SHELL)) || !(v[1] = strdup("-c")) ||
        !(v[2] = strdup(text))) {
        pd_exec_routed_free(v);
        errno = ENOMEM;
        return -1;
    }
    *out = v;
    *argc = 3;
    *own_shell = true;
    return 0;
}

void pd_exec_routed_free(char **argv)
{
    for (size_t k = 0; argv && argv[k]; k++)
        free(argv[k]);
    free(argv);
}

static void put(FILE *f, const struct pd_capture *cap, const char *name)
{
    /* buf is NULL when the stream was empty */
    if (cap->dropped) {
        fwrite(cap->buf, 1, cap->cut, f);
        fprintf(f, "%s[... %llu bytes dropped ...]\n",
                cap->cut && cap->buf[cap->cut - 1] != '\n' ? "\n" : "", cap->dropped);
        fwrite(cap->buf + cap->cut, 1, cap->len - cap->cut, f);
    } else if (cap->len) {
        fwrite(cap->buf, 1, cap->len, f);
    }
    fflush(f);
    if (cap->dropped)
        pd_err("the command's %s exceeded %d bytes: the %llu bytes in its middle were dropped",
               name, PD_CAPTURE_MAX, cap->dropped);
}

int pd_exec_routed_report(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                          struct pd_findings *deny)
{
    put(stdout, &o->out, "stdout");
    put(stderr, &o->err, "stderr");
    int code = 0;
    if (o->sandbox_error[0]) {
        pd_err("sandbox: %s (the command did not run)", o->sandbox_error);
        code = 126;
    } else if (o->interrupted) {
        pd_err("interrupted by SIG%s: the command and its processes were stopped",
               sigabbrev_np(o->interrupted) ? sigabbrev_np(o->interrupted) : "?");
        code = 128 + o->interrupted;
    } else if (o->timed_out) {
        pd_err("command timed out after %lld s (its processes were stopped)", p->timeout_sec);
        code = 124;
    } else if (!o->exited) {
        pd_err("command status unknown (the command was not reaped)");
        code = 126;
    } else if (WIFSIGNALED(o->status)) {
        code = 128 + WTERMSIG(o->status);
    } else {
        code = WEXITSTATUS(o->status);
    }
    if (deny->n || deny->lost) {
        for (size_t k = 0; k < deny->n; k++)
            pd_err("deny: %s", deny->v[k].message);
        if (deny->lost)
            pd_err("deny: some findings could not be recorded (out of memory)");
        if (code == 0)
            code = PD_EXIT_DENY;
    }
    return code;
}
