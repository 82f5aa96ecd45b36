/* launcher/exec/exec_valgrind.c - paldron exec with the launcher under valgrind
 * memcheck (CI: tests/valgrind/run.sh). Valgrind runs the launcher, not the
 * kernel layers: it knows neither the Landlock system calls (their probe
 * gets ENOSYS) nor seccomp(2), and a filter loaded under it would judge
 * valgrind's own calls. So under valgrind the launcher does everything it
 * always does, and the two steps that need the kernel's layers are made by
 * the launcher's own binary run natively (valgrind does not follow an
 * exec without --trace-children):
 *   the probe     the parent forks `paldron __probe FD`, which writes
 *                 pd_platform_probe's answer into the memfd FD;
 *   the last step the child, its session, descriptors and directory set,
 *                 writes what pd_exec_last_step needs (the spec, platform
 *                 info, fence, program, argv, environment, the descriptors
 *                 it uses) into a memfd, seals it, and execs
 *                 `paldron __sandbox FD`, which reads it back and makes
 *                 pd_exec_last_step: the same layers, in the same order,
 *                 checked the same way, in the same process (same pid, so
 *                 the launcher's supervision does not change).
 * The namespace report page is a memfd in this mode (exec_ns.c): an
 * anonymous shared page does not survive the exec. The command itself never
 * runs under valgrind, and neither does its live gate.
 *
 * Without valgrind none of this runs: the one cost is the getenv of
 * pd_exec_under_valgrind. Any failure of the hand-off ends the run before
 * the command starts ("<step>: <error>" on the error pipe, exit 127, the
 * launcher exits 1), never in a command with fewer layers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

#define MAGIC         "PDVG"
#define FORMAT        1u
#define SANDBOX_MEMFD "paldron-sandbox"
#define PROBE_MEMFD   "paldron-probe"
/* All four seals: the message cannot change once the child has written it. */
#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)
/* Bounds of what the stage accepts: argv and the environment are bounded by
 * the kernel's own limit on exec arguments well below these. */
#define MESSAGE_MAX ((size_t)64 << 20)
#define LIST_MAX    ((uint64_t)1 << 20)
#define NONE        UINT64_MAX /* a NULL string or list */

/* Every field of these structures is handed off (put_spec, get_spec,
 * put_last, get_last): a field added to one of them must be added there
 * too, and changes these sizes (LP64), so that it cannot be forgotten and
 * leave the native stage with fewer layers than the spec says. */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct pd_sandbox_spec) == 248, "hand off the new spec field");
_Static_assert(sizeof(struct pd_ns_spec) == 120, "hand off the new namespace field");
_Static_assert(sizeof(struct pd_ns_join) == 16, "hand off the new join field");
_Static_assert(sizeof(struct pd_ns_listen) == 16, "hand off the new listener field");
_Static_assert(sizeof(struct pd_limits) == 40, "hand off the new limit");
_Static_assert(sizeof(struct pd_keep) == 16, "hand off the new keep field");
_Static_assert(sizeof(struct pd_fence) == 24, "hand off the new fence field");
_Static_assert(sizeof(struct pd_exec_last) == 72, "hand off the new last-step field");
#endif

bool pd_exec_under_valgrind(void)
{
    static int on = -1;
    if (on >= 0)
        return on == 1;
    on = 0;
    /* valgrind puts its vgpreload_core and vgpreload_<tool> libraries into
     * the environment of every program it runs */
    const char *s = getenv("LD_PRELOAD");
    while (s && *s) {
        size_t n = strcspn(s, ": ");
        const char *base = s;
        for (size_t k = 0; k < n; k++)
            if (s[k] == '/')
                base = s + k + 1;
        if ((size_t)(s + n - base) > 10 && strncmp(base, "vgpreload_", 10) == 0)
            on = 1;
        s += n;
        s += strspn(s, ": ");
    }
    return on == 1;
}

/* ---- writing the message (the child) ------------------------------------
 * The child may not allocate (normally it shares the launcher's memory; a
 * child of valgrind is a plain fork, but the code does not depend on it):
 * the fields go through a buffer on its stack into the memfd. */

struct enc {
    int fd;
    bool bad;
    int err; /* errno of the write that failed */
    size_t n;
    char buf[16384];
};

static void enc_flush(struct enc *e)
{
    for (size_t off = 0; off < e->n && !e->bad;) {
        ssize_t w = write(e->fd, e->buf + off, e->n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e->bad = true;
            e->err = w < 0 ? errno : EIO;
            break;
        }
        off += (size_t)w;
    }
    e->n = 0;
}

