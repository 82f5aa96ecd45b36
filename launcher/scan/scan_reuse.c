/* launcher/scan/scan_reuse.c - directory listings kept from one run to the next,
 * so that the walks before a run (the git check, scan_git.c, and the
 * snapshot, scan.c) read only the directories that changed since.
 *
 * What is kept, per directory of the trees: its device, inode, mtime and
 * ctime, and the entries a walk acts on: every subdirectory and symbolic
 * link, every name a policy pattern may deny (pd_names_maybe, the same
 * filter the snapshot applies), the names git looks for (HEAD, objects,
 * refs, commondir, .git) and names too long to check; in a directory the
 * policy denies, every entry. The other entries (the many plain files)
 * are never recorded by the snapshot, so no walk needs them. What a kept
 * entry stands for is judged again on every run (the gate, the git
 * check): only the listing is reused, never a verdict.
 *
 * Why a listing may be reused: adding, removing or renaming an entry moves
 * the directory's mtime and ctime, and no process can set a ctime back. A
 * directory with the recorded device, inode, mtime and ctime still has the
 * recorded entries, provided no change could have come after the listing
 * was read within the same tick of the file system's clock: a listing is
 * kept only when the directory's ctime is more than SETTLED seconds older
 * than the moment the run began (two seconds cover file systems with
 * whole- or two-second times); a younger directory is read again next
 * time. Files inside a reused directory can still change in place: the
 * snapshot stats every candidate file on every run, as before. Only local
 * file systems whose times come from this machine's clock (local_fs) are
 * trusted; on others (NFS, SMB, FUSE, 9p) every directory is read.
 *
 * Where the listings are kept, and why they can be trusted:
 * <cache base>/<name>-<id>.snap, beside the workspace's cache folder
 * (exec_cache.c), never inside it. A forged listing could hide a denied
 * file from the snapshot, and nothing short of reading the directories
 * again could tell, so the file is kept out of every run's reach instead
 * of verified: an isolated run may write its own cache folder but cannot
 * reach ~/.cache/paldron/ itself (Landlock grants it neither read nor
 * write). A run that could write the file (degraded mode, or a writable
 * root that covers it) neither reads nor writes it, and it is removed
 * before that run and again after it. On load: owned by the launcher's
 * user, one link, no group or other write, opened without following a
 * link; magic, format version, uid, the workspace's real path, device and
 * inode, a hash of what decides which entries are kept, a checksum of the
 * whole, and every record bounds-checked. Anything wrong: the file is
 * ignored, every directory is read, and a good file is written. What stays
 * trusted is the user's own account: a process outside Paldron (or one a
 * degraded run left running) that writes the file could as well write the
 * workspace or the policy. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"
#include "launcher/scan/scan_int.h"

#define VERSION   2u
#define SETTLED   2                   /* seconds; see the top comment */
#define FILE_MAX  ((size_t)256 << 20) /* a larger file is not read */
#define GIT_NAMES "HEAD\0objects\0refs\0commondir\0.git\0"

static const char magic[8] = {'P', 'D', 'S', 'N', 'A', 'P', '\n', '\0'};

/* The file: head, then ndirs records, each padded to 8 bytes. */
struct head {
    char magic[8];
    uint32_t version, uid;
    uint64_t ws_dev, ws_ino, ws_hash; /* the workspace's identity */
    uint64_t filter;                  /* what decides which entries are kept */
    uint64_t ndirs, len;              /* len: bytes after the head */
    uint64_t sum;                     /* FNV-1a 64 of those bytes */
};

struct rec_head {
    uint64_t dev, ino;
    int64_t msec, csec;
    uint32_t mnsec, cnsec;
    uint32_t plen, elen; /* the path (no NUL), then the entries */
    uint32_t full;       /* every entry, not only the kept ones */
    uint32_t nents;      /* how many entries the directory has */
};

/* One record in a buffer (the loaded file, or this run's arena). */
struct slot {
    size_t off; /* of its rec_head */
    uint64_t hash;
};

struct table {
    struct slot *v;
    size_t n, cap;
    uint32_t *index; /* slot + 1, 0 = empty; open addressing, at most half full */
    size_t nindex;
};

