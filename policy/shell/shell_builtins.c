/* policy/shell/shell_builtins.c - bash's builtins, assignments, [[ ]] and (( )):
 * where bash turns data into code, or changes what later words mean.
 *
 * Unjudged (fail closed) are: printf -v and read (they assign values made
 * at run time, and an array subscript in the name is evaluated), declare
 * and kin with -n (a name reference), -i (later assignments are
 * arithmetic) or a name with a subscript, any assignment to a name of
 * sj_special_name (PATH, PS4, BASH_ENV, GIT_*, LD_*, ...) or of a value
 * built at run time, set -x / set -o xtrace (PS4 runs), set -k, alias, any
 * shopt, hash -p, enable, mapfile -C, complete/compgen -C/-F/-W/-G, bind,
 * fc, arithmetic that names variables (a variable may hold `a[$(cmd)]`,
 * which evaluation runs), and source / . of anything but a literal regular
 * file inside the workspace (judged as a read). cd, pushd and popd are
 * judged by shell_cwd.c. */
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/shell/shell_judge.h"

static const char *const builtins[] = {
    "cd",        "echo",    "printf",   "export",  "unset",    "set",    "shift",   "true",
    "false",     "test",    "[",        "pwd",     "read",     "local",  "declare", "typeset",
    "return",    "exit",    "wait",     "kill",    "trap",     "alias",  "unalias", "type",
    "hash",      "jobs",    "fg",       "bg",      "umask",    "ulimit", "getopts", "readonly",
    "shopt",     "source",  ".",        ":",       "let",      "eval",   "exec",    "command",
    "builtin",   "disown",  "pushd",    "popd",    "dirs",     "times",  "caller",  "mapfile",
    "readarray", "history", "complete", "compgen", "compopt",  "enable", "bind",    "fc",
    "help",      "logout",  "suspend",  "break",   "continue", NULL};

bool sj_is_builtin(const char *name)
{
    for (size_t k = 0; builtins[k]; k++)
        if (strcmp(builtins[k], name) == 0)
            return true;
    return false;
}

static void args_data(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t from,
                      bool split_ok)
{
    for (size_t k = from; k < n && !j->denied; k++)
        sj_data(j, &w[k], NULL, split_ok);
}

static void args_names(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t from)
{
    for (size_t k = from; k < n && !j->denied; k++)
        sj_names(j, &w[k], NULL);
}

static bool all_digits(const char *s, size_t len)
{
    if (!len)
        return false;
    for (size_t k = 0; k < len; k++)
        if (!isdigit((unsigned char)s[k]))
            return false;
    return true;
}

/* A variable name as an argument (unset, export NAME, read NAME ...):
 * unjudged when not literal, with a subscript, or special. */
static void name_arg(struct sh_judge *j, const struct pd_sh_word *w, const char *via)
{
    const char *t = w->text;
    if (!sj_is_literal(w)) {
        sj_unjudged(j, "`%s` is %s where %s expects a variable name", t,
                    sj_kind_name(sj_word_kind(w, NULL)), via);
        return;
    }
    const char *br = strchr(t, '[');
    if (br) {
        const char *end = strchr(br, ']');
        if (!end || !all_digits(br + 1, (size_t)(end - br - 1)))
            sj_unjudged(j,
                        "`%s %s`: the array subscript is evaluated as arithmetic, which may "
                        "run code",
                        via, t);
        return;
    }
    if (sj_special_name(t, strlen(t)))
        sj_unjudged(j,
                    "`%s %s` changes %s, which changes what programs run or what bash "
                    "evaluates",
                    via, t, t);
}