static void put(struct enc *e, const void *data, size_t n)
{
    const char *s = data;
    while (n > 0 && !e->bad) {
        if (e->n == sizeof e->buf)
            enc_flush(e);
        size_t k = sizeof e->buf - e->n;
        if (k > n)
            k = n;
        memcpy(e->buf + e->n, s, k);
        e->n += k;
        s += k;
        n -= k;
    }
}

static void put_u64(struct enc *e, uint64_t v)
{
    put(e, &v, sizeof v);
}

static void put_i64(struct enc *e, int64_t v)
{
    put(e, &v, sizeof v);
}

static void put_str(struct enc *e, const char *s)
{
    if (!s) {
        put_u64(e, NONE);
        return;
    }
    size_t n = strlen(s);
    put_u64(e, n);
    put(e, s, n + 1);
}

static void put_paths(struct enc *e, const struct pd_path_list *l)
{
    put_u64(e, l->n);
    for (size_t k = 0; k < l->n; k++)
        put_str(e, l->v[k]);
}

/* A NULL-terminated vector (argv, an environment); NULL itself as NONE. */
static void put_vec(struct enc *e, char *const *v)
{
    if (!v) {
        put_u64(e, NONE);
        return;
    }
    size_t n = 0;
    while (v[n])
        n++;
    put_u64(e, n);
    for (size_t k = 0; k < n; k++)
        put_str(e, v[k]);
}

static void put_limits(struct enc *e, const struct pd_limits *l)
{
    put_u64(e, l->cpu_sec);
    put_u64(e, l->mem_bytes);
    put_u64(e, l->nproc);
    put_u64(e, l->fsize_bytes);
    put_u64(e, l->nofile);
}

static void put_header(struct enc *e)
{
    put(e, MAGIC, 4);
    put_u64(e, FORMAT);
    /* the stage is the same binary; these catch one rebuilt in between */
    put_u64(e, sizeof(struct pd_platform_info));
    put_u64(e, sizeof(struct pd_sandbox_spec));
    put_u64(e, sizeof(struct pd_ns_report));
}

static void put_spec(struct enc *e, const struct pd_sandbox_spec *s, int report_fd)
{
    const struct pd_ns_spec *ns = &s->ns;
    put_paths(e, &s->exec_paths);
    put_paths(e, &s->read_paths);
    put_paths(e, &s->write_paths);
    put_paths(e, &s->dev_paths);
    put_paths(e, &s->list_paths);
    put_u64(e, s->no_exec_writes);
    put_u64(e, s->allow_network);
    put_u64(e, s->shm_private);
    put_u64(e, ns->enable);
    put_u64(e, ns->require);
    put_str(e, ns->require_why);
    put_u64(e, ns->listen != NULL);
    if (ns->listen) {
        put_i64(e, ns->listen->chan);
        put_u64(e, ns->listen->proxy_port);
        put_str(e, ns->listen->resolv_conf);
    }
    put_str(e, ns->workdir);
    put_u64(e, ns->nkeep);
    for (size_t k = 0; k < ns->nkeep; k++) {
        put_str(e, ns->keep[k].path);
        put_u64(e, (uint64_t)ns->keep[k].mode);
    }
    put_paths(e, &ns->hide);
    put_paths(e, &ns->readonly);
    put_paths(e, &ns->sockets);
    put_u64(e, ns->join.on);
    if (ns->join.on) {
        put_u64(e, ns->join.user);
        put_u64(e, ns->join.net);
        put_i64(e, ns->join.user_fd);
        put_i64(e, ns->join.net_fd);
        put_i64(e, ns->join.ipc_fd);
    }
    put_i64(e, ns->report ? report_fd : -1);
    put_limits(e, &s->limits);
}

/* The last step, in the order get_last reads it. errfd comes first: a
 * message damaged after it can still be reported where the launcher
 * reads. */
static void put_last(struct enc *e, const struct pd_exec_last *l, int errfd, int report_fd)
{
    put_header(e);
    put_i64(e, errfd);
    put_u64(e, l->isolated);
    put_limits(e, l->limits);
    put_i64(e, (int64_t)l->fence->after.tv_sec);
    put_i64(e, (int64_t)l->fence->after.tv_nsec);
    put_u64(e, l->fence->coarse_fs);
    put_str(e, l->program);
    put_vec(e, l->argv);
    put_vec(e, l->envp);
    put_vec(e, l->ns_envp);
    if (l->isolated) {
        if (!l->info || !l->spec) { /* an isolated run always has both */
            e->bad = true;
            e->err = EINVAL;
            return;
        }
        put(e, l->info, sizeof *l->info);
        put_spec(e, l->spec, report_fd);
    }
}

