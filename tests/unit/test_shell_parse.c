/* tests/unit/test_shell_parse.c - policy/shell/shell.h: the table of agent commands
 * in tests/data/shell_commands.tsv (format described in its header), then
 * targeted tests for quoting, here-documents, wrappers, sh -c / eval bodies,
 * pipes and background, limits, error reporting, robustness and size. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/shell/shell.h"

/* ---- a growable string for rendering ------------------------------------ */

struct str {
    char *p;
    size_t len, cap;
};

static void str_addn(struct str *s, const char *t, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 64;
        while (cap < s->len + n + 1)
            cap *= 2;
        s->p = realloc(s->p, cap);
        cr_assert_not_null(s->p);
        s->cap = cap;
    }
    memcpy(s->p + s->len, t, n);
    s->len += n;
    s->p[s->len] = '\0';
}

static void str_add(struct str *s, const char *t)
{
    str_addn(s, t, strlen(t));
}

/* Text with newlines and tabs shown as ␤ and ␉ (as the table writes them). */
static void str_add_text(struct str *s, const char *t)
{
    for (; *t; t++) {
        if (*t == '\n')
            str_add(s, "␤");
        else if (*t == '\t')
            str_add(s, "␉");
        else
            str_addn(s, t, 1);
    }
}

static char *str_take(struct str *s)
{
    if (!s->p)
        str_add(s, "");
    return s->p;
}

/* ---- rendering: the compact forms of the table -------------------------- */

static char *render_progs(const struct pd_sh_script *sc)
{
    struct str s = {0};
    for (size_t i = 0; i < sc->ncmds; i++) {
        const struct pd_sh_cmd *c = &sc->cmds[i];
        const char *o = c->origin == PD_SH_O_SUBST     ? "$"
                        : c->origin == PD_SH_O_SHELL_C ? "@"
                        : c->origin == PD_SH_O_EVAL    ? "%"
                                                       : "";
        if (i)
            str_add(&s, " ");
        for (unsigned d = 0; d < c->depth; d++)
            str_add(&s, o);
        if (c->piped_in)
            str_add(&s, "|");
        if (c->kind == PD_SH_K_REDIR)
            str_add(&s, "{}");
        else if (c->kind == PD_SH_K_TEST)
            str_add(&s, "[[");
        else if (c->kind == PD_SH_K_ARITH)
            str_add(&s, "((");
        else if (c->prog < c->nwords)
            str_add_text(&s, c->words[c->prog].text);
        else
            str_add(&s, "-");
        if (c->piped_out)
            str_add(&s, "|");
        if (c->background)
            str_add(&s, "&");
        if (c->dynamic)
            str_add(&s, "?");
    }
    return str_take(&s);
}

static const char *op_text(enum pd_sh_redir_op op)
{
    switch (op) {
    case PD_SH_R_IN:
        return "<";
    case PD_SH_R_OUT:
        return ">";
    case PD_SH_R_APPEND:
        return ">>";
    case PD_SH_R_INOUT:
        return "<>";
    case PD_SH_R_OUT_ERR:
        return "&>";
    case PD_SH_R_APPEND_ERR:
        return "&>>";
    case PD_SH_R_DUP:
        return ">&";
    case PD_SH_R_HEREDOC:
        return "<<";
    case PD_SH_R_HERESTRING:
        return "<<<";
    }
    return "?";
}

static int default_fd(enum pd_sh_redir_op op)
{
    switch (op) {
    case PD_SH_R_IN:
    case PD_SH_R_INOUT:
    case PD_SH_R_HEREDOC:
    case PD_SH_R_HERESTRING:
        return 0;
    case PD_SH_R_DUP:
        return -100; /* always written */
    default:
        return 1;
    }
}

static char *render_redirs(const struct pd_sh_script *sc)
{
    struct str s = {0};
    for (size_t i = 0; i < sc->ncmds; i++) {
        const struct pd_sh_cmd *c = &sc->cmds[i];
        for (size_t j = 0; j < c->nredirs; j++) {
            const struct pd_sh_redir *r = &c->redirs[j];
            char fd[16] = "";
            if (r->fd != default_fd(r->op))
                snprintf(fd, sizeof fd, "%d", r->fd);
            if (s.len)
                str_add(&s, " ");
            str_add(&s, fd);
            str_add(&s, op_text(r->op));
            str_add_text(&s, r->target.text);
        }
    }
    if (!s.len)
        str_add(&s, "-");
    return str_take(&s);
}

static char *render_argv(const struct pd_sh_cmd *c)
{
    struct str s = {0};
    for (size_t i = 0; i < c->nassigns; i++) {
        str_add(&s, "{");
        str_add_text(&s, c->assigns[i].text);
        str_add(&s, "}");
    }
    for (size_t i = 0; i < c->nwords; i++) {
        str_add(&s, "[");
        str_add_text(&s, c->words[i].text);
        str_add(&s, "]");
    }
    return str_take(&s);
}

/* Invariants every successful parse must hold. */
static void check_invariants(const struct pd_sh_script *sc, const char *where)
{
    for (size_t i = 0; i < sc->ncmds; i++) {
        const struct pd_sh_cmd *c = &sc->cmds[i];
        cr_expect(c->prog <= c->nwords, "%s: cmd %zu: prog %zu > nwords %zu", where, i, c->prog,
                  c->nwords);
        if (c->kind != PD_SH_K_SIMPLE)
            cr_expect(c->prog == c->nwords, "%s: cmd %zu: non-simple command with a program", where,
                      i);
        if (c->kind == PD_SH_K_REDIR)
            cr_expect(c->nwords == 0 && c->nassigns == 0 && c->nredirs > 0,
                      "%s: cmd %zu: malformed redirection entry", where, i);
        if (c->kind == PD_SH_K_SIMPLE && c->nwords > 0)
            cr_expect(c->prog < c->nwords, "%s: cmd %zu: words but no program", where, i);
        for (size_t j = 0; j < c->nwords; j++)
            cr_expect_not_null(c->words[j].text, "%s: cmd %zu word %zu", where, i, j);
        for (size_t j = 0; j < c->nassigns; j++)
            cr_expect_not_null(c->assigns[j].text, "%s: cmd %zu assign %zu", where, i, j);
        for (size_t j = 0; j < c->nredirs; j++)
            cr_expect_not_null(c->redirs[j].target.text, "%s: cmd %zu redir %zu", where, i, j);
        cr_expect(c->depth <= PD_SH_MAX_NEST, "%s: cmd %zu: depth %u", where, i, c->depth);
        cr_expect((c->depth == 0) == (c->origin == PD_SH_O_TOP), "%s: cmd %zu: depth/origin", where,
                  i);
    }
}

/* ---- the table ---------------------------------------------------------- */

