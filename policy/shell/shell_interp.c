/* policy/shell/shell_interp.c - shells, script interpreters and make: programs
 * that run code they are given. Their code cannot be read statically; it
 * is not unjudged either (the hook documents such programs as making the
 * static gate advisory, and pd_shell_program_runs_code lets it warn).
 * What is judged: the code after -c/-e/--eval/... is not a path (an
 * expansion in it is still unjudged: its value is unknown), nor is python's
 * -m module; a script file operand is read; the arguments after the code
 * or the script are judged the generic way, or written with perl/ruby -i
 * and gawk -i inplace; files such as --rcfile, node --env-file, awk -f,
 * php -c are read. The bodies of sh -c and eval are parsed and judged as
 * commands of their own (policy/shell/shell.h). */
#include <ctype.h>
#include <string.h>

#include "policy/shell/shell_judge.h"
#include "policy/shell/shell_programs.h"

struct family {
    const char *names; /* space separated base names; a version may follow */
    char type;         /* s shell, i interpreter, a awk, m make */
    const char *code;  /* letters whose argument (rest of the cluster or next word) is code */
    const char *arg;   /* letters whose argument is data */
    const char *rest;  /* letters that take the rest of the cluster, if any */
    const char *inplace;
    const char *module;
    const char *read;  /* letters whose argument is a file read */
    const char *longs; /* sj_opt_kind spec for long (and single-dash long) options */
};

static const struct family families[] = {
    {"sh bash dash zsh ksh mksh ash fish busybox", 's', "c", "oO", "", "", "", "",
     "--rcfile:R --init-file:R --command:L"},
    {"python pypy", 'i', "c", "WX", "", "", "m", "", "--check-hash-based-pycs:D"},
    {"node nodejs bun", 'i', "ep", "rC", "", "", "", "",
     "--eval:L --print:L --require:D --import:D --loader:D --experimental-loader:D "
     "--conditions:D --input-type:D --title:D --redirect-warnings:W --env-file:R "
     "--env-file-if-exists:R --watch-path:D --cpu-prof-dir:D --diagnostic-dir:D "
     "--icu-data-dir:D --openssl-config:R --tls-keylog:W --heapsnapshot-signal:D "
     "--stack-size:D --max-old-space-size:D"},
    {"deno", 'i', "", "", "", "", "", "", "--config:R --env-file:R --import-map:R --cert:R"},
    {"perl", 'i', "eE", "IMm", "xl0CdDV", "i", "", "", ""},
    {"ruby", 'i', "e", "IrCEK", "xF0W", "i", "", "", "--enable:D --disable:D --encoding:D"},
    {"php", 'i', "rBRFE", "dStT", "", "", "", "fcz", ""},
    {"lua luajit", 'i', "e", "l", "", "", "", "", ""},
    {"Rscript", 'i', "e", "", "", "", "", "", "--default-packages:D"},
    {"tclsh", 'i', "", "", "", "", "", "", ""},
    {"awk gawk mawk nawk", 'a', "e", "vFli", "", "", "", "fE",
     "--source:L --assign:D --field-separator:D --file:R --exec:R --load:D --include:D"},
    {"make gmake", 'm', "", "CIoW", "Ojl", "", "", "f",
     "--file:R --makefile:R --directory:D --include-dir:D --old-file:D --assume-old:D "
     "--what-if:D --new-file:D --assume-new:D --eval:L --jobserver-auth:D"},
};

/* name is base, or base followed by a version (python3.11, perl5.36). */
static bool family_name(const char *names, const char *name)
{
    for (const char *s = names; *s;) {
        size_t len = strcspn(s, " ");
        if (strncmp(name, s, len) == 0 && strspn(name + len, "0123456789.") == strlen(name + len))
            return true;
        s += len;
        s += strspn(s, " ");
    }
    return false;
}

static const struct family *find_family(const char *name)
{
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++)
        if (family_name(families[k].names, name))
            return &families[k];
    return NULL;
}

bool pd_shell_program_runs_code(const char *name)
{
    const char *slash = strrchr(name, '/');
    return find_family(slash ? slash + 1 : name) != NULL;
}