/* fd stays open across the exec of the stage (every descriptor above 2 is
 * close-on-exec by now: pd_exec_cloexec_from_3). */
static int keep_open(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

static void decimal(int v, char *out, size_t len)
{
    char tmp[16];
    size_t n = 0;
    unsigned u = (unsigned)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0 && n < sizeof tmp);
    size_t k = 0;
    while (n > 0 && k + 1 < len)
        out[k++] = tmp[--n];
    out[k] = '\0';
}

void pd_exec_valgrind_handoff(const struct pd_exec_plan *p, const struct pd_exec_last *l, int errfd)
{
    const char *step = "valgrind hand-off";
    const struct pd_ns_spec *ns = l->isolated ? &l->spec->ns : NULL;
    /* the report page must be the memfd the launcher maps (exec_ns.c) */
    if (ns && ns->report && (!p->ns.report_memfd || ns->report != p->ns.report))
        pd_exec_fail(errfd, step, NULL, 0, "the namespace report is not in a memfd");
    const int report_fd = ns && ns->report ? p->ns.report_fd : -1;
    /* not close-on-exec: the stage reads it, then closes it */
    int fd = memfd_create(SANDBOX_MEMFD, MFD_ALLOW_SEALING);
    if (fd < 0)
        pd_exec_fail(errfd, step, "memfd", errno, NULL);
    struct enc e = {.fd = fd};
    put_last(&e, l, errfd, report_fd);
    enc_flush(&e);
    if (e.bad)
        pd_exec_fail(errfd, step, "write", e.err, NULL);
    if (fcntl(fd, F_ADD_SEALS, SEALS) != 0)
        pd_exec_fail(errfd, step, "seal", errno, NULL);
    const struct pd_ns_join *j = ns && ns->join.on ? &ns->join : NULL;
    if (keep_open(errfd) != 0 || (report_fd >= 0 && keep_open(report_fd) != 0) ||
        (ns && ns->listen && keep_open(ns->listen->chan) != 0) ||
        (j && ((j->user_fd >= 0 && keep_open(j->user_fd) != 0) ||
               (j->net_fd >= 0 && keep_open(j->net_fd) != 0) || keep_open(j->ipc_fd) != 0)))
        pd_exec_fail(errfd, step, "keep descriptors", errno, NULL);
    /* valgrind answers for /proc/self/exe with the program it runs */
    char self[PD_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        pd_exec_fail(errfd, step, "/proc/self/exe", n < 0 ? errno : ENOENT, NULL);
    self[n] = '\0';
    char fdarg[16];
    decimal(fd, fdarg, sizeof fdarg);
    char *const argv[] = {self, (char *)"__sandbox", fdarg, NULL};
    char *const envp[] = {NULL}; /* everything the stage needs is in the memfd */
    execve(self, argv, envp);
    pd_exec_fail(errfd, step, "execve", errno, NULL);
}

/* ---- the descriptor of a hidden command ---------------------------------- */

/* The memfd named name that argv[0] names, or NULL with *why set. */
static int handed_fd(int argc, char **argv, const char *name, const char **why)
{
    *why = "takes the descriptor of a memfd that paldron exec made; it is not for use by hand";
    if (argc != 1 || !argv[0][0])
        return -1;
    char *end;
    errno = 0;
    long v = strtol(argv[0], &end, 10);
    if (errno || *end || v < 3 || v > INT_MAX)
        return -1;
    int fd = (int)v;
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) {
        *why = "no such descriptor: it takes the descriptor of a memfd that paldron exec made";
        return -1;
    }
    target[n] = '\0';
    /* "/memfd:NAME (deleted)" */
    size_t len = strlen(name);
    if (strncmp(target, "/memfd:", 7) != 0 || strncmp(target + 7, name, len) != 0 ||
        (target[7 + len] != '\0' && target[7 + len] != ' ')) {
        *why = "the descriptor is not a memfd of paldron exec";
        return -1;
    }
    return fd;
}

/* ---- reading the message (the native stage) -----------------------------
 * A native process of its own: it may allocate. What it allocates lives
 * until the execve replaces it. */