/* Replace ␤ and ␉ by newline and tab, in place. */
static void unescape(char *s)
{
    char *w = s;
    while (*s) {
        if (strncmp(s, "␤", strlen("␤")) == 0) {
            *w++ = '\n';
            s += strlen("␤");
        } else if (strncmp(s, "␉", strlen("␉")) == 0) {
            *w++ = '\t';
            s += strlen("␉");
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
}

static void check_row(int line, char *cmd, const char *progs, const char *redirs, const char *argv,
                      size_t *nok, size_t *nerr)
{
    struct pd_sh_script sc;
    char err[256];
    char shown[512];
    snprintf(shown, sizeof shown, "%s", cmd);
    unescape(cmd);
    int r = pd_sh_parse(cmd, &sc, err, sizeof err);
    if (strncmp(progs, "ERR", 3) == 0) {
        (*nerr)++;
        cr_expect(r == -1, "line %d: `%s`: expected a parse error, got success", line, shown);
        if (r == 0) {
            pd_sh_script_free(&sc);
            return;
        }
        cr_expect(sc.ncmds == 0 && sc.cmds == NULL, "line %d: failure left commands", line);
        cr_expect(err[0] != '\0' && !strchr(err, '\n'), "line %d: bad error message", line);
        if (progs[3] == ':')
            cr_expect(strstr(err, progs + 4) != NULL, "line %d: `%s`: error \"%s\" lacks \"%s\"",
                      line, shown, err, progs + 4);
        return;
    }
    (*nok)++;
    cr_expect(r == 0, "line %d: `%s`: parse failed: %s", line, shown, err);
    if (r != 0)
        return;
    char where[600];
    snprintf(where, sizeof where, "line %d: `%s`", line, shown);
    check_invariants(&sc, where);
    char *got = render_progs(&sc);
    cr_expect_str_eq(got, progs, "line %d: `%s`: programs: got \"%s\", want \"%s\"", line, shown,
                     got, progs);
    free(got);
    if (redirs && strcmp(redirs, "*") != 0) {
        got = render_redirs(&sc);
        cr_expect_str_eq(got, redirs, "line %d: `%s`: redirections: got \"%s\", want \"%s\"", line,
                         shown, got, redirs);
        free(got);
    }
    if (argv && *argv && strcmp(argv, "*") != 0) {
        size_t idx = 0;
        const char *a = argv;
        if (*a >= '0' && *a <= '9') {
            idx = strtoul(a, (char **)&a, 10);
            cr_assert(*a == ':', "line %d: bad argv column", line);
            a++;
        }
        cr_expect(idx < sc.ncmds, "line %d: `%s`: no command %zu", line, shown, idx);
        if (idx < sc.ncmds) {
            got = render_argv(&sc.cmds[idx]);
            cr_expect_str_eq(got, a, "line %d: `%s`: argv of cmd %zu: got \"%s\", want \"%s\"",
                             line, shown, idx, got, a);
            free(got);
        }
    }
    pd_sh_script_free(&sc);
}

Test(shell_table, agent_commands)
{
    const char *path = PALDRON_SOURCE_DIR "/tests/data/shell_commands.tsv";
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char *line = NULL;
    size_t cap = 0, nok = 0, nerr = 0;
    int lineno = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        char *col[4] = {NULL, NULL, NULL, NULL};
        int k = 0;
        char *s = line;
        col[k++] = s;
        while (k < 4 && (s = strchr(s, '\t')) != NULL) {
            *s++ = '\0';
            col[k++] = s;
        }
        cr_expect(k >= 2 && !(k == 4 && strchr(col[3], '\t')), "line %d: needs 2 to 4 columns",
                  lineno);
        if (k < 2)
            continue;
        check_row(lineno, col[0], col[1], col[2], col[3], &nok, &nerr);
    }
    free(line);
    fclose(f);
    cr_expect(nok >= 150, "only %zu commands that must parse", nok);
    cr_expect(nerr >= 20, "only %zu commands that must fail", nerr);
}

/* Every prefix of every table command parses or fails cleanly (no crash,
 * no leak, a message on failure): truncated input is the common hostile case. */
Test(shell_table, every_prefix)
{
    FILE *f = fopen(PALDRON_SOURCE_DIR "/tests/data/shell_commands.tsv", "r");
    cr_assert_not_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *tab = strchr(line, '\t');
        if (tab)
            *tab = '\0';
        unescape(line);
        size_t len = strlen(line);
        for (size_t k = 0; k <= len; k++) {
            char *pre = strndup(line, k);
            struct pd_sh_script sc;
            char err[128];
            int r = pd_sh_parse(pre, &sc, err, sizeof err);
            if (r == 0) {
                check_invariants(&sc, pre);
                pd_sh_script_free(&sc);
            } else {
                cr_expect(r == -1 && err[0], "prefix `%s`: no message", pre);
            }
            free(pre);
        }
    }
    free(line);
    fclose(f);
}

/* ---- helpers for targeted tests ----------------------------------------- */

static struct pd_sh_script parse_ok(const char *src)
{
    struct pd_sh_script sc;
    char err[256];
    int r = pd_sh_parse(src, &sc, err, sizeof err);
    cr_assert_eq(r, 0, "`%s`: %s", src, err);
    check_invariants(&sc, src);
    return sc;
}

static void parse_err(const char *src, const char *want)
{
    struct pd_sh_script sc;
    char err[256];
    int r = pd_sh_parse(src, &sc, err, sizeof err);
    cr_assert_eq(r, -1, "`%s`: parsed but must fail", src);
    cr_expect(sc.ncmds == 0 && sc.cmds == NULL);
    cr_expect(strstr(err, want) != NULL, "`%s`: error \"%s\" lacks \"%s\"", src, err, want);
}

static const struct pd_sh_word *word(const struct pd_sh_script *sc, size_t cmd, size_t w)
{
    cr_assert_lt(cmd, sc->ncmds);
    cr_assert_lt(w, sc->cmds[cmd].nwords);
    return &sc->cmds[cmd].words[w];
}

static void expect_word(const char *src, size_t w, const char *text, unsigned flags)
{
    struct pd_sh_script sc = parse_ok(src);
    const struct pd_sh_word *x = word(&sc, sc.ncmds - 1, w);
    cr_expect_str_eq(x->text, text, "`%s` word %zu: got \"%s\" want \"%s\"", src, w, x->text, text);
    cr_expect_eq(x->flags, flags, "`%s` word %zu: flags %#x want %#x", src, w, x->flags, flags);
    pd_sh_script_free(&sc);
}

static void expect_progs(const char *src, const char *want)
{
    struct pd_sh_script sc = parse_ok(src);
    char *got = render_progs(&sc);
    cr_expect_str_eq(got, want, "`%s`: got \"%s\" want \"%s\"", src, got, want);
    free(got);
    pd_sh_script_free(&sc);
}

/* ---- quoting ------------------------------------------------------------ */

#define Q PD_SH_W_QUOTED
#define E PD_SH_W_EXPANSION
#define G PD_SH_W_GLOB
#define B PD_SH_W_BRACE
#define T PD_SH_W_TILDE
#define S PD_SH_W_SPLIT

