/* policy/shell/shell_sed.c - sed: the script is not a path; the files it names
 * are. The first operand is the script unless -e/--expression or
 * -f/--file gave it; the other operands are files read, or written with
 * -i/--in-place (and a backup named with the suffix). -f FILE is read and
 * makes the script unknown (unjudged).
 *
 * The script is parsed as GNU sed reads it, well enough to find the
 * commands that reach outside: r FILE and R FILE read, w FILE, W FILE and
 * the w flag of s write (the name runs to the end of the line), e and the
 * e flag of s run shell commands (unjudged). A script that cannot be
 * parsed is unjudged. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "policy/shell/shell_judge.h"

struct sed {
    struct sh_judge *j;
    const struct pd_sh_word *w; /* the word holding the script */
    const char *s;              /* the script */
    size_t pos, len;
    bool bad;
};

static char peek(const struct sed *p)
{
    return p->pos < p->len ? p->s[p->pos] : '\0';
}

static void blanks(struct sed *p)
{
    while (peek(p) == ' ' || peek(p) == '\t')
        p->pos++;
}

/* Up to an unescaped delim; the position ends after it. */
static bool delimited(struct sed *p, char delim)
{
    for (; p->pos < p->len; p->pos++) {
        char ch = p->s[p->pos];
        if (ch == '\\') {
            p->pos++;
            continue;
        }
        if (ch == delim) {
            p->pos++;
            return true;
        }
        if (ch == '\n' && delim != '\n')
            return false;
    }
    return false;
}

static bool address(struct sed *p)
{
    char ch = peek(p);
    if (isdigit((unsigned char)ch)) {
        while (isdigit((unsigned char)peek(p)))
            p->pos++;
        if (peek(p) == '~') {
            p->pos++;
            while (isdigit((unsigned char)peek(p)))
                p->pos++;
        }
        return true;
    }
    if (ch == '$') {
        p->pos++;
        return true;
    }
    if (ch == '/' || ch == '\\') {
        char delim = '/';
        if (ch == '\\') {
            p->pos++;
            delim = peek(p);
            if (!delim || delim == '\n' || delim == '\\')
                return false;
        }
        p->pos++;
        if (!delimited(p, delim))
            return false;
        while (peek(p) == 'I' || peek(p) == 'M')
            p->pos++;
        return true;
    }
    return true; /* no address */
}

static bool addresses(struct sed *p)
{
    if (!address(p))
        return false;
    blanks(p);
    if (peek(p) == ',') {
        p->pos++;
        blanks(p);
        if (peek(p) == '+' || peek(p) == '~') {
            p->pos++;
            while (isdigit((unsigned char)peek(p)))
                p->pos++;
        } else if (!address(p)) {
            return false;
        }
    }
    blanks(p);
    while (peek(p) == '!') {
        p->pos++;
        blanks(p);
    }
    return true;
}

/* The rest of the line (a file name, text, a command). */
static size_t rest_of_line(struct sed *p, const char **start)
{
    *start = p->s + p->pos;
    size_t n = 0;
    while (p->pos < p->len && p->s[p->pos] != '\n') {
        p->pos++;
        n++;
    }
    return n;
}

static void file_op(struct sed *p, enum pd_op op, char cmd)
{
    const char *name;
    blanks(p);
    size_t n = rest_of_line(p, &name);
    char buf[PD_PATH_MAX];
    if (n == 0) {
        if (op != PD_OP_READ) /* w with no file: sed refuses the script */
            p->bad = true;
        return;
    }
    if (n >= sizeof buf) {
        sj_unjudged(p->j, "the file of sed %c is longer than the path limit", cmd);
        return;
    }
    memcpy(buf, name, n);
    buf[n] = '\0';
    struct pd_sh_word fw = {buf, p->w->flags & PD_SH_W_QUOTED};
    sj_path_at(p->j, op, &fw, NULL, SJ_ARGS);
}

/* Text of a, i, c: one line (GNU), or lines continued by a backslash. */
static void text_arg(struct sed *p)
{
    const char *t;
    for (;;) {
        size_t n = rest_of_line(p, &t);
        if (n && t[n - 1] == '\\' && p->pos < p->len) {
            p->pos++; /* the newline: the text goes on */
            continue;
        }
        if (n == 0 && t > p->s && t[-1] == '\\' && p->pos < p->len) {
            p->pos++;
            continue;
        }
        return;
    }
}