/* p is mapped read-only; it is not const only because execve takes char *. */
struct dec {
    char *p;
    size_t n, at;
    bool bad;
};

static void take(struct dec *d, void *out, size_t n)
{
    if (d->bad || n > d->n - d->at) {
        d->bad = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, d->p + d->at, n);
    d->at += n;
}

static uint64_t get_u64(struct dec *d)
{
    uint64_t v;
    take(d, &v, sizeof v);
    return v;
}

static int64_t get_i64(struct dec *d)
{
    int64_t v;
    take(d, &v, sizeof v);
    return v;
}

static bool get_bool(struct dec *d)
{
    uint64_t v = get_u64(d);
    if (v > 1)
        d->bad = true;
    return v == 1;
}

/* A descriptor number; -1 allowed when optional. */
static int get_fd(struct dec *d, bool optional)
{
    int64_t v = get_i64(d);
    if (v == -1 && optional)
        return -1;
    if (v < 0 || v > INT_MAX) {
        d->bad = true;
        return -1;
    }
    return (int)v;
}

/* A string pointing into the message, or NULL: *none when the sender
 * wrote NULL, else damage (d->bad). */
static char *get_str_or_none(struct dec *d, bool *none)
{
    uint64_t n = get_u64(d);
    *none = !d->bad && n == NONE;
    if (d->bad || *none)
        return NULL;
    if (n >= d->n - d->at || memchr(d->p + d->at, '\0', (size_t)n) ||
        d->p[d->at + (size_t)n] != '\0') {
        d->bad = true;
        return NULL;
    }
    char *s = d->p + d->at;
    d->at += (size_t)n + 1;
    return s;
}

static const char *get_str(struct dec *d)
{
    bool none;
    return get_str_or_none(d, &none);
}

/* n strings into a new NULL-terminated array; NULL entries allowed only
 * where the sender may have them (path lists). *none: the list was NULL. */
static char **get_strs(struct dec *d, bool null_entries, size_t *count, bool *none)
{
    uint64_t n = get_u64(d);
    *count = 0;
    *none = !d->bad && n == NONE;
    /* every entry takes at least 8 bytes: a count beyond that is damage */
    if (d->bad || *none || n > LIST_MAX || n > (d->n - d->at) / 8) {
        d->bad = d->bad || !*none;
        return NULL;
    }
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        d->bad = true;
        return NULL;
    }
    for (size_t k = 0; k < n && !d->bad; k++) {
        bool null;
        v[k] = get_str_or_none(d, &null);
        if (null && !null_entries)
            d->bad = true;
    }
    *count = (size_t)n;
    return v;
}

static char **get_vec(struct dec *d)
{
    size_t n;
    bool none;
    char **v = get_strs(d, false, &n, &none);
    return none ? NULL : v;
}

static struct pd_path_list get_paths(struct dec *d)
{
    size_t n;
    bool none;
    char **v = get_strs(d, true, &n, &none);
    if (none) /* the sender always has a list, maybe empty */
        d->bad = true;
    return (struct pd_path_list){(const char *const *)v, v ? n : 0};
}

static void get_limits(struct dec *d, struct pd_limits *l)
{
    l->cpu_sec = get_u64(d);
    l->mem_bytes = get_u64(d);
    l->nproc = get_u64(d);
    l->fsize_bytes = get_u64(d);
    l->nofile = get_u64(d);
}

/* The stage's copy of everything the last step points to. */
struct stage {
    struct pd_exec_last last;
    struct pd_sandbox_spec spec;
    struct pd_platform_info info;
    struct pd_limits limits;
    struct pd_fence fence;
    struct pd_ns_listen listen;
    int errfd, report_fd;
};

static bool get_header(struct dec *d)
{
    char magic[4];
    take(d, magic, sizeof magic);
    return !d->bad && memcmp(magic, MAGIC, 4) == 0 && get_u64(d) == FORMAT &&
           get_u64(d) == sizeof(struct pd_platform_info) &&
           get_u64(d) == sizeof(struct pd_sandbox_spec) &&
           get_u64(d) == sizeof(struct pd_ns_report) && !d->bad;
}