Test(shell_quoting, single_and_double)
{
    expect_word("echo 'a b'", 1, "a b", Q);
    expect_word("echo 'a\\nb'", 1, "a\\nb", Q);
    expect_word("echo '$HOME'", 1, "$HOME", Q);
    expect_word("echo \"$HOME\"", 1, "$HOME", Q | E);
    expect_word("echo \"a\\\"b\\\\c\\$d\\`e\\x\"", 1, "a\"b\\c$d`e\\x", Q);
    expect_word("echo \"line\\\ncont\"", 1, "linecont", Q);
    expect_word("echo ''", 1, "", Q);
    expect_word("echo \"\"", 1, "", Q);
    expect_word("echo a'b'\"c\"d", 1, "abcd", Q);
    expect_word("echo \"'\"", 1, "'", Q);
    expect_word("echo '\"'", 1, "\"", Q);
    expect_word("echo \"$\"", 1, "$", Q);
    expect_word("echo $", 1, "$", 0);
    expect_word("echo a$", 1, "a$", 0);
}

Test(shell_quoting, backslashes)
{
    expect_word("echo \\$HOME", 1, "$HOME", Q);
    expect_word("echo a\\ b", 1, "a b", Q);
    expect_word("echo \\*", 1, "*", Q);
    expect_word("echo a\\\nb", 1, "ab", 0);
    expect_word("echo \\", 1, "\\", 0);
    expect_word("\\rm -f x", 0, "rm", Q);
    expect_word("echo \\'", 1, "'", Q);
}

Test(shell_quoting, ansi_c)
{
    expect_word("echo $'a\\tb'", 1, "a\tb", Q);
    expect_word("echo $'\\x41\\x4a'", 1, "AJ", Q);
    expect_word("echo $'\\101\\0101'", 1, "A\b1", Q);
    expect_word("echo $'it\\'s'", 1, "it's", Q);
    expect_word("echo $'\\\\'", 1, "\\", Q);
    expect_word("echo $'\\u00e9'", 1, "\xc3\xa9", Q);
    expect_word("echo $'\\e[0m'", 1, "\x1b[0m", Q);
    expect_word("echo $'\\cA'", 1, "\x01", Q);
    expect_word("echo $'a\\0b'c", 1, "ac", Q);
    expect_word("echo $'\\q'", 1, "\\q", Q);
    expect_word("echo $'\\xg'", 1, "\\xg", Q);
    expect_word("echo \"$'x'\"", 1, "$'x'", Q);
    expect_word("echo $\"hi $USER\"", 1, "hi $USER", Q | E);
}

Test(shell_quoting, expansions_kept_as_written)
{
    expect_word("echo ${VAR:-x}", 1, "${VAR:-x}", E | S);
    expect_word("echo ${x//\\}/y}", 1, "${x//\\}/y}", E | S);
    expect_word("echo ${x:-\"a}b\"}", 1, "${x:-\"a}b\"}", E | S);
    expect_word("echo $1$2", 1, "$1$2", E | S);
    expect_word("echo pre$@post", 1, "pre$@post", E | S);
    expect_word("echo $((1 + (2 * 3)))", 1, "$((1 + (2 * 3)))", E | S);
    expect_word("echo $[1 + [2]]x", 1, "$[1 + [2]]x", E | S);
    expect_progs("echo $[ $(id -u) + 1 ]", "$id echo");
    parse_err("echo $[ 1 + 2", "unterminated arithmetic $[ at offset 5");
    expect_word("echo $(echo a)b", 1, "$(echo a)b", E | S);
    expect_word("echo `echo a`b", 1, "`echo a`b", E | S);
    expect_word("echo \"`echo a`\"", 1, "`echo a`", Q | E);
    expect_word("echo \"${x:-`a`}\"", 1, "${x:-`a`}", Q | E);
    expect_word("echo \"$(( `a` ))\"", 1, "$(( `a` ))", Q | E);
    expect_word("echo $'$x'", 1, "$x", Q);
    expect_word("echo $\"$x\"", 1, "$x", Q | E);
    expect_word("echo \"x$(echo \")\")y\"", 1, "x$(echo \")\")y", Q | E);
    expect_word("echo <(ls)", 1, "<(ls)", E);
    expect_word("echo a<(true)", 1, "a<(true)", E);
}

Test(shell_quoting, glob_brace_tilde)
{
    expect_word("ls *.c", 1, "*.c", G);
    expect_word("ls file?.txt", 1, "file?.txt", G);
    expect_word("ls [ab].c", 1, "[ab].c", G);
    expect_word("[ -f x ]", 0, "[", 0);
    expect_word("ls '*.c'", 1, "*.c", Q);
    expect_word("ls \"*\"", 1, "*", Q);
    expect_word("cp f{,.bak}", 1, "f{,.bak}", B);
    expect_word("echo {1..10}", 1, "{1..10}", B);
    expect_word("echo {}", 1, "{}", 0);
    expect_word("echo '{a,b}'", 1, "{a,b}", Q);
    expect_word("cd ~", 1, "~", T);
    expect_word("cd ~/src", 1, "~/src", T);
    expect_word("cd '~'", 1, "~", Q);
    expect_word("echo a~", 1, "a~", 0);
}

Test(shell_quoting, assignments)
{
    struct pd_sh_script sc = parse_ok("A=1 B=\"x y\" C= D+=z E[1]=q F=~/x G=*.c cmd arg=1");
    cr_assert_eq(sc.ncmds, 1);
    const struct pd_sh_cmd *c = &sc.cmds[0];
    cr_assert_eq(c->nassigns, 7);
    cr_expect_str_eq(c->assigns[0].text, "A=1");
    cr_expect_str_eq(c->assigns[1].text, "B=x y");
    cr_expect_eq(c->assigns[1].flags, Q);
    cr_expect_str_eq(c->assigns[2].text, "C=");
    cr_expect_str_eq(c->assigns[3].text, "D+=z");
    cr_expect_str_eq(c->assigns[4].text, "E[1]=q");
    cr_expect_eq(c->assigns[4].flags, 0u, "no glob in an assignment");
    cr_expect_eq(c->assigns[5].flags, T);
    cr_expect_eq(c->assigns[6].flags, 0u);
    cr_assert_eq(c->nwords, 2);
    cr_expect_str_eq(c->words[1].text, "arg=1", "not an assignment after the command name");
    pd_sh_script_free(&sc);

    sc = parse_ok("\"A\"=1 x");
    cr_expect_eq(sc.cmds[0].nassigns, 0u, "a quoted name is not an assignment");
    cr_expect_str_eq(sc.cmds[0].words[0].text, "A=1");
    pd_sh_script_free(&sc);

    sc = parse_ok("a=(1 \"2 3\" $(id -u)) b=(\n x # c\n y\n)");
    cr_assert_eq(sc.ncmds, 2);
    cr_expect_str_eq(sc.cmds[0].words[0].text, "id");
    cr_expect_str_eq(sc.cmds[1].assigns[0].text, "a=(1 2 3 $(id -u))");
    cr_expect_eq(sc.cmds[1].assigns[0].flags, Q | E);
    cr_expect_str_eq(sc.cmds[1].assigns[1].text, "b=(x y)");
    cr_expect_eq(sc.cmds[1].prog, 0u);
    cr_expect_eq(sc.cmds[1].nwords, 0u);
    pd_sh_script_free(&sc);
}

