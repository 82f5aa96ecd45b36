/* policy/shell/shell_wrappers.c - which word of a simple command is the program
 * that really runs (skipping env, sudo, nice, timeout, xargs, ... with their
 * options), and the bodies such programs run as shell code: sh -c BODY,
 * eval ARGS, trap BODY SIGNAL.. . Table driven; words are never expanded: a
 * word with an expansion where an option or the program is expected stops
 * the unwrapping and makes the command dynamic. */
#include <stdlib.h>
#include <string.h>

#include "policy/shell/shell_internal.h"

#define DYN_FLAGS   (PD_SH_W_EXPANSION | PD_SH_W_GLOB | PD_SH_W_BRACE | PD_SH_W_SPLIT)
#define SHIFT_FLAGS (PD_SH_W_SPLIT | PD_SH_W_GLOB | PD_SH_W_BRACE)

/* The word may become zero or several words: every later position shifts. */
static bool shifty(const struct pd_sh_word *w)
{
    return (w->flags & SHIFT_FLAGS) != 0;
}

/* Where an option or the program is expected: the word may turn out to be an
 * option (or several words). A quoted expansion after a literal first
 * character (`"--user=$U"`, `"A=$X"`) keeps its meaning. */
static bool unsure(const struct pd_sh_word *w)
{
    return shifty(w) ||
           ((w->flags & PD_SH_W_EXPANSION) && (w->text[0] == '$' || w->text[0] == '`'));
}

enum after {
    AFTER_CMD,      /* the program follows the options */
    AFTER_ENV,      /* NAME=value words, then the program */
    AFTER_DURATION, /* one operand (timeout's duration), then the program */
    AFTER_PRIO,     /* an optional numeric priority (chrt), then the program */
};

struct wrapper {
    const char *name;
    const char *sarg;          /* short options taking an argument */
    const char *snorun;        /* short options with which no program runs */
    const char *const *larg;   /* long options taking an argument (as --opt ARG) */
    const char *const *lnorun; /* long options with which no program runs */
    enum after after;
    bool numeric; /* -N is an option (nice -10) */
    bool split;   /* -S / --split-string: the program is inside a string (env) */
    bool builtin; /* a shell builtin or keyword: only its bare name counts */
};

static const char *const env_larg[] = {"unset", "chdir", "split-string", NULL};
static const char *const sudo_larg[] = {
    "user", "group", "chdir",      "chroot",      "close-from", "prompt",          "role",
    "type", "host",  "other-user", "login-class", "auth-type",  "command-timeout", NULL};
static const char *const sudo_lnorun[] = {"list",    "edit", "validate", "remove-timestamp",
                                          "version", "help", NULL};
static const char *const nice_larg[] = {"adjustment", NULL};
static const char *const timeout_larg[] = {"signal", "kill-after", NULL};
static const char *const xargs_larg[] = {"arg-file",  "delimiter",        "max-args", "max-procs",
                                         "max-chars", "process-slot-var", NULL};
static const char *const time_larg[] = {"format", "output", NULL};
static const char *const stdbuf_larg[] = {"input", "output", "error", NULL};
static const char *const ionice_larg[] = {"class", "classdata", "pid", "pgid", "uid", NULL};
static const char *const ionice_lnorun[] = {"pid", "pgid", "uid", NULL};
static const char *const chrt_larg[] = {"sched-runtime", "sched-period", "sched-deadline", NULL};
static const char *const chrt_lnorun[] = {"pid", "max", NULL};
static const char *const none[] = {NULL};

