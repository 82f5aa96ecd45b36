/* policy/gate_shell.c - judge a shell command string (an agent's Bash tool
 * call) before it runs, from its parse alone (policy/shell/shell.h).
 *
 * Three outcomes (policy.h, pd_gate_shell): a literal deny (something the
 * command names in plain text is denied: a program, the network, a path
 * read or written), unjudged (PD_REASON_UNJUDGED: nothing is denied
 * literally, but some part cannot be read statically), or allow. The scan
 * goes on after the first unjudged construct, so that a literal deny
 * anywhere wins; it stops at the first literal deny.
 *
 * Every simple command is judged for its assignments (shell_builtins.c),
 * its redirections (writes and reads; here-documents by what reads them),
 * its wrappers (shell_wrap.c), its program (allow_binaries, the network,
 * an interpreter fed by a pipe) and its arguments (the per-program table,
 * shell_programs.c), against every directory it may run in
 * (shell_cwd.c). Parsing failures are denied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/hosts.h"
#include "policy/policy.h"
#include "policy/shell/shell.h"
#include "policy/shell/shell_judge.h"

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* A here-document or here-string: what its reader does with it. */
static void judge_stdin_text(struct sh_judge *j, const struct pd_sh_cmd *cmd,
                             const struct pd_sh_redir *r)
{
    if (cmd->kind == PD_SH_K_REDIR) {
        sj_unjudged(j, "a here-document or here-string feeds a compound command, whose commands "
                       "may read it as names or code");
        return;
    }
    if (cmd->kind != PD_SH_K_SIMPLE || cmd->prog >= cmd->nwords || cmd->dynamic)
        return;
    bool xargs = false;
    for (size_t k = 0; k < cmd->prog; k++)
        xargs |= strcmp(base_name(cmd->words[k].text), "xargs") == 0;
    const struct pd_sh_word *w = cmd->words + cmd->prog;
    enum sj_stdin kind = xargs ? SJ_STDIN_NAMES : sj_program_stdin(w, cmd->nwords - cmd->prog);
    if (kind == SJ_STDIN_NAMES && !xargs)
        kind = SJ_STDIN_DATA; /* xargs alone runs echo on the names */
    switch (kind) {
    case SJ_STDIN_SCRIPT:
        return; /* the parser read it as the script: its commands are judged */
    case SJ_STDIN_DATA: {
        unsigned bits = sj_word_kind(&r->target, NULL);
        /* a here-document is a body of text; a here-string is a word */
        if (r->op == PD_SH_R_HERESTRING && (bits & SJX_LONG))
            sj_unjudged(j, "the here-string of %s is longer than the path limit", j->prog);
        if (bits & (SJX_PARAM | SJX_CODEVAR | SJX_ARITHVAR)) {
            /* quote the first expansion that is not a command substitution */
            char ex[80];
            const char *d = r->target.text;
            while ((d = strchr(d, '$')) && d[1] == '(' && d[2] != '(')
                d++;
            snprintf(ex, sizeof ex, "%.60s", d ? d : r->target.text);
            ex[strcspn(ex, " \t\n\"'")] = '\0';
            sj_unjudged(j, "`%s` is %s in the here-document or here-string of %s", ex,
                        sj_kind_name(bits & ~SJX_LONG), j->prog);
        }
        return;
    }
    case SJ_STDIN_NAMES:
        if (r->op == PD_SH_R_HERESTRING && strlen(r->target.text) >= PD_PATH_MAX) {
            sj_unjudged(j, "the here-string of %s is longer than the path limit", j->prog);
            return;
        }
        if (sj_is_literal(&r->target)) { /* the names are written out: judge them */
            const char *s = r->target.text;
            while (*s && !j->denied) {
                s += strspn(s, " \t\n");
                size_t len = strcspn(s, " \t\n");
                if (!len)
                    break;
                char name[PD_PATH_MAX];
                if (len < sizeof name) {
                    memcpy(name, s, len);
                    name[len] = '\0';
                    struct pd_sh_word tw = {name, 0};
                    sj_read(j, &tw, NULL);
                } else {
                    sj_unjudged(j, "a name given to xargs is longer than the path limit");
                }
                s += len;
            }
        }
        sj_unjudged(j, "xargs reads the names it passes to %s from its input", j->prog);
        return;
    case SJ_STDIN_UNKNOWN:
        sj_unjudged(j,
                    "a here-document or here-string feeds %s, which may read it as names or "
                    "code",
                    j->prog);
        return;
    }
}

/* bash opens /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT as sockets. */
static bool bash_socket(const struct pd_sh_word *w)
{
    char clean[PD_PATH_MAX];
    pd_path_clean(w->text, clean, sizeof clean);
    return strncmp(clean, "/dev/tcp/", 9) == 0 || strncmp(clean, "/dev/udp/", 9) == 0;
}