/* ---- here-documents ----------------------------------------------------- */

Test(shell_heredoc, quoted_and_unquoted)
{
    struct pd_sh_script sc = parse_ok("cat <<'EOF'\n$(rm -rf /) \\$x\nEOF\n");
    cr_assert_eq(sc.ncmds, 1, "a quoted here-document runs nothing");
    const struct pd_sh_redir *r = &sc.cmds[0].redirs[0];
    cr_expect_eq(r->op, PD_SH_R_HEREDOC);
    cr_expect_eq(r->fd, 0);
    cr_expect_str_eq(r->target.text, "$(rm -rf /) \\$x\n");
    cr_expect_eq(r->target.flags, Q);
    pd_sh_script_free(&sc);

    sc = parse_ok("cat <<EOF\n$(rm -rf /) \\$x `id` \"q\"\nEOF\n");
    cr_assert_eq(sc.ncmds, 3, "substitutions in an unquoted body run");
    cr_expect_str_eq(sc.cmds[0].words[0].text, "cat");
    cr_expect_str_eq(sc.cmds[1].words[0].text, "rm");
    cr_expect_eq(sc.cmds[1].origin, PD_SH_O_SUBST);
    cr_expect_eq(sc.cmds[1].depth, 1u);
    cr_expect_str_eq(sc.cmds[2].words[0].text, "id");
    r = &sc.cmds[0].redirs[0];
    cr_expect_str_eq(r->target.text, "$(rm -rf /) $x `id` \"q\"\n");
    cr_expect_eq(r->target.flags, E);
    pd_sh_script_free(&sc);

    sc = parse_ok("cat <<\\EOF\n$x\nEOF");
    cr_expect_eq(sc.cmds[0].redirs[0].target.flags, Q);
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "$x\n");
    pd_sh_script_free(&sc);

    sc = parse_ok("cat <<E\"O\"F\nbody\nEOF");
    cr_expect_eq(sc.cmds[0].redirs[0].target.flags, Q);
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "body\n");
    pd_sh_script_free(&sc);
}

Test(shell_heredoc, body_is_not_commands)
{
    struct pd_sh_script sc = parse_ok("cat > run.sh <<EOF\nrm -rf /\ncurl x | sh\nEOF\necho ok");
    cr_assert_eq(sc.ncmds, 2);
    cr_expect_str_eq(sc.cmds[0].words[0].text, "cat");
    cr_expect_str_eq(sc.cmds[1].words[0].text, "echo");
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "run.sh");
    cr_expect_str_eq(sc.cmds[0].redirs[1].target.text, "rm -rf /\ncurl x | sh\n");
    pd_sh_script_free(&sc);
}

Test(shell_heredoc, strip_tabs_and_several)
{
    struct pd_sh_script sc = parse_ok("cat <<-A; cat <<B <<'C'\n\t\tone\n\tA\ntwo\nB\nthree\nC\n");
    cr_assert_eq(sc.ncmds, 2);
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "one\n");
    cr_expect_str_eq(sc.cmds[1].redirs[0].target.text, "two\n");
    cr_expect_str_eq(sc.cmds[1].redirs[1].target.text, "three\n");
    pd_sh_script_free(&sc);

    sc = parse_ok("cat <<EOF\nEOF");
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "", "empty body, last line unterminated");
    pd_sh_script_free(&sc);

    sc = parse_ok("cat <<EOF\n  EOF\nEOF\n");
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "  EOF\n", "delimiter must be alone");
    pd_sh_script_free(&sc);
}

Test(shell_heredoc, on_compound_and_in_substitution)
{
    struct pd_sh_script sc = parse_ok("while read l; do echo \"$l\"; done <<EOF\na\nb\nEOF\n");
    cr_assert_eq(sc.ncmds, 3);
    cr_expect_eq(sc.cmds[2].kind, PD_SH_K_REDIR);
    cr_expect_str_eq(sc.cmds[2].redirs[0].target.text, "a\nb\n");
    pd_sh_script_free(&sc);

    sc = parse_ok("x=$(cat <<EOF\nhi\nEOF\n); echo \"$x\"");
    cr_assert_eq(sc.ncmds, 3);
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "hi\n");
    cr_expect_str_eq(sc.cmds[1].assigns[0].text, "x=$(cat <<EOF\nhi\nEOF\n)");
    pd_sh_script_free(&sc);

    /* The body comes after the line, even when the line continues in a
     * substitution that spans lines. */
    sc = parse_ok("cat <<A | grep $(echo\nbody\nA\nx)");
    cr_assert_eq(sc.ncmds, 4);
    cr_expect_str_eq(sc.cmds[0].words[0].text, "cat");
    cr_expect_str_eq(sc.cmds[0].redirs[0].target.text, "body\n");
    cr_expect_str_eq(sc.cmds[1].words[0].text, "echo");
    cr_expect_str_eq(sc.cmds[2].words[0].text, "x");
    cr_expect_str_eq(sc.cmds[3].words[0].text, "grep");
    pd_sh_script_free(&sc);

    sc = parse_ok("bash -c 'cat <<EOF\nin body\nEOF'");
    cr_assert_eq(sc.ncmds, 2);
    cr_expect_str_eq(sc.cmds[1].redirs[0].target.text, "in body\n");
    pd_sh_script_free(&sc);
}

Test(shell_heredoc, failures)
{
    parse_err("cat <<EOF", "missing here-document terminator 'EOF' (here-document at offset 4)");
    parse_err("cat <<A <<B\nx\nA\n", "missing here-document terminator 'B'");
    parse_err("echo $(cat <<EOF)\n", "missing here-document terminator");
    parse_err("bash -c 'cat <<X'", "(in sh -c body at offset 8)");
    parse_err("cat <<EOF\n$(\nEOF\n", "(in here-document at offset 4)");
    parse_err("cat <<`x`\n", "unsupported here-document delimiter");
}

Test(shell_heredoc, herestring)
{
    struct pd_sh_script sc = parse_ok("tr a-z A-Z <<< \"$(cat secret)\" 3<<<x");
    cr_assert_eq(sc.ncmds, 2);
    const struct pd_sh_redir *r = &sc.cmds[1].redirs[0];
    cr_expect_eq(r->op, PD_SH_R_HERESTRING);
    cr_expect_eq(r->fd, 0);
    cr_expect_str_eq(r->target.text, "$(cat secret)");
    cr_expect_eq(r->target.flags, Q | E);
    cr_expect_eq(sc.cmds[1].redirs[1].fd, 3);
    pd_sh_script_free(&sc);
}

/* ---- redirections ------------------------------------------------------- */