static const struct wrapper wrappers[] = {
    {"env", "uCS", "", env_larg, none, AFTER_ENV, false, true, false},
    {"sudo", "aCcDghpRrTtUu", "eKlVv", sudo_larg, sudo_lnorun, AFTER_CMD, false, false, false},
    {"doas", "uC", "CL", none, none, AFTER_CMD, false, false, false},
    {"nice", "n", "", nice_larg, none, AFTER_CMD, true, false, false},
    {"nohup", "", "", none, none, AFTER_CMD, false, false, false},
    {"timeout", "sk", "", timeout_larg, none, AFTER_DURATION, false, false, false},
    {"xargs", "adEILnPs", "", xargs_larg, none, AFTER_CMD, false, false, false},
    {"command", "", "vV", none, none, AFTER_CMD, false, false, true},
    {"exec", "a", "", none, none, AFTER_CMD, false, false, true},
    {"builtin", "", "", none, none, AFTER_CMD, false, false, true},
    {"time", "fo", "", time_larg, none, AFTER_CMD, false, false, false},
    {"stdbuf", "ioe", "", stdbuf_larg, none, AFTER_CMD, false, false, false},
    {"ionice", "cnpPu", "pPu", ionice_larg, ionice_lnorun, AFTER_CMD, false, false, false},
    {"chrt", "TPD", "pm", chrt_larg, chrt_lnorun, AFTER_PRIO, false, false, false},
    {"setsid", "", "", none, none, AFTER_CMD, false, false, false},
};

static const char *base_name(const char *s)
{
    const char *q = strrchr(s, '/');
    return q ? q + 1 : s;
}

/* A bare name, or a path in a system directory: `./env x` runs ./env. */
static bool system_path(const char *s, bool builtin)
{
    static const char *const dirs[] = {
        "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", NULL};
    const char *q = strrchr(s, '/');
    if (!q)
        return true;
    if (builtin)
        return false;
    size_t n = (size_t)(q - s);
    for (size_t i = 0; dirs[i]; i++)
        if (strlen(dirs[i]) == n && memcmp(dirs[i], s, n) == 0)
            return true;
    return false;
}

static const struct wrapper *find_wrapper(const struct pd_sh_word *w)
{
    const char *name = base_name(w->text);
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
        if (strcmp(name, wrappers[i].name) == 0 && system_path(w->text, wrappers[i].builtin))
            return &wrappers[i];
    return NULL;
}

static bool in_list(const char *const *list, const char *s, size_t n)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return true;
    return false;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

struct optres {
    size_t next;  /* first operand */
    bool norun;   /* an option that makes the wrapper run no program */
    bool opaque;  /* the program is hidden in an option's string (env -S) */
    bool dynamic; /* a word whose expansion may shift or change the options: next is it */
};

/* Skip the options of wrapper s starting at words[i]. */
static struct optres skip_options(const struct pd_sh_word *w, size_t n, size_t i,
                                  const struct wrapper *s)
{
    struct optres r = {0};
    for (; i < n; i++) {
        const char *t = w[i].text;
        if (unsure(&w[i])) {
            r.dynamic = true;
            break;
        }
        if (t[0] != '-' || t[1] == '\0') {
            if (s->split && strcmp(t, "-") == 0) /* env - : like -i */
                continue;
            break;
        }
        if (strcmp(t, "--") == 0) {
            i++;
            break;
        }
        if (t[1] == '-') {
            const char *name = t + 2;
            size_t len = strcspn(name, "=");
            if (in_list(s->lnorun, name, len) || (len == 4 && memcmp(name, "help", 4) == 0) ||
                (len == 7 && memcmp(name, "version", 7) == 0))
                r.norun = true;
            if (s->split && len == 12 && memcmp(name, "split-string", 12) == 0)
                r.opaque = true;
            if (name[len] == '\0' && in_list(s->larg, name, len) && ++i < n && shifty(&w[i])) {
                r.dynamic = true;
                break;
            }
            continue;
        }
        if (s->numeric && all_digits(t + 1))
            continue;
        for (const char *c = t + 1; *c; c++) {
            if (strchr(s->snorun, *c))
                r.norun = true;
            if (s->split && *c == 'S')
                r.opaque = true;
            if (strchr(s->sarg, *c)) {
                if (c[1] == '\0' && ++i < n && shifty(&w[i]))
                    r.dynamic = true;
                break;
            }
        }
        if (r.dynamic)
            break;
    }
    r.next = i < n ? i : n;
    return r;
}