struct interp {
    bool code_given, module, inplace;
};

/* The argument of the option letter at c in w[*i]: the rest of the word,
 * or the next word. */
static const struct pd_sh_word *letter_arg(const struct pd_sh_word *w, size_t n, size_t *i,
                                           const char *c, const char **arg)
{
    if (c[1]) {
        *arg = c + 1;
        return &w[*i];
    }
    if (*i + 1 >= n) {
        *arg = NULL;
        return NULL;
    }
    (*i)++;
    *arg = w[*i].text;
    return &w[*i];
}

static void long_option(struct sh_judge *j, const struct family *f, struct interp *st,
                        const struct pd_sh_word *w, size_t n, size_t *i)
{
    const char *t = w[*i].text;
    char kind = sj_opt_kind(f->longs, t);
    if (!strchr("LRWDU", kind))
        return;
    const char *eq = strchr(t, '=');
    const struct pd_sh_word *aw = &w[*i];
    const char *arg = eq ? eq + 1 : NULL;
    if (!eq) {
        if (*i + 1 >= n)
            return;
        aw = &w[++*i];
        arg = aw->text;
    }
    switch (kind) {
    case 'L':
        st->code_given = true;
        sj_data(j, aw, arg, false);
        break;
    case 'R':
        if (f->type == 'a')
            st->code_given = true; /* awk --file: the program */
        sj_read(j, aw, arg);
        break;
    case 'W':
        sj_write(j, PD_OP_WRITE, aw, arg);
        break;
    case 'U':
        sj_unjudged(j, "`%s` makes %s run what cannot be judged statically", t, j->prog);
        break;
    default:
        if (f->type == 'a' && strncmp(t, "--include", 9) == 0 && strcmp(arg, "inplace") == 0)
            st->inplace = true;
        sj_data(j, aw, arg, false);
    }
}

/* One cluster of short options (w[*i] starts with '-'). */
static void cluster(struct sh_judge *j, const struct family *f, struct interp *st,
                    const struct pd_sh_word *w, size_t n, size_t *i)
{
    const char *t = w[*i].text;
    for (const char *c = t + 1; *c; c++) {
        const char *arg;
        const struct pd_sh_word *aw;
        if (strchr(f->code, *c)) {
            st->code_given = true;
            if ((aw = letter_arg(w, n, i, c, &arg)))
                sj_data(j, aw, arg, false);
            return;
        }
        if (strchr(f->module, *c)) {
            st->module = true;
            if ((aw = letter_arg(w, n, i, c, &arg)))
                sj_data(j, aw, arg, false);
            return;
        }
        if (strchr(f->inplace, *c)) {
            st->inplace = true;
            return; /* the rest is the backup suffix */
        }
        if (strchr(f->read, *c)) {
            if (f->type == 'a' || *c == 'f')
                st->code_given = f->type != 'm';
            if ((aw = letter_arg(w, n, i, c, &arg)))
                sj_read(j, aw, arg);
            return;
        }
        if (strchr(f->arg, *c)) {
            if ((aw = letter_arg(w, n, i, c, &arg))) {
                if (f->type == 'a' && *c == 'i' && strcmp(arg, "inplace") == 0)
                    st->inplace = true;
                sj_data(j, aw, arg, false);
            }
            return;
        }
        if (strchr(f->rest, *c))
            return;
    }
}

static void make_jobs(const struct pd_sh_word *w, size_t n, size_t *i)
{
    const char *t = w[*i].text;
    if ((strcmp(t, "-j") == 0 || strcmp(t, "-l") == 0 || strcmp(t, "--jobs") == 0 ||
         strcmp(t, "--load-average") == 0) &&
        *i + 1 < n && isdigit((unsigned char)w[*i + 1].text[0]))
        (*i)++;
}