Test(shell_redir, forms)
{
    struct pd_sh_script sc = parse_ok(
        "cmd <in >out >>app <>rw 2>err 2>>errapp &>both &>>bothapp >|clob 2>&1 0<&3 3>&- 4>&5- "
        ">&file 2>&file2 <&file3 {fd}>var 10>ten");
    cr_assert_eq(sc.ncmds, 1);
    const struct pd_sh_cmd *c = &sc.cmds[0];
    static const struct {
        int fd;
        enum pd_sh_redir_op op;
        const char *t;
    } want[] = {
        {0, PD_SH_R_IN, "in"},        {1, PD_SH_R_OUT, "out"},
        {1, PD_SH_R_APPEND, "app"},   {0, PD_SH_R_INOUT, "rw"},
        {2, PD_SH_R_OUT, "err"},      {2, PD_SH_R_APPEND, "errapp"},
        {1, PD_SH_R_OUT_ERR, "both"}, {1, PD_SH_R_APPEND_ERR, "bothapp"},
        {1, PD_SH_R_OUT, "clob"},     {2, PD_SH_R_DUP, "1"},
        {0, PD_SH_R_DUP, "3"},        {3, PD_SH_R_DUP, "-"},
        {4, PD_SH_R_DUP, "5-"},       {1, PD_SH_R_OUT_ERR, "file"},
        {2, PD_SH_R_OUT, "file2"},    {0, PD_SH_R_IN, "file3"},
        {-1, PD_SH_R_OUT, "var"},     {10, PD_SH_R_OUT, "ten"},
    };
    cr_assert_eq(c->nredirs, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < c->nredirs; i++) {
        cr_expect_eq(c->redirs[i].fd, want[i].fd, "redir %zu fd", i);
        cr_expect_eq(c->redirs[i].op, want[i].op, "redir %zu op", i);
        cr_expect_str_eq(c->redirs[i].target.text, want[i].t, "redir %zu target", i);
    }
    cr_expect_eq(c->nwords, 1u);
    pd_sh_script_free(&sc);

    sc = parse_ok("echo >&$fd 2>\"$LOG\"");
    cr_expect_eq(sc.cmds[0].redirs[0].op, PD_SH_R_OUT_ERR, "a dynamic dup target may be a file");
    cr_expect_eq(sc.cmds[0].redirs[0].target.flags, E | S);
    cr_expect_eq(sc.cmds[0].redirs[1].target.flags, Q | E);
    pd_sh_script_free(&sc);

    sc = parse_ok("echo 2>(cat) 2 >x a2>y");
    cr_assert_eq(sc.ncmds, 2);
    cr_expect_str_eq(sc.cmds[1].words[1].text, "2>(cat)", "2>( is a word, as in bash");
    cr_expect_str_eq(sc.cmds[1].words[2].text, "2");
    cr_expect_str_eq(sc.cmds[1].words[3].text, "a2");
    cr_expect_eq(sc.cmds[1].redirs[0].fd, 1);
    cr_expect_eq(sc.cmds[1].redirs[1].fd, 1);
    pd_sh_script_free(&sc);

    sc = parse_ok("cat < <(ls) > >(wc)");
    cr_assert_eq(sc.ncmds, 3);
    cr_expect_str_eq(sc.cmds[2].redirs[0].target.text, "<(ls)");
    cr_expect_str_eq(sc.cmds[2].redirs[1].target.text, ">(wc)");
    pd_sh_script_free(&sc);

    parse_err("cat 99999999999>x", "file descriptor out of range");
}

/* ---- compound commands -------------------------------------------------- */

Test(shell_compound, structures)
{
    expect_progs("if a; then b; elif c; then d; else e; fi", "a b c d e");
    expect_progs("if\na\nthen\nb\nfi", "a b");
    expect_progs("while a; do b; done; until c; do d; done", "a b c d");
    expect_progs("for x in $(seq 3) `ls`; do echo $x; done", "$seq $ls echo");
    expect_progs("for x\ndo a; done", "a");
    expect_progs("for x; do a; done", "a");
    expect_progs("for x in a b\ndo a; done", "a");
    expect_progs("for ((i=$(id -u); i<3; i++)) { echo $i; }", "$id echo");
    expect_progs("for x in a; { b; }", "b");
    expect_progs("case $x in\n  a|b) one;;\n  (c) two;&\n  d) three;;&\n  *) ;;\nesac",
                 "one two three");
    expect_progs("case x in esac", "");
    expect_progs("case x in $(p)) a;; esac", "$p a");
    expect_progs("{ a; b; } 2>/dev/null | c", "a| b| {}| |c");
    expect_progs("( a; b ) > out & c", "a& b& {}& c");
    expect_progs("f() { a; }; function g { b; }; function h() ( c ); i () { d; }", "a b c d");
    expect_progs("f()\n{\n a\n}", "a");
    expect_progs("[[ $(a) == b && -f $(c) ]]", "$a $c [[");
    expect_progs("(( $(a) + 1 )) && b", "$a (( b");
    expect_progs("((cd x && ls) )", "cd ls");
    expect_progs("echo $( (cd x; ls) )", "$cd $ls echo");
    expect_progs("echo $((cd x; ls) )", "$cd $ls echo");
    expect_progs("! a | b && ! c", "a| |b c");
    expect_progs("time a | b", "a| |b");
    expect_progs("time -p { a; }", "a");
    expect_progs("time", "");
    expect_progs("select x in a b; do c; done", "c");
    expect_progs("echo }; echo {; echo fi; echo done", "echo echo echo echo");
    expect_progs("a &\nb", "a& b");
    expect_progs("a&&b||c;d&e|f", "a b c d& e| |f");
    expect_progs("a |\n\n b && \n c", "a| |b c");
    expect_progs("{ a;}", "a");
    expect_progs("echo a;#c\necho b", "echo echo");
    expect_progs("", "");
    expect_progs("   \n\n # only a comment\n", "");
}

Test(shell_compound, test_and_arith_words)
{
    struct pd_sh_script sc = parse_ok("[[ -f \"$f\" && ( x < y || ! -d z ) ]]");
    cr_assert_eq(sc.ncmds, 1);
    const struct pd_sh_cmd *c = &sc.cmds[0];
    cr_expect_eq(c->kind, PD_SH_K_TEST);
    cr_expect_eq(c->prog, c->nwords);
    char *got = render_argv(c);
    cr_expect_str_eq(got, "[[[][-f][$f][&&][(][x][<][y][||][!][-d][z][)][]]]");
    free(got);
    cr_expect_eq(c->nredirs, 0u, "< inside [[ ]] compares");
    pd_sh_script_free(&sc);

    sc = parse_ok("[[ $x =~ ^(a b|c)*$ ]]");
    cr_expect_str_eq(sc.cmds[0].words[3].text, "^(a b|c)*$");
    pd_sh_script_free(&sc);

    sc = parse_ok("(( x = 1 + (2 * y) )) > /dev/null");
    c = &sc.cmds[0];
    cr_expect_eq(c->kind, PD_SH_K_ARITH);
    cr_expect_str_eq(c->words[1].text, " x = 1 + (2 * y) ");
    cr_expect_eq(c->words[1].flags, 0u);
    cr_expect_eq(c->nredirs, 1u);
    pd_sh_script_free(&sc);
}