/* env's NAME=value operand (the name part must be literal). */
static bool env_assignment(const struct pd_sh_word *w)
{
    const char *eq = strchr(w->text, '=');
    if (!eq || eq == w->text)
        return false;
    for (const char *c = w->text; c < eq; c++)
        if (*c == '$' || *c == '`')
            return false;
    return true;
}

size_t sh_unwrap(const struct pd_sh_word *words, size_t n, bool *dynamic)
{
    size_t i = 0;
    *dynamic = false;
    while (i < n) {
        if (words[i].flags & DYN_FLAGS) {
            *dynamic = true;
            return i;
        }
        const struct wrapper *s = find_wrapper(&words[i]);
        if (!s)
            return i;
        struct optres r = skip_options(words, n, i + 1, s);
        if (r.dynamic) {
            *dynamic = true;
            return r.next;
        }
        if (r.opaque)
            *dynamic = true;
        if (r.opaque || r.norun)
            return i;
        size_t j = r.next;
        if (s->after == AFTER_ENV) {
            while (j < n && !unsure(&words[j]) && env_assignment(&words[j]))
                j++;
        } else if (s->after == AFTER_DURATION) {
            if (j >= n)
                return i;
            if (shifty(&words[j])) {
                *dynamic = true;
                return j;
            }
            j++;
        } else if (s->after == AFTER_PRIO && j < n && all_digits(words[j].text)) {
            j++;
        }
        if (j >= n)
            return i; /* the wrapper runs alone (env prints, xargs runs echo, ...) */
        i = j;
    }
    return i;
}

/* ---- bodies ------------------------------------------------------------- */

static bool is_shell(const char *name)
{
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", NULL};
    for (size_t i = 0; shells[i]; i++)
        if (strcmp(name, shells[i]) == 0)
            return true;
    return false;
}

/* How a shell is invoked (words[i] is the shell). */
struct shell_args {
    bool dynamic;   /* an expansion among the options */
    bool c, s;      /* -c, -s given */
    size_t operand; /* first operand: the -c body or the script file; n if none */
};

static struct shell_args shell_args(const struct pd_sh_word *w, size_t n, size_t i)
{
    struct shell_args a = {0};
    size_t j = i + 1;
    while (j < n) {
        const char *t = w[j].text;
        if (w[j].flags & DYN_FLAGS) {
            a.dynamic = true;
            break;
        }
        if ((t[0] != '-' && t[0] != '+') || t[1] == '\0') {
            if (strcmp(t, "-") == 0)
                j++;
            break;
        }
        if (strcmp(t, "--") == 0) {
            j++;
            break;
        }
        if (t[0] == '-' && t[1] == '-') {
            if ((strcmp(t, "--rcfile") == 0 || strcmp(t, "--init-file") == 0) && ++j < n &&
                (w[j].flags & DYN_FLAGS)) {
                a.dynamic = true;
                break;
            }
            j++;
            continue;
        }
        size_t args = 0;
        for (const char *k = t + 1; *k; k++) {
            if (*k == 'c' && t[0] == '-')
                a.c = true;
            if (*k == 's' && t[0] == '-')
                a.s = true;
            if (*k == 'o' || *k == 'O')
                args++;
        }
        for (size_t k = 1; k <= args && j + k < n; k++)
            if (w[j + k].flags & DYN_FLAGS)
                a.dynamic = true;
        if (a.dynamic)
            break;
        j += 1 + args;
    }
    a.operand = j < n ? j : n;
    return a;
}

static void set_dynamic(struct sh_parser *p, size_t k)
{
    p->st->out->cmds[k].dynamic = true;
}

/* cmds[k] is a shell that reads its script from stdin: when stdin (its last
 * fd 0 redirection) is a here-string or an already read here-document,
 * parse that as the script. */
static int stdin_script(struct sh_parser *p, size_t k, size_t at)
{
    const struct pd_sh_cmd *c = &p->st->out->cmds[k];
    const struct pd_sh_redir *in = NULL;
    for (size_t r = 0; r < c->nredirs; r++)
        if (c->redirs[r].fd == 0)
            in = &c->redirs[r];
    if (!in || (in->op != PD_SH_R_HEREDOC && in->op != PD_SH_R_HERESTRING) || !in->target.text)
        return 0;
    if (in->target.flags & DYN_FLAGS) {
        set_dynamic(p, k);
        return 0;
    }
    /* The text belongs to the redirection: it stays put when cmds moves. */
    const char *text = in->target.text;
    return sh_parse_sub(p, text, strlen(text), PD_SH_O_SHELL_C, false,
                        in->op == PD_SH_R_HEREDOC ? "here-document script" : "here-string script",
                        at);
}

