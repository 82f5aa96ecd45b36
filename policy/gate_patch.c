/* policy/gate_patch.c - Codex's apply_patch format, parsed the way Codex
 * parses it, so that the files Paldron judges are the files Codex writes.
 *
 * What Codex does (codex-rs/apply-patch/src/parser.rs, lenient mode):
 *   - the whole text is trimmed of Unicode white space, then split into
 *     lines at '\n' (a '\r' before it is dropped);
 *   - the first and last lines, trimmed, must be "*** Begin Patch" and
 *     "*** End Patch"; failing that, a first line "<<EOF", "<<'EOF'" or
 *     "<<\"EOF\"" and a last line ending in "EOF" wrap such a patch;
 *   - a hunk header is read from the TRIMMED line: " *** Add File: x" and
 *     "\t*** Delete File: .env" are headers;
 *   - "*** Move to: " must start the raw line right after an update header;
 *   - an add hunk takes the lines that start with '+'; an update hunk takes
 *     chunks ("@@", "@@ ctx", then ' ', '+', '-' or empty lines, and
 *     "*** End of File"), skipping blank lines between them, and ends at a
 *     raw line that starts with '*'; anything else is an error.
 * A patch Codex rejects is applied by nobody; the caller still denies it
 * (fail closed), after looking for a more specific reason with
 * pd_patch_scan. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gate_patch.h"

#define BEGIN_MARK  "*** Begin Patch"
#define END_MARK    "*** End Patch"
#define ADD_MARK    "*** Add File: "
#define DELETE_MARK "*** Delete File: "
#define UPDATE_MARK "*** Update File: "
#define MOVE_MARK   "*** Move to: "
#define EOF_MARK    "*** End of File"

struct span {
    const char *s;
    size_t n;
};

/* Length of the Unicode white space character (Rust's char::is_whitespace)
 * that starts s[0, n), or 0. */