struct pd_scan_reuse {
    bool active;       /* listings are used and kept */
    bool unlink_after; /* the run could write the file: remove it after the run */
    bool changed;      /* this run's listings differ from the file's */
    int basefd;        /* ~/.cache/paldron (-1: none yet) */
    char name[PD_PATH_MAX];
    char real[PD_PATH_MAX]; /* real path of the file, for the writable roots check */
    struct timespec t0;     /* when the run began */
    struct names names;
    struct head id; /* what this run expects of a file */
    char *old;      /* the loaded file */
    struct table olds;
    char *arena; /* this run's records */
    size_t alen, acap;
    struct table news;
    size_t hits, reads;
    dev_t devs[8]; /* devices seen, and whether their times are trusted */
    bool dev_ok[8];
    size_t ndevs;
};

/* ---- small helpers --------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++) {
        h ^= p[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#define FNV0 0xcbf29ce484222325ULL

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static struct rec_head rec_at(const char *buf, size_t off)
{
    struct rec_head h;
    memcpy(&h, buf + off, sizeof h);
    return h;
}

static bool same_stat(const struct rec_head *h, const struct stat *st)
{
    return h->dev == (uint64_t)st->st_dev && h->ino == (uint64_t)st->st_ino &&
           h->msec == (int64_t)st->st_mtim.tv_sec && h->mnsec == (uint32_t)st->st_mtim.tv_nsec &&
           h->csec == (int64_t)st->st_ctim.tv_sec && h->cnsec == (uint32_t)st->st_ctim.tv_nsec;
}

/* ---- a table of records, by path -------------------------------------------- */

static bool table_grow(struct table *t)
{
    size_t n = t->nindex ? t->nindex * 2 : 256;
    uint32_t *index = calloc(n, sizeof *index);
    if (!index)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = (size_t)t->v[i].hash & (n - 1);
        while (index[j])
            j = (j + 1) & (n - 1);
        index[j] = (uint32_t)(i + 1);
    }
    free(t->index);
    t->index = index;
    t->nindex = n;
    return true;
}

static long table_find(const struct table *t, const char *buf, const char *path, size_t len,
                       uint64_t hash)
{
    if (!t->nindex)
        return -1;
    for (size_t j = (size_t)hash & (t->nindex - 1); t->index[j]; j = (j + 1) & (t->nindex - 1)) {
        size_t i = t->index[j] - 1;
        if (t->v[i].hash != hash)
            continue;
        struct rec_head h = rec_at(buf, t->v[i].off);
        if (h.plen == len && memcmp(buf + t->v[i].off + sizeof h, path, len) == 0)
            return (long)i;
    }
    return -1;
}

/* Add a slot (the caller checked that its path is not there). */
static bool table_add(struct table *t, size_t off, uint64_t hash)
{
    if (t->n >= UINT32_MAX - 1)
        return false;
    if ((t->n + 1) * 2 > t->nindex && !table_grow(t))
        return false;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        struct slot *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return false;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n] = (struct slot){off, hash};
    size_t j = (size_t)hash & (t->nindex - 1);
    while (t->index[j])
        j = (j + 1) & (t->nindex - 1);
    t->index[j] = (uint32_t)(t->n + 1);
    t->n++;
    return true;
}

static void table_free(struct table *t)
{
    free(t->v);
    free(t->index);
    memset(t, 0, sizeof *t);
}

/* ---- which entries are kept --------------------------------------------------- */

static bool git_name(const char *name)
{
    for (const char *g = GIT_NAMES; *g; g += strlen(g) + 1)
        if (strcmp(name, g) == 0)
            return true;
    return false;
}

static bool keep_entry(const struct pd_scan_reuse *r, unsigned char type, const char *name,
                       size_t nlen, size_t dirlen)
{
    return type == DT_DIR || type == DT_LNK || dirlen + 1 + nlen >= PD_PATH_MAX || git_name(name) ||
           pd_names_maybe(&r->names, name, nlen);
}

/* Everything the kept entries depend on besides the directory itself. */
static uint64_t filter_hash(const struct names *nm)
{
    const uint32_t v = VERSION, pmax = PD_PATH_MAX;
    uint64_t h = fnv(FNV0, &v, sizeof v);
    h = fnv(h, &pmax, sizeof pmax);
    h = fnv(h, GIT_NAMES, sizeof GIT_NAMES);
    h = fnv(h, &nm->always, sizeof nm->always);
    for (size_t k = 0; k < nm->n; k++) {
        const uint64_t len = nm->v[k].len;
        h = fnv(h, &nm->v[k].kind, sizeof nm->v[k].kind);
        h = fnv(h, &len, sizeof len);
        h = fnv(h, nm->v[k].s, nm->v[k].len);
    }
    return h;
}