void sj_assignment(struct sh_judge *j, const struct pd_sh_word *w, const char *via)
{
    const char *t = w->text;
    const char *eq = strchr(t, '=');
    if (!eq)
        return;
    size_t len = (size_t)(eq - t);
    if (len && t[len - 1] == '+')
        len--;
    const char *br = memchr(t, '[', len);
    const char *dyn = strpbrk(t, "$`");
    if (dyn && dyn < t + len && (!br || dyn < br)) {
        sj_unjudged(j, "`%s` assigns to a variable whose name is not known statically", t);
        return;
    }
    if (br) {
        const char *end = memchr(br, ']', (size_t)(t + len - br));
        if (!end || !all_digits(br + 1, (size_t)(end - br - 1))) {
            sj_unjudged(j,
                        "`%s`: the array subscript is evaluated as arithmetic, which may run "
                        "code",
                        t);
            return;
        }
        len = (size_t)(br - t);
    }
    if (sj_special_name(t, len)) {
        sj_unjudged(j,
                    "`%s` sets %.*s%s%s, which changes what programs run or what bash "
                    "evaluates",
                    t, (int)len, t, via ? " through " : "", via ? via : "");
        return;
    }
    if (strlen(t) >= PD_PATH_MAX) {
        sj_unjudged(j, "`%.*s=...` assigns a value longer than the path limit", (int)len, t);
        return;
    }
    /* assignments are neither split nor globbed, and they open nothing */
    unsigned kind = sj_word_kind(w, eq + 1) & ~(SJX_GLOB | SJX_BRACE | SJX_SPLIT);
    if (kind & ~(SJX_NUMPARAM | SJX_ARITH)) {
        sj_unjudged(j, "`%s` assigns a value built at run time (%s)", t, sj_kind_name(kind));
        return;
    }
    if (via && eq[1] == '(' && strchr(eq, '[') && strcmp(via, "declare -A") != 0)
        sj_unjudged(j,
                    "`%s %s`: the subscripts of a compound assignment are evaluated as "
                    "arithmetic, which may run code",
                    via, t);
}

/* export, declare, typeset, local, readonly */
static void declare(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *via = w[0].text;
    bool opts = true, names = false, assoc = false;
    for (size_t k = 1; k < n; k++) /* -f and -F print functions, no values */
        names |= (w[k].text[0] != '-' && w[k].text[0] != '+') ||
                 (w[k].text[0] == '-' && strpbrk(w[k].text, "fF"));
    for (size_t k = 1; k < n; k++)
        if (!names || strcmp(w[k].text, "-p") == 0) {
            sj_unjudged(j, "`%s%s` prints variables, which may hold secrets of the environment",
                        via, names ? " -p" : "");
            break;
        }
    if (n == 1)
        sj_unjudged(j, "`%s` prints variables, which may hold secrets of the environment", via);
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (opts && sj_is_literal(&w[k]) && (t[0] == '-' || t[0] == '+') && t[1]) {
            if (strcmp(t, "--") == 0) {
                opts = false;
                continue;
            }
            if (t[0] == '-' && strchr(t, 'n'))
                sj_unjudged(j,
                            "`%s %s` makes a name reference, which may name an array element "
                            "(its subscript runs as arithmetic)",
                            via, t);
            if (t[0] == '-' && strchr(t, 'i'))
                sj_unjudged(j, "`%s %s` makes later assignments arithmetic, which may run code",
                            via, t);
            /* associative arrays: their subscripts are strings, not arithmetic */
            assoc |= t[0] == '-' && strchr(t, 'A') != NULL;
            continue;
        }
        opts = false;
        const char *eq = strchr(t, '=');
        const char *dyn = strpbrk(t, "$`");
        if (eq && (!dyn || dyn > eq))
            sj_assignment(j, &w[k], assoc ? "declare -A" : via);
        else
            name_arg(j, &w[k], via);
    }
}

static void unset(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    bool functions = false;
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (sj_is_literal(&w[k]) && t[0] == '-' && t[1]) {
            functions = strchr(t, 'f') != NULL;
            continue;
        }
        if (!functions)
            name_arg(j, &w[k], "unset");
    }
}

/* set -x / -o xtrace runs PS4 as code; set -k turns name=value arguments
 * into assignments. */
