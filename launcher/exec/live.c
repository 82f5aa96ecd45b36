/* launcher/exec/live.c - the report channel of the live gate (see live.h). The
 * channel is a datagram socket the launcher owns: a sandboxed process can
 * add records (which only ever makes a run deny) but cannot edit or remove
 * what others sent. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/exec/live.h"
#include "policy/toml/toml_lex.h"
#include "platform/platform.h"
#include "policy/compiled_image.h"
#include "policy/kernel_grants.h"
#include "policy/report.h"

int pd_live_open(struct pd_live *l, const struct pd_ctx *ctx, const char *run_dir, const char *lib,
                 bool audit, const char *log_path, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->audit = audit;
    l->strict = ctx->policy->strict;
    l->ctx = ctx;
    snprintf(l->workspace, sizeof l->workspace, "%s", ctx->workspace);
    snprintf(l->lib, sizeof l->lib, "%s", lib);
    snprintf(l->run_dir, sizeof l->run_dir, "%s", run_dir);
    snprintf(l->compiled, sizeof l->compiled, "%s/policy.compiled", run_dir);

    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s/report.sock", run_dir) >=
        sizeof sa.sun_path) {
        snprintf(err, errlen, "live gate: run directory path too long for a socket: %s", run_dir);
        return -1;
    }
    l->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int rcvbuf = 4 << 20;
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        snprintf(err, errlen, "live gate: report socket %s: %s", sa.sun_path, strerror(errno));
        return -1;
    }
    /* a bigger queue keeps bursts of records from blocking senders */
    (void)setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    /* the kernel's word for who sent a record: the rate bound is per
     * process, and the pid written in a record is the sender's claim */
    int one = 1;
    (void)setsockopt(l->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    if (log_path && !(l->log = fopen(log_path, "we"))) {
        snprintf(err, errlen, "--log %s: %s", log_path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Append the resolved form of each path of from to to (a missing path is
 * left out, as Landlock leaves it out). 0 or -1 (ENOMEM). */
static int add_resolved(struct pd_strv *to, const struct pd_path_list *from)
{
    char real[PD_PATH_MAX];
    for (size_t k = 0; k < from->n; k++)
        if (from->v[k] && pd_realpath(from->v[k], real) && pd_strv_push(to, real) != 0)
            return -1;
    return 0;
}

/* What the spec's Landlock rules and read-only binds grant, for the
 * preload to tell a kernel refusal from a refusal by the permissions. */
static int grants_of(const struct pd_sandbox_spec *spec, struct pd_kernel_grants *g)
{
    memset(g, 0, sizeof *g);
    g->on = true;
    g->no_exec_writes = spec->no_exec_writes;
    static const char *const tmp[] = {"/tmp", "/dev/shm"};
    const struct pd_path_list private_tmp = {tmp, !spec->ns.enable ? 0 : spec->shm_private ? 2 : 1};
    /* what the private /tmp binds back read-only (a workspace under /tmp,
     * bar its writable roots): a write there fails EROFS by the namespace */
    const char *kept[PD_NS_KEEP_MAX];
    size_t nkept = 0;
    for (size_t k = 0; spec->ns.enable && k < spec->ns.nkeep && nkept < PD_NS_KEEP_MAX; k++)
        if (spec->ns.keep[k].mode != PD_KEEP_WRITE)
            kept[nkept++] = spec->ns.keep[k].path;
    const struct pd_path_list kept_ro = {kept, nkept};
    return add_resolved(&g->exec, &spec->exec_paths) || add_resolved(&g->read, &spec->read_paths) ||
                   add_resolved(&g->write, &spec->write_paths) ||
                   add_resolved(&g->write, &private_tmp) ||
                   add_resolved(&g->dev, &spec->dev_paths) ||
                   (spec->ns.enable && add_resolved(&g->readonly, &spec->ns.readonly)) ||
                   add_resolved(&g->readonly, &kept_ro)
               ? -1
               : 0;
}

int pd_live_write_policy(struct pd_live *l, const struct pd_sandbox_spec *spec, char *err,
                         size_t errlen)
{
    struct pd_kernel_grants g;
    int rc = -1;
    errno = ENOMEM;
    if (!spec || grants_of(spec, &g) == 0)
        rc = pd_image_write(l->ctx, spec ? &g : NULL, NULL, l->compiled, 0400);
    int saved = errno;
    if (spec)
        pd_kernel_grants_free(&g);
    if (rc != 0) {
        snprintf(err, errlen, "live gate: write %s: %s", l->compiled, strerror(saved));
        return -1;
    }
    return 0;
}

int pd_live_env(const struct pd_live *l, const char *debug, char *out[6])
{
    size_t n = 0;
    memset(out, 0, 6 * sizeof *out);
    if (asprintf(&out[n++], "LD_PRELOAD=%s", l->lib) < 0 ||
        asprintf(&out[n++], "PALDRON_PRELOAD=%s", l->lib) < 0 ||
        asprintf(&out[n++], "PALDRON_RUN=%s", l->run_dir) < 0 ||
        (l->audit && asprintf(&out[n++], "PALDRON_AUDIT=1") < 0) ||
        (debug && debug[0] && asprintf(&out[n++], "PALDRON_DEBUG=%s", debug) < 0)) {
        for (size_t k = 0; k < 6; k++) {
            free(out[k]);
            out[k] = NULL;
        }
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static void log_record(FILE *f, const struct pd_report *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", r->kind);
    cJSON_AddStringToObject(o, "op", r->op);
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "resolved", r->resolved);
    cJSON *rule = cJSON_AddObjectToObject(o, "rule");
    cJSON_AddStringToObject(rule, "key", r->key);
    cJSON_AddStringToObject(rule, "pattern", r->pattern);
    cJSON_AddStringToObject(o, "reason", r->reason);
    cJSON_AddNumberToObject(o, "pid", (double)r->pid);
    cJSON_AddStringToObject(o, "program", r->program);
    cJSON *argv = cJSON_AddArrayToObject(o, "argv");
    for (size_t k = 0; k < r->argc; k++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(r->argv[k]));
    char *s = cJSON_PrintUnformatted(o);
    if (s) {
        fprintf(f, "%s\n", s);
        fflush(f);
    }
    free(s);
    cJSON_Delete(o);
}

/* What a record is about: the path as judged (resolved) when the preload
 * knew it, else as written. Records are the same decision when they agree
 * on it, whatever the written form: execvp tries /usr/bin/id and then
 * /bin/id, one file where /bin links to /usr/bin. */
static const char *judged(const char *path, const char *resolved)
{
    return resolved[0] ? resolved : path;
}

static bool same(const struct pd_live_rec *a, const struct pd_report *r)
{
    return strcmp(a->kind, r->kind) == 0 && strcmp(a->op, r->op) == 0 &&
           strcmp(judged(a->path, a->resolved), judged(r->path, r->resolved)) == 0 &&
           strcmp(a->reason, r->reason) == 0 && strcmp(a->program, r->program) == 0 &&
           strcmp(a->pattern, r->pattern) == 0;
}

/* FNV-1a over the fields same() compares, each with its terminator. */
static uint64_t rec_hash(const struct pd_report *r)
{
    const char *fields[] = {r->kind,   r->op,      judged(r->path, r->resolved),
                            r->reason, r->program, r->pattern};
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
        for (const char *c = fields[k];; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c)
                break;
        }
    return h;
}

#define INDEX_SLOTS (2 * PD_LIVE_MAX_RECS) /* load factor at most 1/2 */

/* The slot of r in the index: its record's, or the empty one it would take. */
static size_t find_slot(const struct pd_live *l, const struct pd_report *r, uint64_t h)
{
    size_t slot = (size_t)(h % INDEX_SLOTS);
    while (l->index[slot]) {
        const struct pd_live_rec *x = &l->recs[l->index[slot] - 1];
        if (x->hash == h && same(x, r))
            return slot;
        slot = (slot + 1) % INDEX_SLOTS;
    }
    return slot;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* May pid add a new record now? A token bucket per process: PD_LIVE_BURST
 * at once, then PD_LIVE_PER_SEC. Processes beyond PD_LIVE_RATE_SLOTS share
 * the last slot's bucket. Without memory for the table: no. */
static bool take_token(struct pd_live *l, long pid)
{
    if (!l->rates && !(l->rates = calloc(PD_LIVE_RATE_SLOTS + 1, sizeof *l->rates)))
        return false;
    if (pid <= 0)
        pid = -1; /* unknown sender: one bucket for all of them */
    size_t slot = (size_t)((unsigned long)pid % PD_LIVE_RATE_SLOTS), probes = 0;
    while (l->rates[slot].pid && l->rates[slot].pid != pid && probes++ < PD_LIVE_RATE_SLOTS)
        slot = (slot + 1) % PD_LIVE_RATE_SLOTS;
    if (probes > PD_LIVE_RATE_SLOTS)
        slot = PD_LIVE_RATE_SLOTS; /* the shared overflow bucket */
    struct pd_live_rate *b = &l->rates[slot];
    long long t = now_ms();
    if (!b->pid) {
        b->pid = slot == PD_LIVE_RATE_SLOTS ? -2 : pid;
        b->tokens = PD_LIVE_BURST;
        b->stamp_ms = t;
    }
    b->tokens += (double)(t - b->stamp_ms) * PD_LIVE_PER_SEC / 1000.0;
    if (b->tokens > PD_LIVE_BURST)
        b->tokens = PD_LIVE_BURST;
    b->stamp_ms = t;
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}

/* Copy r's strings into one block; false when out of memory. */
static bool fill(struct pd_live_rec *x, const struct pd_report *r, size_t size)
{
    const char *src[] = {r->kind, r->op,      r->path,   r->resolved,
                         r->key,  r->pattern, r->reason, r->program};
    char **dst[] = {&x->kind, &x->op,      &x->path,   &x->resolved,
                    &x->key,  &x->pattern, &x->reason, &x->program};
    char *p = x->block = malloc(size);
    if (!p)
        return false;
    for (size_t k = 0; k < sizeof src / sizeof src[0]; k++) {
        size_t n = strlen(src[k]) + 1;
        memcpy(p, src[k], n);
        *dst[k] = p;
        p += n;
    }
    return true;
}

static size_t rec_size(const struct pd_report *r)
{
    return strlen(r->kind) + strlen(r->op) + strlen(r->path) + strlen(r->resolved) +
           strlen(r->key) + strlen(r->pattern) + strlen(r->reason) + strlen(r->program) + 8;
}

enum kept { KEPT_DROPPED, KEPT_FOLDED, KEPT_NEW };

/* Fold r into its twin, or keep it as a new record within the bounds.
 * sender: the kernel's pid of the sender (<= 0: unknown). A twin reached
 * by another written form (the same exec along PATH) is no repeat. */
static enum kept keep(struct pd_live *l, const struct pd_report *r, long sender)
{
    if (!l->index && !(l->index = calloc(INDEX_SLOTS, sizeof *l->index)))
        return KEPT_DROPPED;
    uint64_t h = rec_hash(r);
    size_t slot = find_slot(l, r, h);
    if (l->index[slot]) {
        struct pd_live_rec *twin = &l->recs[l->index[slot] - 1];
        if (strcmp(twin->path, r->path) == 0)
            twin->count++;
        return KEPT_FOLDED;
    }
    size_t size = rec_size(r);
    if (l->nrecs >= PD_LIVE_MAX_RECS || l->bytes + size > PD_LIVE_MAX_BYTES ||
        !take_token(l, sender))
        return KEPT_DROPPED;
    if (l->nrecs == l->caprecs) {
        size_t cap = l->caprecs ? 2 * l->caprecs : 64;
        struct pd_live_rec *nv = realloc(l->recs, cap * sizeof *nv);
        if (!nv)
            return KEPT_DROPPED;
        l->recs = nv;
        l->caprecs = cap;
    }
    struct pd_live_rec *x = &l->recs[l->nrecs];
    if (!fill(x, r, size))
        return KEPT_DROPPED;
    x->pid = r->pid;
    x->count = 1;
    x->hash = h;
    l->nrecs++;
    l->bytes += size;
    l->index[slot] = (uint32_t)l->nrecs;
    return KEPT_NEW;
}

static bool is_blocked(const char *kind)
{
    return strcmp(kind, PD_REPORT_BLOCKED) == 0;
}

/* A blocked record of a kernel layer (preload/kernel_refusal.h), not of
 * the live gate's writable roots: its key names the layer. */
static bool is_kernel(const char *kind, const char *key)
{
    return is_blocked(kind) &&
           (strcmp(key, PD_LAYER_LANDLOCK) == 0 || strcmp(key, PD_LAYER_SECCOMP) == 0 ||
            strcmp(key, PD_LAYER_NAMESPACE) == 0);
}

/* Does a record of this kind deny the run? */
static bool denies(const struct pd_live *l, const char *kind)
{
    return strcmp(kind, PD_REPORT_DENY) == 0 || strcmp(kind, PD_REPORT_ERROR) == 0 ||
           (l->strict && is_blocked(kind));
}

static void note_dropped(struct pd_live *l, const char *kind)
{
    l->ndropped++;
    if (denies(l, kind))
        l->ndropped_deny++;
}

/* Is resolved the path of a file on disk? A descriptor's link text for a
 * memfd ("/memfd:x (deleted)") or an unlinked file ("... (deleted)") is
 * not: such a line shows the path as written, and has no fix. */
static bool on_disk(const char *resolved)
{
    size_t n = strlen(resolved);
    const char *tail = " (deleted)";
    return resolved[0] == '/' && strncmp(resolved, "/memfd:", 7) != 0 &&
           !(n >= strlen(tail) && strcmp(resolved + n - strlen(tail), tail) == 0);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return path[0] == '/' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The path of a line: as judged (relative when it lies in the workspace and
 * was written relative), with the written form when that differs. */
static void shown_path(const struct pd_live *l, const struct pd_report *r, char *buf, size_t len)
{
    if (!on_disk(r->resolved)) {
        snprintf(buf, len, "%s", r->path);
        return;
    }
    const char *rel =
        r->path[0] != '/' && l->workspace[0] ? pd_path_under(r->resolved, l->workspace) : NULL;
    const char *as_judged = rel ? (rel[0] ? rel : ".") : r->resolved;
    char cleaned[PD_PATH_MAX];
    pd_path_clean(r->path, cleaned, sizeof cleaned);
    /* a folder's create is recorded as "name/" (preload/judge.h, PD_J_DIR) */
    size_t n = strlen(r->path);
    while (n > 1 && r->path[n - 1] == '/')
        n--;
    if (!r->path[0] || strcmp(cleaned, as_judged) == 0)
        snprintf(buf, len, "%s", as_judged);
    else
        snprintf(buf, len, "%s (written %.*s)", as_judged, (int)n, r->path);
}

/* Is the record about a folder: one that exists, or one a mkdir was
 * refused to create (its path ends in '/')? */
static bool names_folder(const char *path, const char *resolved)
{
    size_t n = strlen(path);
    return (n > 1 && path[n - 1] == '/') || is_dir(resolved);
}

/* Does the bare allow_binaries entry name (as PATH finds it) name the file
 * at resolved? Entries match by identity (pd_binary_entry_of). */
static bool names_file(const struct pd_live *l, const char *name, const struct stat *want)
{
    char file[PD_PATH_MAX];
    struct stat st;
    return l->ctx && name[0] && pd_binary_entry_file(l->ctx, name, file, sizeof file) == 0 &&
           stat(file, &st) == 0 && st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

/* The allow_binaries entry that would allow a denied program: the name it
 * was invoked by when PATH finds this file by it (python3 for
 * python3.11), else the file's own name when PATH finds it by that (id,
 * for a link src/python3 -> /usr/bin/id), else its path: "./<path>" in
 * the workspace, absolute elsewhere. False when there is no file to name
 * (a memfd, a deleted file). */
static bool binary_entry(const struct pd_live *l, const char *path, const char *resolved, char *buf,
                         size_t len)
{
    struct stat want;
    if (!on_disk(resolved) || stat(resolved, &want) != 0)
        return false;
    const char *slash = strrchr(path, '/'), *rslash = strrchr(resolved, '/');
    const char *invoked = slash ? slash + 1 : path, *own = rslash + 1;
    const char *rel = l->workspace[0] ? pd_path_under(resolved, l->workspace) : NULL;
    if (names_file(l, invoked, &want))
        snprintf(buf, len, "%s", invoked);
    else if (names_file(l, own, &want))
        snprintf(buf, len, "%s", own);
    else if (rel && rel[0])
        snprintf(buf, len, "./%s", rel);
    else
        snprintf(buf, len, "%s", resolved);
    return true;
}

/* The smallest change that would let a call a kernel layer refused go
 * through: narrow, or "none narrow: <why>" (policy/advice.c). */
static void kernel_advice(const struct pd_live *l, const struct pd_report *r, char *out, size_t len)
{
    const struct pd_ctx *c = l->ctx;
    const char *abs = r->resolved;
    out[0] = '\0';
    if (!c)
        return;
    if (strcmp(r->key, PD_LAYER_SECCOMP) == 0) {
        pd_advice(c, "allow_network", NULL, NULL, false, out, len);
    } else if (strcmp(r->reason, PD_KERNEL_HOST_SOCK) == 0) {
        snprintf(out, len, "add \"%s\" to allow_unix_sockets", abs);
    } else if (strcmp(r->key, PD_LAYER_NAMESPACE) == 0) {
        /* the rule the floor followed when it masked or bound it: a read
         * denied (a secret, a deny glob) or a write denied (protected) */
        struct pd_verdict v;
        bool masked = strcmp(r->reason, PD_KERNEL_MASKED) == 0;
        pd_gate_path(c, masked ? PD_OP_READ : PD_OP_WRITE, NULL, abs, &v);
        const bool dir = is_dir(abs) || names_folder(r->path, abs);
        if (v.deny)
            pd_advice(c, v.key, v.pattern, v.resolved[0] ? v.resolved : abs, dir, out, len);
        else if (!masked) /* a workspace under /tmp, bound back read-only */
            pd_advice(c, "allow_paths", NULL, abs, dir, out, len);
        if (!out[0])
            snprintf(out, len, "none narrow: the namespace floor %s for every process",
                     masked ? "masks it" : "keeps it read-only");
    } else if (strcmp(r->reason, PD_KERNEL_READ) == 0) {
        pd_advice(c, "read_paths", NULL, abs, names_folder(r->path, abs), out, len);
    } else if (strcmp(r->reason, PD_KERNEL_EXEC) == 0) {
        char entry[PD_PATH_MAX];
        if (c->policy->allow_binaries.n && binary_entry(l, r->path, abs, entry, sizeof entry))
            snprintf(out, len, "add \"%s\" to allow_binaries", entry);
        else
            snprintf(out, len,
                     "none narrow: programs run from the system folders, the writable roots "
                     "and the command itself; a writable folder for it would let the run "
                     "change it");
    } else if (strcmp(r->reason, PD_KERNEL_WRITE) == 0) {
        pd_advice(c, "allow_paths", NULL, abs, names_folder(r->path, abs), out, len);
    }
}

/* The smallest narrow change for a record (pd_advice and the layers' own),
 * "" when there is none to say. */
static void advice_of(const struct pd_live *l, const struct pd_report *r, char *out, size_t len)
{
    const char *abs = r->resolved[0] == '/' ? r->resolved : NULL;
    out[0] = '\0';
    if (is_kernel(r->kind, r->key)) {
        kernel_advice(l, r, out, len);
    } else if (strcmp(r->key, "allow_binaries") == 0) {
        char entry[PD_PATH_MAX];
        if (binary_entry(l, r->path, r->resolved, entry, sizeof entry))
            snprintf(out, len, "add \"%s\" to allow_binaries", entry);
        else
            snprintf(out, len, "none: the program is no file on disk (a memfd or a deleted file)");
    } else if (l->ctx) {
        /* a write refused for lying outside the writable roots is a blocked
         * record: the same advice as its audit twin */
        const char *key = is_blocked(r->kind) ? "allow_paths" : r->key;
        pd_advice(l->ctx, key, r->pattern[0] ? r->pattern : NULL, abs,
                  abs && names_folder(r->path, abs), out, len);
    }
}

/* "<program> <op> <path> (<reason> <pattern>) [live][ (add "x" to allow_binaries)]": the
 * fix after the bracket, so that "(<reason>) [live]" reads as it always did. A
 * kernel layer's refusal reads "(<layer>: <why>) [live]", with its narrow
 * fix when there is one. count: how many calls made the same decision. */
static void format_report(const struct pd_live *l, const struct pd_report *r, size_t count,
                          char *buf, size_t len)
{
    char shown[2 * PD_PATH_MAX + 16], fix[PD_PATH_MAX + 48] = "", times[48] = "";
    shown_path(l, r, shown, sizeof shown);
    const bool kernel = is_kernel(r->kind, r->key);
    /* the fix after the bracket when there is a narrow one (--audit: on a
     * line of its own, except for a program) */
    if (!l->audit || strcmp(r->key, "allow_binaries") == 0) {
        char advice[PD_MSG_MAX];
        advice_of(l, r, advice, sizeof advice);
        if (strncmp(advice, "add ", 4) == 0 || strncmp(advice, "remove ", 7) == 0)
            snprintf(fix, sizeof fix, " (%s)", advice);
    }
    const bool blocked = is_blocked(r->kind);
    /* the preload's blocked writes carry the gate's reason of the roots;
     * the others (a kernel layer, a name lookup allow_hosts refused) their own */
    const bool roots = blocked && !kernel &&
                       (strcmp(r->key, "workspace") == 0 || strcmp(r->key, "allow_paths") == 0);
    const char *reason = roots ? "outside the writable roots" : r->reason;
    const char *pattern = blocked ? "" : r->pattern;
    if (count > 1)
        snprintf(times, sizeof times, " (repeated %zu times)", count);
    snprintf(buf, len, "%s %s %s (%s%s%s) [live]%s%s", r->program, r->op, shown, reason,
             pattern[0] ? " " : "", pattern, fix, times);
}

/* Interactive: one line for a decision as it first arrives, in the words of
 * the verdict's lines. */
static void echo_record(const struct pd_live *l, FILE *out, const struct pd_report *r)
{
    char msg[PD_MSG_MAX];
    const bool deny = strcmp(r->kind, PD_REPORT_DENY) == 0;
    if (deny || strcmp(r->kind, PD_REPORT_AUDIT) == 0 || is_blocked(r->kind)) {
        format_report(l, r, 1, msg, sizeof msg);
        fprintf(out, "paldron: %s%s\n",
                deny || (l->strict && is_blocked(r->kind)) ? "deny: "
                : is_blocked(r->kind)                      ? "blocked: "
                                                           : "audit: would deny: ",
                msg);
    } else if (strcmp(r->kind, PD_REPORT_ERROR) == 0) {
        fprintf(out,
                "paldron: deny: %s could not load the live gate's policy (%s): every gated "
                "call was denied [live]\n",
                r->program, r->reason);
    }
    fflush(out);
}

/* One datagram into buf; *sender is the kernel's pid of the sender, or 0. */
static ssize_t receive(int fd, char *buf, size_t len, long *sender)
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(struct ucred))];
    } ctl;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.space,
                         .msg_controllen = sizeof ctl.space};
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    *sender = 0;
    for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
            struct ucred cred;
            memcpy(&cred, CMSG_DATA(c), sizeof cred);
            *sender = (long)cred.pid;
        }
    return n;
}