static void label(struct sed *p)
{
    blanks(p);
    while (p->pos < p->len && p->s[p->pos] != '\n' && p->s[p->pos] != ';')
        p->pos++;
}

static bool substitute(struct sed *p)
{
    char delim = peek(p);
    if (!delim || delim == '\n' || delim == '\\')
        return false;
    p->pos++;
    if (!delimited(p, delim))
        return false;
    /* the replacement may span lines with \<newline> */
    for (; p->pos < p->len; p->pos++) {
        char ch = p->s[p->pos];
        if (ch == '\\') {
            p->pos++;
            continue;
        }
        if (ch == delim)
            break;
        if (ch == '\n')
            return false;
    }
    if (p->pos >= p->len)
        return false;
    p->pos++;
    for (;;) {
        char ch = peek(p);
        if (ch == 'g' || ch == 'p' || ch == 'i' || ch == 'I' || ch == 'm' || ch == 'M' ||
            isdigit((unsigned char)ch)) {
            p->pos++;
        } else if (ch == 'e') {
            p->pos++;
            sj_unjudged(p->j, "the sed command s///e runs the pattern space as a shell command");
        } else if (ch == 'w') {
            p->pos++;
            file_op(p, PD_OP_WRITE, 'w');
            return true;
        } else {
            return true;
        }
    }
}

static bool transliterate(struct sed *p)
{
    char delim = peek(p);
    if (!delim || delim == '\n' || delim == '\\')
        return false;
    p->pos++;
    bool from = delimited(p, delim); /* y/FROM/TO/ */
    return from && delimited(p, delim);
}

void sj_sed_script(struct sh_judge *j, const struct pd_sh_word *w, const char *script)
{
    struct sed p = {j, w, script, 0, strlen(script), false};
    while (p.pos < p.len && !p.bad && !j->denied) {
        char ch = peek(&p);
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == '}') {
            p.pos++;
            continue;
        }
        if (ch == '#') {
            const char *t;
            rest_of_line(&p, &t);
            continue;
        }
        if (!addresses(&p)) {
            p.bad = true;
            break;
        }
        char cmd = peek(&p);
        p.pos++;
        switch (cmd) {
        case '{':
        case '=':
        case 'd':
        case 'D':
        case 'g':
        case 'G':
        case 'h':
        case 'H':
        case 'n':
        case 'N':
        case 'p':
        case 'P':
        case 'x':
        case 'z':
        case 'F':
            break;
        case 'l':
        case 'L':
        case 'q':
        case 'Q':
            blanks(&p);
            while (isdigit((unsigned char)peek(&p)))
                p.pos++;
            break;
        case ':':
        case 'b':
        case 't':
        case 'T':
        case 'v':
            label(&p);
            break;
        case 'a':
        case 'i':
        case 'c':
            text_arg(&p);
            break;
        case 'r':
        case 'R':
            file_op(&p, PD_OP_READ, cmd);
            break;
        case 'w':
        case 'W':
            file_op(&p, PD_OP_WRITE, cmd);
            break;
        case 'e':
            sj_unjudged(j, "the sed command e runs a shell command");
            {
                const char *t;
                rest_of_line(&p, &t);
            }
            break;
        case 's':
            p.bad = !substitute(&p);
            break;
        case 'y':
            p.bad = !transliterate(&p);
            break;
        default:
            p.bad = true;
        }
    }
    if (p.bad) {
        char ex[64];
        size_t n = strcspn(script, "\n");
        snprintf(ex, sizeof ex, "%.*s", (int)(n < 48 ? n : 48), script);
        sj_unjudged(j, "the sed script `%s` cannot be read statically", ex);
    }
}

/* ---- the command line ------------------------------------------------------ */

struct sedargs {
    bool script_given, inplace;
    const char *suffix; /* -i's backup suffix, or NULL */
};

