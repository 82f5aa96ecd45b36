/* policy/shell/shell_find.c - find: the start paths before the first expression
 * are read (none: the implied "."), patterns of -name and kin are not
 * paths, -newer and kin read a file, -fprint and kin write one, -delete
 * removes what it finds (unjudged), and -exec, -execdir, -ok and -okdir
 * run a program on names found at run time: the program is judged
 * literally (allow_binaries, the network) with its own arguments ("{}"
 * stands for the names), and the command is unjudged. */
#include <string.h>

#include "policy/shell/shell_judge.h"

static bool in(const char *const *list, const char *s)
{
    for (size_t k = 0; list[k]; k++)
        if (strcmp(list[k], s) == 0)
            return true;
    return false;
}

static const char *const patterns[] = {"-name",      "-iname",      "-path",  "-ipath",
                                       "-wholename", "-iwholename", "-regex", "-iregex",
                                       "-lname",     "-ilname",     NULL};
static const char *const reads[] = {"-newer",    "-anewer",      "-cnewer",
                                    "-samefile", "-files0-from", NULL};
static const char *const writes[] = {"-fprint", "-fprint0", "-fls", NULL};
static const char *const data[] = {
    "-type",  "-xtype",    "-perm",     "-user",   "-group",   "-uid",       "-gid",    "-size",
    "-mtime", "-atime",    "-ctime",    "-mmin",   "-amin",    "-cmin",      "-used",   "-links",
    "-inum",  "-maxdepth", "-mindepth", "-fstype", "-context", "-regextype", "-printf", NULL};
static const char *const runs[] = {"-exec", "-execdir", "-ok", "-okdir", NULL};

static bool expression_start(const char *t)
{
    return t[0] == '-' || strcmp(t, "(") == 0 || strcmp(t, "!") == 0 || strcmp(t, ",") == 0 ||
           strcmp(t, ")") == 0;
}

/* -exec PROGRAM ARGS... ; (or {} +): judge the program and its words. */
static size_t exec_action(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t i)
{
    size_t start = i + 1, end = start;
    for (; end < n; end++) {
        const char *t = w[end].text;
        if (strcmp(t, ";") == 0 ||
            (strcmp(t, "+") == 0 && end > start && strcmp(w[end - 1].text, "{}") == 0))
            break;
    }
    if (start >= end) {
        sj_unjudged(j, "find %s without a program", w[i].text);
        return end;
    }
    sj_unjudged(j, "find %s runs %s on names found at run time", w[i].text, w[start].text);
    const char *saved = j->runtime_mark;
    j->runtime_mark = "{}";
    sj_program(j, &w[start]);
    sj_dispatch(j, w + start, end - start);
    j->runtime_mark = saved;
    return end;
}

void sj_find(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    size_t i = 1;
    /* -H -L -P, -D debugopts, -Olevel */
    for (; i < n && sj_is_literal(&w[i]); i++) {
        const char *t = w[i].text;
        if (strcmp(t, "-H") == 0 || strcmp(t, "-L") == 0 || strcmp(t, "-P") == 0 ||
            strncmp(t, "-O", 2) == 0)
            continue;
        if (strcmp(t, "-D") == 0) {
            i++;
            continue;
        }
        break;
    }
    size_t starts = 0;
    for (; i < n && !j->denied; i++) {
        if (sj_is_literal(&w[i]) && expression_start(w[i].text))
            break;
        if (strcmp(w[i].text, "--") == 0)
            continue;
        sj_read(j, &w[i], NULL);
        starts++;
    }
    if (!starts) {
        char dot[] = ".";
        const struct pd_sh_word implied = {dot, 0};
        sj_read(j, &implied, NULL);
    }
    for (; i < n && !j->denied; i++) {
        const char *t = w[i].text;
        if (!sj_is_literal(&w[i])) {
            sj_unjudged(j, "`%s` is %s in the expression of find", t,
                        sj_kind_name(sj_word_kind(&w[i], NULL)));
            continue;
        }
        bool last = i + 1 >= n;
        if (in(patterns, t) || in(data, t)) {
            if (!last)
                sj_data(j, &w[++i], NULL, false);
        } else if (in(reads, t)) {
            if (!last)
                sj_read(j, &w[++i], NULL);
        } else if (strncmp(t, "-newer", 6) == 0 && strlen(t) == 8) { /* -newerXY */
            if (!last) {
                i++;
                if (t[7] == 't')
                    sj_data(j, &w[i], NULL, false);
                else
                    sj_read(j, &w[i], NULL);
            }
        } else if (in(writes, t)) {
            if (!last)
                sj_write(j, PD_OP_WRITE, &w[++i], NULL);
        } else if (strcmp(t, "-fprintf") == 0) {
            if (!last)
                sj_write(j, PD_OP_WRITE, &w[++i], NULL);
            if (i + 1 < n)
                sj_data(j, &w[++i], NULL, false);
        } else if (in(runs, t)) {
            i = exec_action(j, w, n, i);
        } else if (strcmp(t, "-delete") == 0) {
            sj_unjudged(j, "find -delete removes the files it finds at run time");
        }
    }
}