static void get_spec(struct dec *d, struct stage *st)
{
    struct pd_sandbox_spec *s = &st->spec;
    struct pd_ns_spec *ns = &s->ns;
    s->exec_paths = get_paths(d);
    s->read_paths = get_paths(d);
    s->write_paths = get_paths(d);
    s->dev_paths = get_paths(d);
    s->list_paths = get_paths(d);
    s->no_exec_writes = get_bool(d);
    s->allow_network = get_bool(d);
    s->shm_private = get_bool(d);
    ns->enable = get_bool(d);
    ns->require = get_bool(d);
    ns->require_why = get_str(d);
    if (get_bool(d)) {
        st->listen.chan = get_fd(d, false);
        uint64_t port = get_u64(d);
        if (port > UINT16_MAX)
            d->bad = true;
        st->listen.proxy_port = (uint16_t)port;
        st->listen.resolv_conf = get_str(d);
        ns->listen = &st->listen;
    }
    ns->workdir = get_str(d);
    uint64_t nkeep = get_u64(d);
    if (d->bad || nkeep > PD_NS_KEEP_MAX) {
        d->bad = true;
        return;
    }
    struct pd_keep *keep = calloc((size_t)nkeep + 1, sizeof *keep);
    if (!keep) {
        d->bad = true;
        return;
    }
    for (size_t k = 0; k < nkeep; k++) {
        keep[k].path = get_str(d);
        uint64_t mode = get_u64(d);
        if (mode > PD_KEEP_WRITE)
            d->bad = true;
        keep[k].mode = (enum pd_keep_mode)mode;
    }
    ns->keep = keep;
    ns->nkeep = (size_t)nkeep;
    ns->hide = get_paths(d);
    ns->readonly = get_paths(d);
    ns->sockets = get_paths(d);
    ns->join.on = get_bool(d);
    if (ns->join.on) {
        ns->join.user = get_bool(d);
        ns->join.net = get_bool(d);
        ns->join.user_fd = get_fd(d, true);
        ns->join.net_fd = get_fd(d, true);
        ns->join.ipc_fd = get_fd(d, false);
    }
    st->report_fd = get_fd(d, true);
    get_limits(d, &s->limits);
}

static void get_last(struct dec *d, struct stage *st)
{
    struct pd_exec_last *l = &st->last;
    l->isolated = get_bool(d);
    get_limits(d, &st->limits);
    l->limits = &st->limits;
    int64_t sec = get_i64(d), nsec = get_i64(d);
    if (nsec < 0 || nsec >= 1000000000)
        d->bad = true;
    st->fence.after.tv_sec = (time_t)sec;
    st->fence.after.tv_nsec = (long)nsec;
    st->fence.coarse_fs = get_bool(d);
    l->fence = &st->fence;
    l->program = get_str(d);
    l->argv = get_vec(d);
    l->envp = get_vec(d);
    l->ns_envp = get_vec(d);
    if (!l->program || !l->argv || !l->envp)
        d->bad = true;
    st->report_fd = -1;
    if (l->isolated) {
        take(d, &st->info, sizeof st->info);
        st->info.landlock_error[sizeof st->info.landlock_error - 1] = '\0';
        get_spec(d, st);
        l->info = &st->info;
        l->spec = &st->spec;
    }
    if (d->at != d->n) /* nothing more, nothing less */
        d->bad = true;
}

/* The report page the launcher reads, mapped again from its memfd. */
static struct pd_ns_report *map_report(int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        sb.st_size != (off_t)sizeof(struct pd_ns_report))
        return NULL;
    void *page = mmap(NULL, sizeof(struct pd_ns_report), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    // cppcheck-suppress memleak ; the caller keeps the page until its execve
    return page == MAP_FAILED ? NULL : page;
}

/* The sealed message of fd mapped into *d, its error pipe into st->errfd.
 * NULL, or why not. */
static const char *open_message(int fd, struct dec *d, struct stage *st)
{
    struct stat sb;
    if (fcntl(fd, F_GET_SEALS) != SEALS || fstat(fd, &sb) != 0 || sb.st_size <= 0 ||
        (size_t)sb.st_size > MESSAGE_MAX)
        return "the memfd is not a sealed message of paldron exec";
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return "cannot map the memfd";
    *d = (struct dec){m, (size_t)sb.st_size, 0, false};
    const char *why = NULL;
    if (!get_header(d)) {
        why = "the memfd does not hold a message of this paldron";
    } else {
        st->errfd = get_fd(d, false);
        if (d->bad || fcntl(st->errfd, F_GETFD) < 0)
            why = "the message names no open error pipe";
    }
    if (why) {
        munmap(m, (size_t)sb.st_size);
        *d = (struct dec){0};
    }
    // cppcheck-suppress memleak ; on success the mapping is *d's until the execve
    return why;
}

