/* policy/shell/shell_cwd.c - the directories a command's words may be relative
 * to. The parser flattens the script, so whether a `cd` ran before a word
 * (its branch, a failed cd, a subshell, a loop) is lost. The gate keeps
 * a set instead: it starts with the base directory, and every literal
 * `cd DIR` adds DIR resolved against every directory already in the set
 * (bash's logical reading of .. and the physical one both). Every command
 * is then judged against the whole set, also the commands written before
 * the cd (a function or a trap may run them later).
 *
 * `cd` alone and `cd ~` go to the home. `cd -` (the previous directory of
 * a shell we do not see), a cd to a word that is not literal, pushd and
 * popd, more than SJ_MAX_CWD directories, and a script with a loop, a
 * function or a trap in which a second pass over its cds reaches a
 * further existing directory are unjudged. CDPATH is not followed: setting
 * it is unjudged (shell_literal.c), and a CDPATH in the client's
 * environment is not known here. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/shell/shell_judge.h"

bool sj_cwd_add(struct sj_cwds *set, const char *dir)
{
    for (size_t k = 0; k < set->n; k++)
        if (strcmp(set->dir[k], dir) == 0)
            return true;
    if (set->n >= SJ_MAX_CWD)
        return false;
    snprintf(set->dir[set->n++], PD_PATH_MAX, "%s", dir);
    return true;
}

/* dir + text, the physical way (links followed) and the logical way
 * (.. taken lexically first, as bash's cd -L does). */
static bool resolve_both(const struct sh_judge *j, const char *dir, const char *text,
                         char phys[PD_PATH_MAX], char logi[PD_PATH_MAX])
{
    char joined[PD_PATH_MAX], clean[PD_PATH_MAX];
    if (pd_path_normalize(dir, j->c->home, text, phys, PD_PATH_MAX) != 0)
        return false;
    if (text[0] == '/' || text[0] == '~') {
        snprintf(logi, PD_PATH_MAX, "%s", phys);
        return true;
    }
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", dir, text) >= sizeof joined)
        return false;
    pd_path_clean(joined, clean, sizeof clean);
    return pd_path_normalize("/", j->c->home, clean, logi, PD_PATH_MAX) == 0;
}

bool sj_cwd_apply(const struct sh_judge *j, const struct sj_cwds *from, const char *text,
                  struct sj_cwds *to)
{
    char phys[PD_PATH_MAX], logi[PD_PATH_MAX];
    size_t n = from->n; /* from may be to: only the directories there before */
    for (size_t k = 0; k < n; k++) {
        if (!resolve_both(j, from->dir[k], text, phys, logi))
            return false;
        if (!sj_cwd_add(to, phys) || !sj_cwd_add(to, logi))
            return false;
    }
    return true;
}

/* The target word of cd (NULL for the home), after its options. */
static const struct pd_sh_word *cd_target(const struct pd_sh_cmd *cmd)
{
    size_t k = cmd->prog + 1;
    for (; k < cmd->nwords; k++) {
        const char *t = cmd->words[k].text;
        if (!sj_is_literal(&cmd->words[k]))
            break;
        if (strcmp(t, "--") == 0) {
            k++;
            break;
        }
        if (t[0] != '-' || !t[1] || strspn(t + 1, "LPe@") != strlen(t + 1))
            break;
    }
    return k < cmd->nwords ? &cmd->words[k] : NULL;
}

static bool existing_dir(const char *dir)
{
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

void sj_cwd_collect(struct sh_judge *j, const struct pd_sh_script *s, const char *src,
                    struct sj_cwds *set)
{
    char tilde[] = "~";
    const struct pd_sh_word home = {tilde, PD_SH_W_TILDE};
    bool full = false, relative = false;
    for (size_t pass = 0; pass < 2; pass++) {
        size_t before = set->n;
        for (size_t k = 0; k < s->ncmds && !full; k++) {
            const struct pd_sh_cmd *cmd = &s->cmds[k];
            if (cmd->kind != PD_SH_K_SIMPLE || cmd->prog >= cmd->nwords || cmd->dynamic)
                continue;
            const char *name = cmd->words[cmd->prog].text;
            if (pass == 0 && (strcmp(name, "pushd") == 0 || strcmp(name, "popd") == 0)) {
                sj_unjudged(j, "%s changes the directory stack, which is not followed statically",
                            name);
                continue;
            }
            if (strcmp(name, "cd") != 0)
                continue;
            const struct pd_sh_word *w = cd_target(cmd);
            if (!w)
                w = &home;
            if (!sj_is_literal(w)) {
                if (pass == 0)
                    sj_unjudged(j, "`cd %s`: %s is not a directory known statically", w->text,
                                sj_kind_name(sj_word_kind(w, NULL)));
                continue;
            }
            if (strcmp(w->text, "-") == 0) {
                if (pass == 0)
                    sj_unjudged(j, "`cd -` goes back to a directory not known statically");
                continue;
            }
            char text[PD_PATH_MAX];
            if (!w->text[0])
                continue; /* cd "" stays where it is */
            if (!sj_literal_path(j, w, NULL, text, sizeof text)) {
                if (pass == 0)
                    sj_unjudged(j, "`cd %.60s...` is longer than the path limit", w->text);
                continue;
            }
            if (text[0] != '/' && text[0] != '~')
                relative = true;
            if (pass == 0) {
                if (!sj_cwd_apply(j, set, text, set)) {
                    sj_unjudged(j, "the command may run in more than %d directories (cd %s)",
                                SJ_MAX_CWD, w->text);
                    full = true;
                }
                continue;
            }
            /* pass 1: what a cd repeated by a loop would reach */
            struct sj_cwds more = {.n = 0};
            for (size_t d = 0; d < set->n; d++) {
                char phys[PD_PATH_MAX], logi[PD_PATH_MAX];
                if (resolve_both(j, set->dir[d], text, phys, logi)) {
                    if (existing_dir(phys))
                        sj_cwd_add(&more, phys);
                    if (existing_dir(logi))
                        sj_cwd_add(&more, logi);
                }
            }
            for (size_t d = 0; d < more.n && !full; d++)
                if (!sj_cwd_add(set, more.dir[d]))
                    full = true;
        }
        if (pass == 0 && (!relative || full || !sj_raw_may_repeat(src)))
            break;
        if (pass == 1 && (set->n > before || full))
            sj_unjudged(j, "a cd inside a loop, a function or a trap may run more than once and "
                           "reach other directories");
    }
}
