/* launcher/scan/scan_git.c - the post-run git check (scan_git.h).
 *
 * State is a sorted list of lines, one per thing that makes git run a
 * program, so that "added or changed" is "a line after the run that was
 * not there before":
 *   K <file> <key> <value>    an entry pd_git_key_runs names
 *   H <hook> <identity>       an executable hook (device, inode, size,
 *                             times, mode of the file git would run)
 *   F <file> <hash>           a configuration file's content
 *   E <file> <error>          a configuration file git's format refuses
 * Only the workspace and the writable roots are walked (the run can write
 * nowhere else), without following links and on one file system per tree,
 * like the post-run scan; inside a git directory, objects/, refs/ and
 * logs/ are not walked (no repository lives there that git would find).
 * Before the run, a directory unchanged since the last run is not read
 * again: its kept listing (scan_reuse.c) holds every name looked for here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/scan/git_config.h"
#include "launcher/scan/git_keys.h"
#include "launcher/scan/scan_git.h"
#include "launcher/scan/scan_int.h"

#define CONFIG_MAX    (16u << 20) /* larger configuration files are judged unreadable */
#define INCLUDE_DEPTH 10          /* git's own limit */

struct lines {
    char **v;
    size_t n, cap;
};

/* A directory as the walk before the run saw it: after the run, only the
 * directories whose identity or times changed are read again (a new
 * repository, or a "gitdir:" file, needs a new entry in some directory;
 * ctime cannot be set back). */
struct dirrec {
    char *path;
    dev_t dev;
    ino_t ino;
    struct timespec mtime, ctime;
};

struct pd_git_scan {
    struct pd_ctx *ctx;
    struct lines before, now;
    struct lines repos;    /* git directories of the current walk */
    struct lines known;    /* git directories before the run */
    struct lines gitfiles; /* "gitdir:" files before the run */
    struct dirrec *dirs;   /* before the run, sorted by path */
    size_t ndirs, capdirs;
    bool recording; /* the walk before the run */
    bool failed;
    struct pd_scan_reuse *reuse; /* listings kept between runs (NULL: none) */
};

/* ---- lines --------------------------------------------------------------- */