/* Count r, keep it (folded with its twin, or dropped over the bounds),
 * log and echo it. sender: the kernel's pid of its sender (0: unknown). */
static void take_record(struct pd_live *l, const struct pd_report *r, long sender)
{
    const char *kind = r->kind;
    if (strcmp(kind, PD_REPORT_DENY) == 0)
        l->ndeny++;
    else if (strcmp(kind, PD_REPORT_AUDIT) == 0)
        l->naudit++;
    else if (strcmp(kind, PD_REPORT_COVERAGE) == 0)
        l->ncoverage++;
    else if (is_blocked(kind)) {
        l->nblocked++;
        if (is_kernel(kind, r->key))
            l->nkernel++;
    } else
        l->nerror++;
    /* counted above (a dropped denial still denies); a dropped record is
     * neither logged nor echoed: the flood ends in one line */
    enum kept kept = keep(l, r, sender);
    if (kept == KEPT_DROPPED) {
        note_dropped(l, kind);
        return;
    }
    if (l->log)
        log_record(l->log, r);
    if (l->echo && kept == KEPT_NEW)
        echo_record(l, l->echo, r);
}

void pd_live_drain(struct pd_live *l)
{
    static struct pd_report_decoded d;
    char buf[PD_REPORT_MAX + 1];
    if (l->fd < 0)
        return;
    for (;;) {
        long sender;
        ssize_t n = receive(l->fd, buf, sizeof buf, &sender);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (pd_report_decode(buf, (size_t)n, &d) != 0) {
            l->nbad++; /* unreadable records count as denials: fail closed */
            if (l->echo) {
                fputs("paldron: deny: unreadable live-gate record [live]\n", l->echo);
                fflush(l->echo);
            }
            continue;
        }
        take_record(l, &d.r, sender ? sender : d.r.pid);
    }
}

