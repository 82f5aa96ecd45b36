/* policy/gate_shell.c - judge a shell command string (an agent's Bash tool
 * call) before it runs: every program it would start, every file a
 * redirection writes or reads, every argument that names a path, including
 * those inside $( ), sh -c and eval bodies. What cannot be parsed, or whose
 * program cannot be known, is denied with a reason, never allowed. */
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/shell.h"

/* Shell builtins: no binary runs, so allow_binaries does not apply. */
static const char *const builtins[] = {
    "cd",    "echo",   "printf",  "export",    "unset",    "set",      "shift",   "true",   "false",
    "test",  "[",      "pwd",     "read",      "local",    "declare",  "typeset", "return", "exit",
    "wait",  "kill",   "trap",    "alias",     "unalias",  "type",     "hash",    "jobs",   "fg",
    "bg",    "umask",  "ulimit",  "getopts",   "readonly", "shopt",    "source",  ".",      ":",
    "let",   "eval",   "exec",    "command",   "builtin",  "disown",   "pushd",   "popd",   "dirs",
    "times", "caller", "mapfile", "readarray", "history",  "complete", "compgen", "enable", NULL};

/* Wrappers whose own use is not harmless: they must be allowed themselves. */
static const char *const gated_wrappers[] = {"sudo", "doas", NULL};

/* Programs that only talk to the network. */
static const char *const network_programs[] = {"curl",   "wget", "nc",    "ncat",   "netcat",
                                               "ssh",    "scp",  "sftp",  "telnet", "ftp",
                                               "aria2c", "http", "https", "socat",  NULL};
static const char *const git_network[] = {"clone", "fetch", "pull", "push", "ls-remote", NULL};

/* Interpreters that run whatever arrives on stdin when given no script. */
static const char *const stdin_interpreters[] = {"sh",   "bash", "dash",   "zsh",     "ksh",
                                                 "ash",  "mksh", "python", "python3", "perl",
                                                 "ruby", "node", "php",    NULL};

/* Programs that write (or remove) every path they are given ... */
static const char *const writers[] = {"tee",   "touch",    "mv",    "rm",    "rmdir",
                                      "mkdir", "truncate", "chmod", "chown", "sed",
                                      "patch", "shred",    NULL};
/* ... and programs that write only their last path (the destination). */
static const char *const copiers[] = {"cp", "ln", "install", "rsync", NULL};

static bool in_list(const char *const *list, const char *s)
{
    for (size_t k = 0; list[k]; k++)
        if (strcmp(list[k], s) == 0)
            return true;
    return false;
}

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* Replace $HOME, ${HOME}, $PWD, ${PWD} by what they are in the hook's world;
 * anything else is left as written (and judged literally). */
static void expand_known(const struct pd_ctx *c, const char *base, const char *in, char *out,
                         size_t len)
{
    static const char *const names[] = {"${HOME}", "$HOME", "${PWD}", "$PWD", NULL};
    size_t n = 0;
    while (*in && n + 1 < len) {
        size_t k;
        for (k = 0; names[k]; k++)
            if (strncmp(in, names[k], strlen(names[k])) == 0)
                break;
        if (names[k]) {
            const char *val = k < 2 ? c->home : base;
            n += (size_t)snprintf(out + n, len - n, "%s", val);
            in += strlen(names[k]);
            if (n >= len)
                n = len - 1;
        } else {
            out[n++] = *in++;
        }
    }
    out[n] = '\0';
}

/* Judge one path word, expanding globs against the real file system. */
static void judge_path(const struct pd_ctx *c, const char *base, const char *word, unsigned flags,
                       enum pd_op op, bool also_write, struct pd_verdict *v)
{
    char text[PD_PATH_MAX];
    expand_known(c, base, word, text, sizeof text);
    if ((flags & PD_SH_W_GLOB) && !(flags & PD_SH_W_EXPANSION)) {
        char pattern[PD_PATH_MAX];
        glob_t g;
        if (text[0] != '/' && text[0] != '~')
            snprintf(pattern, sizeof pattern, "%s/%s", base, text);
        else
            snprintf(pattern, sizeof pattern, "%s", text);
        if (glob(pattern, GLOB_NOSORT | GLOB_TILDE, NULL, &g) == 0) {
            for (size_t k = 0; k < g.gl_pathc && !v->deny; k++) {
                if (also_write)
                    pd_gate_path(c, PD_OP_WRITE, base, g.gl_pathv[k], v);
                if (!v->deny)
                    pd_gate_path(c, op, base, g.gl_pathv[k], v);
            }
            globfree(&g);
            if (v->deny)
                return;
        }
    }
    if (also_write)
        pd_gate_path(c, PD_OP_WRITE, base, text, v);
    if (!v->deny)
        pd_gate_path(c, op, base, text, v);
}

static bool is_path_word(const char *text, unsigned flags, const char *base)
{
    if (flags & PD_SH_W_EXPANSION)
        return strchr(text, '/') || text[0] == '.' || text[0] == '~';
    return pd_looks_like_path(text, base);
}

static void judge_redirs(const struct pd_ctx *c, const char *base, const struct pd_sh_cmd *cmd,
                         struct pd_verdict *v)
{
    for (size_t k = 0; k < cmd->nredirs && !v->deny; k++) {
        const struct pd_sh_redir *r = &cmd->redirs[k];
        switch (r->op) {
        case PD_SH_R_OUT:
        case PD_SH_R_APPEND:
        case PD_SH_R_OUT_ERR:
        case PD_SH_R_APPEND_ERR:
        case PD_SH_R_INOUT:
            judge_path(c, base, r->target.text, r->target.flags, PD_OP_WRITE, false, v);
            break;
        case PD_SH_R_IN:
            judge_path(c, base, r->target.text, r->target.flags, PD_OP_NAME, false, v);
            break;
        case PD_SH_R_DUP:
        case PD_SH_R_HEREDOC:
        case PD_SH_R_HERESTRING:
            break;
        }
    }
}