static void add_line(struct pd_git_scan *g, struct lines *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_line(struct pd_git_scan *g, struct lines *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        g->failed = true;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            g->failed = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
}

static bool has_line(const struct lines *l, const char *s)
{
    for (size_t k = 0; k < l->n; k++)
        if (strcmp(l->v[k], s) == 0)
            return true;
    return false;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool sorted_has(const struct lines *l, const char *s)
{
    return l->n && bsearch(&s, l->v, l->n, sizeof *l->v, cmp_line) != NULL;
}

static void free_lines(struct lines *l)
{
    for (size_t k = 0; k < l->n; k++)
        free(l->v[k]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ---- configuration files -------------------------------------------------- */

struct cfg_walk {
    struct pd_git_scan *g;
    const char *file;
    int depth;
    char hooks_path[PD_PATH_MAX]; /* the last core.hooksPath ("" if none) */
};

static void read_config(struct pd_git_scan *g, const char *file, int depth, char *hooks_path);

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; k++)
        h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
    return h;
}

/* An included file: absolute, or relative to the including file's
 * directory; "~/" is the user's (outside the roots, not the run's). */
static void follow_include(struct cfg_walk *w, const char *value)
{
    char path[PD_PATH_MAX];
    if (!value || !value[0] || value[0] == '~' || w->depth >= INCLUDE_DEPTH)
        return;
    if (value[0] == '/') {
        snprintf(path, sizeof path, "%s", value);
    } else {
        const char *slash = strrchr(w->file, '/');
        int dl = slash ? (int)(slash - w->file) : 0;
        if ((size_t)snprintf(path, sizeof path, "%.*s/%s", dl, w->file, value) >= sizeof path)
            return;
    }
    read_config(w->g, path, w->depth + 1, NULL);
}

static int on_entry(const char *section, const char *subsection, const char *key, const char *value,
                    int line, void *user)
{
    struct cfg_walk *w = user;
    (void)line;
    if (!pd_git_key_runs(section, subsection, key, value))
        return 0;
    add_line(w->g, &w->g->now, "K\t%s\t%s%s%s.%s\t%s", w->file, section, subsection ? "." : "",
             subsection ? subsection : "", key, value ? value : "");
    if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
        strcmp(key, "path") == 0)
        follow_include(w, value);
    if (strcmp(section, "core") == 0 && !subsection && strcmp(key, "hookspath") == 0)
        snprintf(w->hooks_path, sizeof w->hooks_path, "%s", value ? value : "");
    return 0;
}

/* Open path for reading if it is a regular file: a FIFO or a device the
 * run put in a configuration file's place must not stall or flood the
 * launcher. -1 with errno (ENOENT: nothing there, git reads nothing). */
static int open_regular(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* Record file's state; hooks_path (may be NULL) gets its core.hooksPath. */
static void read_config(struct pd_git_scan *g, const char *file, int depth, char *hooks_path)
{
    struct stat st;
    char err[PD_MSG_MAX] = "";
    int fd = open_regular(file, &st);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return; /* absent: nothing git would read */
        /* whatever it is, git cannot use it as configuration either; a
         * change to it is still reported (fail closed) */
        add_line(g, &g->now, "F\t%s\t-", file);
        add_line(g, &g->now, "E\t%s\t%s", file,
                 errno == EINVAL ? "not a regular file" : strerror(errno));
        return;
    }
    size_t want = st.st_size > (off_t)CONFIG_MAX ? CONFIG_MAX : (size_t)st.st_size;
    char *buf = malloc(want + 1);
    size_t n = 0;
    while (buf && n < want) {
        ssize_t r = read(fd, buf + n, want - n);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                snprintf(err, sizeof err, "%s", strerror(errno));
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    if (!buf) {
        g->failed = true;
        return;
    }
    add_line(g, &g->now, "F\t%s\t%016llx:%lld", file, (unsigned long long)fnv1a(buf, n),
             (long long)st.st_size);
    struct cfg_walk w = {.g = g, .file = file, .depth = depth};
    if (!err[0] && st.st_size > (off_t)CONFIG_MAX)
        snprintf(err, sizeof err, "larger than %u MiB", CONFIG_MAX >> 20);
    else if (!err[0] && pd_git_config_parse(buf, n, on_entry, &w, err, sizeof err) == 0)
        err[0] = '\0';
    free(buf);
    if (err[0])
        add_line(g, &g->now, "E\t%s\t%s", file, err);
    if (hooks_path)
        snprintf(hooks_path, PD_PATH_MAX, "%s", w.hooks_path);
}

/* ---- hooks ------------------------------------------------------------------ */

static bool is_sample(const char *name)
{
    size_t n = strlen(name);
    return n >= 7 && strcmp(name + n - 7, ".sample") == 0;
}

/* Every executable file in dir that git could run as a hook. */
static void read_hooks(struct pd_git_scan *g, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    char path[PD_PATH_MAX];
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || is_sample(de->d_name))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path)
            continue;
        struct stat st, lst;
        /* git follows a link to its hook; the link's own times count too */
        if (lstat(path, &lst) != 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            !(st.st_mode & 0111))
            continue;
        add_line(g, &g->now, "H\t%s\t%llu:%llu:%lld:%lld.%09ld:%lld.%09ld:%lld.%09ld:%o", path,
                 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, (long long)lst.st_ctim.tv_sec,
                 lst.st_ctim.tv_nsec, (unsigned)st.st_mode);
    }
    closedir(d);
}

/* ---- repositories ------------------------------------------------------------ */

/* Not inlined (nor read_gitfile's caller, walk_file): their PATH_MAX buffers
 * stay out of the frames of walk, which recurses as deep as a path can go. */
__attribute__((noinline)) static void read_repo(struct pd_git_scan *g, const char *gitdir)
{
    if (has_line(&g->repos, gitdir))
        return;
    add_line(g, &g->repos, "%s", gitdir);
    char file[PD_PATH_MAX], hooks_path[PD_PATH_MAX] = "";
    snprintf(file, sizeof file, "%s/config", gitdir);
    read_config(g, file, 0, hooks_path);
    snprintf(file, sizeof file, "%s/config.worktree", gitdir);
    read_config(g, file, 0, NULL);
    snprintf(file, sizeof file, "%s/hooks", gitdir);
    read_hooks(g, file);
    if (hooks_path[0] && hooks_path[0] != '~') {
        /* relative: to the top of the working tree, where hooks run */
        const char *slash = strrchr(gitdir, '/');
        bool dotgit = slash && strcmp(slash + 1, ".git") == 0;
        if (hooks_path[0] == '/')
            snprintf(file, sizeof file, "%s", hooks_path);
        else if ((size_t)snprintf(file, sizeof file, "%.*s/%s",
                                  (int)(dotgit ? (size_t)(slash - gitdir) : strlen(gitdir)), gitdir,
                                  hooks_path) >= sizeof file)
            return;
        read_hooks(g, file);
    }
}

