/* launcher/init/init_hooks.c - the Paldron hook in a client's settings file
 * (Claude Code's settings.json, Codex's hooks.json: the same shape).
 *
 * The file belongs to the user: other hooks, other keys, spacing and key
 * order stay byte for byte. The merge is a few text edits on the positions
 * launcher/init/init_json.c found, one step at a time (add "hooks", add
 * "PreToolUse", drop duplicate Paldron hooks, add or fix the one hook),
 * re-reading the text after each step; the result is read once more and
 * must hold exactly one Paldron hook with the wanted command, or nothing is
 * written. New text follows the file's own indentation (its first indented
 * line), on one line when the container it goes into is on one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

#define HOOK_TIMEOUT 30 /* seconds; a hook that runs longer lets the call run */
#define MAX_STEPS    12

/* Handler keys that would keep the hook from blocking every call: "if"
 * (Claude Code: only some calls), "once" (only the first), "async" and
 * "asyncRewake" (the client does not wait for the answer). */
static const char *const weakening_keys[] = {"if", "once", "async", "asyncRewake", NULL};

struct edit {
    size_t start, end;
    char *text;
};

struct edits {
    struct edit v[64];
    size_t n;
    bool failed; /* too many edits or out of memory */
};

static void add_edit(struct edits *e, size_t start, size_t end, struct pd_text *t)
{
    char *s = pd_text_take(t);
    if (!s || e->n == sizeof e->v / sizeof e->v[0]) {
        free(s);
        e->failed = true;
        return;
    }
    e->v[e->n++] = (struct edit){start, end, s};
}

static int by_start_desc(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;
    return x->start < y->start ? 1 : x->start > y->start ? -1 : 0;
}

/* The text with the edits applied (they must not overlap), or NULL. */
static char *apply(const char *text, size_t len, struct edits *e)
{
    char *out = NULL;
    qsort(e->v, e->n, sizeof e->v[0], by_start_desc);
    for (size_t k = 1; k < e->n; k++)
        if (e->v[k].end > e->v[k - 1].start)
            goto done;
    if (e->failed)
        goto done;
    struct pd_text t = {0};
    size_t at = 0;
    for (size_t k = e->n; k-- > 0;) {
        pd_text_put(&t, text + at, e->v[k].start - at);
        pd_text_puts(&t, e->v[k].text);
        at = e->v[k].end;
    }
    pd_text_put(&t, text + at, len - at);
    out = pd_text_take(&t);
done:
    for (size_t k = 0; k < e->n; k++)
        free(e->v[k].text);
    e->n = 0;
    return out;
}

/* ---- the file's style ---------------------------------------------------- */

struct style {
    const char *text;
    size_t len;
    char unit[16]; /* one level of indentation */
    bool pretty;   /* the file spans several lines */
    bool spaced;   /* it writes "a": 1, "b": 2 rather than "a":1,"b":2 */
};

/* How new text is laid out where it goes: on lines of its own (pretty),
 * or on one line, with or without a space after ':' and ','. */
struct layout {
    bool pretty, spaced;
};

static void style_of(struct style *st, const char *text, size_t len)
{
    st->text = text;
    st->len = len;
    snprintf(st->unit, sizeof st->unit, "  ");
    st->pretty = false;
    st->spaced = strstr(text, "\": ") != NULL;
    size_t end = len;
    while (end > 0 && strchr(" \t\r\n", text[end - 1]))
        end--;
    for (size_t k = 0; k < end; k++) {
        if (text[k] != '\n')
            continue;
        st->pretty = true;
        size_t n = 0;
        while (k + 1 + n < len && (text[k + 1 + n] == ' ' || text[k + 1 + n] == '\t'))
            n++;
        if (n > 0 && k + 1 + n < len && text[k + 1 + n] != '\n' && text[k + 1 + n] != '\r') {
            if (n >= sizeof st->unit)
                n = sizeof st->unit - 1;
            memcpy(st->unit, text + k + 1, n);
            st->unit[n] = '\0';
            break;
        }
    }
}