static void script_word(struct sh_judge *j, const struct pd_sh_word *w, const char *text)
{
    if (!sj_is_literal(w) && sj_word_kind(w, text)) {
        sj_unjudged(j, "the sed script `%s` is %s", text, sj_kind_name(sj_word_kind(w, text)));
        return;
    }
    sj_sed_script(j, w, text);
}

void sj_sed(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    struct sedargs a = {false, false, NULL};
    const struct pd_sh_word *ops[64];
    size_t nops = 0;
    bool options = true;
    for (size_t i = 1; i < n && !j->denied; i++) {
        const char *t = w[i].text;
        bool lit = sj_is_literal(&w[i]);
        if (!options || t[0] != '-' || !t[1]) {
            if (nops < sizeof ops / sizeof ops[0])
                ops[nops++] = &w[i];
            else
                sj_unjudged(j, "sed is given too many files to judge");
            continue;
        }
        if (strcmp(t, "--") == 0) {
            options = false;
            continue;
        }
        if (!lit && (!strchr(t, '=') || strpbrk(t, "$`") < strchr(t, '='))) {
            sj_unjudged(j, "`%s` is %s where sed expects an option", t,
                        sj_kind_name(sj_word_kind(&w[i], NULL)));
            continue;
        }
        if (t[1] == '-') {
            const char *eq = strchr(t, '=');
            size_t len = eq ? (size_t)(eq - t) : strlen(t);
            if (len >= 4 && strncmp(t, "--expression", len) == 0) {
                a.script_given = true;
                if (eq)
                    script_word(j, &w[i], eq + 1);
                else if (i + 1 < n)
                    script_word(j, &w[i + 1], w[i + 1].text), i++;
            } else if (len >= 4 && strncmp(t, "--file", len) == 0) {
                a.script_given = true;
                const struct pd_sh_word *f = eq ? &w[i] : (i + 1 < n ? &w[++i] : NULL);
                if (f)
                    sj_read(j, f, eq ? eq + 1 : NULL);
                sj_unjudged(j, "sed -f reads its script from a file: its w, r and e commands are "
                               "not known statically");
            } else if (len >= 5 && strncmp(t, "--in-place", len) == 0) {
                a.inplace = true;
                a.suffix = eq && eq[1] ? eq + 1 : NULL;
            } else if (len >= 4 && strncmp(t, "--line-length", len) == 0 && !eq) {
                i++;
            }
            continue;
        }
        for (const char *c = t + 1; *c; c++) {
            if (*c == 'e' || *c == 'f' || *c == 'l') {
                const struct pd_sh_word *aw = &w[i];
                const char *arg = c + 1;
                if (!*arg) {
                    if (i + 1 >= n)
                        break;
                    aw = &w[++i];
                    arg = aw->text;
                }
                if (*c == 'e') {
                    a.script_given = true;
                    script_word(j, aw, arg);
                } else if (*c == 'f') {
                    a.script_given = true;
                    sj_read(j, aw, arg);
                    sj_unjudged(j, "sed -f reads its script from a file: its w, r and e commands "
                                   "are not known statically");
                }
                break;
            }
            if (*c == 'i') { /* -i[SUFFIX]: the rest of the cluster */
                a.inplace = true;
                a.suffix = c[1] ? c + 1 : NULL;
                break;
            }
        }
    }
    size_t first = 0;
    if (!a.script_given) {
        if (nops == 0)
            return;
        script_word(j, ops[0], ops[0]->text);
        first = 1;
    }
    for (size_t k = first; k < nops && !j->denied; k++) {
        sj_write(j, a.inplace ? PD_OP_WRITE : PD_OP_READ, ops[k], NULL);
        if (a.inplace && a.suffix && sj_is_literal(ops[k])) {
            char backup[PD_PATH_MAX];
            if (strpbrk(a.suffix, "*/")) {
                sj_unjudged(j, "sed -i%s names its backups by a pattern", a.suffix);
            } else if ((size_t)snprintf(backup, sizeof backup, "%s%s", ops[k]->text, a.suffix) <
                       sizeof backup) {
                struct pd_sh_word bw = {backup, 0};
                sj_write(j, PD_OP_CREATE, &bw, NULL);
            }
        }
    }
}