void pd_live_add(struct pd_live *l, const struct pd_report *r)
{
    take_record(l, r, 0);
}

size_t pd_live_denials(const struct pd_live *l)
{
    return l->ndeny + l->nerror + l->nbad + (l->strict ? l->nblocked : 0);
}

size_t pd_live_kernel_blocked(const struct pd_live *l)
{
    return l->nkernel;
}

/* A kept record as the report it was decoded from. */
static struct pd_report rec_report(const struct pd_live_rec *x)
{
    return (struct pd_report){.kind = x->kind,
                              .op = x->op,
                              .path = x->path,
                              .resolved = x->resolved,
                              .key = x->key,
                              .pattern = x->pattern,
                              .reason = x->reason,
                              .pid = x->pid,
                              .program = x->program};
}

/* The smallest policy change that would allow what an audit (or blocked)
 * record shows: only ever narrow (policy/advice.c), else "none narrow". */
static void advise(const struct pd_live *l, const struct pd_live_rec *x,
                   const struct pd_policy *pol, FILE *out)
{
    const struct pd_report r = rec_report(x);
    char advice[PD_MSG_MAX];
    advice_of(l, &r, advice, sizeof advice);
    if (advice[0])
        fputs(advice, out);
    else
        fprintf(out, "see 'paldron explain --policy %s %s'", pol->file ? pol->file : "P", x->path);
}