/* The indentation of the line that holds pos. */
static void line_indent(const struct style *st, size_t pos, char *out, size_t outlen)
{
    size_t b = pos;
    while (b > 0 && st->text[b - 1] != '\n')
        b--;
    size_t n = 0;
    while (b + n < pos && (st->text[b + n] == ' ' || st->text[b + n] == '\t'))
        n++;
    snprintf(out, outlen, "%.*s", (int)n, st->text + b);
}

/* Only blanks between the start of its line and pos. */
static bool starts_line(const struct style *st, size_t pos)
{
    while (pos > 0 && (st->text[pos - 1] == ' ' || st->text[pos - 1] == '\t'))
        pos--;
    return pos == 0 || st->text[pos - 1] == '\n';
}

static bool multiline(const struct style *st, const struct pd_json *v)
{
    return memchr(st->text + v->start, '\n', v->end - v->start) != NULL;
}

/* ---- the values init writes ------------------------------------------------ */

/* The layout of new text inside container c, which is on one line or not;
 * an empty container takes the file's. */
static struct layout layout_in(const struct style *st, const struct pd_json *c)
{
    if (c->n == 0)
        return (struct layout){st->pretty, st->pretty || st->spaced};
    bool pretty = multiline(st, c);
    bool spaced = pretty;
    for (size_t k = c->start; !spaced && k + 1 < c->end; k++)
        spaced = (st->text[k] == ':' || st->text[k] == ',') && st->text[k + 1] == ' ';
    return (struct layout){pretty, spaced};
}

/* After '{' or '[': a new line at ind, when pretty. */
static void put_open(struct pd_text *t, const struct layout *l, const char *ind)
{
    if (l->pretty)
        pd_text_printf(t, "\n%s", ind);
}

/* Before '}' or ']': a new line at base, when pretty. */
static void put_close(struct pd_text *t, const struct layout *l, const char *base)
{
    if (l->pretty)
        pd_text_printf(t, "\n%s", base);
}

/* A comma, then a new line at ind, a space or nothing. */
static void put_sep(struct pd_text *t, const struct layout *l, const char *ind)
{
    pd_text_puts(t, ",");
    if (l->pretty)
        pd_text_printf(t, "\n%s", ind);
    else if (l->spaced)
        pd_text_puts(t, " ");
}

static void put_key(struct pd_text *t, const struct layout *l, const char *key)
{
    pd_json_put_string(t, key);
    pd_text_puts(t, l->spaced ? ": " : ":");
}

enum piece { HANDLER, GROUP, PRE_ARRAY, HOOKS_OBJECT, ROOT };

/* The JSON of a piece; when pretty, each level one unit deeper than base
 * (the indentation of the line it starts on). */
static void render(struct pd_text *t, enum piece what, const char *command, const char *base,
                   const struct style *st, const struct layout *l)
{
    char in[PD_PATH_MAX], in2[PD_PATH_MAX];
    snprintf(in, sizeof in, "%s%s", base, st->unit);
    snprintf(in2, sizeof in2, "%s%s", in, st->unit);
    switch (what) {
    case HANDLER:
        pd_text_puts(t, "{");
        put_open(t, l, in);
        put_key(t, l, "type");
        pd_text_puts(t, "\"command\"");
        put_sep(t, l, in);
        put_key(t, l, "command");
        pd_json_put_string(t, command);
        put_sep(t, l, in);
        put_key(t, l, "timeout");
        pd_text_printf(t, "%d", HOOK_TIMEOUT);
        put_close(t, l, base);
        pd_text_puts(t, "}");
        break;
    case GROUP:
        pd_text_puts(t, "{");
        put_open(t, l, in);
        put_key(t, l, "matcher");
        pd_text_puts(t, "\"*\"");
        put_sep(t, l, in);
        put_key(t, l, "hooks");
        pd_text_puts(t, "[");
        put_open(t, l, in2);
        render(t, HANDLER, command, in2, st, l);
        put_close(t, l, in);
        pd_text_puts(t, "]");
        put_close(t, l, base);
        pd_text_puts(t, "}");
        break;
    case PRE_ARRAY:
        pd_text_puts(t, "[");
        put_open(t, l, in);
        render(t, GROUP, command, in, st, l);
        put_close(t, l, base);
        pd_text_puts(t, "]");
        break;
    case HOOKS_OBJECT:
    case ROOT:
        pd_text_puts(t, "{");
        put_open(t, l, in);
        put_key(t, l, what == ROOT ? "hooks" : "PreToolUse");
        render(t, what == ROOT ? HOOKS_OBJECT : PRE_ARRAY, command, in, st, l);
        put_close(t, l, base);
        pd_text_puts(t, "}");
        break;
    }
}