void sj_interp(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *slash = strrchr(w[0].text, '/');
    const struct family *f = find_family(slash ? slash + 1 : w[0].text);
    if (!f)
        return;
    struct interp st = {false, false, false};
    size_t i = 1;
    if (f->type == 'i' && strcmp(j->prog, "deno") == 0 && n > 1 && strcmp(w[1].text, "eval") == 0)
        st.code_given = true, i = 2;
    for (; i < n && !j->denied && !st.module; i++) {
        const char *t = w[i].text;
        bool lit = sj_is_literal(&w[i]);
        if (t[0] != '-' && t[0] != '+')
            break;
        if (!lit) {
            /* make -j$(nproc): a letter whose argument is the rest, given by
             * a substitution (its commands are judged) */
            unsigned kind = sj_word_kind(&w[i], NULL);
            const char *dyn = strpbrk(t, "$`");
            if (t[0] == '-' && t[1] && t[1] != '-' && strchr(f->rest, t[1]) && dyn == t + 2 &&
                !(kind & ~(SJX_CMD | SJX_ARITH | SJX_NUMPARAM | SJX_SPLIT)))
                continue;
            sj_unjudged(j, "`%s` is %s where %s expects an option", t, sj_kind_name(kind), j->prog);
            continue;
        }
        if (strcmp(t, "-") == 0 || strcmp(t, "--") == 0) {
            if (strcmp(t, "--") == 0)
                i++;
            break;
        }
        if (f->type == 'm')
            make_jobs(w, n, &i);
        if (t[0] == '+') { /* bash +o OPTION */
            if (strchr(t, 'o') && f->type == 's')
                i++;
            continue;
        }
        if (t[1] == '-' || sj_opt_single_long(f->longs, t))
            long_option(j, f, &st, w, n, &i);
        else
            cluster(j, f, &st, w, n, &i);
        if (f->type == 's' && st.code_given) {
            i++; /* the body: parsed as commands of their own */
            break;
        }
    }
    if (f->type == 'm') {
        for (; i < n && !j->denied; i++)
            sj_data(j, &w[i], NULL, false); /* targets and VAR=value */
        return;
    }
    bool first = true;
    for (; i < n && !j->denied; i++) {
        const struct pd_sh_word *a = &w[i];
        if (first && !st.code_given && !st.module) {
            first = false;
            if (f->type == 'a') {
                sj_data(j, a, NULL, false); /* the program text */
                st.code_given = true;
            } else {
                sj_read(j, a, NULL); /* the script */
            }
            continue;
        }
        first = false;
        if (f->type == 'a' && sj_is_literal(a) && strchr(a->text, '=') &&
            strcspn(a->text, "=") == strspn(a->text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                                     "QRSTUVWXYZ0123456789_"))
            continue; /* awk var=value */
        if (st.inplace)
            sj_write(j, PD_OP_WRITE, a, NULL);
        else if (f->type == 'a')
            sj_read(j, a, NULL);
        else
            sj_generic(j, a);
    }
}

bool sj_interp_reads_stdin(const struct pd_sh_word *w, size_t n)
{
    const char *slash = strrchr(w[0].text, '/');
    const struct family *f = find_family(slash ? slash + 1 : w[0].text);
    if (!f || f->type == 'a' || f->type == 'm')
        return false;
    for (size_t k = 1; k < n; k++) {
        const char *t = w[k].text;
        if (!sj_is_literal(&w[k]))
            return false; /* unjudged by sj_interp */
        if (strcmp(t, "-") == 0)
            return true;
        if (strcmp(t, "--") == 0)
            return k + 1 >= n || strcmp(w[k + 1].text, "-") == 0;
        if (t[0] == '+' && f->type == 's') {
            k += strchr(t, 'o') != NULL;
            continue;
        }
        if (t[0] != '-')
            return false; /* a script */
        if (t[1] == '-' || sj_opt_single_long(f->longs, t)) {
            char kind = sj_opt_kind(f->longs, t);
            if (kind == 'L')
                return false;
            if (strchr("RWDU", kind) && !strchr(t, '='))
                k++;
            continue;
        }
        for (const char *c = t + 1; *c; c++) {
            if (strchr(f->code, *c) || strchr(f->module, *c))
                return false;
            if (f->type == 's' && *c == 's')
                return true;
            if (strchr(f->arg, *c) || strchr(f->read, *c)) {
                k += c[1] == '\0';
                break;
            }
            if (strchr(f->rest, *c) || strchr(f->inplace, *c))
                break;
        }
    }
    return true;
}
