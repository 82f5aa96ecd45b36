/* policy/compiled_image.c - the compiled policy as a binary image (see
 * compiled_image.h): built by the launcher, checked and read in place by
 * the preload. The builder allocates freely; the checker, the hash and
 * the materializer allocate nothing and make no system call, so that the
 * preload may run them in any context a wrapper runs in. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/compiled_image.h"
#include "policy/gate_exec.h"
#include "policy/report.h"

#define E_HEADER    "not a compiled policy (bad header)"
#define E_TRUNCATED "truncated or incomplete compiled policy"
#define E_VERSION   "compiled policy of another version"
#define E_CHECKSUM  "corrupt compiled policy (checksum)"
#define E_OFFSETS   "corrupt compiled policy (offsets)"

/* The bytes the checksum covers: everything after the checksum field. */
#define HASHED_FROM (offsetof(struct pd_image, checksum) + sizeof(uint64_t))

/* The policy keys this build knows, in order, with their kinds: an image
 * written by a build with other keys has another schema. */
static const char schema_keys[] =
#define PD_KEY_STRV(name, doc)                    "s:" #name ";"
#define PD_KEY_BOOL(name, def, doc)               "b:" #name ";"
#define PD_KEY_INT(name, def, lo, hi, doc)        "i:" #name ";"
#define PD_KEY_FLOAT(name, def, doc)              "f:" #name ";"
#define PD_KEY_ENUM(name, ctype, def, parse, doc) "e:" #name ";"
#include "policy/policy_keys.def"
    ;

uint64_t pd_image_hash(const void *p, size_t n)
{
    /* 8 bytes per step, each step a bijection of the state for a fixed
     * word and of the word for a fixed state: one changed word always
     * changes the result */
    const unsigned char *b = p;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, sizeof w);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    memcpy(&tail, b + k, n - k);
    h = (h ^ tail) * 0x100000001b3ull;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

uint64_t pd_image_schema(void)
{
    uint64_t layout = (uint64_t)sizeof(struct pd_image) << 32 |
                      (uint64_t)sizeof(struct pd_image_bin) << 16 |
                      (uint64_t)sizeof(struct pd_image_pat) << 8 | (uint64_t)PD_IL_COUNT;
    return pd_image_hash(schema_keys, sizeof schema_keys) ^ layout;
}

const char *pd_image_why_text(unsigned why)
{
    switch (why) {
    case PD_WHY_STATIC:
        return PD_REPORT_STATIC;
    case PD_WHY_FOREIGN:
        return PD_REPORT_FOREIGN;
    case PD_WHY_SETUID:
        return PD_REPORT_SETUID;
    case PD_WHY_FCAPS:
        return PD_REPORT_FCAPS;
    default:
        return NULL;
    }
}

static uint8_t why_code(const char *text)
{
    static const unsigned codes[] = {PD_WHY_STATIC, PD_WHY_FOREIGN, PD_WHY_SETUID, PD_WHY_FCAPS};
    for (size_t k = 0; text && k < sizeof codes / sizeof codes[0]; k++)
        if (strcmp(text, pd_image_why_text(codes[k])) == 0)
            return (uint8_t)codes[k];
    return PD_WHY_NONE;
}

/* ---- building --------------------------------------------------------- */

/* A growing byte buffer; oom is sticky, so that callers check once. */
struct buf {
    char *p;
    size_t n, cap;
    bool oom;
};

static size_t buf_add(struct buf *b, const void *data, size_t n)
{
    size_t at = b->n;
    if (b->oom || n == 0) /* memcpy wants a buffer even for 0 bytes */
        return at;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return at;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
    return at;
}

struct writer {
    struct buf strings;
    struct buf lists[PD_IL_COUNT]; /* uint32_t */
    struct buf pats[2];            /* struct pd_image_pat: read, protect */
    struct pd_image_set sets[2];
    struct buf bins;      /* struct pd_image_bin */
    struct buf host_devs; /* uint64_t */
    struct buf root_ids;  /* struct pd_image_id */
};

static uint32_t str_add(struct writer *w, const char *s)
{
    if (!s || !s[0])
        return 0; /* the area starts with "" */
    return (uint32_t)buf_add(&w->strings, s, strlen(s) + 1);
}

static void list_add(struct writer *w, enum pd_image_list l, const char *s)
{
    uint32_t off = str_add(w, s);
    buf_add(&w->lists[l], &off, sizeof off);
}