static void judge_redirs(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    for (size_t k = 0; k < cmd->nredirs && !j->denied; k++) {
        const struct pd_sh_redir *r = &cmd->redirs[k];
        if (r->op != PD_SH_R_HEREDOC && r->op != PD_SH_R_HERESTRING && r->op != PD_SH_R_DUP &&
            bash_socket(&r->target)) {
            if (pd_hosts_enabled(j->c->policy))
                sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                            "a redirection to %s opens a direct network socket, which never "
                            "reaches the run's proxy (allow_hosts admits connections through the "
                            "proxy only; allow_network = false)",
                            r->target.text);
            else if (!j->c->policy->allow_network)
                sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                            "a redirection to %s opens a network socket (allow_network = false)",
                            r->target.text);
            continue;
        }
        switch (r->op) {
        case PD_SH_R_OUT:
        case PD_SH_R_APPEND:
        case PD_SH_R_OUT_ERR:
        case PD_SH_R_APPEND_ERR:
        case PD_SH_R_INOUT:
            sj_path_at(j, PD_OP_WRITE, &r->target, NULL, SJ_REDIR);
            break;
        case PD_SH_R_IN:
            sj_path_at(j, PD_OP_READ, &r->target, NULL, SJ_REDIR);
            break;
        case PD_SH_R_DUP:
            if (!sj_is_literal(&r->target))
                sj_unjudged(j, "`%s` is %s in a redirection", r->target.text,
                            sj_kind_name(sj_word_kind(&r->target, NULL)));
            break;
        case PD_SH_R_HEREDOC:
        case PD_SH_R_HERESTRING:
            judge_stdin_text(j, cmd, r);
            break;
        }
    }
}

/* The command's program cannot be known (cmd->dynamic): say why. */
static void unjudged_program(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    const struct pd_sh_word *w = &cmd->words[cmd->prog];
    if (!sj_is_literal(w)) {
        sj_program(j, w);
        return;
    }
    for (size_t k = cmd->prog + 1; k < cmd->nwords; k++)
        if (!sj_is_literal(&cmd->words[k])) {
            sj_unjudged(j, "the code %s runs is built at run time (`%s` is %s)", w->text,
                        cmd->words[k].text, sj_kind_name(sj_word_kind(&cmd->words[k], NULL)));
            return;
        }
    sj_unjudged(j, "the code %s runs is built at run time", w->text);
}

static void judge_simple(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    for (size_t k = 0; k < cmd->nassigns && !j->denied; k++)
        sj_assignment(j, &cmd->assigns[k], NULL);
    judge_redirs(j, cmd);
    if (cmd->nwords == 0 || j->denied)
        return;
    sj_wrappers(j, cmd);
    if (cmd->prog >= cmd->nwords || j->denied)
        return;
    const struct pd_sh_word *w = &cmd->words[cmd->prog];
    if (cmd->dynamic) {
        unjudged_program(j, cmd);
        /* what is written plainly is still judged: `$EDITOR .env` */
        for (size_t k = cmd->prog + 1; k < cmd->nwords && !j->denied; k++)
            sj_generic(j, &cmd->words[k]);
        return;
    }
    sj_program(j, w);
    if (j->denied)
        return;
    if (cmd->piped_in && sj_interp_reads_stdin(w, cmd->nwords - cmd->prog)) {
        sj_deny_msg(j, "shell reads piped input", "tools",
                    "'%s' would run a program piped into it (e.g. curl ... | sh); run a reviewed "
                    "file instead",
                    base_name(w->text));
        return;
    }
    sj_dispatch(j, w, cmd->nwords - cmd->prog);
}

static void judge_cmd(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    j->cmd = cmd;
    j->runtime_mark = NULL;
    j->prog = cmd->kind == PD_SH_K_SIMPLE && cmd->prog < cmd->nwords
                  ? base_name(cmd->words[cmd->prog].text)
                  : "";
    switch (cmd->kind) {
    case PD_SH_K_SIMPLE:
        judge_simple(j, cmd);
        return;
    case PD_SH_K_ARITH:
        sj_arith(j, cmd);
        break;
    case PD_SH_K_TEST:
        sj_test(j, cmd);
        break;
    case PD_SH_K_REDIR:
        break;
    }
    judge_redirs(j, cmd);
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
        base = c->cwd[0] ? c->cwd : c->workspace;
    if (pd_sh_parse(command, &s, err, sizeof err)) {
        /* what the parser cannot read cannot be judged: bash may read it
         * (coproc, extglob) or report its own syntax error */
        pd_verdict_deny(v, PD_REASON_UNJUDGED, "tools",
                        "cannot judge statically: cannot parse the command (%s)", err);
        return;
    }
    struct sj_cwds *cwd = malloc(sizeof *cwd);
    if (!cwd) {
        pd_sh_script_free(&s);
        pd_verdict_deny(v, PD_REASON_UNJUDGED, "tools", "%s: out of memory", PD_REASON_UNJUDGED);
        return;
    }
    cwd->n = 0;
    sj_cwd_add(cwd, base);
    struct sh_judge j = {.c = c, .v = v, .cwd = cwd};
    sj_raw_loop_vars(&j, command);
    sj_cwd_collect(&j, &s, command, cwd);
    for (size_t k = 0; k < s.ncmds && !j.denied; k++)
        judge_cmd(&j, &s.cmds[k]);
    /* last: the words the parse does not list (case, for), so that a word
     * it lists is named in the message when it is the one */
    if (!j.denied)
        sj_raw_code_forms(&j, command);
    pd_sh_script_free(&s);
    free(cwd);
    if (j.denied)
        return;
    if (j.unjudged) {
        pd_verdict_deny(v, PD_REASON_UNJUDGED, "tools", "%s", j.umsg);
        v->op = PD_OP_EXEC;
    }
}