/* ---- the file's place ------------------------------------------------------------ */

/* The real path of the file (its folder resolved through the descriptor). */
static bool real_path(struct pd_scan_reuse *r)
{
    char proc[64], dir[PD_PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", r->basefd);
    ssize_t n = readlink(proc, dir, sizeof dir - 1);
    if (n <= 0)
        return false;
    dir[n] = '\0';
    return (size_t)snprintf(r->real, sizeof r->real, "%s/%s", dir, r->name) < sizeof r->real;
}

static bool reachable(const struct pd_scan_reuse *r, const struct pd_ctx *ctx)
{
    for (size_t k = 0; k < ctx->nroots; k++)
        if (pd_path_under(r->real, ctx->roots[k]))
            return true;
    return false;
}

static void remove_file(struct pd_scan_reuse *r)
{
    if (r->basefd >= 0)
        (void)unlinkat(r->basefd, r->name, 0);
}

/* ---- loading ------------------------------------------------------------------ */

/* Check every record of the loaded file and index it; false: not usable. */
static bool parse(struct pd_scan_reuse *r, size_t size)
{
    struct head h;
    memcpy(&h, r->old, sizeof h);
    if (memcmp(h.magic, r->id.magic, sizeof h.magic) != 0 || h.version != r->id.version ||
        h.uid != r->id.uid || h.ws_dev != r->id.ws_dev || h.ws_ino != r->id.ws_ino ||
        h.ws_hash != r->id.ws_hash || h.filter != r->id.filter || h.len != size - sizeof h ||
        h.sum != fnv(FNV0, r->old + sizeof h, size - sizeof h))
        return false;
    size_t off = sizeof h;
    for (uint64_t k = 0; k < h.ndirs; k++) {
        if (size - off < sizeof(struct rec_head))
            return false;
        struct rec_head rh = rec_at(r->old, off);
        size_t body = off + sizeof rh;
        if (rh.plen == 0 || rh.plen >= PD_PATH_MAX || rh.full > 1 || size - body < rh.plen ||
            size - body - rh.plen < rh.elen || size - off < pad8(sizeof rh + rh.plen + rh.elen))
            return false;
        const char *path = r->old + body, *ents = path + rh.plen;
        if (path[0] != '/' || memchr(path, '\0', rh.plen))
            return false;
        /* entries: "<type><name>\0", a name without "/", not "." or ".." */
        for (size_t e = 0; e < rh.elen;) {
            const char *name = ents + e + 1;
            const char *end = memchr(name, '\0', rh.elen - e - 1);
            if (rh.elen - e < 3 || ents[e] == DT_UNKNOWN || !end || end == name ||
                memchr(name, '/', (size_t)(end - name)) || strcmp(name, ".") == 0 ||
                strcmp(name, "..") == 0)
                return false;
            e = (size_t)(end - ents) + 1;
        }
        uint64_t hash = fnv(FNV0, path, rh.plen);
        if (table_find(&r->olds, r->old, path, rh.plen, hash) >= 0 ||
            !table_add(&r->olds, off, hash))
            return false; /* a path twice, or out of memory */
        off += pad8(sizeof rh + rh.plen + rh.elen);
    }
    return off == size;
}

static void load(struct pd_scan_reuse *r)
{
    int fd = openat(r->basefd, r->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
        !(st.st_mode & 022) && (size_t)st.st_size >= sizeof(struct head) &&
        (size_t)st.st_size <= FILE_MAX && (r->old = malloc((size_t)st.st_size))) {
        size_t size = (size_t)st.st_size, got = 0;
        while (got < size) {
            ssize_t n = read(fd, r->old + got, size - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        if (got != size || !parse(r, size)) {
            table_free(&r->olds);
            free(r->old);
            r->old = NULL;
        }
    }
    close(fd);
}

struct pd_scan_reuse *pd_scan_reuse_open(const struct pd_ctx *ctx, bool isolated)
{
    struct pd_scan_reuse *r = calloc(1, sizeof *r);
    char dir[PD_PATH_MAX];
    struct stat st;
    if (!r)
        return NULL;
    r->basefd = -1;
    clock_gettime(CLOCK_REALTIME_COARSE, &r->t0);
    if (pd_cache_dir(ctx->workspace, dir, sizeof dir, NULL, 0) != 0 ||
        stat(ctx->workspace, &st) != 0)
        return r; /* no place for the file: every directory is read */
    char *slash = strrchr(dir, '/');
    if ((size_t)snprintf(r->name, sizeof r->name, "%s.snap", slash + 1) >= sizeof r->name)
        return r;
    *slash = '\0';
    r->basefd = pd_cache_base_open(dir);
    if (r->basefd >= 0 && !real_path(r)) {
        close(r->basefd);
        r->basefd = -1;
    }
    if (!isolated || (r->basefd >= 0 && reachable(r, ctx))) {
        /* this run could write the file: never read it, and remove it
         * before the run and after (pd_scan_compare) */
        remove_file(r);
        r->unlink_after = true;
        return r;
    }
    if (pd_names_init(&r->names, ctx) != 0)
        return r;
    memcpy(r->id.magic, magic, sizeof magic);
    r->id.version = VERSION;
    r->id.uid = (uint32_t)geteuid();
    r->id.ws_dev = (uint64_t)st.st_dev;
    r->id.ws_ino = (uint64_t)st.st_ino;
    r->id.ws_hash = fnv(FNV0, ctx->workspace, strlen(ctx->workspace));
    r->id.filter = filter_hash(&r->names);
    r->active = true;
    if (r->basefd >= 0)
        load(r);
    r->changed = r->olds.n == 0;
    return r;
}

/* ---- listings -------------------------------------------------------------------- */

/* May the times of the file system holding fd (device dev) be trusted? */
static bool local_fs(struct pd_scan_reuse *r, int fd, dev_t dev)
{
    for (size_t k = 0; k < r->ndevs; k++)
        if (r->devs[k] == dev)
            return r->dev_ok[k];
    struct statfs sf;
    bool ok = false;
    if (fstatfs(fd, &sf) == 0) {
        switch ((unsigned long)sf.f_type) {
        case 0xEF53UL:     /* ext2, ext3, ext4 */
        case 0x58465342UL: /* xfs */
        case 0x9123683EUL: /* btrfs */
        case 0x01021994UL: /* tmpfs */
        case 0x794C7630UL: /* overlayfs */
        case 0xF2F52010UL: /* f2fs */
        case 0x2FC12FC1UL: /* zfs */
        case 0xCA451A4EUL: /* bcachefs */
            ok = true;
            break;
        default:
            break;
        }
    }
    if (r->ndevs < sizeof r->devs / sizeof r->devs[0]) {
        r->devs[r->ndevs] = dev;
        r->dev_ok[r->ndevs++] = ok;
    }
    return ok;
}

static bool settled(const struct pd_scan_reuse *r, const struct stat *st)
{
    const time_t limit = r->t0.tv_sec - SETTLED;
    return st->st_ctim.tv_sec < limit ||
           (st->st_ctim.tv_sec == limit && st->st_ctim.tv_nsec < r->t0.tv_nsec);
}

static bool arena_reserve(struct pd_scan_reuse *r, size_t n)
{
    if (r->alen + n <= r->acap)
        return true;
    size_t cap = r->acap ? r->acap * 2 : 65536;
    while (cap < r->alen + n)
        cap *= 2;
    char *a = realloc(r->arena, cap);
    if (!a)
        return false;
    r->arena = a;
    r->acap = cap;
    return true;
}

/* Append a record to this run's arena and index it (replacing one for the
 * same path). On failure the run keeps nothing (a partial file would be
 * as good, but a silent gap is not worth the thought). */
static void keep_record(struct pd_scan_reuse *r, const struct rec_head *rh, const char *path,
                        const char *ents, uint64_t hash)
{
    size_t size = pad8(sizeof *rh + rh->plen + rh->elen);
    if (!arena_reserve(r, size)) {
        r->active = false;
        return;
    }
    size_t off = r->alen;
    memset(r->arena + off, 0, size);
    memcpy(r->arena + off, rh, sizeof *rh);
    memcpy(r->arena + off + sizeof *rh, path, rh->plen);
    if (rh->elen) /* ents may be NULL for an empty listing */
        memcpy(r->arena + off + sizeof *rh + rh->plen, ents, rh->elen);
    r->alen += size;
    long i = table_find(&r->news, r->arena, path, rh->plen, hash);
    if (i >= 0)
        r->news.v[i].off = off;
    else if (!table_add(&r->news, off, hash))
        r->active = false;
}

static int copy_entries(struct pd_entries *out, const char *ents, size_t len)
{
    out->len = 0;
    if (len == 0) /* an empty listing: out->buf may still be NULL */
        return 0;
    if (out->cap < len) {
        char *nb = realloc(out->buf, len);
        if (!nb)
            return -1;
        out->buf = nb;
        out->cap = len;
    }
    memcpy(out->buf, ents, len);
    out->len = len;
    return 0;
}

/* The listing read now, reduced to what is kept (types resolved); false
 * when it cannot be kept. */
static bool reduce(const struct pd_scan_reuse *r, int fd, size_t dirlen, bool full,
                   const struct pd_entries *all, struct pd_entries *kept)
{
    for (size_t off = 0; off < all->len;) {
        unsigned char type = (unsigned char)all->buf[off];
        const char *name = all->buf + off + 1;
        size_t nlen = strlen(name);
        off += nlen + 2;
        if (type == DT_UNKNOWN) {
            struct stat cst;
            if (fstatat(fd, name, &cst, AT_SYMLINK_NOFOLLOW) != 0)
                return false; /* gone already: the directory changed */
            type = S_ISDIR(cst.st_mode)    ? DT_DIR
                   : S_ISLNK(cst.st_mode)  ? DT_LNK
                   : S_ISREG(cst.st_mode)  ? DT_REG
                   : S_ISFIFO(cst.st_mode) ? DT_FIFO
                   : S_ISSOCK(cst.st_mode) ? DT_SOCK
                   : S_ISCHR(cst.st_mode)  ? DT_CHR
                                           : DT_BLK;
        }
        if ((full || keep_entry(r, type, name, nlen, dirlen)) &&
            pd_entries_add(kept, type, name, nlen) != 0)
            return false;
    }
    return true;
}

/* How many entries a listing read by pd_read_entries holds. */
static uint32_t count_entries(const struct pd_entries *e)
{
    uint32_t n = 0;
    for (size_t off = 0; off < e->len; n++)
        off += strlen(e->buf + off + 1) + 2;
    return n;
}

/* pd_read_entries, and *nents its count. */
static int read_counted(int fd, struct pd_entries *out, size_t *nents)
{
    int rc = pd_read_entries(fd, out);
    *nents = count_entries(out);
    return rc;
}

int pd_reuse_entries(struct pd_scan_reuse *r, int fd, const char *path, size_t len,
                     const struct stat *st, bool need_full, bool may_keep, struct pd_entries *out,
                     size_t *nents)
{
    if (!r || !r->active || !local_fs(r, fd, st->st_dev))
        return read_counted(fd, out, nents);
    const uint64_t hash = fnv(FNV0, path, len);
    long i = table_find(&r->news, r->arena, path, len, hash);
    if (i >= 0) { /* the other walk of this run read or reused it */
        struct rec_head rh = rec_at(r->arena, r->news.v[i].off);
        if (same_stat(&rh, st) && (rh.full || !need_full)) {
            *nents = rh.nents;
            return copy_entries(out, r->arena + r->news.v[i].off + sizeof rh + rh.plen, rh.elen);
        }
    }
    i = table_find(&r->olds, r->old, path, len, hash);
    if (i >= 0) {
        struct rec_head rh = rec_at(r->old, r->olds.v[i].off);
        const char *ents = r->old + r->olds.v[i].off + sizeof rh + rh.plen;
        if (same_stat(&rh, st) && (rh.full || !need_full)) {
            r->hits++;
            keep_record(r, &rh, path, ents, hash);
            *nents = rh.nents;
            return copy_entries(out, ents, rh.elen);
        }
    }
    r->reads++;
    if (read_counted(fd, out, nents) != 0)
        return -1;
    if (!may_keep || !settled(r, st))
        return 0;
    struct pd_entries kept = {0};
    if (reduce(r, fd, len, need_full, out, &kept) && kept.len < UINT32_MAX) {
        struct rec_head rh = {.dev = (uint64_t)st->st_dev,
                              .ino = (uint64_t)st->st_ino,
                              .msec = (int64_t)st->st_mtim.tv_sec,
                              .csec = (int64_t)st->st_ctim.tv_sec,
                              .mnsec = (uint32_t)st->st_mtim.tv_nsec,
                              .cnsec = (uint32_t)st->st_ctim.tv_nsec,
                              .plen = (uint32_t)len,
                              .elen = (uint32_t)kept.len,
                              .full = need_full,
                              .nents = (uint32_t)*nents};
        keep_record(r, &rh, path, kept.buf ? kept.buf : "", hash);
        r->changed = true;
    }
    free(kept.buf);
    return 0;
}

/* ---- saving ------------------------------------------------------------------------ */

static bool write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

bool pd_reuse_put_file(int basefd, const char *name, const void *buf, size_t len)
{
    /* a new file renamed over the old one: a reader sees one or the other
     * whole, and the name never stands for an inode someone linked before */
    char tmp[PD_PATH_MAX + 32];
    if ((size_t)snprintf(tmp, sizeof tmp, ".%s.%ld", name, (long)getpid()) >= sizeof tmp)
        return false;
    int fd = openat(basefd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = write_all(fd, buf, len);
    ok = close(fd) == 0 && ok;
    if (ok && renameat(basefd, tmp, basefd, name) == 0)
        return true;
    (void)unlinkat(basefd, tmp, 0);
    return false;
}

static void save(struct pd_scan_reuse *r)
{
    size_t len = 0;
    for (size_t k = 0; k < r->news.n; k++) {
        struct rec_head rh = rec_at(r->arena, r->news.v[k].off);
        len += pad8(sizeof rh + rh.plen + rh.elen);
    }
    char *buf = malloc(sizeof(struct head) + len);
    if (!buf)
        return;
    size_t off = sizeof(struct head);
    for (size_t k = 0; k < r->news.n; k++) {
        struct rec_head rh = rec_at(r->arena, r->news.v[k].off);
        size_t size = pad8(sizeof rh + rh.plen + rh.elen);
        memcpy(buf + off, r->arena + r->news.v[k].off, size);
        off += size;
    }
    struct head h = r->id;
    h.ndirs = r->news.n;
    h.len = len;
    h.sum = fnv(FNV0, buf + sizeof h, len);
    memcpy(buf, &h, sizeof h);
    (void)pd_reuse_put_file(r->basefd, r->name, buf, sizeof h + len);
    free(buf);
}

void pd_reuse_finish(struct pd_scan_reuse *r, const struct pd_ctx *ctx)
{
    if (!r)
        return;
    const char *debug = getenv("PALDRON_DEBUG");
    if (debug && strcmp(debug, "scan") == 0)
        pd_err("scan: %zu directories listed from the last run's snapshot, %zu read%s", r->hits,
               r->reads, r->active ? "" : " (no snapshot kept for this run)");
    if (!r->active)
        return;
    if (r->basefd < 0) {
        /* the cache folder was made after the file was looked for */
        char dir[PD_PATH_MAX];
        if (pd_cache_dir(ctx->workspace, dir, sizeof dir, NULL, 0) != 0)
            return;
        *strrchr(dir, '/') = '\0';
        r->basefd = pd_cache_base_open(dir);
        if (r->basefd < 0 || !real_path(r))
            return;
    }
    if (reachable(r, ctx)) {
        /* a writable root added since covers the file */
        remove_file(r);
        r->unlink_after = true;
        return;
    }
    if (r->changed || r->news.n != r->olds.n)
        save(r);
}

void pd_reuse_after_run(struct pd_scan_reuse *r)
{
    if (r && r->unlink_after)
        remove_file(r);
}

int pd_scan_reuse_basefd(const struct pd_scan_reuse *r)
{
    return r ? r->basefd : -1;
}

bool pd_scan_reuse_sibling(const struct pd_scan_reuse *r, const char *ext, char *out, size_t len)
{
    size_t n = r && r->active && r->basefd >= 0 ? strlen(r->name) : 0;
    if (n < 5 || strcmp(r->name + n - 5, ".snap") != 0 ||
        (size_t)snprintf(out, len, "%.*s%s", (int)(n - 5), r->name, ext) >= len)
        return false;
    return true;
}

size_t pd_scan_reuse_hits(const struct pd_scan_reuse *r)
{
    return r ? r->hits : 0;
}

void pd_scan_reuse_free(struct pd_scan_reuse *r)
{
    if (!r)
        return;
    if (r->basefd >= 0)
        close(r->basefd);
    pd_names_free(&r->names);
    table_free(&r->olds);
    table_free(&r->news);
    free(r->old);
    free(r->arena);
    free(r);
}