static void list_add_all(struct writer *w, enum pd_image_list l, char *const *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        list_add(w, l, v[k]);
}

/* -- the pattern index: the necessary condition each pattern sets -- */

static unsigned char fold(char c)
{
    return (unsigned char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
}

static bool special(char c)
{
    return c == '*' || c == '?' || c == '[' || c == '\\';
}

/* Next component of s at *pos ("." and empty ones skipped). */
static bool next_comp(const char *s, size_t *pos, const char **comp, size_t *len)
{
    for (;;) {
        while (s[*pos] == '/')
            (*pos)++;
        if (!s[*pos])
            return false;
        size_t start = *pos;
        while (s[*pos] && s[*pos] != '/')
            (*pos)++;
        *comp = s + start;
        *len = *pos - start;
        if (!(*len == 1 && s[start] == '.'))
            return true;
    }
}

/* How pd_glob_match (policy/glob.c) picks what it compares: an anchored
 * pattern ("/x", "~/x", or one with a '/' before its last component) is
 * compared from the start, component by component, so its literal leading
 * components must lead the path; any other must match some component of
 * the path with its last component that is not "**". */
static void classify(struct writer *w, struct pd_image_pat *pp, const char *pattern,
                     const char *home)
{
    char expanded[PD_PATH_MAX];
    const char *pat = pattern;
    memset(pp, 0, sizeof *pp);
    if (pat[0] == '~' && (pat[1] == '/' || pat[1] == '\0')) {
        if (!home || !home[0] ||
            (size_t)snprintf(expanded, sizeof expanded, "%s%s", home, pat + 1) >= sizeof expanded) {
            pp->kind = PD_PAT_NEVER;
            return;
        }
        pat = expanded;
    }
    bool anchored = pat[0] == '/';
    pp->kind = anchored ? PD_PAT_ABS : PD_PAT_REL;
    if (!anchored) {
        while (pat[0] == '.' && pat[1] == '/')
            pat += 2;
        const char *slash = strchr(pat, '/');
        anchored = slash && slash[strspn(slash, "/")] != '\0';
    }
    char lit[PD_PATH_MAX];
    size_t n = 0, pos = 0, len, keylen = 0;
    const char *comp, *key = NULL;
    bool literal = anchored;
    while (next_comp(pat, &pos, &comp, &len)) {
        bool has_special = false;
        for (size_t k = 0; k < len; k++)
            has_special |= special(comp[k]);
        if (literal && !has_special && n + len + 2 < sizeof lit) {
            if (n)
                lit[n++] = '/';
            memcpy(lit + n, comp, len);
            n += len;
        } else {
            literal = false;
        }
        if (!(len == 2 && comp[0] == '*' && comp[1] == '*')) {
            key = comp;
            keylen = len;
        }
    }
    if (anchored && n > 0) {
        lit[n] = '\0';
        pp->text = str_add(w, lit);
        pp->len = (uint32_t)n;
        return;
    }
    if (!key) {
        pp->kind = PD_PAT_ALWAYS;
        return;
    }
    pp->kind = PD_PAT_KEY;
    snprintf(lit, sizeof lit, "%.*s", (int)keylen, key);
    pp->text = str_add(w, lit);
    pp->len = (uint32_t)keylen;
    if (!special(key[0]))
        pp->first = fold(key[0]);
    char e = key[keylen - 1];
    if (!special(e) && e != ']' && !(keylen >= 2 && key[keylen - 2] == '\\'))
        pp->last = fold(e);
}

static void map_set(uint32_t *map, unsigned char c)
{
    map[c >> 5] |= 1u << (c & 31);
}

/* Add n patterns (or up to a NULL) to set k. */
static void set_add(struct writer *w, int k, const char *const *list, size_t n, const char *home)
{
    struct pd_image_set *s = &w->sets[k];
    for (size_t j = 0; j < n && list[j]; j++) {
        struct pd_image_pat pp;
        classify(w, &pp, list[j], home);
        buf_add(&w->pats[k], &pp, sizeof pp);
        s->pats.n++;
        if (pp.kind == PD_PAT_ALWAYS)
            s->always = 1;
        if (pp.kind == PD_PAT_KEY) {
            s->keys = 1;
            if (pp.first)
                map_set(s->firstmap, pp.first);
            else if (pp.last)
                map_set(s->lastmap, pp.last);
            else
                s->unfiltered = 1;
        }
    }
}

/* Put set k's patterns of leading components (PD_PAT_ABS, PD_PAT_REL)
 * first, in their order, so that the preload tests those in one run and
 * the component patterns in another (preload/match.c). */
static void set_order(struct writer *w, int k)
{
    struct pd_image_set *s = &w->sets[k];
    struct pd_image_pat *v = (struct pd_image_pat *)(void *)w->pats[k].p;
    size_t n = s->pats.n, lead = 0;
    if (w->pats[k].oom || w->strings.oom || n == 0)
        return;
    struct pd_image_pat *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        w->pats[k].oom = true;
        return;
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < n; j++) {
            bool is_lead = v[j].kind == PD_PAT_ABS || v[j].kind == PD_PAT_REL;
            if (is_lead == (pass == 0))
                tmp[lead++] = v[j];
        }
    memcpy(v, tmp, n * sizeof *tmp);
    free(tmp);
    lead = 0;
    while (lead < n && (v[lead].kind == PD_PAT_ABS || v[lead].kind == PD_PAT_REL)) {
        const char *text = w->strings.p + v[lead].text;
        map_set(v[lead].kind == PD_PAT_ABS ? s->absmap : s->relmap, fold(text[0]));
        lead++;
    }
    s->nlead = (uint32_t)lead;
}