int pd_cmd_sandbox_stage(int argc, char **argv)
{
    const char *why;
    struct dec d = {0};
    struct stage *st = calloc(1, sizeof *st);
    int fd = handed_fd(argc, argv, SANDBOX_MEMFD, &why);
    if (fd >= 0)
        why = st ? open_message(fd, &d, st) : "out of memory";
    if (why) {
        pd_err("__sandbox: %s", why);
        free(st);
        return PD_EXIT_BROKEN;
    }
    close(fd);
    /* From here the launcher reads the error pipe: a failure is said there
     * and ends the run before the command starts. */
    const char *step = "valgrind hand-off";
    get_last(&d, st);
    if (d.bad)
        pd_exec_fail(st->errfd, step, NULL, 0, "a damaged message");
    if (st->report_fd >= 0) {
        struct pd_ns_report *r = map_report(st->report_fd);
        if (!r)
            pd_exec_fail(st->errfd, step, NULL, 0, "cannot map the namespace report");
        st->spec.ns.report = r;
        close(st->report_fd);
    }
    /* as in the child: nothing but stdio crosses the command's execve (the
     * error pipe and the listener channel are used until then) */
    if (pd_exec_cloexec_from_3() != 0)
        pd_exec_fail(st->errfd, "close descriptors", NULL, errno, NULL);
    /* The limits valgrind changed for itself (a soft RLIMIT_NOFILE 12
     * descriptors higher) are set anew here: the policy always sets
     * max_open_files, and pd_platform_apply or the degraded mode's limits
     * make it soft and hard limit. */
    pd_exec_last_step(&st->last, st->errfd);
}

/* ---- the probe ------------------------------------------------------------ */

struct probe_msg {
    char magic[4];
    uint32_t format;
    struct pd_platform_info info;
};

int pd_cmd_probe_stage(int argc, char **argv)
{
    const char *why;
    int fd = handed_fd(argc, argv, PROBE_MEMFD, &why);
    struct stat sb;
    if (fd >= 0 && (fstat(fd, &sb) != 0 || sb.st_size != 0)) {
        why = "the memfd is not an empty one of paldron exec";
        fd = -1;
    }
    if (fd < 0) {
        pd_err("__probe: %s", why);
        return PD_EXIT_BROKEN;
    }
    struct probe_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.magic, MAGIC, 4);
    m.format = FORMAT;
    pd_platform_probe(&m.info);
    if (pwrite(fd, &m, sizeof m, 0) != (ssize_t)sizeof m) {
        pd_err("__probe: write: %s", strerror(errno));
        return PD_EXIT_BROKEN;
    }
    return PD_EXIT_ALLOW;
}

/* Under valgrind: pd_platform_probe made by `paldron __probe`, natively. A
 * failure leaves no Landlock in info, with the reason, so that
 * pd_platform_check refuses the run and says why. */
static void native_probe(struct pd_platform_info *info)
{
    const char *why = "cannot start it";
    int e = 0;
    memset(info, 0, sizeof *info);
    char self[PD_PATH_MAX], fdarg[16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    int fd = n > 0 ? memfd_create(PROBE_MEMFD, MFD_CLOEXEC) : -1;
    if (fd < 0) {
        e = errno;
        goto out;
    }
    self[n] = '\0';
    decimal(fd, fdarg, sizeof fdarg);
    pid_t pid = fork();
    if (pid == 0) {
        char *const argv[] = {self, (char *)"__probe", fdarg, NULL};
        char *const envp[] = {NULL};
        if (keep_open(fd) == 0)
            execve(self, argv, envp);
        _exit(127);
    }
    if (pid < 0) {
        e = errno;
        goto out;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            e = errno;
            goto out;
        }
    }
    why = "it failed";
    struct probe_msg m;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        pread(fd, &m, sizeof m, 0) != (ssize_t)sizeof m || memcmp(m.magic, MAGIC, 4) != 0 ||
        m.format != FORMAT)
        goto out;
    *info = m.info;
    info->landlock_error[sizeof info->landlock_error - 1] = '\0';
    why = NULL;
out:
    if (fd >= 0)
        close(fd);
    if (why)
        snprintf(info->landlock_error, sizeof info->landlock_error,
                 "the native probe under valgrind (paldron __probe): %s%s%s", why, e ? ": " : "",
                 e ? strerror(e) : "");
}

void pd_exec_platform_probe(struct pd_platform_info *info)
{
    if (pd_exec_under_valgrind())
        native_probe(info);
    else
        pd_platform_probe(info);
}