static void format_rec(const struct pd_live *l, const struct pd_live_rec *x, char *buf, size_t len)
{
    const struct pd_report r = rec_report(x);
    format_report(l, &r, x->count, buf, len);
}

void pd_live_findings(const struct pd_live *l, struct pd_findings *out)
{
    char msg[PD_MSG_MAX];
    for (size_t k = 0; k < l->nrecs; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (strcmp(r->kind, PD_REPORT_DENY) == 0 || (l->strict && is_blocked(r->kind))) {
            format_rec(l, r, msg, sizeof msg);
            /* sorted with the scans' findings: by the path as judged,
             * relative in the workspace as theirs are */
            const char *key = judged(r->path, r->resolved);
            const char *rel = on_disk(r->resolved) ? pd_path_under(key, l->workspace) : NULL;
            pd_findings_add(out, rel && rel[0] ? rel : key, "%s", msg);
        } else if (strcmp(r->kind, PD_REPORT_ERROR) == 0) {
            pd_findings_add(out, r->path,
                            "%s could not load the live gate's policy (%s): every gated call "
                            "was denied [live]",
                            r->program, r->reason);
        }
    }
    if (l->nbad)
        pd_findings_add(out, "", "%zu unreadable live-gate record(s) [live]", l->nbad);
    if (l->ndropped_deny)
        pd_findings_add(out, "", "%zu more live denial(s) not listed (flood) [live]",
                        l->ndropped_deny);
}