/* -- allow_binaries, resolved -- */

static bool in_roots(const struct pd_ctx *c, const char *path)
{
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(path, c->roots[k]))
            return true;
    return false;
}

/* Does the file start with "#!"? (a script: judged by its interpreter) */
static bool is_script(const char *path)
{
    char head[2];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return true; /* unreadable: not listed */
    ssize_t n = pread(fd, head, sizeof head, 0);
    close(fd);
    return n != 2 || (head[0] == '#' && head[1] == '!');
}

/* The file entry names, when the exec gate allows it by identity alone:
 * outside the writable roots (the run cannot swap it), no script, not the
 * dynamic loader, no pattern on its path. */
static void bin_add(struct writer *w, const struct pd_ctx *c, const char *entry)
{
    char file[PD_PATH_MAX], real[PD_PATH_MAX];
    struct stat st;
    struct pd_verdict v;
    if (pd_binary_entry_file(c, entry, file, sizeof file) != 0 || !pd_realpath(file, real) ||
        stat(real, &st) != 0 || !S_ISREG(st.st_mode) || in_roots(c, file) || in_roots(c, real) ||
        pd_exec_is_loader(file) || pd_exec_is_loader(real) || is_script(real))
        return;
    pd_gate_path(c, PD_OP_EXEC, NULL, real, &v);
    if (v.deny)
        return;
    const struct pd_image_bin *have = (const struct pd_image_bin *)(const void *)w->bins.p;
    for (size_t k = 0; k < w->bins.n / sizeof *have; k++)
        if (have[k].dev == (uint64_t)st.st_dev && have[k].ino == (uint64_t)st.st_ino)
            return;
    struct pd_image_bin b;
    memset(&b, 0, sizeof b);
    b.dev = (uint64_t)st.st_dev;
    b.ino = (uint64_t)st.st_ino;
    b.ctime_sec = (int64_t)st.st_ctim.tv_sec;
    b.ctime_nsec = (int64_t)st.st_ctim.tv_nsec;
    b.size = (uint64_t)st.st_size;
    b.mode = (uint32_t)st.st_mode;
    b.path = str_add(w, real);
    b.why = why_code(pd_exec_unmonitored(real, false));
    b.why_nnp = why_code(pd_exec_unmonitored(real, true));
    buf_add(&w->bins, &b, sizeof b);
}

static void writer_free(struct writer *w)
{
    free(w->strings.p);
    for (size_t k = 0; k < PD_IL_COUNT; k++)
        free(w->lists[k].p);
    free(w->pats[0].p);
    free(w->pats[1].p);
    free(w->bins.p);
    free(w->host_devs.p);
    free(w->root_ids.p);
}

static bool writer_oom(const struct writer *w)
{
    bool oom = w->strings.oom || w->pats[0].oom || w->pats[1].oom || w->bins.oom ||
               w->host_devs.oom || w->root_ids.oom;
    for (size_t k = 0; k < PD_IL_COUNT; k++)
        oom |= w->lists[k].oom;
    return oom;
}

