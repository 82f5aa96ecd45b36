/* policy/gate_search.c - Read, Grep, Glob and LS judged by what they read.
 *
 * A Bash `grep -r KEY` is judged by the files it would open; the agents'
 * own Grep tool is ripgrep, and reads every file under its path that its
 * globs and type let through. So Grep walks that file set (bounded) and
 * judges each file as a read: a secret or a deny_globs file in it denies
 * the call, with the file named and a glob that leaves it out. The walk
 * errs on the side of reading more than ripgrep would (hidden files are
 * included, ignore files are not honoured, globs only narrow when they are
 * understood): a file it takes that ripgrep would skip costs at worst a
 * refusal with a way around it, a file it skipped that ripgrep reads would
 * be a leak.
 *
 * A process's environment and memory (/proc/<pid>/environ, mem) hold the
 * agent's own keys. No built-in secret names them (under exec, `ps aux`
 * reads every environ), so the agent tools refuse them here, on the path
 * as written as well as resolved: "/proc/self" in a hook is the agent, not
 * Paldron's own process that the path would resolve to. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/gate_search.h"

#define PROC_ENVIRON "/proc/*/environ"
#define PROC_MEM     "/proc/*/mem"

/* [proc, X, environ|mem] or [proc, X, task, Y, environ|mem] */
static const char *proc_shape(const char *clean)
{
    if (strncmp(clean, "/proc/", 6) != 0)
        return NULL;
    const char *s = clean + 6, *slash = strchr(s, '/');
    if (!slash || slash == s)
        return NULL;
    s = slash + 1;
    if (strncmp(s, "task/", 5) == 0) {
        slash = strchr(s + 5, '/');
        if (!slash || slash == s + 5)
            return NULL;
        s = slash + 1;
    }
    if (strcmp(s, "environ") == 0)
        return PROC_ENVIRON;
    if (strcmp(s, "mem") == 0)
        return PROC_MEM;
    return NULL;
}

const char *pd_proc_credential(const char *base, const char *path)
{
    char joined[PD_PATH_MAX], clean[PD_PATH_MAX];
    if (!path || !path[0])
        return NULL;
    if (path[0] == '/' || !base)
        snprintf(joined, sizeof joined, "%s", path);
    else if ((size_t)snprintf(joined, sizeof joined, "%s/%s", base, path) >= sizeof joined)
        return NULL;
    pd_path_clean(joined, clean, sizeof clean);
    const char *hit = proc_shape(clean);
    if (hit)
        return hit;
    char resolved[PD_PATH_MAX];
    if (path[0] != '~' && pd_path_normalize(base && base[0] == '/' ? base : "/", "", path, resolved,
                                            sizeof resolved) == 0)
        return proc_shape(resolved);
    return NULL;
}

void pd_gate_agent_read(const struct pd_ctx *c, const char *base, const char *path,
                        struct pd_verdict *v)
{
    const char *cred = pd_proc_credential(base ? base : c->cwd[0] ? c->cwd : c->workspace, path);
    if (cred) {
        pd_verdict_deny(v, PD_REASON_SECRET, "secrets",
                        "%s (%s) [credential source: %s; a process's environment and memory hold "
                        "its keys]",
                        path, PD_REASON_SECRET, cred);
        v->pattern = cred;
        v->op = PD_OP_READ;
        snprintf(v->subject, sizeof v->subject, "%s", path);
        v->resolved[0] = '\0';
        return;
    }
    pd_gate_path(c, PD_OP_READ, base, path, v);
}

/* ---- rg's globs -------------------------------------------------------------- */

#define GLOB_ALTS_MAX 64 /* brace alternatives kept per glob */

struct rg_glob {
    bool negated;
    bool everything; /* too many alternatives to list: matches every path */
    char **alts;     /* brace-expanded, in pd_glob_match's dialect */
    size_t nalts;
};