#define FALLBACK_DENY   "paldron: deny: "
#define FALLBACK_POLICY "paldron: preload: cannot load policy "
#define FALLBACK_LISTED 64

void pd_live_stderr_findings(const char *buf, size_t len, struct pd_findings *out)
{
    size_t listed = 0, more = 0;
    const char *end = buf ? buf + len : NULL;
    for (const char *p = buf; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const size_t dl = sizeof FALLBACK_DENY - 1, pl = sizeof FALLBACK_POLICY - 1,
                     tl = sizeof " [live]" - 1;
        bool deny = n > dl + tl && memcmp(p, FALLBACK_DENY, dl) == 0 &&
                    memcmp(p + n - tl, " [live]", tl) == 0;
        bool policy = n > pl && memcmp(p, FALLBACK_POLICY, pl) == 0;
        if ((deny || policy) && listed < FALLBACK_LISTED) {
            /* the line itself is the sort key: repeats fold when sorted */
            char key[PD_MSG_MAX];
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            if (deny)
                pd_findings_add(out, key, "%.*s (reported on stderr)", (int)(n - dl), p + dl);
            else
                pd_findings_add(out, key,
                                "a program could not load the live gate's policy (%.*s): every "
                                "gated call was denied [live]",
                                (int)(n - pl), p + pl);
            listed++;
        } else if (deny || policy) {
            more++;
        }
        p += n + (nl ? 1 : 0);
    }
    if (more)
        pd_findings_add(out, "", "%zu more live denial(s) reported on stderr [live]", more);
}

