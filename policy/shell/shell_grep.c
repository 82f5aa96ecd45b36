/* policy/shell/shell_grep.c - grep and kin (egrep, fgrep, rg, ag): the first
 * operand is the pattern unless -e/-f (--regexp/--file) gave it; the
 * globs of --include, --exclude, --exclude-dir, rg -g and the like are not
 * paths; -f FILE and --exclude-from FILE are read. The other operands are
 * files read. A recursive search (grep -r/-R/--recursive/-d recurse; rg and
 * ag always) with no path (it searches ".") or with a directory reads every
 * file below it, secrets included: unjudged. rg and ag read a pipe when
 * they are given no path. */
#include <string.h>

#include "policy/shell/shell_judge.h"

#define GREP                                                                                       \
    "-e:P --regexp:P -f:Q --file:Q -m:D --max-count:D -A:D -B:D -C:D --after-context:D "           \
    "--before-context:D --context?:D -d:D --directories:D -D:D --devices:D --include:D "           \
    "--exclude:D --exclude-dir:D --exclude-from:R --label:D --color?:D --colour?:D "               \
    "--binary-files:D --group-separator:D -r:r -R:r --recursive:r --dereference-recursive:r"
#define RG                                                                                         \
    "-e:P --regexp:P -f:Q --file:Q -g:D --glob:D --iglob:D -t:D --type:D -T:D --type-not:D "       \
    "--type-add:D --type-clear:D -j:D --threads:D -m:D --max-count:D -A:D -B:D -C:D "              \
    "--after-context:D --before-context:D --context:D -M:D --max-columns:D --max-depth:D "         \
    "--maxdepth:D -d:D --max-filesize:D -E:D --encoding:D --engine:D --ignore-file:R --pre:U "     \
    "--pre-glob:D -r:D --replace:D --path-separator:D --sort:D --sortr:D --colors:D --color:D "    \
    "--context-separator:D --field-match-separator:D --field-context-separator:D "                 \
    "--dfa-size-limit:D --regex-size-limit:D --hostname-bin:U --hyperlink-format:D --files:p "     \
    "--type-list:p"
#define AG                                                                                         \
    "-G:D --file-search-regex:D --ignore:D --ignore-dir:D -p:R --path-to-ignore:R -A:D -B:D "      \
    "-C:D --context?:D -m:D --max-count:D --depth:D -g:P --pager:U --color-line-number:D "         \
    "--color-match:D --color-path:D -W:D --width:D"

#define MAX_FILES 64

struct grep {
    bool pattern_given, recursive, saw_pattern;
    const struct pd_sh_word *files[MAX_FILES];
    size_t nfiles;
    bool too_many;
};

static void g_opt(struct sh_judge *j, void *ud, const struct sj_opt *o)
{
    struct grep *g = ud;
    if (o->kind == 'P' || o->kind == 'Q' || o->kind == 'p')
        g->pattern_given = true;
    if (o->kind == 'r')
        g->recursive = true;
    if (((o->len == 1 && o->name[0] == 'd') ||
         (o->len == 11 && strncmp(o->name, "directories", 11) == 0)) &&
        o->arg && strcmp(o->arg, "recurse") == 0 && strcmp(j->prog, "rg") != 0)
        g->recursive = true;
    sj_opt_common(j, o);
}

static void g_operand(struct sh_judge *j, void *ud, size_t index, const struct pd_sh_word *w)
{
    struct grep *g = ud;
    (void)index;
    if (!g->pattern_given && !g->saw_pattern) {
        g->saw_pattern = true;
        sj_data(j, w, NULL, false);
        return;
    }
    if (g->nfiles < MAX_FILES)
        g->files[g->nfiles++] = w;
    else
        g->too_many = true;
}

void sj_grep(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *name = j->prog;
    bool rg = strcmp(name, "rg") == 0, ag = strcmp(name, "ag") == 0;
    struct grep g = {false, rg || ag, false, {NULL}, 0, false};
    struct sj_walk_cb cb = {g_opt, g_operand, &g};
    sj_walk(j, w, n, 1, rg ? RG : ag ? AG : GREP, 0, &cb);
    if (g.too_many)
        sj_unjudged(j, "%s is given more than %d files to judge", name, MAX_FILES);
    if (g.recursive && g.nfiles == 0 && !(j->cmd && j->cmd->piped_in && (rg || ag)))
        sj_unjudged(j,
                    "%s %s with no path reads every file below the working directory, "
                    "secrets included",
                    name, rg || ag ? "(recursive)" : "-r");
    for (size_t k = 0; k < g.nfiles && !j->denied; k++) {
        const struct pd_sh_word *f = g.files[k];
        if (g.recursive && sj_is_literal(f) && sj_is_dir(j, f->text)) {
            sj_read(j, f, NULL); /* a denied directory is a literal deny */
            sj_unjudged(j, "%s recursive on %s reads every file below it, secrets included", name,
                        f->text);
            continue;
        }
        sj_read(j, f, NULL);
    }
}
