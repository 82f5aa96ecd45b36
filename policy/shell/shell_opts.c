/* policy/shell/shell_opts.c - walk a program's words the way getopt_long does:
 * short clusters (-abc, -ofile, -o file), long options (--out=f, --out f,
 * unambiguous prefixes as GNU getopt and git accept them), `--`, and the
 * options the program names with a single dash and several letters
 * (-MF, -isystem, -fplugin=...). A spec string says what the options that
 * matter take; every other option is a flag.
 *
 * Spec: space separated entries "-o:W", "--output:W", "-MF:W" (a single-dash
 * name of several letters), "-fplugin*:u" (a prefix), "--color?:D" and
 * "-i?:I" (the argument is optional and only ever attached: --color=x,
 * -i.bak). The kind characters are listed in shell_judge.h (struct
 * sj_opt). */
#include <string.h>

#include "policy/shell/shell_judge.h"

/* Kinds whose option takes an argument. */
static bool takes_arg(char kind)
{
    return kind && strchr("DRWCXUPQTLA2FM", kind) != NULL;
}

struct entry {
    const char *name; /* after the dashes */
    size_t len;
    int dashes;  /* 1 or 2 */
    bool prefix; /* "-fplugin*" */
    bool optional;
    char kind;
};

/* Read the entry at *s; false at the end of the spec. */
static bool next_entry(const char **s, struct entry *e)
{
    const char *p = *s;
    while (*p == ' ')
        p++;
    if (!*p)
        return false;
    const char *end = strchr(p, ' ');
    if (!end)
        end = p + strlen(p);
    const char *colon = end;
    while (colon > p && *colon != ':')
        colon--;
    e->dashes = p[1] == '-' ? 2 : 1;
    e->name = p + e->dashes;
    e->len = (size_t)(colon - e->name);
    e->prefix = e->len && e->name[e->len - 1] == '*';
    e->optional = e->len && e->name[e->len - 1] == '?';
    if (e->prefix || e->optional)
        e->len--;
    e->kind = colon + 1 < end ? colon[1] : 'f';
    *s = end;
    return true;
}

/* Look a long option up: exact, else the first entry it abbreviates. */
static bool find_long(const char *spec, const char *name, size_t len, struct entry *out)
{
    struct entry e;
    bool found = false;
    for (const char *s = spec; s && next_entry(&s, &e);) {
        if (e.dashes != 2 || len > e.len || memcmp(e.name, name, len) != 0)
            continue;
        if (e.len == len) {
            *out = e;
            return true;
        }
        if (!found && len >= 2) {
            *out = e;
            found = true;
        }
    }
    return found;
}

/* A single-dash entry of several letters matching the whole word (up to
 * '=' for "-specs=x"), or a prefix entry. */
static bool find_single_long(const char *spec, const char *word, struct entry *out)
{
    struct entry e;
    size_t wl = strcspn(word, "=");
    for (const char *s = spec; s && next_entry(&s, &e);) {
        if (e.dashes != 1 || e.len < 2)
            continue;
        if (e.prefix ? strncmp(word, e.name, e.len) == 0
                     : (wl == e.len && memcmp(word, e.name, e.len) == 0)) {
            *out = e;
            return true;
        }
    }
    return false;
}

static bool find_short(const char *spec, char ch, struct entry *out)
{
    struct entry e;
    for (const char *s = spec; s && next_entry(&s, &e);)
        if (e.dashes == 1 && e.len == 1 && e.name[0] == ch && !e.prefix) {
            *out = e;
            return true;
        }
    return false;
}

bool sj_opt_single_long(const char *spec, const char *word)
{
    struct entry e;
    return word[0] == '-' && word[1] != '-' && find_single_long(spec, word + 1, &e);
}

char sj_opt_kind(const char *spec, const char *word)
{
    struct entry e;
    if (word[0] != '-' || !word[1])
        return 0;
    if (word[1] == '-') {
        size_t len = strcspn(word + 2, "=");
        return find_long(spec, word + 2, len, &e) ? e.kind : 'f';
    }
    if (find_single_long(spec, word + 1, &e))
        return e.kind;
    return find_short(spec, word[1], &e) ? e.kind : 'f';
}

static void emit(struct sh_judge *j, const struct sj_walk_cb *cb, char kind, const char *name,
                 size_t len, const struct pd_sh_word *optw, const struct pd_sh_word *argw,
                 const char *arg)
{
    struct sj_opt o = {kind, name, len, optw, argw, arg};
    if (cb->opt)
        cb->opt(j, cb->ud, &o);
}