/* Place span s (n elements of size each) at *off in out; move *off on. */
static void place(char *out, size_t *off, struct pd_image_span *s, const struct buf *b, size_t n)
{
    s->off = (uint32_t)*off;
    s->n = (uint32_t)n;
    if (b->n)
        memcpy(out + *off, b->p, b->n);
    *off += b->n;
}

static void fill_header(struct pd_image *h, const struct pd_ctx *c,
                        const struct pd_kernel_grants *g, struct writer *w)
{
    const struct pd_policy *p = c->policy;
    memset(h, 0, sizeof *h);
    memcpy(h->magic, PD_IMAGE_MAGIC, sizeof PD_IMAGE_MAGIC);
    h->byte_order = PD_IMAGE_BYTE_ORDER;
    h->header_size = (uint32_t)sizeof *h;
    h->schema = pd_image_schema();
    h->flags = (c->private_net ? PD_IMAGE_PRIVATE_NET : 0) |
               (c->git_dirs_known ? PD_IMAGE_GIT_DIRS_KNOWN : 0) |
               (g && g->on ? PD_IMAGE_KERNEL : 0) |
               (g && g->on && g->no_exec_writes ? PD_IMAGE_NO_EXEC_WRITES : 0) |
               (p->protected_paths_set ? PD_IMAGE_PROTECTED_PATHS_SET : 0) |
               (p->timeout_sec_set ? PD_IMAGE_TIMEOUT_SEC_SET : 0);
    h->npolicy_roots = (uint32_t)c->npolicy_roots;
    h->workspace = str_add(w, c->workspace);
    h->home = str_add(w, c->home);
    h->path_env = str_add(w, c->path_env);
    h->go_tmp = str_add(w, c->go_tmp);
    h->temp_home = str_add(w, c->temp_home);
    h->connect_helper = str_add(w, c->connect_helper);
    h->file = p->file ? str_add(w, p->file) : PD_IMAGE_NONE;
#define PD_KEY_STRV(name, doc)
#define PD_KEY_BOOL(name, def, doc)               h->scalars[PD_IS_##name].i = p->name ? 1 : 0;
#define PD_KEY_INT(name, def, lo, hi, doc)        h->scalars[PD_IS_##name].i = (int64_t)p->name;
#define PD_KEY_FLOAT(name, def, doc)              h->scalars[PD_IS_##name].f = p->name;
#define PD_KEY_ENUM(name, ctype, def, parse, doc) h->scalars[PD_IS_##name].i = (int64_t)p->name;
#include "policy/policy_keys.def"
}

