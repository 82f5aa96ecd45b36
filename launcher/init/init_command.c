/* launcher/init/init_command.c - the hook command line: the one `paldron init`
 * writes, and reading back one that is configured (by init, by hand, from
 * older docs) the way the client's sh will read it.
 *
 * Written: '<paldron>' check --policy '<policy>' --hook || exit 2
 *  - absolute paths: the hook runs in whatever folder the client was
 *    started in, with whatever PATH it has (issue 13);
 *  - `|| exit 2`: the clients block a call only on exit 2; a paldron that
 *    cannot start (127) or dies by a signal would let the call run.
 * Reading is a small sh word splitter (quotes, backslashes, $VAR, ${VAR},
 * the operators || && | & ; as words), enough to recognise the lines people
 * write; what it cannot follow ($(...), backquotes) is flagged. */
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

char *pd_hook_cmd_build(const struct pd_hook_cmd_opts *o)
{
    struct pd_text t = {0};
    pd_text_put_shquoted(&t, o->paldron);
    pd_text_puts(&t, " check");
    if (o->from_git_root) {
        pd_text_puts(&t, " --policy-from-git-root");
    } else {
        pd_text_puts(&t, " --policy ");
        pd_text_put_shquoted(&t, o->policy);
    }
    pd_text_puts(&t, " --hook");
    if (o->no_route)
        pd_text_puts(&t, " --no-route");
    pd_text_puts(&t, " || exit 2");
    return pd_text_take(&t);
}

struct word {
    char *text;
    bool op; /* an operator: || && | & ; ( ) or a newline as ; */
};

struct words {
    struct word *v;
    size_t n;
    bool unreadable;
    bool oom;
};