/* The indentation of a new kid of non-empty container c: that of its
 * first kid when that starts a line, else c's line's plus one unit. */
static void kid_indent(const struct style *st, const struct pd_json *c, char *out, size_t outlen)
{
    const struct pd_json *first = &c->kids[0];
    size_t pos = first->key ? first->key_start : first->start;
    if (starts_line(st, pos)) {
        line_indent(st, pos, out, outlen);
        return;
    }
    char base[PD_PATH_MAX];
    line_indent(st, c->start, base, sizeof base);
    snprintf(out, outlen, "%s%s", base, st->unit);
}

/* Insert a member "key": <what> (key NULL: an element) at the end of the
 * object or array c. */
static void insert_into(struct edits *e, const struct style *st, const struct pd_json *c,
                        const char *key, enum piece what, const char *command)
{
    struct pd_text t = {0};
    struct layout l = layout_in(st, c);
    char base[PD_PATH_MAX], ind[PD_PATH_MAX];
    line_indent(st, c->start, base, sizeof base);
    if (c->n == 0) {
        snprintf(ind, sizeof ind, "%s%s", base, st->unit);
        pd_text_put(&t, &st->text[c->start], 1);
        put_open(&t, &l, ind);
        if (key)
            put_key(&t, &l, key);
        render(&t, what, command, ind, st, &l);
        put_close(&t, &l, base);
        pd_text_put(&t, &st->text[c->end - 1], 1);
        add_edit(e, c->start, c->end, &t);
        return;
    }
    kid_indent(st, c, ind, sizeof ind);
    put_sep(&t, &l, ind);
    if (key)
        put_key(&t, &l, key);
    render(&t, what, command, ind, st, &l);
    size_t at = c->kids[c->n - 1].end;
    add_edit(e, at, at, &t);
}

/* Insert the member "key": json at the end of the non-empty object o. */
static void insert_member(struct edits *e, const struct style *st, const struct pd_json *o,
                          const char *key, const char *json)
{
    struct pd_text t = {0};
    struct layout l = layout_in(st, o);
    char ind[PD_PATH_MAX];
    kid_indent(st, o, ind, sizeof ind);
    put_sep(&t, &l, ind);
    put_key(&t, &l, key);
    pd_text_puts(&t, json);
    size_t at = o->kids[o->n - 1].end;
    add_edit(e, at, at, &t);
}