struct rg_globs {
    struct rg_glob *v;
    size_t n;
    bool positive; /* some glob is not negated: unmatched files are left out */
};

static int alts_add(struct rg_glob *g, const char *s, size_t n)
{
    if (g->nalts == GLOB_ALTS_MAX) {
        g->everything = true;
        return 0;
    }
    char **nv = realloc(g->alts, (g->nalts + 1) * sizeof *nv);
    if (!nv)
        return -1;
    g->alts = nv;
    /* rg anchors "/x" at the search root; pd_glob_match anchors a pattern
     * holding a '/', and "x/" + "**" covers x and what lies below it */
    bool rooted = n && s[0] == '/';
    if (rooted) {
        s++;
        n--;
    }
    bool slash = memchr(s, '/', n) != NULL;
    char *out = malloc(n + 4);
    if (!out)
        return -1;
    snprintf(out, n + 4, "%.*s%s", (int)n, s, rooted && !slash ? "/**" : "");
    g->alts[g->nalts++] = out;
    return 0;
}

/* Expand the first {a,b} group of s[0, n) (nested groups too), recursively. */
static int expand(struct rg_glob *g, const char *s, size_t n, int depth)
{
    if (g->everything)
        return 0;
    size_t open = 0;
    while (open < n && s[open] != '{')
        open++;
    if (open == n || depth > 8)
        return alts_add(g, s, n);
    size_t close = open + 1;
    int level = 1;
    for (; close < n && level; close++)
        level += s[close] == '{' ? 1 : s[close] == '}' ? -1 : 0;
    if (level) /* unclosed: rg refuses the glob, and with it the search */
        return alts_add(g, s, n);
    close--; /* at the '}' */
    size_t start = open + 1;
    level = 0;
    for (size_t k = open + 1; k <= close; k++) {
        if (s[k] == '{')
            level++;
        else if (s[k] == '}' && level)
            level--;
        else if ((s[k] == ',' && !level) || k == close) {
            size_t len = open + (k - start) + (n - close - 1);
            char *buf = malloc(len + 1);
            if (!buf)
                return -1;
            memcpy(buf, s, open);
            memcpy(buf + open, s + start, k - start);
            memcpy(buf + open + (k - start), s + close + 1, n - close - 1);
            buf[len] = '\0';
            int rc = expand(g, buf, len, depth + 1);
            free(buf);
            if (rc)
                return rc;
            start = k + 1;
        }
    }
    return 0;
}