/* The next word as an option's argument; NULL past the end. */
static const struct pd_sh_word *arg_word(const struct pd_sh_word *w, size_t n, size_t *i)
{
    if (*i + 1 >= n)
        return NULL;
    (*i)++;
    return &w[*i];
}

void sj_walk(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t start,
             const char *spec, unsigned flags, const struct sj_walk_cb *cb)
{
    bool options = true;
    size_t index = 0;
    for (size_t i = start; i < n && !j->denied; i++) {
        const struct pd_sh_word *cur = &w[i];
        const char *t = cur->text;
        if (!options || t[0] != '-' || t[1] == '\0') {
            if (cb->operand)
                cb->operand(j, cb->ud, index++, cur);
            if (flags & SJW_POSIX)
                options = false;
            continue;
        }
        if (strcmp(t, "--") == 0 && !(cur->flags & PD_SH_W_EXPANSION)) {
            options = false;
            continue;
        }
        const char *dyn = strpbrk(t, "$`");
        unsigned kind_bits = sj_word_kind(cur, NULL);
        struct entry e;
        if (t[1] == '-') {
            const char *name = t + 2;
            size_t len = strcspn(name, "=");
            /* --include=*.txt: bash would only expand it against files named
             * "--include=...", which do not exist: the value is the glob */
            struct pd_sh_word unglobbed = *cur;
            const char *star = strpbrk(t, "*?[");
            if (kind_bits == SJX_GLOB && !dyn && name[len] == '=' && star > name + len) {
                unglobbed.flags &= ~PD_SH_W_GLOB;
                cur = &unglobbed;
                kind_bits = 0;
            }
            if (kind_bits && (!dyn || dyn < name + len)) {
                sj_unjudged(j, "`%s` is %s where %s expects an option", t, sj_kind_name(kind_bits),
                            j->prog);
                continue;
            }
            char kind = find_long(spec, name, len, &e) ? e.kind : 'f';
            if (name[len] == '=') {
                emit(j, cb, kind, name, len, cur, cur, name + len + 1);
            } else if (takes_arg(kind) && !(find_long(spec, name, len, &e) && e.optional)) {
                const struct pd_sh_word *a = arg_word(w, n, &i);
                emit(j, cb, kind, name, len, cur, a, a ? a->text : NULL);
                if ((kind == '2' || kind == 'F') && (a = arg_word(w, n, &i)))
                    emit(j, cb, kind == 'F' ? 'R' : 'D', name, len, cur, a, a->text);
            } else {
                emit(j, cb, kind, name, len, cur, NULL, NULL);
            }
            continue;
        }
        if (find_single_long(spec, t + 1, &e)) {
            const char *eq = strchr(t, '=');
            if (kind_bits && (!dyn || !eq || dyn < eq)) {
                sj_unjudged(j, "`%s` is %s where %s expects an option", t, sj_kind_name(kind_bits),
                            j->prog);
                continue;
            }
            if (e.prefix || eq || !takes_arg(e.kind)) {
                emit(j, cb, e.kind, t + 1, e.len, cur, eq ? cur : NULL, eq ? eq + 1 : NULL);
            } else {
                const struct pd_sh_word *a = arg_word(w, n, &i);
                emit(j, cb, e.kind, t + 1, e.len, cur, a, a ? a->text : NULL);
            }
            continue;
        }
        if (kind_bits && (!dyn || dyn == t + 1)) {
            sj_unjudged(j, "`%s` is %s where %s expects an option", t, sj_kind_name(kind_bits),
                        j->prog);
            continue;
        }
        for (const char *c = t + 1; *c; c++) {
            bool known = find_short(spec, *c, &e);
            char kind = known ? e.kind : 'f';
            if (dyn && c >= dyn) {
                sj_unjudged(j, "`%s` is %s where %s expects an option", t, sj_kind_name(kind_bits),
                            j->prog);
                break;
            }
            if (known && e.optional) {
                emit(j, cb, kind, c, 1, cur, c[1] ? cur : NULL, c[1] ? c + 1 : NULL);
                break;
            }
            if (!takes_arg(kind)) {
                emit(j, cb, kind, c, 1, cur, NULL, NULL);
                continue;
            }
            if (c[1]) {
                emit(j, cb, kind, c, 1, cur, cur, c + 1);
            } else {
                const struct pd_sh_word *a = arg_word(w, n, &i);
                emit(j, cb, kind, c, 1, cur, a, a ? a->text : NULL);
                if ((kind == '2' || kind == 'F') && (a = arg_word(w, n, &i)))
                    emit(j, cb, kind == 'F' ? 'R' : 'D', c, 1, cur, a, a->text);
            }
            break;
        }
    }
}