static size_t ws_len(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (s[0] == ' ' || (s[0] >= 0x09 && s[0] <= 0x0d))
        return 1;
    if (n >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
        return 2; /* U+0085, U+00A0 */
    if (n < 3)
        return 0;
    if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
        return 3; /* U+1680 */
    if (s[0] == 0xe2 && s[1] == 0x80 &&
        (s[2] <= 0x8a || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf) && s[2] >= 0x80)
        return 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
    if (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
        return 3; /* U+205F */
    if (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
        return 3; /* U+3000 */
    return 0;
}

/* Length of the white space character that ends s[0, n), or 0. Lead bytes
 * 0xc2, 0xe1..0xe3 are never continuation bytes, so the start is exact. */
static size_t ws_len_end(const unsigned char *s, size_t n)
{
    if (n >= 1 && ws_len(s + n - 1, 1) == 1)
        return 1;
    if (n >= 2 && ws_len(s + n - 2, 2) == 2)
        return 2;
    if (n >= 3 && ws_len(s + n - 3, 3) == 3)
        return 3;
    return 0;
}

static struct span trim(struct span l)
{
    size_t k;
    while ((k = ws_len((const unsigned char *)l.s, l.n)) > 0) {
        l.s += k;
        l.n -= k;
    }
    while ((k = ws_len_end((const unsigned char *)l.s, l.n)) > 0)
        l.n -= k;
    return l;
}

static bool eq(struct span l, const char *lit)
{
    size_t n = strlen(lit);
    return l.n == n && memcmp(l.s, lit, n) == 0;
}

/* If l starts with lit, the rest; else .s == NULL. */
static struct span after(struct span l, const char *lit)
{
    size_t n = strlen(lit);
    struct span r = {NULL, 0};
    if (l.n >= n && memcmp(l.s, lit, n) == 0) {
        r.s = l.s + n;
        r.n = l.n - n;
    }
    return r;
}

struct lines {
    struct span *v;
    size_t n;
};

/* Rust's text.trim().lines(). */
static int split_lines(const char *text, size_t len, struct lines *out)
{
    struct span all = trim((struct span){text, len});
    size_t cap = 1;
    for (size_t k = 0; k < all.n; k++)
        cap += all.s[k] == '\n';
    out->n = 0;
    out->v = malloc(cap * sizeof *out->v);
    if (!out->v)
        return -1;
    const char *p = all.s, *end = all.s + all.n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        struct span l = {p, (size_t)(e - p)};
        if (nl && l.n && l.s[l.n - 1] == '\r')
            l.n--;
        out->v[out->n++] = l;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

struct walk {
    pd_patch_fn fn;
    void *user;
    bool stopped;
    char *msg;
    size_t msglen;
};

static bool emit(struct walk *w, enum pd_patch_op op, enum pd_patch_op header, struct span path,
                 size_t line)
{
    struct pd_patch_entry e = {op, header, path.s, path.n, line};
    if (!w->stopped && !w->fn(&e, w->user))
        w->stopped = true;
    return !w->stopped;
}

__attribute__((format(printf, 3, 4))) static int fail(struct walk *w, size_t line, const char *fmt,
                                                      ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(w->msg, w->msglen, "line %zu: %s", line, what);
    else
        snprintf(w->msg, w->msglen, "%s", what);
    return -1;
}

/* The file header a trimmed line reads like, or -1. */
static int header_of(struct span t, struct span *path)
{
    static const struct {
        const char *mark;
        enum pd_patch_op op;
    } heads[] = {{ADD_MARK, PD_PATCH_ADD},
                 {DELETE_MARK, PD_PATCH_DELETE},
                 {UPDATE_MARK, PD_PATCH_UPDATE},
                 {MOVE_MARK, PD_PATCH_MOVE_TO}};
    for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++) {
        struct span r = after(t, heads[k].mark);
        if (r.s) {
            *path = r;
            return (int)heads[k].op;
        }
    }
    return -1;
}

/* A line Codex keeps as content: report it when, trimmed, it reads like a
 * file header. */
static bool stray(struct walk *w, struct span l, size_t line)
{
    struct span path;
    int h = header_of(trim(l), &path);
    return h < 0 || emit(w, PD_PATCH_STRAY, (enum pd_patch_op)h, path, line);
}

/* check_patch_boundaries_strict over lines [a, b): hunks in [a+1, b-1). */
static bool bounds(const struct lines *L, size_t a, size_t b, const char **why)
{
    if (b > a && eq(trim(L->v[a]), BEGIN_MARK) && b - a >= 2 && eq(trim(L->v[b - 1]), END_MARK))
        return true;
    if (b > a && !eq(trim(L->v[a]), BEGIN_MARK))
        *why = "the first line of the patch must be '" BEGIN_MARK "'";
    else
        *why = "the last line of the patch must be '" END_MARK "'";
    return false;
}

/* One chunk of an update hunk at L[i] (parse_update_file_chunk). Returns
 * the lines it takes, or 0 with the walk failed. */
static size_t chunk(struct walk *w, const struct lines *L, size_t i, size_t end, bool first,
                    int *rc)
{
    struct span l = L->v[i];
    size_t start = 0;
    if (eq(l, "@@") || after(l, "@@ ").s)
        start = 1;
    else if (!first) {
        *rc =
            fail(w, i + 1, "expected an update chunk to start with a @@ context marker, got '%.*s'",
                 (int)(l.n > 80 ? 80 : l.n), l.s);
        return 0;
    }
    if (i + start >= end) {
        *rc = fail(w, i + start + 1, "update chunk does not contain any lines");
        return 0;
    }
    size_t taken = 0;
    for (size_t k = i + start; k < end; k++) {
        struct span c = L->v[k];
        if (eq(c, EOF_MARK)) {
            if (taken == 0) {
                *rc = fail(w, k + 1, "update chunk does not contain any lines");
                return 0;
            }
            taken++;
            break;
        }
        if (c.n == 0 || c.s[0] == '+' || c.s[0] == '-' || c.s[0] == ' ') {
            if (c.n && c.s[0] == ' ' && !stray(w, c, k + 1)) {
                *rc = 1;
                return 0;
            }
            taken++;
            continue;
        }
        if (taken == 0) {
            *rc = fail(w, k + 1,
                       "unexpected line in update chunk: '%.*s' (every line starts with ' ', "
                       "'+' or '-')",
                       (int)(c.n > 80 ? 80 : c.n), c.s);
            return 0;
        }
        break; /* the start of the next chunk or hunk */
    }
    return taken + start;
}

/* parse_one_hunk at L[i]: the lines it takes, or 0 (rc set). */
static size_t hunk(struct walk *w, const struct lines *L, size_t i, size_t end, int *rc)
{
    struct span t = trim(L->v[i]), path;
    if ((path = after(t, ADD_MARK)).s) {
        if (!emit(w, PD_PATCH_ADD, PD_PATCH_ADD, path, i + 1)) {
            *rc = 1;
            return 0;
        }
        size_t k = i + 1;
        while (k < end && L->v[k].n && L->v[k].s[0] == '+')
            k++;
        return k - i;
    }
    if ((path = after(t, DELETE_MARK)).s) {
        if (!emit(w, PD_PATCH_DELETE, PD_PATCH_DELETE, path, i + 1)) {
            *rc = 1;
            return 0;
        }
        return 1;
    }
    if ((path = after(t, UPDATE_MARK)).s) {
        size_t k = i + 1;
        struct span to = k < end ? after(L->v[k], MOVE_MARK) : (struct span){NULL, 0};
        if (to.s) {
            if (!emit(w, PD_PATCH_MOVE_FROM, PD_PATCH_UPDATE, path, i + 1) ||
                !emit(w, PD_PATCH_MOVE_TO, PD_PATCH_MOVE_TO, to, k + 1)) {
                *rc = 1;
                return 0;
            }
            k++;
        } else if (!emit(w, PD_PATCH_UPDATE, PD_PATCH_UPDATE, path, i + 1)) {
            *rc = 1;
            return 0;
        }
        size_t chunks = 0;
        while (k < end) {
            struct span l = L->v[k];
            if (trim(l).n == 0) {
                k++;
                continue;
            }
            if (l.s[0] == '*')
                break;
            size_t n = chunk(w, L, k, end, chunks == 0, rc);
            if (n == 0)
                return 0;
            chunks++;
            k += n;
        }
        if (chunks == 0) {
            *rc = fail(w, i + 1, "the update hunk for '%.*s' is empty",
                       (int)(path.n > 200 ? 200 : path.n), path.s);
            return 0;
        }
        return k - i;
    }
    *rc = fail(w, i + 1,
               "'%.*s' is not a valid hunk header (valid: '*** Add File: ', '*** Delete File: ', "
               "'*** Update File: ')",
               (int)(t.n > 80 ? 80 : t.n), t.s);
    return 0;
}

int pd_patch_parse(const char *text, size_t len, pd_patch_fn fn, void *user, char *msg,
                   size_t msglen)
{
    struct walk w = {fn, user, false, msg, msglen};
    struct lines L;
    msg[0] = '\0';
    if (split_lines(text, len, &L))
        return fail(&w, 0, "out of memory while reading the patch");
    const char *why = NULL;
    size_t a = 0, b = L.n;
    int rc = 0;
    if (!bounds(&L, a, b, &why)) {
        /* lenient mode: a heredoc wrapper left in the text by the model */
        const char *outer = why;
        if (L.n >= 4 && (eq(L.v[0], "<<EOF") || eq(L.v[0], "<<'EOF'") || eq(L.v[0], "<<\"EOF\"")) &&
            L.v[L.n - 1].n >= 3 && memcmp(L.v[L.n - 1].s + L.v[L.n - 1].n - 3, "EOF", 3) == 0) {
            a = 1;
            b = L.n - 1;
            if (!bounds(&L, a, b, &why))
                rc = fail(&w, 0, "%s", why);
        } else {
            rc = fail(&w, 0, "%s", outer);
        }
    }
    for (size_t i = a + 1; rc == 0 && i + 1 < b;) {
        size_t n = hunk(&w, &L, i, b - 1, &rc);
        if (n == 0)
            break;
        i += n;
    }
    free(L.v);
    return rc;
}

int pd_patch_scan(const char *text, size_t len, pd_patch_fn fn, void *user, char *msg,
                  size_t msglen)
{
    struct walk w = {fn, user, false, msg, msglen};
    struct lines L;
    msg[0] = '\0';
    if (split_lines(text, len, &L))
        return fail(&w, 0, "out of memory while reading the patch");
    int rc = 0;
    for (size_t i = 0; i < L.n && rc == 0; i++) {
        struct span t = trim(L.v[i]), path;
        if (t.n < 3 || memcmp(t.s, "***", 3) != 0 || eq(t, BEGIN_MARK) || eq(t, END_MARK) ||
            eq(t, EOF_MARK))
            continue;
        int h = header_of(t, &path);
        if (h < 0)
            rc = fail(&w, i + 1, "unknown patch header '%.*s'", (int)(t.n > 80 ? 80 : t.n), t.s);
        else if (!emit(&w, (enum pd_patch_op)h, (enum pd_patch_op)h, path, i + 1))
            rc = 1;
    }
    free(L.v);
    return rc;
}

/* ---- the shell forms -------------------------------------------------------- */

static const char *blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static bool only_space_left(const char *s)
{
    return s[strspn(s, " \t\r\n")] == '\0';
}

static bool bare_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_./@%+,:=-", c);
}

/* A word whose text bash keeps as written: 'raw', "plain" (no $ ` \) or a
 * bare word of plain characters. Sets *word (quotes removed); returns the
 * character after it, or NULL. */
static const char *literal_word(const char *s, struct span *word)
{
    if (*s == '\'' || *s == '"') {
        const char *e = strchr(s + 1, *s);
        if (!e || e == s + 1)
            return NULL;
        if (*s == '"')
            for (const char *p = s + 1; p < e; p++)
                if (*p == '$' || *p == '`' || *p == '\\')
                    return NULL;
        *word = (struct span){s + 1, (size_t)(e - s - 1)};
        return e + 1;
    }
    const char *p = s;
    while (*p && bare_char(*p))
        p++;
    if (p == s)
        return NULL;
    *word = (struct span){s, (size_t)(p - s)};
    return p;
}

static bool word_end(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n';
}

/* apply_patch <<[-]DELIM\nBODY\nDELIM, s after "<<". */
static bool heredoc(const char *s, struct pd_patch_shell *out)
{
    bool dash = *s == '-';
    if (dash)
        s++;
    s = blanks(s);
    bool quoted = *s == '\'' || *s == '"';
    struct span delim;
    if (!(s = literal_word(s, &delim)))
        return false;
    s = blanks(s);
    if (*s != '\n')
        return false; /* more on the heredoc's line: not the form Codex takes */
    const char *body = s + 1;
    for (const char *line = body; *line;) {
        const char *nl = strchr(line, '\n');
        const char *e = nl ? nl : line + strlen(line);
        const char *cmp = line;
        while (dash && cmp < e && *cmp == '\t')
            cmp++;
        if ((size_t)(e - cmp) == delim.n && memcmp(cmp, delim.s, delim.n) == 0) {
            if (!only_space_left(e))
                return false;
            out->body = body;
            out->body_len = (size_t)(line - body);
            /* an unquoted delimiter lets bash expand the body: if Codex did
             * not take it, the helper would get other text */
            if (!quoted && memchr(body, '$', out->body_len))
                return false;
            if (!quoted && memchr(body, '`', out->body_len))
                return false;
            if (!quoted && memchr(body, '\\', out->body_len))
                return false;
            return true;
        }
        line = nl ? nl + 1 : e;
    }
    return false; /* no terminator */
}

bool pd_patch_shell_form(const char *command, struct pd_patch_shell *out)
{
    memset(out, 0, sizeof *out);
    const char *s = command + strspn(command, " \t\r\n");
    if (strncmp(s, "cd", 2) == 0 && (s[2] == ' ' || s[2] == '\t')) {
        struct span dir;
        s = blanks(s + 2);
        if (*s == '-' || !(s = literal_word(s, &dir)) || !word_end(*s))
            return false;
        s = blanks(s);
        if (strncmp(s, "&&", 2) != 0)
            return false;
        s += 2;
        s += strspn(s, " \t\n");
        out->dir = dir.s;
        out->dir_len = dir.n;
    }
    size_t name = strncmp(s, "apply_patch", 11) == 0  ? 11
                  : strncmp(s, "applypatch", 10) == 0 ? 10
                                                      : 0;
    if (!name || !(s[name] == ' ' || s[name] == '\t' || s[name] == '<'))
        return false;
    s = blanks(s + name);
    if (s[0] == '<' && s[1] == '<' && s[2] != '<') {
        if (heredoc(s + 2, out))
            return true;
    } else if (*s == '\'' || *s == '"') {
        struct span body;
        const char *e = literal_word(s, &body);
        if (e && only_space_left(e)) {
            out->body = body.s;
            out->body_len = body.n;
            return true;
        }
    }
    out->dir = NULL;
    out->dir_len = 0;
    return false;
}

/* ---- judging ---------------------------------------------------------------- */

struct judge {
    const struct pd_ctx *c;
    const char *base;
    struct pd_verdict *v;
    bool scan; /* a patch Codex rejects: only a name rule is worth saying */
};

static const char *header_name(enum pd_patch_op op)
{
    switch (op) {
    case PD_PATCH_ADD:
        return "Add File";
    case PD_PATCH_DELETE:
        return "Delete File";
    case PD_PATCH_UPDATE:
    case PD_PATCH_MOVE_FROM:
        return "Update File";
    case PD_PATCH_MOVE_TO:
        return "Move to";
    case PD_PATCH_STRAY:
        break;
    }
    return "header";
}

/* deny_globs, secrets, protected paths: what no scope makes right */
static bool name_rule(const struct pd_verdict *v)
{
    return v->reason && (strcmp(v->reason, PD_REASON_DENY_GLOB) == 0 ||
                         strcmp(v->reason, PD_REASON_SECRET) == 0 ||
                         strcmp(v->reason, PD_REASON_PROTECTED) == 0);
}

static bool judge_entry(const struct pd_patch_entry *e, void *user)
{
    struct judge *j = user;
    struct pd_verdict *v = j->v;
    enum pd_patch_op op = e->op == PD_PATCH_STRAY ? e->header : e->op;
    char path[PD_PATH_MAX];
    /* Codex joins the path to its working directory as written: "~/x" is a
     * folder named "~" there, not the home */
    bool tilde = e->len && e->path[0] == '~';
    if (e->len + 3 > sizeof path) {
        pd_verdict_deny(v, PD_REASON_UNRESOLVABLE, "path",
                        "apply_patch line %zu (%s): the path is longer than %d bytes", e->line,
                        header_name(op), PD_PATH_MAX);
        return false;
    }
    snprintf(path, sizeof path, "%s%.*s", tilde ? "./" : "", (int)e->len, e->path);
    switch (op) {
    case PD_PATCH_ADD:
    case PD_PATCH_MOVE_TO:
        pd_gate_path(j->c, PD_OP_CREATE, j->base, path, v);
        break;
    case PD_PATCH_UPDATE:
    case PD_PATCH_STRAY:
        pd_gate_path(j->c, PD_OP_WRITE, j->base, path, v);
        break;
    case PD_PATCH_DELETE:
        pd_gate_name(j->c, PD_OP_DELETE, j->base, path, v);
        if (!v->deny)
            pd_gate_path(j->c, PD_OP_READ, j->base, path, v);
        break;
    case PD_PATCH_MOVE_FROM:
        pd_gate_path(j->c, PD_OP_READ, j->base, path, v);
        if (!v->deny)
            pd_gate_name(j->c, PD_OP_DELETE, j->base, path, v);
        break;
    }
    if (v->deny && (j->scan || e->op == PD_PATCH_STRAY) && !name_rule(v)) {
        pd_verdict_allow(v);
        return true;
    }
    if (!v->deny)
        return true;
    char was[PD_MSG_MAX];
    snprintf(was, sizeof was, "%s", v->message);
    snprintf(v->message, sizeof v->message, "apply_patch line %zu (%s%s): %s", e->line,
             header_name(op), e->op == PD_PATCH_STRAY ? ", in the content" : "", was);
    return false;
}

void pd_gate_patch(const struct pd_ctx *c, const char *base, const char *text, size_t len,
                   struct pd_verdict *v)
{
    struct judge j = {c, base, v, false};
    char msg[PD_MSG_MAX / 2], scan_msg[PD_MSG_MAX / 2];
    pd_verdict_allow(v);
    v->op = PD_OP_WRITE;
    snprintf(v->subject, sizeof v->subject, "apply_patch");
    v->resolved[0] = '\0';
    int rc = pd_patch_parse(text, len, judge_entry, &j, msg, sizeof msg);
    if (rc == 1)
        return; /* a file denied */
    if (rc == 0) {
        pd_verdict_allow(v);
        snprintf(v->subject, sizeof v->subject, "apply_patch");
        v->resolved[0] = '\0';
        return;
    }
    j.scan = true;
    int src = pd_patch_scan(text, len, judge_entry, &j, scan_msg, sizeof scan_msg);
    if (src == 1)
        return;
    pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                    "apply_patch: the patch cannot be read as Codex reads it (%s), so the files "
                    "it changes are unknown; Codex would refuse it too",
                    src < 0 ? scan_msg : msg);
}