static int globs_add(struct rg_globs *gs, const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    if (!n)
        return 0;
    struct rg_glob *nv = realloc(gs->v, (gs->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    gs->v = nv;
    struct rg_glob *g = &gs->v[gs->n++];
    memset(g, 0, sizeof *g);
    if (s[0] == '!') {
        g->negated = true;
        s++, n--;
    } else {
        gs->positive = true;
    }
    return expand(g, s, n, 0);
}

/* Claude's Grep: the glob string split at white space; a piece without
 * braces split again at commas. */
static int globs_parse(struct rg_globs *gs, const char *glob)
{
    memset(gs, 0, sizeof *gs);
    for (const char *p = glob ? glob : ""; *p;) {
        p += strspn(p, " \t\r\n");
        size_t n = strcspn(p, " \t\r\n");
        if (!n)
            break;
        bool braces = memchr(p, '{', n) && memchr(p, '}', n);
        for (size_t i = 0; i < n;) {
            size_t m = braces ? n : i + strcspn(p + i, ",");
            if (m > n)
                m = n;
            if (globs_add(gs, p + i, m - i))
                return -1;
            i = m + 1;
        }
        p += n;
    }
    return 0;
}

static void globs_free(struct rg_globs *gs)
{
    for (size_t k = 0; k < gs->n; k++) {
        for (size_t a = 0; a < gs->v[k].nalts; a++)
            free(gs->v[k].alts[a]);
        free(gs->v[k].alts);
    }
    free(gs->v);
}

/* Does g match rel (relative to the search root)? Case is folded for an
 * including glob (it may take more) and kept for an excluding one (it may
 * leave out less). */
static bool glob_hits(const struct rg_glob *g, const char *rel)
{
    if (g->everything)
        return !g->negated;
    for (size_t a = 0; a < g->nalts; a++)
        if (pd_glob_match(g->alts[a], rel, NULL, "", !g->negated))
            return true;
    return false;
}

/* rg's override rule: the last glob that matches decides; none matching
 * leaves the file out when some glob includes. */
static bool globs_take(const struct rg_globs *gs, const char *rel)
{
    for (size_t k = gs->n; k-- > 0;)
        if (glob_hits(&gs->v[k], rel))
            return !gs->v[k].negated;
    return !gs->positive;
}

/* ---- rg's types ---------------------------------------------------------------- */

/* A few of rg's file types, each a superset of rg's own list; a type not
 * listed here narrows nothing. */
static const struct {
    const char *name;
    const char *globs; /* space-separated, matched against the file name */
} rg_types[] = {
    {"c", "*.c *.h *.H *.cats"},
    {"cpp", "*.C *.cc *.cpp *.cxx *.c++ *.h *.H *.hh *.hpp *.hxx *.h++ *.inl *.ipp *.tpp"},
    {"go", "*.go go.mod go.sum go.work"},
    {"rust", "*.rs"},
    {"py", "*.py *.pyi *.pyw *.pyx *.pxd"},
    {"js", "*.js *.jsx *.mjs *.cjs *.vue"},
    {"ts", "*.ts *.tsx *.mts *.cts"},
    {"java", "*.java *.jsp *.jspx *.properties"},
    {"md", "*.md *.markdown *.mdown *.mdwn *.mkd *.mkdn *.mdx *.ron"},
    {"json", "*.json *.jsonl *.json5 *.geojson *.sarif *.ipynb composer.lock"},
    {"yaml", "*.yaml *.yml"},
    {"toml", "*.toml Cargo.lock"},
    {"html", "*.html *.htm *.xhtml *.ejs"},
    {"css", "*.css *.scss *.sass *.less"},
    {"rb", "*.rb *.gemspec *.rake Gemfile Rakefile .irbrc config.ru"},
    {"php", "*.php *.php3 *.php4 *.php5 *.php7 *.php8 *.phpt *.phtml"},
    {"sql", "*.sql *.psql"},
    {"txt", "*.txt"},
};

static const char *type_globs(const char *type)
{
    if (!type || !type[0])
        return NULL;
    for (size_t k = 0; k < sizeof rg_types / sizeof rg_types[0]; k++)
        if (strcmp(type, rg_types[k].name) == 0)
            return rg_types[k].globs;
    return NULL;
}

static bool type_takes(const char *globs, const char *name)
{
    if (!globs)
        return true;
    for (const char *p = globs; *p;) {
        size_t n = strcspn(p, " ");
        if (pd_glob_component(p, n, name, strlen(name), true))
            return true;
        p += n + strspn(p + n, " ");
    }
    return false;
}

/* ---- the walk ------------------------------------------------------------------ */

#define HITS_MAX 3

/* ---- what ripgrep leaves out: the part of .gitignore that is certain ------------------ */

/* ripgrep skips what a repository's .gitignore files ignore (Claude's Grep
 * does not pass --no-ignore). Only what ripgrep certainly skips is left
 * out, so that the walk never reads less than ripgrep would:
 *   - only inside a git repository (ripgrep requires one), and only when no
 *     glob of the call includes (an including --glob overrides ignores);
 *   - a .gitignore with any "!" line, or an .ignore or .rgignore file (they
 *     can re-include what .gitignore ignores), turns the rules off for its
 *     folder and everything below it; a nested repository starts afresh;
 *   - a line with a backslash is skipped, trailing spaces are trimmed (not
 *     tabs), case is kept: a rule it misreads can only leave out less;
 *   - a rule of a folder above the search root that matches the root
 *     itself is dropped (ripgrep judges what it meets below the root). */
struct ig_rule {
    char *pat;  /* pd_glob_match's dialect, relative to base */
    char *base; /* the folder of the .gitignore */
    bool dir_only;
};

struct ignores {
    struct ig_rule *v;
    size_t n;
};

static void ig_pop(struct ignores *ig, size_t mark)
{
    while (ig->n > mark) {
        ig->n--;
        free(ig->v[ig->n].pat);
        free(ig->v[ig->n].base);
    }
}

static int ig_push(struct ignores *ig, const char *pat, const char *base, bool dir_only)
{
    struct ig_rule *nv = realloc(ig->v, (ig->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    ig->v = nv;
    struct ig_rule *r = &ig->v[ig->n];
    r->pat = strdup(pat);
    r->base = strdup(base);
    r->dir_only = dir_only;
    if (!r->pat || !r->base) {
        free(r->pat);
        free(r->base);
        return -1;
    }
    ig->n++;
    return 0;
}

/* One .gitignore line into the dialect of pd_glob_match; false to skip. */
static bool ig_line(char *line, char *pat, size_t patlen, bool *dir_only)
{
    size_t n = strcspn(line, "\r\n");
    line[n] = '\0';
    while (n && line[n - 1] == ' ')
        line[--n] = '\0';
    if (!n || line[0] == '#' || strchr(line, '\\'))
        return false;
    *dir_only = false;
    while (n && line[n - 1] == '/') {
        line[--n] = '\0';
        *dir_only = true;
    }
    if (n >= 3 && strcmp(line + n - 3, "/**") == 0) {
        if (*dir_only)
            return false; /* "x/" "**" "/": the folders inside x, not x itself */
        /* "x/" "**": what is inside the folder x (pd_glob_match would take a
         * file named x too) */
        *dir_only = true;
    }
    bool anchored = line[0] == '/';
    const char *p = line + strspn(line, "/");
    if (!*p)
        return false;
    /* "/x" is x at the base only: pd_glob_match anchors a pattern holding a
     * '/', and x/ + "**" covers x and what is below it */
    return (size_t)snprintf(pat, patlen, "%s%s", p, anchored && !strchr(p, '/') ? "/**" : "") <
           patlen;
}

/* Load dir/.gitignore. root_rel: the search root relative to dir, for a
 * folder above it (its rules that match the root are dropped), or NULL.
 * Returns 0, 1 when a "!" line makes the file untrustworthy (nothing
 * loaded), -1 on ENOMEM. A missing or unreadable file is no rules. */
static int ig_load(struct ignores *ig, const char *dir, const char *root_rel)
{
    char file[PD_PATH_MAX + 16];
    snprintf(file, sizeof file, "%s/.gitignore", dir);
    FILE *f = fopen(file, "re");
    if (!f)
        return 0;
    size_t mark = ig->n;
    char *line = NULL, pat[PD_PATH_MAX];
    size_t cap = 0;
    int rc = 0;
    bool dir_only;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        if (line[0] == '!')
            rc = 1;
        else if (ig_line(line, pat, sizeof pat, &dir_only) &&
                 !(root_rel && pd_glob_match(pat, root_rel, NULL, "", false)))
            rc = ig_push(ig, pat, dir, dir_only);
    }
    free(line);
    fclose(f);
    if (rc)
        ig_pop(ig, mark);
    return rc;
}

/* Do the rules from index floor on leave abs out? */
static bool ig_hits(const struct ignores *ig, size_t floor, const char *abs, bool is_dir)
{
    for (size_t k = floor; k < ig->n; k++) {
        const struct ig_rule *r = &ig->v[k];
        const char *rel = pd_path_under(abs, r->base);
        if (rel && rel[0] && (is_dir || !r->dir_only) &&
            pd_glob_match(r->pat, rel, NULL, "", false))
            return true;
    }
    return false;
}

static bool entry_exists(const char *dir, const char *name)
{
    char p[PD_PATH_MAX + 16];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

/* The rules of the folders from the repository root down to the search
 * root's parent. Returns false when ignores cannot be used at all (no
 * repository, an .ignore or .rgignore, a "!" line, no memory). */
static bool ig_setup(struct ignores *ig, const char *root)
{
    char repo[PD_PATH_MAX];
    snprintf(repo, sizeof repo, "%s", root);
    while (!entry_exists(repo, ".git")) {
        char *slash = strrchr(repo, '/');
        if (!slash || slash == repo)
            return false; /* "/" has no .git here either: not a repository */
        *slash = '\0';
    }
    /* each folder from the repository root down, without the root itself */
    for (size_t len = strlen(repo); len < strlen(root);) {
        char dir[PD_PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)len, root);
        if (entry_exists(dir, ".ignore") || entry_exists(dir, ".rgignore") ||
            ig_load(ig, dir, root + len + 1) != 0)
            return false;
        const char *next = strchr(root + len + 1, '/');
        len = next ? (size_t)(next - root) : strlen(root);
    }
    return true;
}

struct grep {
    const struct pd_ctx *c;
    struct rg_globs globs;
    struct ignores ig;
    const char *types;
    size_t root_len; /* of the resolved root in path[] */
    size_t entries;
    bool over;
    size_t nhits;
    char hits[HITS_MAX][PD_PATH_MAX]; /* relative to the root */
    struct pd_verdict first;
};

static bool vcs_dir(const char *name)
{
    static const char *const vcs[] = {".git", ".svn", ".hg", ".bzr", ".jj", ".sl", NULL};
    for (size_t k = 0; vcs[k]; k++)
        if (strcmp(name, vcs[k]) == 0)
            return true;
    return false;
}

/* Judge the file at abs (a link: what it leads to) as a read. */
static void judge_file(struct grep *g, const char *abs, bool link)
{
    const char *rel = abs + g->root_len + 1;
    const char *slash = strrchr(abs, '/');
    if (!globs_take(&g->globs, rel) || !type_takes(g->types, slash + 1))
        return;
    const struct pd_ctx *c = g->c;
    const char *reason = NULL, *key = NULL, *hit = NULL;
    char resolved[PD_PATH_MAX] = "";
    if (link) {
        /* ripgrep does not follow links it meets, but judging the target
         * costs little and holds if it ever does */
        struct pd_verdict v;
        pd_gate_agent_read(c, NULL, abs, &v);
        if (!v.deny || !v.pattern)
            return; /* a dangling or looping link reads nothing */
        reason = v.reason;
        key = v.key;
        hit = v.pattern;
        snprintf(resolved, sizeof resolved, "%s", v.resolved);
    } else {
        const char *wrel = pd_path_under(abs, c->workspace);
        const struct pd_strv *dg = &c->policy->deny_globs;
        if ((hit = proc_shape(abs))) {
            reason = PD_REASON_SECRET;
            key = "secrets";
        } else if ((hit = pd_match_secret_list((const char *const *)dg->v, dg->n, PD_OP_READ, wrel,
                                               abs, c->home))) {
            reason = PD_REASON_DENY_GLOB;
            key = "deny_globs";
        } else if ((hit = pd_match_builtin_secret(PD_OP_READ, wrel, abs, c->home)) &&
                   !pd_secret_lifted(c, wrel, abs)) {
            reason = PD_REASON_SECRET;
            key = "secrets";
        } else {
            return;
        }
    }
    if (g->nhits == 0) {
        struct pd_verdict *f = &g->first;
        pd_verdict_allow(f);
        f->reason = reason;
        f->key = key;
        f->pattern = hit;
        snprintf(f->message, sizeof f->message, "[%s: %s%s%.*s]",
                 strcmp(key, "deny_globs") == 0 ? "deny_globs" : "built-in secret", hit,
                 resolved[0] ? "; resolved " : "", PD_PATH_MAX / 4, resolved);
        snprintf(f->resolved, sizeof f->resolved, "%s", resolved[0] ? resolved : abs);
    }
    snprintf(g->hits[g->nhits++], PD_PATH_MAX, "%s", rel);
}

/* The names of one directory, read whole before descending (so that a
 * deep tree holds one open directory at a time). */
static char *read_names(const char *dir, size_t *len)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        closedir(d);
        *len = 0;
        return NULL;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t l = strlen(e->d_name) + 2; /* type byte + name + NUL */
        if (n + l > cap) {
            char *nb = realloc(buf, cap = 2 * cap + l);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        buf[n] = (char)e->d_type;
        memcpy(buf + n + 1, e->d_name, l - 1);
        n += l;
    }
    closedir(d);
    *len = n;
    return buf;
}

static bool names_have(const char *names, size_t len, const char *name)
{
    for (size_t off = 0; off < len; off += strlen(names + off + 1) + 2)
        if (strcmp(names + off + 1, name) == 0)
            return true;
    return false;
}

/* Walk the directory path[0, plen). honor: the ignore rules from index
 * floor on apply here. Returns -1 on ENOMEM. */
static int walk(struct grep *g, char *path, size_t plen, bool honor, size_t floor)
{
    size_t len;
    char *names = read_names(path, &len);
    if (!names)
        return errno == ENOMEM ? -1 : 0; /* unreadable: ripgrep cannot read it either */
    size_t mark = g->ig.n;
    int rc = 0;
    if (honor && (names_have(names, len, ".ignore") || names_have(names, len, ".rgignore")))
        honor = false;
    if (honor && names_have(names, len, ".git") && plen > g->root_len)
        floor = mark; /* a nested repository: the rules above it stop here */
    if (honor && names_have(names, len, ".gitignore")) {
        int lr = ig_load(&g->ig, path, NULL);
        if (lr < 0)
            rc = -1;
        honor = lr == 0;
    }
    for (size_t off = 0; off < len && !g->over && g->nhits < HITS_MAX && rc == 0;) {
        unsigned char type = (unsigned char)names[off];
        const char *name = names + off + 1;
        off += strlen(name) + 2;
        if (++g->entries > PD_GREP_MAX_ENTRIES) {
            g->over = true;
            break;
        }
        size_t nlen = strlen(name);
        if (plen + 1 + nlen >= PD_PATH_MAX)
            continue; /* beyond PATH_MAX: not openable by name either */
        path[plen] = '/';
        memcpy(path + plen + 1, name, nlen + 1);
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (lstat(path, &st) != 0)
                continue;
            type = S_ISDIR(st.st_mode)   ? DT_DIR
                   : S_ISREG(st.st_mode) ? DT_REG
                   : S_ISLNK(st.st_mode) ? DT_LNK
                                         : DT_UNKNOWN;
        }
        bool skip = honor && ig_hits(&g->ig, floor, path, type == DT_DIR);
        if (skip) {
            /* ripgrep leaves it out */
        } else if (type == DT_DIR && !vcs_dir(name)) {
            rc = walk(g, path, plen + 1 + nlen, honor, floor);
        } else if (type == DT_REG || type == DT_LNK) {
            judge_file(g, path, type == DT_LNK);
        }
        path[plen] = '\0';
    }
    ig_pop(&g->ig, mark);
    free(names);
    return rc;
}

static void grep_denied(struct grep *g, const char *shown, struct pd_verdict *v)
{
    char names[3 * 256] = "", globs[3 * 256] = "";
    size_t nn = 0, ng = 0;
    for (size_t k = 0; k < g->nhits; k++) {
        nn +=
            (size_t)snprintf(names + nn, sizeof names - nn, "%s%.200s", k ? ", " : "", g->hits[k]);
        ng +=
            (size_t)snprintf(globs + ng, sizeof globs - ng, "%s!%.200s", k ? " " : "", g->hits[k]);
        if (nn >= sizeof names || ng >= sizeof globs)
            break;
    }
    const char *reason = g->first.reason, *key = g->first.key, *pattern = g->first.pattern;
    pd_verdict_deny(v, reason, key,
                    "Grep over %s would read %s%s (%s) %s; narrow the search: a glob that "
                    "leaves %s out (glob \"%s\") or a path that does not hold %s",
                    shown, names, g->nhits == HITS_MAX ? " and maybe more" : "", reason,
                    g->first.message, g->nhits > 1 ? "them" : "it", globs,
                    g->nhits > 1 ? "them" : "it");
    v->pattern = pattern;
    snprintf(v->resolved, sizeof v->resolved, "%s", g->first.resolved);
}

void pd_gate_grep(const struct pd_ctx *c, const char *base, const char *path, const char *glob,
                  const char *type, struct pd_verdict *v)
{
    const char *shown = path && path[0] ? path : ".";
    pd_gate_agent_read(c, base, shown, v);
    if (v->deny)
        return;
    struct stat st;
    if (stat(v->resolved, &st) != 0 || !S_ISDIR(st.st_mode))
        return; /* one file (judged), or nothing to read */
    struct grep *g = calloc(1, sizeof *g);
    char *root = malloc(PD_PATH_MAX);
    if (!g || !root || globs_parse(&g->globs, glob)) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "out of memory while judging Grep");
        goto out;
    }
    g->c = c;
    g->types = type_globs(type);
    snprintf(root, PD_PATH_MAX, "%s", v->resolved);
    g->root_len = strlen(root);
    if (g->root_len == 1) /* "/": rel starts right after it */
        g->root_len = 0;
    bool honor = !g->globs.positive && ig_setup(&g->ig, root);
    if (walk(g, root, strlen(root), honor, 0) != 0) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools", "out of memory while judging Grep");
    } else if (g->nhits) {
        grep_denied(g, shown, v);
    } else if (g->over) {
        pd_verdict_deny(v, PD_REASON_GUARDRAIL, "tools",
                        "Grep over %s would search more than %d files and folders, too many to "
                        "check for secrets; give a narrower path",
                        shown, PD_GREP_MAX_ENTRIES);
    }