#define FALLBACK_BLOCKED "paldron: blocked: "

void pd_live_stderr_blocked(const char *buf, size_t len, struct pd_findings *out)
{
    size_t listed = 0;
    const char *end = buf ? buf + len : NULL;
    const size_t bl = sizeof FALLBACK_BLOCKED - 1, tl = sizeof " [live]" - 1;
    for (const char *p = buf; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n > bl + tl && memcmp(p, FALLBACK_BLOCKED, bl) == 0 &&
            memcmp(p + n - tl, " [live]", tl) == 0) {
            char key[PD_MSG_MAX];
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            if (listed++ < FALLBACK_LISTED)
                pd_findings_add(out, key, "%.*s (reported on stderr)", (int)(n - bl), p + bl);
        }
        p += n + (nl ? 1 : 0);
    }
    if (listed > FALLBACK_LISTED)
        pd_findings_add(out, "", "%zu more blocked write(s) reported on stderr [live]",
                        listed - FALLBACK_LISTED);
}

void pd_live_note_unmonitored(struct pd_live *l, const char *path, const char *why)
{
    struct pd_report r = {.kind = PD_REPORT_COVERAGE,
                          .op = "exec",
                          .path = path,
                          .resolved = path,
                          .key = "",
                          .pattern = "",
                          .reason = why,
                          .program = "paldron"};
    l->ncoverage++;
    if (l->log)
        log_record(l->log, &r);
    if (keep(l, &r, (long)getpid()) == KEPT_DROPPED)
        note_dropped(l, r.kind);
}