static void set(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    bool opts = true;
    if (n == 1)
        sj_unjudged(j, "`set` prints every variable, secrets of the environment included");
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (!opts) {
            sj_data(j, &w[k], NULL, true);
            continue;
        }
        if (!sj_is_literal(&w[k])) {
            sj_unjudged(j, "`%s` is %s where set expects its options", t,
                        sj_kind_name(sj_word_kind(&w[k], NULL)));
            continue;
        }
        if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
            opts = false; /* the rest are the positional parameters */
            continue;
        }
        if ((t[0] != '-' && t[0] != '+') || !t[1]) {
            opts = false;
            sj_data(j, &w[k], NULL, true);
            continue;
        }
        bool on = t[0] == '-';
        for (const char *c = t + 1; *c; c++) {
            if (*c == 'o') {
                const char *opt = k + 1 < n ? w[++k].text : "";
                if (on && (strcmp(opt, "xtrace") == 0 || strcmp(opt, "keyword") == 0 ||
                           !sj_is_literal(&w[k])))
                    sj_unjudged(j, "`set -o %s` %s", opt,
                                strcmp(opt, "keyword") == 0
                                    ? "turns name=value arguments into assignments"
                                    : "runs PS4 as code before every command");
            } else if (on && (*c == 'x' || *c == 'k')) {
                sj_unjudged(j, "`set %s` %s", t,
                            *c == 'x' ? "runs PS4 as code before every command"
                                      : "turns name=value arguments into assignments");
            }
        }
    }
}

/* source FILE / . FILE: code; only a literal regular file inside the
 * workspace is judged (as a read). */
static void source(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    size_t k = 1;
    if (k < n && strcmp(w[k].text, "--") == 0)
        k++;
    if (k >= n)
        return;
    const struct pd_sh_word *f = &w[k];
    if (!sj_is_literal(f)) {
        sj_unjudged(j, "`%s` is %s: %s runs code from a file named at run time", f->text,
                    sj_kind_name(sj_word_kind(f, NULL)), w[0].text);
        return;
    }
    char path[PD_PATH_MAX], abs[PD_PATH_MAX];
    bool ok = sj_literal_path(j, f, NULL, path, sizeof path);
    for (size_t c = 0; ok && c < j->cwd->n; c++) {
        struct stat st;
        ok = pd_path_normalize(j->cwd->dir[c], j->c->home, path, abs, sizeof abs) == 0 &&
             pd_path_under(abs, j->c->workspace) && stat(abs, &st) == 0 && S_ISREG(st.st_mode);
    }
    if (!ok) {
        sj_unjudged(j, "%s runs code from %s, which is not a regular file inside the workspace",
                    w[0].text, f->text);
        return;
    }
    sj_read(j, f, NULL);
    args_data(j, w, n, k + 1, true);
}

static void history(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (t[0] != '-' || !t[1] || !sj_is_literal(&w[k]))
            continue;
        bool writes = strpbrk(t, "wa") != NULL, reads = strpbrk(t, "rn") != NULL;
        if (!writes && !reads)
            continue;
        if (k + 1 >= n) {
            sj_unjudged(j, "`history %s` uses the history file ($HISTFILE)", t);
            return;
        }
        sj_write(j, writes ? PD_OP_WRITE : PD_OP_READ, &w[k + 1], NULL);
        return;
    }
}

/* Options with which a builtin evaluates code it is given. */
static bool has_option(const struct pd_sh_word *w, size_t n, const char *letters)
{
    for (size_t k = 1; k < n; k++) {
        const char *t = w[k].text;
        if (t[0] == '-' && t[1] && t[1] != '-' && strpbrk(t + 1, letters))
            return true;
    }
    return false;
}

static void arith_args(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    for (size_t k = 1; k < n && !j->denied; k++) {
        unsigned kind = sj_word_kind(&w[k], NULL);
        if (kind & ~(SJX_NUMPARAM | SJX_ARITH | SJX_GLOB))
            sj_unjudged(j, "`%s` is %s in the arguments of let", w[k].text, sj_kind_name(kind));
        else if (sj_arith_names_variable(w[k].text))
            sj_unjudged(j,
                        "`let %s` names variables: a value such as `a[$(cmd)]` runs when it is "
                        "evaluated",
                        w[k].text);
    }
}