static void push(struct words *w, struct pd_text *cur, bool op)
{
    char *s = pd_text_take(cur);
    struct word *nv = s ? realloc(w->v, (w->n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(s);
        w->oom = true;
        return;
    }
    w->v = nv;
    w->v[w->n].text = s;
    w->v[w->n].op = op;
    w->n++;
}

static bool name_char(char c, bool first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
}

/* $NAME or ${NAME} at s (s[0] == '$'): appends the value, returns the
 * characters used (1 for a lone '$', kept as it is). */
static size_t expand(const char *s, struct pd_text *cur, struct words *w, pd_var_lookup lookup,
                     void *arg)
{
    char name[256];
    size_t k = 1, n = 0;
    bool braced = s[1] == '{';
    if (s[1] == '(') {
        w->unreadable = true; /* command substitution: run, not read */
        pd_text_put(cur, "$", 1);
        return 1;
    }
    if (braced)
        k = 2;
    while (name_char(s[k], n == 0) && n + 1 < sizeof name)
        name[n++] = s[k++];
    name[n] = '\0';
    if (n == 0 || (braced && s[k] != '}')) {
        if (braced)
            w->unreadable = true; /* ${X:-y} and friends */
        pd_text_put(cur, "$", 1);
        return 1;
    }
    if (braced)
        k++;
    const char *v = lookup ? lookup(name, arg) : NULL;
    if (v)
        pd_text_puts(cur, v);
    return k;
}

static void split(const char *s, pd_var_lookup lookup, void *arg, struct words *w)
{
    struct pd_text cur = {0};
    bool inword = false;
    while (*s && !w->oom) {
        char c = *s;
        if (c == ' ' || c == '\t') {
            if (inword)
                push(w, &cur, false);
            inword = false;
            s++;
        } else if (c == '#' && !inword) {
            s += strcspn(s, "\n");
        } else if (strchr("|&;()\n", c)) {
            if (inword)
                push(w, &cur, false);
            inword = false;
            size_t n = (c == '|' || c == '&') && s[1] == c ? 2 : 1;
            pd_text_put(&cur, c == '\n' ? ";" : s, c == '\n' ? 1 : n);
            push(w, &cur, true);
            s += n;
        } else if (c == '\'') {
            const char *end = strchr(s + 1, '\'');
            if (!end) {
                w->unreadable = true;
                end = s + strlen(s);
            }
            pd_text_put(&cur, s + 1, (size_t)(end - s - 1));
            inword = true;
            s = *end ? end + 1 : end;
        } else if (c == '"') {
            inword = true;
            for (s++; *s && *s != '"';) {
                if (*s == '\\' && s[1] && strchr("$`\"\\\n", s[1])) {
                    if (s[1] != '\n')
                        pd_text_put(&cur, s + 1, 1);
                    s += 2;
                } else if (*s == '$') {
                    s += expand(s, &cur, w, lookup, arg);
                } else {
                    if (*s == '`')
                        w->unreadable = true;
                    pd_text_put(&cur, s, 1);
                    s++;
                }
            }
            if (!*s)
                w->unreadable = true;
            else
                s++;
        } else if (c == '\\') {
            if (s[1] && s[1] != '\n') {
                pd_text_put(&cur, s + 1, 1);
                inword = true;
            }
            s += s[1] ? 2 : 1;
        } else if (c == '$') {
            s += expand(s, &cur, w, lookup, arg);
            inword = true;
        } else {
            if (c == '`')
                w->unreadable = true;
            pd_text_put(&cur, s, 1);
            inword = true;
            s++;
        }
    }
    if (inword && !w->oom)
        push(w, &cur, false);
    pd_text_free(&cur);
}

static void words_free(struct words *w)
{
    for (size_t k = 0; k < w->n; k++)
        free(w->v[k].text);
    free(w->v);
}

static bool is_assignment(const char *s)
{
    if (!name_char(s[0], true))
        return false;
    for (s++; *s && *s != '='; s++)
        if (!name_char(*s, false))
            return false;
    return *s == '=';
}

static bool word_is(const struct words *w, size_t k, const char *text, bool op)
{
    return k < w->n && w->v[k].op == op && strcmp(w->v[k].text, text) == 0;
}

static char *dup_or_flag(const char *s, bool *oom)
{
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

void pd_hook_cmd_read(const char *command, pd_var_lookup lookup, void *arg, struct pd_hook_cmd *out)
{
    memset(out, 0, sizeof *out);
    struct words w = {0};
    split(command, lookup, arg, &w);
    out->unreadable = w.unreadable || w.oom;
    size_t k = 0;
    while (k < w.n && !w.v[k].op && is_assignment(w.v[k].text))
        k++;
    size_t end = k; /* the first command: words k .. end-1 */
    while (end < w.n && !w.v[end].op)
        end++;
    bool oom = false;
    if (k + 1 < end) {
        const char *prog = w.v[k].text;
        const char *base = strrchr(prog, '/');
        base = base ? base + 1 : prog;
        bool hook = false;
        for (size_t j = k + 2; j < end; j++)
            hook |= strcmp(w.v[j].text, "--hook") == 0;
        if (strcmp(base, "paldron") == 0 && strcmp(w.v[k + 1].text, "check") == 0 && hook) {
            out->paldron = true;
            out->program = dup_or_flag(prog, &oom);
            for (size_t j = k + 2; j < end; j++) {
                const char *a = w.v[j].text;
                if (strcmp(a, "--policy") == 0 && j + 1 < end && !out->policy)
                    out->policy = dup_or_flag(w.v[++j].text, &oom);
                else if (strncmp(a, "--policy=", 9) == 0 && !out->policy)
                    out->policy = dup_or_flag(a + 9, &oom);
                else if (strcmp(a, "--policy-from-git-root") == 0)
                    out->from_git_root = true;
                else if (strcmp(a, "--no-route") == 0)
                    out->no_route = true;
            }
        }
    }
    /* fail-closed wrapping: the first command, then exactly "|| exit 2"
     * (an optional ";" after it), and nothing else */
    size_t tail = end;
    out->exit2 = out->paldron && word_is(&w, tail, "||", true) &&
                 word_is(&w, tail + 1, "exit", false) && word_is(&w, tail + 2, "2", false) &&
                 (tail + 3 == w.n || (tail + 4 == w.n && word_is(&w, tail + 3, ";", true)));
    out->unreadable |= oom;
    words_free(&w);
}

void pd_hook_cmd_free(struct pd_hook_cmd *c)
{
    free(c->program);
    free(c->policy);
    memset(c, 0, sizeof *c);
}

bool pd_hook_cmd_is_paldron(const char *command)
{
    struct pd_hook_cmd c;
    pd_hook_cmd_read(command, NULL, NULL, &c);
    bool yes = c.paldron;
    pd_hook_cmd_free(&c);
    return yes;
}