static void print_dropped(const struct pd_live *l, FILE *out)
{
    if (l->ndropped)
        fprintf(out, "paldron: %zu live records dropped (flood)\n", l->ndropped);
}

void pd_live_notes(const struct pd_live *l, const struct pd_policy *pol, FILE *out)
{
    char msg[PD_MSG_MAX];
    /* --audit prints the kernel layers' refusals below, with their change */
    for (size_t k = 0; k < l->nrecs && !l->strict && !l->echo; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (is_blocked(r->kind) && !(l->audit && is_kernel(r->kind, r->key))) {
            format_rec(l, r, msg, sizeof msg);
            fprintf(out, "paldron: blocked: %s\n", msg);
        }
    }
    for (size_t k = 0; k < l->nrecs; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (strcmp(r->kind, PD_REPORT_AUDIT) != 0)
            continue;
        format_rec(l, r, msg, sizeof msg);
        fprintf(out, "paldron: audit: would deny: %s\npaldron: audit:   smallest change: ", msg);
        advise(l, r, pol, out);
        fputc('\n', out);
    }
    /* --audit: what the kernel layers refused (they stay on), with the
     * change that would let it through */
    for (size_t k = 0; k < l->nrecs && l->audit; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (!is_kernel(r->kind, r->key))
            continue;
        format_rec(l, r, msg, sizeof msg);
        fprintf(
            out,
            "paldron: audit: blocked by the kernel: %s\npaldron: audit:   smallest change: ", msg);
        advise(l, r, pol, out);
        fputc('\n', out);
    }
    if (l->nkernel)
        fprintf(out, "paldron: %zu call(s) blocked by the kernel layers%s\n", l->nkernel,
                l->strict ? " (strict = true: each is a denial)"
                          : " (not denials: the command saw the kernel's error)");
    print_dropped(l, out);
    if (!l->ncoverage)
        return;
    fputs("paldron: coverage: ran without the live gate (kernel layers only):", out);
    const char *sep = " ";
    for (size_t k = 0; k < l->nrecs; k++) {
        const struct pd_live_rec *r = &l->recs[k];
        if (strcmp(r->kind, PD_REPORT_COVERAGE) != 0)
            continue;
        fprintf(out, "%s%s (%s)", sep, r->resolved[0] ? r->resolved : r->path, r->reason);
        sep = ", ";
    }
    fputc('\n', out);
}

void pd_live_close(struct pd_live *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    if (l->log)
        fclose(l->log);
    l->log = NULL;
    for (size_t k = 0; k < l->nrecs; k++)
        free(l->recs[k].block);
    free(l->recs);
    free(l->index);
    free(l->rates);
    l->recs = NULL;
    l->index = NULL;
    l->rates = NULL;
    l->nrecs = l->caprecs = l->bytes = 0;
}