/* The shell program of cmds[k] and how it is invoked; false if it is none. */
static bool shell_cmd(const struct sh_parser *p, size_t k, struct shell_args *a)
{
    const struct pd_sh_cmd *c = &p->st->out->cmds[k];
    if (c->kind != PD_SH_K_SIMPLE || c->prog >= c->nwords ||
        (c->words[c->prog].flags & DYN_FLAGS) || !is_shell(base_name(c->words[c->prog].text)))
        return false;
    *a = shell_args(c->words, c->nwords, c->prog);
    return true;
}

int sh_heredoc_script(struct sh_parser *p, size_t k, size_t at)
{
    struct shell_args a;
    if (!shell_cmd(p, k, &a) || a.dynamic || a.c ||
        (a.operand < p->st->out->cmds[k].nwords && !a.s))
        return 0;
    return stdin_script(p, k, at);
}

int sh_parse_bodies(struct sh_parser *p, size_t k, size_t woff0)
{
    /* cmds (and st->woff) may move while a body is parsed: read what is
     * needed first; the words array itself does not move. */
    const struct pd_sh_cmd *c = &p->st->out->cmds[k];
    const struct pd_sh_word *w = c->words;
    size_t n = c->nwords, i = c->prog;
    if (c->kind != PD_SH_K_SIMPLE || i >= n || (w[i].flags & DYN_FLAGS))
        return 0;
    const size_t *woff = p->st->woff + woff0;
    struct shell_args sa;
    if (shell_cmd(p, k, &sa)) {
        size_t b = sa.operand;
        if (sa.dynamic || (sa.c && b < n && (w[b].flags & DYN_FLAGS))) {
            set_dynamic(p, k);
            return 0;
        }
        if (sa.c)
            return b < n ? sh_parse_sub(p, w[b].text, strlen(w[b].text), PD_SH_O_SHELL_C, false,
                                        "sh -c body", woff[b])
                         : 0;
        if (b < n && !sa.s)
            return 0; /* runs a script file */
        return stdin_script(p, k, woff[i]);
    }
    size_t a = i + 1;
    if (a < n && strcmp(w[a].text, "--") == 0 && !(w[a].flags & PD_SH_W_QUOTED))
        a++;
    if (strcmp(w[i].text, "trap") == 0) {
        /* trap BODY SIGNAL..: BODY runs later; `trap - SIG`, `trap -p`, `trap
         * SIG` (reset) and `trap '' SIG` (ignore) run nothing. */
        if (a + 1 >= n || (w[a].text[0] == '-' && !(w[a].flags & DYN_FLAGS)))
            return 0;
        if (w[a].flags & DYN_FLAGS) {
            set_dynamic(p, k);
            return 0;
        }
        if (w[a].text[0] == '\0')
            return 0;
        return sh_parse_sub(p, w[a].text, strlen(w[a].text), PD_SH_O_EVAL, false, "trap action",
                            woff[a]);
    }
    if (strcmp(w[i].text, "eval") != 0 || a >= n)
        return 0;
    struct sh_buf text = {0};
    for (size_t j = a; j < n; j++) {
        if (w[j].flags & DYN_FLAGS) {
            free(text.p);
            set_dynamic(p, k);
            return 0;
        }
        if ((j > a && sh_buf_putc(p->st, &text, ' ') < 0) ||
            sh_buf_put(p->st, &text, w[j].text, strlen(w[j].text)) < 0) {
            free(text.p);
            return -1;
        }
    }
    int r = sh_parse_sub(p, text.p ? text.p : "", text.len, PD_SH_O_EVAL, false, "eval arguments",
                         woff[a]);
    free(text.p);
    return r;
}