bool sj_builtin(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *name = w[0].text;
    if (!sj_is_builtin(name))
        return false;
    if (strcmp(name, "echo") == 0 || strcmp(name, ":") == 0 || strcmp(name, "true") == 0 ||
        strcmp(name, "false") == 0) {
        args_data(j, w, n, 1, true);
    } else if (strcmp(name, "printf") == 0) {
        size_t k = 1;
        if (k < n && sj_is_literal(&w[k]) && strncmp(w[k].text, "-v", 2) == 0) {
            sj_unjudged(j, "`printf -v` assigns to a variable named in its arguments (a "
                           "subscript in the name runs code)");
            return true;
        }
        if (k < n && strcmp(w[k].text, "--") == 0)
            k++;
        if (k < n)
            sj_data(j, &w[k], NULL, false); /* the format: it may not become -v */
        args_data(j, w, n, k + 1, true);
    } else if (strcmp(name, "export") == 0 || strcmp(name, "declare") == 0 ||
               strcmp(name, "typeset") == 0 || strcmp(name, "local") == 0 ||
               strcmp(name, "readonly") == 0) {
        declare(j, w, n);
    } else if (strcmp(name, "unset") == 0) {
        unset(j, w, n);
    } else if (strcmp(name, "set") == 0) {
        set(j, w, n);
    } else if (strcmp(name, "source") == 0 || strcmp(name, ".") == 0) {
        source(j, w, n);
    } else if (strcmp(name, "read") == 0) {
        sj_unjudged(j, "read assigns what it reads at run time to variables");
    } else if (strcmp(name, "mapfile") == 0 || strcmp(name, "readarray") == 0) {
        if (has_option(w, n, "C"))
            sj_unjudged(j, "`%s -C` runs a callback as code", name);
        for (size_t k = 1; k < n; k++)
            if (w[k].text[0] != '-' && (k == 1 || strcmp(w[k - 1].text, "-C") != 0) &&
                (k == 1 || w[k - 1].text[0] != '-' || strlen(w[k - 1].text) != 2 ||
                 !strchr("dnOsuc", w[k - 1].text[1])))
                name_arg(j, &w[k], name);
    } else if (strcmp(name, "getopts") == 0) {
        if (n > 2)
            name_arg(j, &w[2], name);
        args_data(j, w, n, 3, true);
    } else if (strcmp(name, "shopt") == 0) {
        if (n > 1)
            sj_unjudged(j, "shopt changes how bash expands and runs what follows");
    } else if (strcmp(name, "alias") == 0) {
        for (size_t k = 1; k < n; k++)
            if (strcmp(w[k].text, "-p") != 0) {
                sj_unjudged(j, "alias makes a name run other code");
                break;
            }
    } else if (strcmp(name, "hash") == 0) {
        if (has_option(w, n, "p"))
            sj_unjudged(j, "`hash -p` makes a program name run another file");
        else
            args_names(j, w, n, 1);
    } else if (strcmp(name, "enable") == 0) {
        if (n > 1)
            sj_unjudged(j, "enable loads or turns off builtins");
    } else if (strcmp(name, "complete") == 0 || strcmp(name, "compgen") == 0 ||
               strcmp(name, "compopt") == 0) {
        if (has_option(w, n, "CFWG"))
            sj_unjudged(j, "`%s` with -C, -F, -W or -G runs or expands code", name);
        else
            args_data(j, w, n, 1, true);
    } else if (strcmp(name, "bind") == 0) {
        if (n > 1)
            sj_unjudged(j, "bind can make keys run commands");
    } else if (strcmp(name, "fc") == 0) {
        sj_unjudged(j, "fc runs commands from the history");
    } else if (strcmp(name, "history") == 0) {
        history(j, w, n);
    } else if (strcmp(name, "let") == 0) {
        arith_args(j, w, n);
    } else if (strcmp(name, "test") == 0 || strcmp(name, "[") == 0) {
        for (size_t k = 1; k + 1 < n; k++)
            if (strcmp(w[k].text, "-v") == 0 && strchr(w[k + 1].text, '['))
                sj_unjudged(j, "`%s -v %s` evaluates an array subscript", name, w[k + 1].text);
        args_names(j, w, n, 1);
    } else if (strcmp(name, "type") == 0 || strcmp(name, "command") == 0 ||
               strcmp(name, "unalias") == 0) {
        args_names(j, w, n, 1);
    } else if (strcmp(name, "wait") == 0 && has_option(w, n, "p")) {
        sj_unjudged(j, "`wait -p` assigns to a variable named in its arguments");
    } else if (strcmp(name, "jobs") == 0 && has_option(w, n, "x")) {
        sj_unjudged(j, "`jobs -x` runs a command");
    } else if (strcmp(name, "cd") == 0 || strcmp(name, "pushd") == 0 || strcmp(name, "popd") == 0 ||
               strcmp(name, "dirs") == 0 || strcmp(name, "trap") == 0 ||
               strcmp(name, "eval") == 0 || strcmp(name, "exec") == 0 ||
               strcmp(name, "builtin") == 0) {
        /* cd and kin: shell_cwd.c; trap and eval bodies: parsed and judged
         * as commands of their own; exec and builtin alone run nothing */
    } else {
        args_data(j, w, n, 1, true);
    }
    return true;
}