Test(shell_compound, reserved_words_only_in_command_position)
{
    struct pd_sh_script sc = parse_ok("echo if then fi do done esac { } [[ ]] !");
    cr_assert_eq(sc.ncmds, 1);
    cr_expect_eq(sc.cmds[0].nwords, 12u);
    pd_sh_script_free(&sc);
    expect_progs("\"if\" x", "if");
    expect_progs("fi=1 x", "x");
    parse_err("x=1 if true; then :; fi", "reserved word 'if'");
    parse_err("in", "unexpected 'in'");
    parse_err("esac", "unexpected 'esac'");
}

/* ---- wrappers ------------------------------------------------------------ */

Test(shell_wrappers, unwrapping)
{
    static const struct {
        const char *src;
        size_t prog;
        bool dynamic;
    } cases[] = {
        {"env", 0, false},
        {"env -i", 0, false},
        {"env A=1 B=2", 0, false},
        {"env -i A=1 -u B cmd", 3, false}, /* env stops at its first operand: "-u" runs */
        {"env -i -u B A=1 cmd", 5, false},
        {"env --unset=B --chdir /tmp cmd x", 4, false},
        {"env - PATH=/bin cmd", 3, false},
        {"env -- cmd", 2, false},
        {"env A=$X cmd", 1, true}, /* $X may split into more words */
        {"env A=\"$X\" cmd", 2, false},
        {"env $X cmd", 1, true},
        {"env \"$X\" cmd", 1, true},
        {"env -S 'a b' c", 0, true},
        {"env --split-string='a b'", 0, true},
        {"sudo -u root -g wheel -E -n -H cmd", 8, false},
        {"sudo -s", 0, false},
        {"sudo -l", 0, false},
        {"sudo -l rm", 0, false},
        {"sudo -e /etc/hosts", 0, false},
        {"sudo --user=root cmd", 2, false},
        {"sudo --user root cmd", 3, false},
        {"sudo -- -cmd", 2, false},
        {"sudo -u \"$U\" cmd", 3, false},
        {"sudo -u $U cmd", 2, true},
        {"sudo \"--user=$U\" cmd", 2, false},
        {"sudo --user $U cmd", 2, true},
        {"doas -u root cmd", 3, false},
        {"nice cmd", 1, false},
        {"nice -n 5 cmd", 3, false},
        {"nice -n5 cmd", 2, false},
        {"nice -10 cmd", 2, false},
        {"nice --adjustment=3 cmd", 2, false},
        {"nohup cmd &", 1, false},
        {"timeout 5 cmd", 2, false},
        {"timeout -s KILL 5 cmd", 4, false},
        {"timeout --signal=KILL -k 2 --preserve-status --foreground 5 cmd", 7, false},
        {"timeout", 0, false},
        {"timeout 5", 0, false},
        {"timeout $T cmd", 1, true}, /* $T may hold options */
        {"timeout -- $T cmd", 2, true},
        {"timeout \"$T\" cmd", 1, true}, /* "$T" may be --kill-after=5 */
        {"timeout \"5$T\" cmd", 2, false},
        {"nohup $(which x) y", 1, true},
        {"nohup \"$(which x)\" y", 1, true},
        {"xargs", 0, false},
        {"xargs -0 -n1 cmd", 3, false},
        {"xargs -I {} -P 4 -d '\\n' cmd {}", 7, false},
        {"xargs -0n1 cmd", 2, false},
        {"xargs -r -t -L 1 cmd", 5, false},
        {"xargs --max-args 2 cmd", 3, false},
        {"command cmd", 1, false},
        {"command -p cmd", 2, false},
        {"command -v cmd", 0, false},
        {"command -V cmd", 0, false},
        {"exec", 0, false},
        {"exec -a name -cl cmd", 4, false},
        {"time cmd", 1, false},
        {"time -p cmd", 2, false},
        {"/usr/bin/time -v -o out.txt cmd", 4, false},
        {"stdbuf -oL -e 0 cmd", 4, false},
        {"stdbuf --output=L cmd", 2, false},
        {"ionice -c 3 -n 7 cmd", 5, false},
        {"ionice -c3 cmd", 2, false},
        {"ionice -p 123", 0, false},
        {"chrt -f 10 cmd", 3, false},
        {"chrt -p 10 123", 0, false},
        {"chrt --rr 5 cmd", 3, false},
        {"setsid -f -w cmd", 3, false},
        {"builtin cd /", 1, false},
        {"sudo env A=1 nice python3 x.py", 4, false},
        {"sudo -E nohup timeout 10 nice -n 19 ionice -c3 make", 10, false},
        {"/usr/bin/sudo /bin/env X=1 cmd", 3, false},
        {"./sudo cmd", 0, false},
        {"/opt/bin/env cmd", 0, false},
        {"\"sudo\" cmd", 1, false},
        {"$SUDO cmd", 0, true},
        {"sudo $OPTS cmd", 1, true},
        {"sudo *", 1, true},
        {"nice -n 5", 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pd_sh_script sc = parse_ok(cases[i].src);
        const struct pd_sh_cmd *c = &sc.cmds[sc.ncmds - 1];
        size_t prog = cases[i].prog;
        cr_expect_eq(c->prog, prog, "`%s`: prog %zu, want %zu", cases[i].src, c->prog, prog);
        cr_expect_eq(c->dynamic, cases[i].dynamic, "`%s`: dynamic %d", cases[i].src, c->dynamic);
        pd_sh_script_free(&sc);
    }
}

Test(shell_wrappers, assignments_and_words_kept)
{
    struct pd_sh_script sc = parse_ok("LANG=C sudo -u www env HOME=/x python3 app.py");
    const struct pd_sh_cmd *c = &sc.cmds[0];
    cr_expect_eq(c->nassigns, 1u);
    cr_expect_eq(c->nwords, 7u, "wrappers stay in words");
    cr_expect_eq(c->prog, 5u);
    cr_expect_str_eq(c->words[c->prog].text, "python3");
    pd_sh_script_free(&sc);
}

/* ---- sh -c, eval, trap ---------------------------------------------------- */

Test(shell_bodies, shell_c)
{
    struct pd_sh_script sc = parse_ok("bash -c 'rm -rf \"$HOME\"; curl x | sh' && ls");
    cr_assert_eq(sc.ncmds, 5);
    cr_expect_str_eq(sc.cmds[0].words[0].text, "bash");
    cr_expect_eq(sc.cmds[1].origin, PD_SH_O_SHELL_C);
    cr_expect_eq(sc.cmds[1].depth, 1u);
    cr_expect_str_eq(sc.cmds[1].words[0].text, "rm");
    cr_expect_eq(sc.cmds[1].words[2].flags, Q | E);
    cr_expect(sc.cmds[2].piped_out && sc.cmds[3].piped_in);
    cr_expect_str_eq(sc.cmds[4].words[0].text, "ls");
    cr_expect_eq(sc.cmds[4].depth, 0u);
    pd_sh_script_free(&sc);

    expect_progs("sh -c 'a' name arg", "sh @a");
    expect_progs("bash -x -o pipefail -c 'a | b'", "bash @a| @|b");
    expect_progs("bash -O extglob -c a", "bash @a");
    expect_progs("bash --norc --rcfile x -c a", "bash @a");
    expect_progs("bash -c -- a", "bash @a");
    expect_progs("/bin/sh -ec 'a'", "/bin/sh @a");
    expect_progs("ksh -c a; mksh -c b; ash -c c", "ksh @a mksh @b ash @c");
    expect_progs("bash -c", "bash");
    expect_progs("bash -s -- -c x", "bash");
    expect_progs("bash", "bash");
    expect_progs("bash +c x", "bash");
    expect_progs("python -c 'import os'", "python");
    expect_progs("sh -c \"$x\"", "sh?");
    expect_progs("sh -c $'a\\nb'", "sh @a @b");
    expect_progs("sh -c \"a $(b)\"", "$b sh?");
    expect_progs("sh -c 'a'\"$x\"", "sh?");
    expect_progs("bash $FLAGS -c a", "bash?");
    expect_progs("bash -o $O -c a", "bash?");
    expect_progs("sh -c 'sh -c \"sh -c d\"'", "sh @sh @@sh @@@d");
    expect_progs("xargs -n1 sh -c 'echo \"$1\"' _", "sh @echo");
    expect_progs("curl -s x | sudo bash", "curl| |bash");
    expect_progs("sh -c ''", "sh");
}

Test(shell_bodies, shell_reading_a_heredoc)
{
    struct pd_sh_script sc = parse_ok("bash <<'EOF'; echo next\nrm -rf \"$HOME\"\nEOF\n");
    cr_assert_eq(sc.ncmds, 3);
    cr_expect_str_eq(sc.cmds[0].words[0].text, "bash");
    cr_expect_str_eq(sc.cmds[1].words[0].text, "echo");
    cr_expect_str_eq(sc.cmds[2].words[0].text, "rm", "the script comes when the body is read");
    cr_expect_eq(sc.cmds[2].origin, PD_SH_O_SHELL_C);
    cr_expect_eq(sc.cmds[2].depth, 1u);
    pd_sh_script_free(&sc);

    expect_progs("sudo -E bash -s -- arg <<'EOF'\na\nEOF", "bash @a");
    expect_progs("bash -x <<'EOF'\na\nEOF", "bash @a");
    expect_progs("bash <<A <<'B'\nx\nA\ny\nB\n", "bash @y");
    expect_progs("bash <<'A' < file\nx\nA\n", "bash");
    expect_progs("bash 3<<'A'\nx\nA\n", "bash");
    expect_progs("bash script.sh <<'A'\nx\nA\n", "bash");
    expect_progs("bash -c y <<'A'\nx\nA\n", "bash @y");
    expect_progs("cat <<'A' | sh\nx\nA\n", "cat| |sh");
    expect_progs("sh <<A\n$(id)\nA\n", "sh? $id");
    expect_progs("sh <<A\n\\$(id)\nA\n", "sh $$id @$(id)?"); /* \\$ : static script */
    expect_progs("sh <<< $cmd", "sh?");
    expect_progs("sh <<< 'a; b'", "sh @a @b");
    parse_err("bash <<'EOF'\nif\nEOF\n", "(in here-document script at offset 5)");
}

Test(shell_bodies, eval_and_trap)
{
    expect_progs("eval 'a; b' c", "eval %a %b");
    expect_progs("eval -- a", "eval %a");
    expect_progs("eval", "eval");
    expect_progs("eval \"$cmd\"", "eval?");
    expect_progs("eval echo *", "eval?");
    expect_progs("command eval a", "eval %a");
    expect_progs("trap 'rm -f $tmp' EXIT INT", "trap %rm");
    expect_progs("trap - EXIT", "trap");
    expect_progs("trap -p", "trap");
    expect_progs("trap '' INT", "trap");
    expect_progs("trap \"$handler\" EXIT", "trap?");
    expect_progs("trap cleanup", "trap");
    parse_err("eval 'echo \"'", "(in eval arguments at offset 5)");
    parse_err("trap 'if' EXIT", "(in trap action at offset 5)");
}

/* ---- pipes and background ----------------------------------------------- */

Test(shell_flags, pipes_background_depth)
{
    struct pd_sh_script sc = parse_ok("a | b $(c | d) |& e & f");
    cr_assert_eq(sc.ncmds, 6);
    const char *names = "acdbef";
    for (size_t i = 0; i < 6; i++)
        cr_expect_eq(sc.cmds[i].words[0].text[0], names[i], "order at %zu", i);
    cr_expect(sc.cmds[0].piped_out && !sc.cmds[0].piped_in);
    cr_expect(sc.cmds[1].piped_in, "a substitution reads the pipeline's stdin");
    cr_expect(sc.cmds[1].piped_out, "c pipes into d");
    cr_expect(sc.cmds[2].piped_in && !sc.cmds[2].piped_out, "d's output is captured");
    cr_expect(sc.cmds[3].piped_in && sc.cmds[3].piped_out);
    cr_expect(sc.cmds[4].piped_in && !sc.cmds[4].piped_out);
    for (size_t i = 0; i < 5; i++)
        cr_expect(sc.cmds[i].background, "cmd %zu runs in the background", i);
    cr_expect(!sc.cmds[5].background && !sc.cmds[5].piped_in && !sc.cmds[5].piped_out);
    cr_expect_eq(sc.cmds[1].depth, 1u);
    cr_expect_eq(sc.cmds[1].origin, PD_SH_O_SUBST);
    pd_sh_script_free(&sc);

    sc = parse_ok("echo $(echo $(echo `echo <(echo)`))");
    cr_assert_eq(sc.ncmds, 5);
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(sc.cmds[i].depth, 4u - i, "cmd %zu depth %u", i, sc.cmds[i].depth);
    pd_sh_script_free(&sc);
}

/* ---- limits, errors, robustness ----------------------------------------- */

static char *repeat3(const char *pre, size_t n, const char *mid, const char *post)
{
    size_t lp = strlen(pre), lm = strlen(mid), lq = strlen(post);
    char *s = malloc(n * (lp + lq) + lm + 1);
    cr_assert_not_null(s);
    char *w = s;
    for (size_t i = 0; i < n; i++, w += lp)
        memcpy(w, pre, lp);
    memcpy(w, mid, lm);
    w += lm;
    for (size_t i = 0; i < n; i++, w += lq)
        memcpy(w, post, lq);
    *w = '\0';
    return s;
}

Test(shell_limits, nesting)
{
    static const struct {
        const char *pre, *mid, *post;
    } forms[] = {
        {"$(", "x", ")"},           {"( ", "x", " )"},      {"{ ", "x", "; }"},
        {"<(", "x", ")"},           {"${a:-", "x", "}"},    {"if a; then ", "x", "; fi"},
        {"\"${a:-$(", "x", ")}\""}, {"$((", "1", "))"},     {"while a; do ", "x", "; done"},
        {"\"$(", "x", ")\""},       {"[[ $(", "x", ") ]]"}, {"case a in a) ", "x", ";; esac"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        /* Some forms count two levels each: 15 of them stay within 32. */
        char *ok = repeat3(forms[i].pre, 15, forms[i].mid, forms[i].post);
        struct pd_sh_script sc;
        char err[256];
        cr_expect_eq(pd_sh_parse(ok, &sc, err, sizeof err), 0, "%s x15: %s", forms[i].pre, err);
        pd_sh_script_free(&sc);
        free(ok);
        char *deep = repeat3(forms[i].pre, 200, forms[i].mid, forms[i].post);
        cr_expect_eq(pd_sh_parse(deep, &sc, err, sizeof err), -1, "%s x200 parsed", forms[i].pre);
        cr_expect(strstr(err, "nesting too deep") != NULL, "%s x200: %s", forms[i].pre, err);
        free(deep);
    }
    /* Backquotes nest through escaping; sh -c through quoting. */
    const char *bq = "echo `echo \\`echo \\\\\\`echo hi\\\\\\`\\``";
    expect_progs(bq, "$$$echo $$echo $echo echo");
    char *deep = repeat3("$(", PD_SH_MAX_NEST, "x", ")");
    struct pd_sh_script sc = parse_ok(deep);
    cr_expect_eq(sc.cmds[0].depth, (unsigned)PD_SH_MAX_NEST);
    pd_sh_script_free(&sc);
    free(deep);
    deep = repeat3("$(", PD_SH_MAX_NEST + 1, "x", ")");
    parse_err(deep, "nesting too deep");
    free(deep);
}

Test(shell_limits, error_reporting)
{
    struct pd_sh_script sc;
    char err[256];
    cr_expect_eq(pd_sh_parse("echo 'abc", &sc, err, sizeof err), -1);
    cr_expect_str_eq(err, "unterminated single quote at offset 5");
    char small[8];
    cr_expect_eq(pd_sh_parse("echo 'abc", &sc, small, sizeof small), -1);
    cr_expect_eq(strlen(small), 7u, "truncated, NUL-terminated");
    cr_expect_eq(pd_sh_parse("echo 'abc", &sc, NULL, 0), -1);
    cr_expect_eq(pd_sh_parse(NULL, &sc, err, sizeof err), -1);
    cr_expect(err[0] != '\0');
    cr_expect_eq(pd_sh_parse("x", NULL, err, sizeof err), -1);
    pd_sh_script_free(NULL);
    parse_err("if true; then\n  echo\n", "missing 'fi' for 'if' at offset 0");
    parse_err("echo ok; echo \"$(printf ')')\" ; (", "missing ')' for '(' at offset 32");
    parse_err("echo a\n)", "unexpected ')' at offset 7");
    parse_err("cat <<'a\nb'\nx\n", "missing here-document terminator 'a?b'");
    parse_err("cat <<EOF\n$(rm -rf /\nEOF\n", "unterminated $( at offset 0 (in here-document");
    parse_err("bash -c 'a; bash -c \"b \\\"\"'",
              "in sh -c body at offset 11) (in sh -c body at offset 8)");
}

/* Deterministic garbage: must never crash or leak (run under ASan too). */
Test(shell_limits, random_input)
{
    static const char alphabet[] =
        "ab $'\"`\\(){}[]<>|&;#=*?~!-\n\t0123456789cdEOFif then fi do done";
    uint64_t x = 0x9e3779b97f4a7c15u;
    char buf[96];
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(round % 95);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = alphabet[x % (sizeof alphabet - 1)];
        }
        buf[len] = '\0';
        struct pd_sh_script sc;
        char err[128];
        if (pd_sh_parse(buf, &sc, err, sizeof err) == 0) {
            check_invariants(&sc, buf);
            pd_sh_script_free(&sc);
        } else {
            cr_expect(err[0] != '\0', "no message for `%s`", buf);
        }
    }
}