/* Remove the kids of c marked in drop[] (with their commas). */
static void remove_from(struct edits *e, const struct style *st, const struct pd_json *c,
                        const bool *drop)
{
    size_t kept = 0;
    for (size_t k = 0; k < c->n; k++)
        kept += !drop[k];
    struct pd_text t = {0};
    if (kept == 0) {
        pd_text_printf(&t, "%c%c", st->text[c->start], st->text[c->end - 1]);
        add_edit(e, c->start, c->end, &t);
        return;
    }
    for (size_t i = 0; i < c->n;) {
        if (!drop[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < c->n && drop[j + 1])
            j++;
        const struct pd_json *a = &c->kids[i];
        size_t a_pos = a->key ? a->key_start : a->start;
        if (j + 1 < c->n) {
            const struct pd_json *next = &c->kids[j + 1];
            pd_text_puts(&t, "");
            add_edit(e, a_pos, next->key ? next->key_start : next->start, &t);
        } else {
            pd_text_puts(&t, "");
            add_edit(e, c->kids[i - 1].end, c->kids[j].end, &t);
        }
        i = j + 1;
    }
}

static void replace_value(struct edits *e, const struct pd_json *v, const char *json)
{
    struct pd_text t = {0};
    pd_text_puts(&t, json);
    add_edit(e, v->start, v->end, &t);
}

/* ---- finding the Paldron hooks ------------------------------------------ */

struct ref {
    size_t group, handler;
};

static bool is_paldron_handler(const struct pd_json *h)
{
    const struct pd_json *cmd = pd_json_get(h, "command");
    return h->kind == PD_JSON_OBJECT && cmd && cmd->kind == PD_JSON_STRING &&
           pd_hook_cmd_is_paldron(cmd->str);
}

static const struct pd_json *handlers_of(const struct pd_json *group)
{
    const struct pd_json *hs = pd_json_get(group, "hooks");
    return hs && hs->kind == PD_JSON_ARRAY ? hs : NULL;
}

static size_t find_refs(const struct pd_json *pre, struct ref *out, size_t max)
{
    size_t n = 0;
    for (size_t g = 0; g < pre->n; g++) {
        const struct pd_json *hs = handlers_of(&pre->kids[g]);
        for (size_t h = 0; hs && h < hs->n; h++)
            if (is_paldron_handler(&hs->kids[h]) && n < max)
                out[n++] = (struct ref){g, h};
    }
    return n;
}

static bool matcher_is_all(const struct pd_json *group)
{
    const struct pd_json *m = pd_json_get(group, "matcher");
    return m && m->kind == PD_JSON_STRING && strcmp(m->str, "*") == 0;
}

/* The Paldron hook to keep: one in a "*" group, else one alone in its
 * group (whose matcher can be set to "*"); -1 when none can stay. */
static long keeper(const struct pd_json *pre, const struct ref *refs, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (matcher_is_all(&pre->kids[refs[k].group]))
            return (long)k;
    for (size_t k = 0; k < n; k++) {
        const struct pd_json *hs = handlers_of(&pre->kids[refs[k].group]);
        if (hs && hs->n == 1)
            return (long)k;
    }
    return -1;
}

/* Remove every Paldron hook but refs[keep]: a group left empty goes. */
static void drop_others(struct edits *e, const struct style *st, const struct pd_json *pre,
                        const struct ref *refs, size_t n, long keep)
{
    bool *drop_group = calloc(pre->n, sizeof *drop_group);
    if (!drop_group) {
        e->failed = true;
        return;
    }
    for (size_t g = 0; g < pre->n; g++) {
        const struct pd_json *hs = handlers_of(&pre->kids[g]);
        if (!hs)
            continue;
        bool *drop = calloc(hs->n + 1, sizeof *drop);
        if (!drop) {
            e->failed = true;
            break;
        }
        size_t dropped = 0;
        for (size_t k = 0; k < n; k++)
            if ((long)k != keep && refs[k].group == g) {
                drop[refs[k].handler] = true;
                dropped++;
            }
        if (dropped == hs->n)
            drop_group[g] = true;
        else if (dropped)
            remove_from(e, st, hs, drop);
        free(drop);
    }
    bool any = false;
    for (size_t g = 0; g < pre->n; g++)
        any |= drop_group[g];
    if (any)
        remove_from(e, st, pre, drop_group);
    free(drop_group);
}

/* Bring the kept hook to the wanted shape; false when it already is. */
static bool fix_keeper(struct edits *e, const struct style *st, const struct pd_json *group,
                       const struct pd_json *h, const char *command)
{
    bool *drop = calloc(h->n + 1, sizeof *drop);
    if (!drop) {
        e->failed = true;
        return true;
    }
    bool any = false;
    for (size_t k = 0; k < h->n; k++)
        for (size_t w = 0; weakening_keys[w]; w++)
            if (strcmp(h->kids[k].key, weakening_keys[w]) == 0)
                any = drop[k] = true;
    if (any) {
        remove_from(e, st, h, drop);
        free(drop);
        return true;
    }
    free(drop);
    struct pd_text t = {0};
    const struct pd_json *cmd = pd_json_get(h, "command");
    if (strcmp(cmd->str, command) != 0) {
        pd_json_put_string(&t, command);
        add_edit(e, cmd->start, cmd->end, &t);
    }
    const struct pd_json *type = pd_json_get(h, "type");
    if (type && !(type->kind == PD_JSON_STRING && strcmp(type->str, "command") == 0))
        replace_value(e, type, "\"command\"");
    const struct pd_json *timeout = pd_json_get(h, "timeout");
    if (timeout && !(timeout->kind == PD_JSON_NUMBER && timeout->num >= HOOK_TIMEOUT))
        replace_value(e, timeout, "30");
    const struct pd_json *m = pd_json_get(group, "matcher");
    if (m && !matcher_is_all(group))
        replace_value(e, m, "\"*\"");
    if (e->n > 0)
        return true;
    /* insertions last: one at a time, each at the end of its object */
    if (!type || !timeout) {
        insert_member(e, st, h, !type ? "type" : "timeout", !type ? "\"command\"" : "30");
        return true;
    }
    if (!m) {
        insert_member(e, st, group, "matcher", "\"*\"");
        return true;
    }
    return false;
}

/* One step towards the wanted file. Returns 1 (edits made), 0 (the file
 * is as wanted) or -1 (the file cannot take the hook: why). */
static int step(const struct style *st, const struct pd_json *root, const char *command,
                struct edits *e, int *line, char *why, size_t whylen)
{
    if (root->kind != PD_JSON_OBJECT) {
        *line = 1;
        snprintf(why, whylen, "the file is not a JSON object ({...})");
        return -1;
    }
    const struct pd_json *hooks = pd_json_get(root, "hooks");
    if (!hooks) {
        insert_into(e, st, root, "hooks", HOOKS_OBJECT, command);
        return 1;
    }
    const struct pd_json *pre = pd_json_get(hooks, "PreToolUse");
    const char *bad = hooks->kind != PD_JSON_OBJECT       ? "\"hooks\" is not an object"
                      : pre && pre->kind != PD_JSON_ARRAY ? "\"hooks\".\"PreToolUse\" is not an "
                                                            "array"
                                                          : NULL;
    if (bad) {
        const struct pd_json *at = hooks->kind != PD_JSON_OBJECT ? hooks : pre;
        *line = 1;
        for (size_t k = 0; k < at->start; k++)
            *line += st->text[k] == '\n';
        snprintf(why, whylen, "%s", bad);
        return -1;
    }
    if (!pre) {
        insert_into(e, st, hooks, "PreToolUse", PRE_ARRAY, command);
        return 1;
    }
    struct ref refs[64];
    size_t n = find_refs(pre, refs, sizeof refs / sizeof refs[0]);
    long keep = n ? keeper(pre, refs, n) : -1; /* no hook of ours: none to keep */
    if (n > (keep >= 0 ? 1u : 0u)) {
        drop_others(e, st, pre, refs, n, keep);
        return 1;
    }
    if (keep < 0) {
        insert_into(e, st, pre, NULL, GROUP, command);
        return 1;
    }
    const struct pd_json *group = &pre->kids[refs[0].group];
    const struct pd_json *hs = handlers_of(group); /* found there: never NULL */
    if (!hs) {
        snprintf(why, whylen, "internal error: the hook's group has no handlers");
        return -1;
    }
    return fix_keeper(e, st, group, &hs->kids[refs[0].handler], command) ? 1 : 0;
}

static bool blank(const char *text, size_t len)
{
    for (size_t k = 0; k < len; k++)
        if (!strchr(" \t\r\n", text[k]) || !text[k])
            return false;
    return true;
}

/* The merged text holds exactly one Paldron hook: command, matcher "*". */
static bool verify(const char *text, const char *command)
{
    struct pd_json root;
    int line;
    char why[PD_MSG_MAX];
    if (pd_json_parse(text, strlen(text), &root, &line, why, sizeof why) != 0)
        return false;
    struct pd_found_hook found[4];
    size_t n = pd_hooks_find(&root, text, found, 4);
    bool ok = n == 1 && strcmp(found[0].command, command) == 0 && found[0].matcher &&
              strcmp(found[0].matcher, "*") == 0 && !found[0].async;
    for (size_t k = 0; k < n && k < 4; k++)
        pd_found_hook_free(&found[k]);
    pd_json_free(&root);
    return ok;
}

int pd_hooks_merge(const char *text, size_t len, const char *command, char **out, int *line,
                   char *why, size_t whylen)
{
    struct style st;
    *line = 0;
    char *cur = NULL;
    if (blank(text, len)) {
        /* no file yet (or an empty one): a fresh one, two spaces a level */
        struct pd_text t = {0};
        style_of(&st, "", 0);
        struct layout l = {true, true};
        render(&t, ROOT, command, "", &st, &l);
        pd_text_puts(&t, "\n");
        cur = pd_text_take(&t);
    } else {
        cur = strndup(text, len);
        if (cur && memchr(text, '\0', len)) {
            free(cur);
            *line = 1;
            snprintf(why, whylen, "the file holds a NUL byte");
            return -1;
        }
    }
    if (!cur) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (int k = 0; k < MAX_STEPS; k++) {
        size_t curlen = strlen(cur);
        struct pd_json root;
        if (pd_json_parse(cur, curlen, &root, line, why, whylen) != 0) {
            if (k > 0) {
                *line = 0;
                snprintf(why, whylen, "internal error: the merged text is not valid JSON");
            }
            free(cur);
            return -1;
        }
        style_of(&st, cur, curlen);
        struct edits e = {0};
        int rc = step(&st, &root, command, &e, line, why, whylen);
        pd_json_free(&root);
        if (rc < 0) {
            free(cur);
            return -1;
        }
        if (rc == 0) {
            if (!verify(cur, command)) {
                free(cur);
                *line = 0;
                snprintf(why, whylen, "internal error: the merged file does not hold the hook");
                return -1;
            }
            *out = cur;
            return 0;
        }
        char *next = apply(cur, curlen, &e);
        free(cur);
        if (!next) {
            snprintf(why, whylen, "internal error: the edits of the file overlap");
            return -1;
        }
        cur = next;
    }
    free(cur);
    snprintf(why, whylen, "internal error: the merge does not settle");
    return -1;
}

size_t pd_hooks_find(const struct pd_json *root, const char *text, struct pd_found_hook *out,
                     size_t max)
{
    const struct pd_json *pre = pd_json_get(pd_json_get(root, "hooks"), "PreToolUse");
    size_t n = 0;
    if (!pre || pre->kind != PD_JSON_ARRAY)
        return 0;
    for (size_t g = 0; g < pre->n; g++) {
        const struct pd_json *hs = handlers_of(&pre->kids[g]);
        const struct pd_json *m = pd_json_get(&pre->kids[g], "matcher");
        for (size_t h = 0; hs && h < hs->n && n < max; h++) {
            const struct pd_json *hd = &hs->kids[h];
            if (!is_paldron_handler(hd))
                continue;
            const struct pd_json *async = pd_json_get(hd, "async");
            struct pd_found_hook *f = &out[n++];
            f->command = strdup(pd_json_get(hd, "command")->str);
            f->matcher = m && m->kind == PD_JSON_STRING ? strdup(m->str) : NULL;
            f->async = async && async->kind == PD_JSON_TRUE;
            f->line = 1;
            for (size_t k = 0; k < hd->start; k++)
                f->line += text[k] == '\n';
        }
    }
    return n;
}

void pd_found_hook_free(struct pd_found_hook *h)
{
    free(h->command);
    free(h->matcher);
    *h = (struct pd_found_hook){0};
}