int pd_image_build(const struct pd_ctx *c, const struct pd_kernel_grants *g,
                   const struct pd_image_host *host, void **out, size_t *len)
{
    const struct pd_policy *p = c->policy;
    struct writer w;
    struct pd_image h;
    memset(&w, 0, sizeof w);
    char nul = '\0';
    buf_add(&w.strings, &nul, 1);
    fill_header(&h, c, g, &w);
    list_add_all(&w, PD_IL_ROOTS, c->roots, c->nroots);
    list_add_all(&w, PD_IL_READ_ROOTS, c->read_roots, c->nread_roots);
    list_add_all(&w, PD_IL_GIT_DIRS, c->git_dirs, c->ngit_dirs);
    if (g && g->on) {
        list_add_all(&w, PD_IL_KERNEL_EXEC, g->exec.v, g->exec.n);
        list_add_all(&w, PD_IL_KERNEL_READ, g->read.v, g->read.n);
        list_add_all(&w, PD_IL_KERNEL_WRITE, g->write.v, g->write.n);
        list_add_all(&w, PD_IL_KERNEL_DEV, g->dev.v, g->dev.n);
        list_add_all(&w, PD_IL_KERNEL_READONLY, g->readonly.v, g->readonly.n);
    }
#define PD_KEY_STRV(name, doc) list_add_all(&w, PD_IL_##name, p->name.v, p->name.n);
#define PD_KEY_BOOL(name, def, doc)
#define PD_KEY_INT(name, def, lo, hi, doc)
#define PD_KEY_FLOAT(name, def, doc)
#define PD_KEY_ENUM(name, ctype, def, parse, doc)
#include "policy/policy_keys.def"
    /* the index, as the gate's order has it: deny_globs and the built-in
     * secrets for every op; for writes also every protected pattern
     * (unprotect_paths and allow_secrets are the gate's to apply) */
    set_add(&w, 0, (const char *const *)p->deny_globs.v, p->deny_globs.n, c->home);
    set_add(&w, 0, pd_builtin_secrets, (size_t)-1, c->home);
    set_add(&w, 1, (const char *const *)p->protected_paths.v, p->protected_paths.n, c->home);
    set_add(&w, 1, pd_builtin_protected, (size_t)-1, c->home);
    set_order(&w, 0);
    set_order(&w, 1);
    for (size_t k = 0; k < p->allow_binaries.n; k++)
        bin_add(&w, c, p->allow_binaries.v[k]);
    if (host && host->mnt_ns) {
        h.host_mnt_ns = host->mnt_ns;
        if (host->ndevs)
            buf_add(&w.host_devs, host->devs, host->ndevs * sizeof *host->devs);
        for (size_t k = 0; k < c->nroots; k++) {
            struct stat st;
            if (stat(c->roots[k], &st) == 0 && S_ISDIR(st.st_mode)) {
                struct pd_image_id id = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};
                buf_add(&w.root_ids, &id, sizeof id);
            }
        }
    }
    if (writer_oom(&w)) {
        writer_free(&w);
        errno = ENOMEM;
        return -1;
    }
    size_t total = sizeof h + w.bins.n + w.host_devs.n + w.root_ids.n + w.pats[0].n + w.pats[1].n +
                   w.strings.n;
    for (size_t k = 0; k < PD_IL_COUNT; k++)
        total += w.lists[k].n;
    total = (total + 7) & ~(size_t)7;
    char *img = total <= PD_IMAGE_MAX_BYTES ? calloc(1, total) : NULL;
    if (!img) {
        writer_free(&w);
        errno = total <= PD_IMAGE_MAX_BYTES ? ENOMEM : EFBIG;
        return -1;
    }
    /* bins first: they hold 64-bit fields and the header's size is a
     * multiple of 8 */
    size_t off = sizeof h;
    place(img, &off, &h.bins, &w.bins, w.bins.n / sizeof(struct pd_image_bin));
    place(img, &off, &h.host_devs, &w.host_devs, w.host_devs.n / sizeof(uint64_t));
    place(img, &off, &h.root_ids, &w.root_ids, w.root_ids.n / sizeof(struct pd_image_id));
    for (size_t k = 0; k < PD_IL_COUNT; k++)
        place(img, &off, &h.lists[k], &w.lists[k], w.lists[k].n / sizeof(uint32_t));
    for (int k = 0; k < 2; k++) {
        struct pd_image_set *s = k ? &h.protect_set : &h.read_set;
        *s = w.sets[k];
        place(img, &off, &s->pats, &w.pats[k], w.pats[k].n / sizeof(struct pd_image_pat));
    }
    place(img, &off, &h.strings, &w.strings, w.strings.n);
    h.size = total;
    memcpy(img, &h, sizeof h);
    h.checksum = pd_image_hash(img + HASHED_FROM, total - HASHED_FROM);
    memcpy(img + offsetof(struct pd_image, checksum), &h.checksum, sizeof h.checksum);
    writer_free(&w);
    *out = img;
    *len = total;
    return 0;
}