static bool in_trees(const struct pd_ctx *c, const char *abs)
{
    if (pd_path_under(abs, c->workspace))
        return true;
    for (size_t k = 0; k < c->npolicy_roots; k++)
        if (pd_path_under(abs, c->roots[k]))
            return true;
    return false;
}

/* A "gitdir: <path>" file (submodule checkouts, worktrees): its target is
 * a repository git uses, wherever the walk would not find it. */
static void read_gitfile(struct pd_git_scan *g, const char *dir, const char *file)
{
    if (g->recording)
        add_line(g, &g->gitfiles, "%s", file);
    char buf[PD_PATH_MAX + 16], target[PD_PATH_MAX], real[PD_PATH_MAX];
    struct stat fst;
    int fd = open_regular(file, &fst);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return;
    buf[n] = '\0';
    if (strncmp(buf, "gitdir:", 7) != 0)
        return;
    char *v = buf + 7;
    v += strspn(v, " \t");
    v[strcspn(v, "\r\n")] = '\0';
    if (v[0] == '/')
        snprintf(target, sizeof target, "%s", v);
    else if ((size_t)snprintf(target, sizeof target, "%s/%s", dir, v) >= sizeof target)
        return;
    struct stat st;
    if (!realpath(target, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode) ||
        !in_trees(g->ctx, real))
        return;
    read_repo(g, real);
}

/* git's is_git_directory: HEAD, and objects/ + refs/ or a commondir. */
static bool is_git_dir(bool head, bool objects, bool refs, bool commondir)
{
    return head && ((objects && refs) || commondir);
}

/* One entry of walk's directory: note the names git looks for, keep the
 * subdirectories and "gitdir:" files. */
struct dir_seen {
    bool head, objects, refs, commondir;
};

static void seen(struct pd_git_scan *g, int fd, const char *nm, unsigned char type,
                 struct dir_seen *s, struct pd_entries *ents)
{
    if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
        return;
    if (type == DT_UNKNOWN) {
        struct stat cst;
        if (fstatat(fd, nm, &cst, AT_SYMLINK_NOFOLLOW) != 0)
            return;
        type = S_ISDIR(cst.st_mode) ? DT_DIR : S_ISLNK(cst.st_mode) ? DT_LNK : DT_REG;
    }
    s->head |= strcmp(nm, "HEAD") == 0 && type != DT_DIR;
    s->objects |= strcmp(nm, "objects") == 0 && type == DT_DIR;
    s->refs |= strcmp(nm, "refs") == 0 && type == DT_DIR;
    s->commondir |= strcmp(nm, "commondir") == 0 && type == DT_REG;
    if ((type == DT_DIR || (type == DT_REG && strcmp(nm, ".git") == 0)) &&
        pd_entries_add(ents, type, nm, strlen(nm)) != 0)
        g->failed = true;
}

static void record_dir(struct pd_git_scan *g, const char *path, const struct stat *st)
{
    if (g->ndirs == g->capdirs) {
        size_t cap = g->capdirs ? g->capdirs * 2 : 256;
        struct dirrec *v = realloc(g->dirs, cap * sizeof *v);
        if (!v) {
            g->failed = true;
            return;
        }
        g->dirs = v;
        g->capdirs = cap;
    }
    char *copy = strdup(path);
    if (!copy) {
        g->failed = true;
        return;
    }
    struct dirrec *d = &g->dirs[g->ndirs++];
    d->path = copy;
    d->dev = st->st_dev;
    d->ino = st->st_ino;
    d->mtime = st->st_mtim;
    d->ctime = st->st_ctim;
}

