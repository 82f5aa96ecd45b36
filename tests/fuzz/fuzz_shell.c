/* tests/fuzz/fuzz_shell.c - libFuzzer target for the shell parser
 * (policy/shell/shell_parse.c, shell_lex.c, shell_words.c ...) and the static
 * shell gate on top of it (policy/gate_shell.c, shell_judge ...). Built by
 * tests/fuzz/CMakeLists.txt, run by tests/fuzz/run.sh (corpus
 * tests/fuzz/corpus/shell: the commands of tests/data/shell_commands.tsv,
 * dictionary tests/fuzz/shell.dict).
 * The input's first byte picks the policy (fuzz_common.h) and the client's
 * cwd; the rest, up to a NUL, is the command string.
 * Invariants checked:
 *   - pd_sh_parse: a refusal has a message and leaves the script empty; a
 *     result is well formed (every word has text and known flags, prog
 *     within the words, depth 0 exactly at top level, the shapes of
 *     redirection-only, [[ ]] and (( )) entries, known redirection
 *     operators) and the same on a second parse;
 *   - pd_gate_shell: a well-formed verdict, the same twice (where it judged
 *     a place that does not change meanwhile); a command the parser refuses
 *     is never allowed (fail closed). */
#include "tests/fuzz/fuzz_common.h"

#include "policy/shell/shell.h"

static struct fz_ctx ctxs[FZ_NPOLICIES * 2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_tree("shell");
    fz_workspace();
    for (size_t k = 0; k < FZ_NPOLICIES; k++) {
        fz_ctx_make(&ctxs[2 * k], fz_policies[k], "");
        fz_ctx_make(&ctxs[2 * k + 1], fz_policies[k], "src");
    }
    return 0;
}

static void check_word(const struct pd_sh_word *w)
{
    CHECK(w->text != NULL);
    CHECK((w->flags & ~0x3fu) == 0);
    if (w->flags & PD_SH_W_SPLIT)
        CHECK(w->flags & PD_SH_W_EXPANSION);
}

static void check_script(const struct pd_sh_script *s)
{
    CHECK(s->ncmds == 0 || s->cmds != NULL);
    for (size_t i = 0; i < s->ncmds; i++) {
        const struct pd_sh_cmd *c = &s->cmds[i];
        CHECK((int)c->kind >= PD_SH_K_SIMPLE && (int)c->kind <= PD_SH_K_ARITH);
        CHECK((c->depth == 0) == (c->origin == PD_SH_O_TOP));
        CHECK((int)c->origin >= PD_SH_O_TOP && (int)c->origin <= PD_SH_O_EVAL);
        CHECK(c->prog <= c->nwords);
        CHECK(c->nwords == 0 || c->words != NULL);
        CHECK(c->nassigns == 0 || c->assigns != NULL);
        CHECK(c->nredirs == 0 || c->redirs != NULL);
        for (size_t k = 0; k < c->nwords; k++)
            check_word(&c->words[k]);
        for (size_t k = 0; k < c->nassigns; k++) {
            check_word(&c->assigns[k]);
            CHECK(strchr(c->assigns[k].text, '=') != NULL);
            CHECK(!(c->assigns[k].flags & PD_SH_W_SPLIT));
        }
        for (size_t k = 0; k < c->nredirs; k++) {
            const struct pd_sh_redir *r = &c->redirs[k];
            CHECK((int)r->op >= PD_SH_R_IN && (int)r->op <= PD_SH_R_HERESTRING);
            CHECK(r->fd >= -1);
            check_word(&r->target);
        }
        switch (c->kind) {
        case PD_SH_K_SIMPLE:
            CHECK(c->prog < c->nwords || c->nwords == 0);
            break;
        case PD_SH_K_REDIR:
            CHECK(c->nwords == 0 && c->nassigns == 0 && c->prog == 0);
            break;
        case PD_SH_K_TEST:
            CHECK(c->nwords >= 2 && c->prog == c->nwords);
            CHECK(strcmp(c->words[0].text, "[[") == 0);
            CHECK(strcmp(c->words[c->nwords - 1].text, "]]") == 0);
            break;
        case PD_SH_K_ARITH:
            CHECK(c->nwords >= 2 && c->prog == c->nwords);
            CHECK(strcmp(c->words[0].text, "((") == 0);
            CHECK(strcmp(c->words[c->nwords - 1].text, "))") == 0);
            break;
        }
    }
}

static bool same_word(const struct pd_sh_word *a, const struct pd_sh_word *b)
{
    return a->flags == b->flags && strcmp(a->text, b->text) == 0;
}

static void check_same(const struct pd_sh_script *a, const struct pd_sh_script *b)
{
    CHECK(a->ncmds == b->ncmds);
    for (size_t i = 0; i < a->ncmds; i++) {
        const struct pd_sh_cmd *x = &a->cmds[i], *y = &b->cmds[i];
        CHECK(x->kind == y->kind && x->nwords == y->nwords && x->nassigns == y->nassigns);
        CHECK(x->nredirs == y->nredirs && x->prog == y->prog && x->depth == y->depth);
        CHECK(x->origin == y->origin && x->dynamic == y->dynamic);
        CHECK(x->background == y->background && x->piped_in == y->piped_in);
        CHECK(x->piped_out == y->piped_out);
        for (size_t k = 0; k < x->nwords; k++)
            CHECK(same_word(&x->words[k], &y->words[k]));
        for (size_t k = 0; k < x->nassigns; k++)
            CHECK(same_word(&x->assigns[k], &y->assigns[k]));
        for (size_t k = 0; k < x->nredirs; k++) {
            CHECK(x->redirs[k].fd == y->redirs[k].fd && x->redirs[k].op == y->redirs[k].op);
            CHECK(same_word(&x->redirs[k].target, &y->redirs[k].target));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct pd_ctx *c = &ctxs[data[0] % (FZ_NPOLICIES * 2)].ctx;
    char *cmd = fz_cstr(data + 1, size - 1);

    struct pd_sh_script s, again;
    char err[256];
    err[0] = '\0';
    int rc = pd_sh_parse(cmd, &s, err, sizeof err);
    CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        CHECK(s.ncmds == 0);
        CHECK(fz_terminated(err, sizeof err) && err[0] != '\0');
        /* a parse without room for the message fails alike */
        CHECK(pd_sh_parse(cmd, &again, NULL, 0) == -1 && again.ncmds == 0);
    } else {
        check_script(&s);
        CHECK(pd_sh_parse(cmd, &again, NULL, 0) == 0);
        check_same(&s, &again);
        pd_sh_script_free(&again);
        pd_sh_script_free(&s);
    }

    struct pd_verdict v, v2;
    memset(&v, 0x5a, sizeof v);
    pd_gate_shell(c, cmd, NULL, &v);
    fz_check_verdict(&v);
    if (rc != 0)
        CHECK(v.deny);
    pd_gate_shell(c, cmd, NULL, &v2);
    if (fz_stable_place(&v) && fz_stable_place(&v2))
        fz_same_verdict(&v, &v2);
    free(cmd);
    return 0;
}