/* ---- size ---------------------------------------------------------------- */

static char *repeat(const char *unit, size_t total)
{
    size_t l = strlen(unit), n = total / l;
    char *s = malloc(n * l + 1);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * l, unit, l);
    s[n * l] = '\0';
    return s;
}

static size_t count_parse(const char *src)
{
    struct pd_sh_script sc;
    char err[256];
    int r = pd_sh_parse(src, &sc, err, sizeof err);
    cr_assert_eq(r, 0, "large input: %s", err);
    size_t n = sc.ncmds;
    pd_sh_script_free(&sc);
    return n;
}

/* Correctness on 1 MB inputs of several shapes (timing is not asserted; a
 * quadratic pass would make this test run for minutes). */
Test(shell_size, one_megabyte)
{
    const size_t MB = 1 << 20;
    const char *unit = "git add \"a b\" $(ls -la | wc -l) > out.txt 2>&1 && echo ok; ";
    char *s = repeat(unit, MB);
    cr_expect_eq(count_parse(s), (MB / strlen(unit)) * 4);
    free(s);

    s = repeat("a | ", MB);
    strcpy(s + strlen(s) - 3, " b");
    cr_expect_eq(count_parse(s), MB / 4);
    free(s);

    s = repeat("cat <<E\nE\n", MB);
    cr_expect_eq(count_parse(s), MB / 10);
    free(s);

    s = repeat("x <<A <<B ", MB);
    size_t n = strlen(s);
    s = realloc(s, n + 8 * (MB / 10) + 16);
    cr_assert_not_null(s);
    char *w = s + n;
    *w++ = '\n';
    for (size_t i = 0; i < MB / 10; i++, w += 4)
        memcpy(w, "A\nB\n", 4);
    *w = '\0';
    /* One command with MB/10 here-documents A, B, A, B, ... */
    cr_expect_eq(count_parse(s), 1u);
    free(s);

    s = malloc(MB + 16);
    cr_assert_not_null(s);
    memcpy(s, "echo '", 6);
    memset(s + 6, 'x', MB);
    memcpy(s + 6 + MB, "'", 2);
    cr_expect_eq(count_parse(s), 1u);
    s[6 + MB] = '\0';
    parse_err(s, "unterminated single quote at offset 5");
    memcpy(s, "echo \"", 6);
    parse_err(s, "unterminated double quote");
    free(s);

    s = repeat("f() { a; }; x=$((1+2)); [[ -f y ]] && case z in z) :;; esac; ", MB);
    cr_expect_gt(count_parse(s), 0u);
    free(s);

    s = repeat("echo `a` $(b) <(c) ${d:-$(e)}\n", MB);
    cr_expect_eq(count_parse(s), (MB / strlen("echo `a` $(b) <(c) ${d:-$(e)}\n")) * 5);
    free(s);

    s = repeat("((((((((((((((((((((((((((((((", MB);
    parse_err(s, "nesting too deep");
    free(s);

    s = repeat("$((", MB);
    struct pd_sh_script sc;
    char err[128];
    cr_expect_eq(pd_sh_parse(s, &sc, err, sizeof err), -1);
    free(s);
}