/* ---- [[ ]] and (( )) -------------------------------------------------------- */

static bool arith_operator(const char *t)
{
    static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge", NULL};
    for (size_t k = 0; ops[k]; k++)
        if (strcmp(t, ops[k]) == 0)
            return true;
    return false;
}

/* An operand [[ ]] evaluates as arithmetic: a number is fine. */
static bool number_operand(const struct pd_sh_word *w)
{
    unsigned kind = sj_word_kind(w, NULL);
    if (kind)
        return !(kind & ~(SJX_NUMPARAM | SJX_ARITH | SJX_SPLIT));
    const char *t = w->text;
    if (*t == '-' || *t == '+')
        t++;
    return all_digits(t, strlen(t));
}

void sj_test(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    size_t n = cmd->nwords;
    const struct pd_sh_word *w = cmd->words;
    for (size_t k = 1; k + 1 < n && !j->denied; k++) {
        const char *t = w[k].text;
        if (sj_is_literal(&w[k]) && arith_operator(t)) {
            if (!number_operand(&w[k - 1]) || (k + 2 < n && !number_operand(&w[k + 1])))
                sj_unjudged(j,
                            "`[[ %s %s %s ]]` evaluates its operands as arithmetic: a "
                            "variable's value such as `a[$(cmd)]` runs",
                            w[k - 1].text, t, k + 2 < n ? w[k + 1].text : "");
            continue;
        }
        if (sj_is_literal(&w[k]) && strcmp(t, "-v") == 0 && k + 2 < n &&
            strchr(w[k + 1].text, '[')) {
            sj_unjudged(j, "`[[ -v %s ]]` evaluates an array subscript", w[k + 1].text);
            continue;
        }
        unsigned kind = sj_word_kind(&w[k], NULL);
        if (kind & (SJX_CODEVAR | SJX_ARITHVAR))
            sj_unjudged(j, "`%s` is %s in [[ ]]", t, sj_kind_name(kind));
    }
}

void sj_arith(struct sh_judge *j, const struct pd_sh_cmd *cmd)
{
    if (cmd->nwords < 2)
        return;
    const char *expr = cmd->words[1].text;
    if (sj_arith_names_variable(expr))
        sj_unjudged(j,
                    "`((%s))` names variables: a value such as `a[$(cmd)]` runs when it is "
                    "evaluated",
                    expr);
}