int pd_image_write(const struct pd_ctx *c, const struct pd_kernel_grants *g,
                   const struct pd_image_host *host, const char *path, mode_t mode)
{
    void *img;
    size_t len;
    if (pd_image_build(c, g, host, &img, &len) != 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        int err = errno;
        free(img);
        errno = err;
        return -1;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, (const char *)img + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    int err = off == len ? 0 : (errno ? errno : EIO);
    if (close(fd) != 0 && !err)
        err = errno;
    free(img);
    if (err) {
        unlink(path);
        errno = err;
        return -1;
    }
    return 0;
}

/* ---- checking --------------------------------------------------------- */

/* Does span s (n elements of size bytes, aligned to align) lie in the
 * image after the header? */
static bool span_ok(const struct pd_image_span *s, size_t size, size_t align, size_t len)
{
    return s->off % align == 0 && s->off >= sizeof(struct pd_image) && s->off <= len &&
           s->n <= (len - s->off) / size;
}

/* A string offset inside the area whose string fits max bytes (0: any). */
static bool str_ok(const struct pd_image *im, const char *mem, uint32_t off, size_t max)
{
    if (off >= im->strings.n)
        return false;
    if (!max)
        return true;
    const char *s = mem + im->strings.off + off;
    return strnlen(s, max) < max;
}

static bool list_ok(const struct pd_image *im, const char *mem, size_t len, size_t k)
{
    if (!span_ok(&im->lists[k], sizeof(uint32_t), sizeof(uint32_t), len))
        return false;
    const uint32_t *v = (const uint32_t *)(const void *)(mem + im->lists[k].off);
    for (size_t j = 0; j < im->lists[k].n; j++)
        if (!str_ok(im, mem, v[j], 0))
            return false;
    return true;
}

static bool set_ok(const struct pd_image *im, const char *mem, size_t len,
                   const struct pd_image_set *s)
{
    if (!span_ok(&s->pats, sizeof(struct pd_image_pat), sizeof(uint32_t), len) ||
        s->nlead > s->pats.n)
        return false;
    const struct pd_image_pat *v = (const struct pd_image_pat *)(const void *)(mem + s->pats.off);
    for (size_t j = 0; j < s->pats.n; j++) {
        /* the text and its terminator lie in the area */
        if (v[j].kind > PD_PAT_KEY || v[j].text >= im->strings.n ||
            v[j].len >= im->strings.n - v[j].text ||
            mem[im->strings.off + v[j].text + v[j].len] != '\0')
            return false;
    }
    return true;
}

static bool bins_ok(const struct pd_image *im, const char *mem, size_t len)
{
    if (!span_ok(&im->bins, sizeof(struct pd_image_bin), 8, len))
        return false;
    const struct pd_image_bin *v = (const struct pd_image_bin *)(const void *)(mem + im->bins.off);
    for (size_t j = 0; j < im->bins.n; j++)
        if (!str_ok(im, mem, v[j].path, PD_PATH_MAX) || v[j].why > PD_WHY_FCAPS ||
            v[j].why_nnp > PD_WHY_FCAPS)
            return false;
    return true;
}

const char *pd_image_check(const void *mem, size_t len)
{
    const char *b = mem;
    const struct pd_image *im = mem;
    size_t head = strlen(PD_IMAGE_MAGIC_HEAD);
    if (len < head || memcmp(b, PD_IMAGE_MAGIC_HEAD, head) != 0)
        return E_HEADER;
    if (len < sizeof *im)
        return E_TRUNCATED;
    if (memcmp(im->magic, PD_IMAGE_MAGIC, sizeof PD_IMAGE_MAGIC) != 0 ||
        im->byte_order != PD_IMAGE_BYTE_ORDER || im->header_size != sizeof *im ||
        im->schema != pd_image_schema())
        return E_VERSION;
    if (im->size > len)
        return E_TRUNCATED;
    if (im->size != len || len > PD_IMAGE_MAX_BYTES)
        return E_OFFSETS;
    if (pd_image_hash(b + HASHED_FROM, len - HASHED_FROM) != im->checksum)
        return E_CHECKSUM;
    /* the string area ends with a NUL, so every string in it ends */
    if (!span_ok(&im->strings, 1, 1, len) || im->strings.n == 0 || b[im->strings.off] != '\0' ||
        b[im->strings.off + im->strings.n - 1] != '\0')
        return E_OFFSETS;
    /* the fields the materializer copies into fixed arrays must fit them */
    if (!str_ok(im, b, im->workspace, PD_PATH_MAX) || pd_image_str(im, im->workspace)[0] != '/' ||
        !str_ok(im, b, im->home, PD_PATH_MAX) || !str_ok(im, b, im->path_env, PD_PATH_MAX) ||
        !str_ok(im, b, im->go_tmp, PD_PATH_MAX) || !str_ok(im, b, im->temp_home, PD_PATH_MAX) ||
        !str_ok(im, b, im->connect_helper, PD_PATH_MAX) ||
        (im->file != PD_IMAGE_NONE && !str_ok(im, b, im->file, 0)))
        return E_OFFSETS;
    for (size_t k = 0; k < PD_IL_COUNT; k++)
        if (!list_ok(im, b, len, k))
            return E_OFFSETS;
    if (im->npolicy_roots > im->lists[PD_IL_ROOTS].n || !set_ok(im, b, len, &im->read_set) ||
        !set_ok(im, b, len, &im->protect_set) || !bins_ok(im, b, len) ||
        !span_ok(&im->host_devs, sizeof(uint64_t), 8, len) ||
        !span_ok(&im->root_ids, sizeof(struct pd_image_id), 8, len))
        return E_OFFSETS;
    return NULL;
}

/* ---- materializing ---------------------------------------------------- */

size_t pd_image_nptrs(const struct pd_image *im)
{
    size_t n = 0;
    for (size_t k = 0; k < PD_IL_COUNT; k++)
        n += im->lists[k].n;
    return n;
}

static char *unconst(const char *s)
{
    return (char *)(uintptr_t)s;
}

/* List l as pointers at *next in ptrs; *out and *n as a pd_strv has them
 * (NULL when empty). */
static void take(const struct pd_image *im, enum pd_image_list l, char **ptrs, size_t *next,
                 char ***out, size_t *n)
{
    size_t count;
    const uint32_t *v = pd_image_list(im, l, &count);
    *n = count;
    *out = count ? ptrs + *next : NULL;
    for (size_t k = 0; k < count; k++)
        ptrs[(*next)++] = unconst(pd_image_str(im, v[k]));
}

void pd_image_materialize(const struct pd_image *im, char **ptrs, struct pd_policy *p,
                          struct pd_ctx *c, struct pd_kernel_grants *g)
{
    size_t next = 0;
    memset(p, 0, sizeof *p);
    memset(c, 0, sizeof *c);
    p->file = im->file == PD_IMAGE_NONE ? NULL : unconst(pd_image_str(im, im->file));
#define PD_KEY_STRV(name, doc)                    take(im, PD_IL_##name, ptrs, &next, &p->name.v, &p->name.n);
#define PD_KEY_BOOL(name, def, doc)               p->name = im->scalars[PD_IS_##name].i != 0;
#define PD_KEY_INT(name, def, lo, hi, doc)        p->name = (long long)im->scalars[PD_IS_##name].i;
#define PD_KEY_FLOAT(name, def, doc)              p->name = im->scalars[PD_IS_##name].f;
#define PD_KEY_ENUM(name, ctype, def, parse, doc) p->name = (ctype)im->scalars[PD_IS_##name].i;
#include "policy/policy_keys.def"
    p->protected_paths_set = im->flags & PD_IMAGE_PROTECTED_PATHS_SET;
    p->timeout_sec_set = im->flags & PD_IMAGE_TIMEOUT_SEC_SET;
    c->policy = p;
    snprintf(c->workspace, sizeof c->workspace, "%s", pd_image_str(im, im->workspace));
    snprintf(c->home, sizeof c->home, "%s", pd_image_str(im, im->home));
    snprintf(c->path_env, sizeof c->path_env, "%s", pd_image_str(im, im->path_env));
    snprintf(c->go_tmp, sizeof c->go_tmp, "%s", pd_image_str(im, im->go_tmp));
    snprintf(c->temp_home, sizeof c->temp_home, "%s", pd_image_str(im, im->temp_home));
    snprintf(c->connect_helper, sizeof c->connect_helper, "%s",
             pd_image_str(im, im->connect_helper));
    take(im, PD_IL_ROOTS, ptrs, &next, &c->roots, &c->nroots);
    c->npolicy_roots = im->npolicy_roots;
    take(im, PD_IL_READ_ROOTS, ptrs, &next, &c->read_roots, &c->nread_roots);
    take(im, PD_IL_GIT_DIRS, ptrs, &next, &c->git_dirs, &c->ngit_dirs);
    c->git_dirs_known = im->flags & PD_IMAGE_GIT_DIRS_KNOWN;
    c->private_net = im->flags & PD_IMAGE_PRIVATE_NET;
    struct pd_kernel_grants unused;
    if (!g)
        g = &unused;
    memset(g, 0, sizeof *g);
    g->on = im->flags & PD_IMAGE_KERNEL;
    g->no_exec_writes = im->flags & PD_IMAGE_NO_EXEC_WRITES;
    take(im, PD_IL_KERNEL_EXEC, ptrs, &next, &g->exec.v, &g->exec.n);
    take(im, PD_IL_KERNEL_READ, ptrs, &next, &g->read.v, &g->read.n);
    take(im, PD_IL_KERNEL_WRITE, ptrs, &next, &g->write.v, &g->write.n);
    take(im, PD_IL_KERNEL_DEV, ptrs, &next, &g->dev.v, &g->dev.n);
    take(im, PD_IL_KERNEL_READONLY, ptrs, &next, &g->readonly.v, &g->readonly.n);
}