static bool network_use(const struct pd_sh_cmd *cmd, const char *prog)
{
    if (in_list(network_programs, prog))
        return true;
    if (strcmp(prog, "git") == 0)
        for (size_t k = cmd->prog + 1; k < cmd->nwords; k++)
            if (cmd->words[k].text[0] != '-')
                return in_list(git_network, cmd->words[k].text);
    return false;
}

/* A shell or interpreter given no script reads its program from stdin. */
static bool reads_program_from_pipe(const struct pd_sh_cmd *cmd, const char *prog)
{
    if (!cmd->piped_in || !in_list(stdin_interpreters, prog))
        return false;
    for (size_t k = cmd->prog + 1; k < cmd->nwords; k++) {
        const char *w = cmd->words[k].text;
        if (strcmp(w, "-") == 0 || strcmp(w, "-s") == 0)
            return true;
        if (w[0] != '-' || strcmp(w, "-c") == 0 || strcmp(w, "-e") == 0 || strcmp(w, "-m") == 0)
            return false;
    }
    return true;
}

static void judge_program(const struct pd_ctx *c, const char *base, const struct pd_sh_cmd *cmd,
                          struct pd_verdict *v)
{
    const struct pd_policy *p = c->policy;
    bool missing;
    for (size_t k = 0; k < cmd->prog && !v->deny; k++) /* gated wrappers: sudo, doas */
        if (in_list(gated_wrappers, base_name(cmd->words[k].text)) && p->allow_binaries.n)
            pd_gate_binary(c, cmd->words[k].text, base, v, &missing);
    if (v->deny || cmd->prog >= cmd->nwords)
        return;
    const char *word = cmd->words[cmd->prog].text;
    const char *prog = base_name(word);
    if (cmd->dynamic) {
        if (p->allow_binaries.n || in_list(stdin_interpreters, prog) || strcmp(prog, "eval") == 0)
            pd_verdict_deny(v, "dynamic command", "allow_binaries",
                            "cannot tell statically what '%s' runs (a program or script built from "
                            "variables or substitutions)",
                            word);
        return;
    }
    if (!p->allow_network && network_use(cmd, prog)) {
        pd_verdict_deny(v, PD_REASON_NETWORK, "allow_network",
                        "%s needs the network (allow_network = false)", prog);
        return;
    }
    if (reads_program_from_pipe(cmd, prog)) {
        pd_verdict_deny(
            v, "shell reads piped input", "tools",
            "'%s' would run a program piped into it (e.g. curl ... | sh); run a reviewed file "
            "instead",
            prog);
        return;
    }
    if (in_list(builtins, word) || !p->allow_binaries.n)
        return;
    pd_gate_binary(c, word, base, v, &missing);
}

static void judge_cmd(const struct pd_ctx *c, const char *base, const struct pd_sh_cmd *cmd,
                      struct pd_verdict *v)
{
    judge_redirs(c, base, cmd, v);
    if (!v->deny && cmd->kind == PD_SH_K_SIMPLE)
        judge_program(c, base, cmd, v);
    if (v->deny || cmd->kind == PD_SH_K_ARITH)
        return;
    size_t first = cmd->kind == PD_SH_K_SIMPLE ? cmd->prog + 1 : 0;
    const char *prog = cmd->prog < cmd->nwords ? base_name(cmd->words[cmd->prog].text) : "";
    bool writes = in_list(writers, prog);
    size_t dest = cmd->nwords; /* the copier's destination: its last path argument */
    if (in_list(copiers, prog))
        for (size_t k = cmd->nwords; k-- > first;)
            if (cmd->words[k].text[0] != '-') {
                dest = k;
                break;
            }
    for (size_t k = first; k < cmd->nwords && !v->deny; k++) {
        const char *text = cmd->words[k].text;
        unsigned flags = cmd->words[k].flags;
        bool write_arg = writes || k == dest;
        if (text[0] == '-') { /* --opt=value: the value */
            const char *eq = text[1] == '-' ? strchr(text, '=') : NULL;
            if (!eq)
                continue;
            text = eq + 1;
        } else if (strcmp(prog, "dd") == 0 &&
                   (strncmp(text, "of=", 3) == 0 || strncmp(text, "if=", 3) == 0)) {
            write_arg = text[0] == 'o';
            text += 3;
        }
        if (is_path_word(text, flags, base))
            judge_path(c, base, text, flags, PD_OP_NAME, write_arg, v);
    }
}

void pd_gate_shell(const struct pd_ctx *c, const char *command, const char *base,
                   struct pd_verdict *v)
{
    struct pd_sh_script s;
    char err[256];
    pd_verdict_allow(v);
    v->op = PD_OP_EXEC;
    snprintf(v->subject, sizeof v->subject, "%s", command);
    v->resolved[0] = '\0';
    if (!base)
        base = c->workspace;
    if (pd_sh_parse(command, &s, err, sizeof err)) {
        pd_verdict_deny(v, "unparsable command", "tools", "cannot parse the command (%s)", err);
        return;
    }
    for (size_t k = 0; k < s.ncmds && !v->deny; k++)
        judge_cmd(c, base, &s.cmds[k], v);
    pd_sh_script_free(&s);
}