out:
    if (g) {
        globs_free(&g->globs);
        ig_pop(&g->ig, 0);
        free(g->ig.v);
    }
    free(g);
    free(root);
}

void pd_gate_glob(const struct pd_ctx *c, const char *base, const char *path, const char *pattern,
                  struct pd_verdict *v)
{
    const char *dir = path && path[0] ? path : ".";
    pd_gate_agent_read(c, base, dir, v);
    if (v->deny || !pattern || !pattern[0])
        return;
    /* the literal folder the pattern starts in: up to the last '/' before
     * its first wildcard */
    size_t lit = strcspn(pattern, "*?[{");
    size_t cut = lit;
    while (cut > 0 && pattern[cut - 1] != '/')
        cut--;
    if (cut == 0)
        return;
    char prefix[PD_PATH_MAX], rel[PD_PATH_MAX];
    snprintf(prefix, sizeof prefix, "%.*s", (int)cut, pattern);
    if (prefix[0] == '/' || prefix[0] == '~') {
        pd_gate_agent_read(c, base, prefix, v);
        return;
    }
    if ((size_t)snprintf(rel, sizeof rel, "%s/%s", dir, prefix) >= sizeof rel) {
        pd_verdict_deny(v, PD_REASON_UNRESOLVABLE, "path", "Glob pattern %.200s is too long",
                        pattern);
        return;
    }
    pd_gate_agent_read(c, base, rel, v);
}