/* A file of the directory path[0, len) that walk met: path names it. */
__attribute__((noinline)) static void walk_file(struct pd_git_scan *g, const char *path, size_t len)
{
    char dir[PD_PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", (int)len, path);
    read_gitfile(g, dir, path);
}

static int cmp_dir(const void *a, const void *b)
{
    return strcmp(((const struct dirrec *)a)->path, ((const struct dirrec *)b)->path);
}

static int cmp_key(const void *key, const void *rec)
{
    return strcmp(key, ((const struct dirrec *)rec)->path);
}

static const struct dirrec *find_dir(const struct pd_git_scan *g, const char *path)
{
    return g->ndirs ? bsearch(path, g->dirs, g->ndirs, sizeof *g->dirs, cmp_key) : NULL;
}

/* Walk the directory at path. rescan: a recorded directory read again
 * after the run; its recorded subdirectories are left to their own
 * records, the others are new and walked whole. */
static void walk(struct pd_git_scan *g, char *path, size_t len, dev_t dev, bool rescan)
{
    /* read whole before descending: one descriptor open at a time whatever
     * the depth (as scan.c) */
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return; /* unreadable: the post-run scan reports it */
    if (fstat(fd, &st) != 0 || st.st_dev != dev) {
        close(fd);
        return;
    }
    if (g->recording)
        record_dir(g, path, &st);
    /* Before the run, an unchanged directory's entries may come from the
     * last run's listing (scan_reuse.c): it holds every name seen() acts
     * on. A read error keeps what was read, as before. */
    struct pd_entries all = {0}, ents = {0};
    struct dir_seen s = {0};
    size_t nents; /* not needed here */
    int rc = g->recording
                 ? pd_reuse_entries(g->reuse, fd, path, len, &st, false, true, &all, &nents)
                 : pd_read_entries(fd, &all);
    if (rc != 0 && errno == ENOMEM)
        g->failed = true;
    for (size_t off = 0; off < all.len;) {
        const char *nm = all.buf + off + 1;
        unsigned char type = (unsigned char)all.buf[off];
        off += strlen(nm) + 2;
        seen(g, fd, nm, type, &s, &ents);
    }
    free(all.buf);
    close(fd);
    bool head = s.head, objects = s.objects, refs = s.refs, commondir = s.commondir;
    /* a directory called .git is one whatever it holds (fail closed: the
     * run could complete it into a repository around the hooks it has) */
    const char *base = strrchr(path, '/');
    bool gitdir =
        is_git_dir(head, objects, refs, commondir) || (base && strcmp(base, "/.git") == 0);
    if (gitdir)
        read_repo(g, path);
    for (size_t off = 0; off < ents.len;) {
        unsigned char type = (unsigned char)ents.buf[off];
        const char *name = ents.buf + off + 1;
        size_t nlen = strlen(name);
        off += nlen + 2;
        if (gitdir && (strcmp(name, "objects") == 0 || strcmp(name, "refs") == 0 ||
                       strcmp(name, "logs") == 0))
            continue;
        if (len + 1 + nlen >= PD_PATH_MAX)
            continue; /* the post-run scan reports names too long to check */
        path[len] = '/';
        memcpy(path + len + 1, name, nlen + 1);
        if (type == DT_DIR) {
            if (!rescan || !find_dir(g, path))
                walk(g, path, len + 1 + nlen, dev, false);
        } else {
            walk_file(g, path, len);
        }
        path[len] = '\0';
    }
    free(ents.buf);
}

/* Walk the workspace and the policy's writable roots (each once). */
static void walk_all(struct pd_git_scan *g)
{
    const struct pd_ctx *c = g->ctx;
    char path[PD_PATH_MAX];
    for (size_t k = 0; k <= c->npolicy_roots; k++) {
        const char *tree = k == 0 ? c->workspace : c->roots[k - 1];
        if (k > 0 && pd_path_under(tree, c->workspace))
            continue;
        bool dup = false;
        for (size_t j = 1; j < k && !dup; j++)
            dup = pd_path_under(tree, c->roots[j - 1]) && !pd_path_under(c->roots[j - 1], tree);
        struct stat st;
        if (dup || lstat(tree, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        snprintf(path, sizeof path, "%s", tree);
        if (!g->recording && find_dir(g, path))
            continue; /* compare_dirs reads it if it changed */
        walk(g, path, strlen(path), st.st_dev, false);
    }
}

/* After the run: the recorded directories that changed, read again. */
static void compare_dirs(struct pd_git_scan *g)
{
    char path[PD_PATH_MAX];
    for (size_t k = 0; k < g->ndirs; k++) {
        const struct dirrec *d = &g->dirs[k];
        struct stat st;
        if (lstat(d->path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue; /* gone: what was in it cannot be run from there */
        if (st.st_dev == d->dev && st.st_ino == d->ino && pd_ts_same(&st.st_mtim, &d->mtime) &&
            pd_ts_same(&st.st_ctim, &d->ctime))
            continue;
        snprintf(path, sizeof path, "%s", d->path);
        walk(g, path, strlen(path), st.st_dev, st.st_dev == d->dev && st.st_ino == d->ino);
    }
}

/* ---- interface ------------------------------------------------------------------ */

struct pd_git_scan *pd_git_scan_before(struct pd_ctx *ctx)
{
    return pd_git_scan_before_reusing(ctx, NULL);
}

struct pd_git_scan *pd_git_scan_before_reusing(struct pd_ctx *ctx, struct pd_scan_reuse *r)
{
    struct pd_git_scan *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->ctx = ctx;
    g->reuse = r;
    g->recording = true;
    walk_all(g);
    g->recording = false;
    for (size_t k = 0; k < g->repos.n && !g->failed; k++)
        if (pd_ctx_add_git_dir(ctx, g->repos.v[k]) != 0)
            g->failed = true;
    if (g->failed) {
        pd_git_scan_free(g);
        errno = ENOMEM;
        return NULL;
    }
    ctx->git_dirs_known = true;
    g->before = g->now;
    memset(&g->now, 0, sizeof g->now);
    g->known = g->repos;
    memset(&g->repos, 0, sizeof g->repos);
    /* qsort's array may not be NULL, even for no element */
    if (g->before.n)
        qsort(g->before.v, g->before.n, sizeof *g->before.v, cmp_line);
    if (g->ndirs)
        qsort(g->dirs, g->ndirs, sizeof *g->dirs, cmp_dir);
    return g;
}

static void subject_of(const struct pd_ctx *c, const char *abs, char *out, size_t outlen)
{
    const char *rel = pd_path_under(abs, c->workspace);
    snprintf(out, outlen, "%s", rel ? (rel[0] ? rel : ".") : abs);
}

/* Does before hold a line of kind for path ("H\t<path>\t...")? */
static bool had_path(const struct lines *before, char kind, const char *path)
{
    size_t n = strlen(path);
    for (size_t k = 0; k < before->n; k++) {
        const char *s = before->v[k];
        if (s[0] == kind && strncmp(s + 2, path, n) == 0 && s[2 + n] == '\t')
            return true;
    }
    return false;
}

static void report(struct pd_git_scan *g, const char *line, struct pd_findings *found)
{
    char file[PD_PATH_MAX], subject[PD_PATH_MAX];
    const char *f = line + 2, *tab = strchr(f, '\t');
    if (!tab)
        return;
    snprintf(file, sizeof file, "%.*s", (int)(tab - f), f);
    subject_of(g->ctx, file, subject, sizeof subject);
    if (line[0] == 'K') {
        const char *key = tab + 1, *end = strchr(key, '\t');
        int klen = end ? (int)(end - key) : (int)strlen(key);
        bool include = strncmp(key, "include", 7) == 0;
        /* one finding per key: the findings keep one message per path */
        char where[PD_PATH_MAX + 256];
        snprintf(where, sizeof where, "%s %.*s", subject, klen, key);
        pd_findings_add(found, where, "run set %.*s in %s (%s)", klen, key, subject,
                        include ? "git reads more configuration from that file"
                                : "git runs it as a program");
    } else if (line[0] == 'H') {
        pd_findings_add(found, subject, "run %s hook %s (git runs it as a program)",
                        had_path(&g->before, 'H', file) ? "changed" : "added", subject);
    } else if (line[0] == 'E') {
        /* judged only when the run changed the file: the user's own
         * unreadable file is git's business */
        char fline[PD_PATH_MAX + 32];
        for (size_t k = 0; k < g->now.n; k++) {
            const char *s = g->now.v[k];
            size_t n = strlen(file);
            if (s[0] == 'F' && strncmp(s + 2, file, n) == 0 && s[2 + n] == '\t') {
                snprintf(fline, sizeof fline, "%s", s);
                if (sorted_has(&g->before, fline))
                    return;
                break;
            }
        }
        pd_findings_add(found, subject,
                        "run left %s unreadable to the git check (%s); git may run what it names",
                        subject, tab + 1);
    }
}

void pd_git_scan_after(struct pd_git_scan *g, struct pd_findings *found)
{
    if (!g)
        return;
    /* every repository and "gitdir:" file of before (a file changes in
     * place without touching its directory), then what is new */
    for (size_t k = 0; k < g->known.n; k++)
        read_repo(g, g->known.v[k]);
    for (size_t k = 0; k < g->gitfiles.n; k++) {
        char dir[PD_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", g->gitfiles.v[k]);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        read_gitfile(g, dir, g->gitfiles.v[k]);
    }
    walk_all(g);
    compare_dirs(g);
    for (size_t k = 0; k < g->now.n; k++)
        if (g->now.v[k][0] != 'F' && !sorted_has(&g->before, g->now.v[k]))
            report(g, g->now.v[k], found);
    if (g->failed)
        pd_findings_add(found, "",
                        "the post-run git check ran out of memory; its result is "
                        "incomplete");
    free_lines(&g->now);
    free_lines(&g->repos);
}

void pd_git_scan_free(struct pd_git_scan *g)
{
    if (!g)
        return;
    free_lines(&g->before);
    free_lines(&g->now);
    free_lines(&g->repos);
    free_lines(&g->known);
    free_lines(&g->gitfiles);
    for (size_t k = 0; k < g->ndirs; k++)
        free(g->dirs[k].path);
    free(g->dirs);
    free(g);
}
