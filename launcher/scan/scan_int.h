/* launcher/scan/scan_int.h - internals of the post-run scan, shared by scan.c
 * (walk, snapshot, compare), scan_store.c (records and their index) and
 * scan_names.c (which names may be denied). Not for other modules. */
#ifndef PALDRON_LAUNCHER_SCAN_INT_H
#define PALDRON_LAUNCHER_SCAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "launcher/exec/exec_findings.h"
#include "launcher/scan/scan.h"
#include "platform/platform.h"
#include "policy/policy.h"

/* The same time? Is a later than b? (file times and clock readings alike) */
static inline bool pd_ts_same(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static inline bool pd_ts_later(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* ---- records (scan_store.c) --------------------------------------------- */

enum { REC_DIR = 1, REC_FILE = 2 };

enum {
    F_DENIED = 1 << 0,     /* the entry is denied for writing (a dir: all below it) */
    F_OUTSIDE = 1 << 1,    /* outside every writable root */
    F_UNREADABLE = 1 << 2, /* a directory that could not be read at the snapshot */
};

/* One recorded directory or file. A directory's files follow it directly
 * in the record array (the walk records them before descending). */
struct rec {
    size_t path; /* offset of the NUL-terminated absolute path in the arena */
    uint8_t kind, flags;
    mode_t mode;
    dev_t dev;
    ino_t ino;
    struct timespec mtime, ctime;
    off_t size;
};

struct store {
    struct rec *v;
    size_t n, cap;
    char *arena;
    size_t alen, acap;
    uint32_t *slots; /* index + 1 of a record, 0 = empty; open addressing */
    size_t nslots;
    bool failed; /* an allocation failed: the snapshot is incomplete */
};

/* Add a record for path (len bytes) with st; returns its index or -1. */
long pd_store_add(struct store *s, const char *path, size_t len, int kind, int flags,
                  const struct stat *st);
/* Index of the record for path, or -1. */
long pd_store_find(const struct store *s, const char *path, size_t len);
const char *pd_store_path(const struct store *s, size_t i);
void pd_store_free(struct store *s);

/* One pattern reduced to its last significant component (the last one that
 * is not "**"): a path the pattern matches exactly has a last component
 * matched by it, and a path matched through an ancestor lies below a
 * directory that was matched exactly. So a walk that tests each name
 * against these components, asks the policy gate only on a hit and marks a
 * denied directory's subtree misses nothing the gate would deny. */
struct name_pat {
    uint8_t kind;  /* NP_EXACT, NP_PREFIX, NP_SUFFIX, NP_GLOB */
    const char *s; /* literal part, or the whole component for NP_GLOB */
    size_t len;
};

/* ---- the scan object (scan.c; read by scan_changed.c) ---------------- */

#define MAX_TREES 64

struct tree {
    const char *path; /* real path (owned by the context) */
    bool existed;
    int flags;
    dev_t dev;
};

struct names {
    struct name_pat *v;
    size_t n;
    bool always; /* some pattern matches every name ("**", "*") */
    char *buf;   /* owns the component texts */
};

struct pd_scan {
    const struct pd_ctx *ctx;
    bool degraded;
    struct store st;
    struct names names;
    struct tree trees[MAX_TREES];
    size_t ntrees;
    struct timespec max_ctime; /* latest ctime recorded (pd_scan_fence) */
    struct timespec start;     /* when the snapshot began (pd_scan_each_changed_file) */
    /* Every tree's file system was seen to stamp each change after a read
     * anew (scan_fine.c): no fence, and the run's changes are those with a
     * ctime not before since. */
    bool fine;
    struct timespec since;
    size_t nfiles;
    struct pd_findings *found, *warn;
    struct pd_scan_reuse *reuse; /* listings kept between runs (NULL: none) */
    struct pd_watch *watch;      /* the writable roots' directories (NULL: none) */
    size_t root_entries;         /* entries of the writable roots' directories */
    /* Modes the compare changed: put back when it ends, because it visits
     * the records one after the other and a directory's records below it
     * need its search permission. */
    struct dir_grant *grants;
    size_t ngrants, cgrants;
    /* Denied entries the run put in place (new, or replacing a recorded
     * one): what pd_scan_quarantine moves away. */
    char **produced;
    size_t nproduced, cproduced;
};

/* Note abs as produced by the run (scan.c's finding). */
void pd_scan_note_produced(struct pd_scan *s, const char *abs);

/* ---- the kernel's change notification (scan_watch.c) --------------------- */

struct pd_watch;

/* From how many entries in the writable roots the post-run search uses the
 * watch instead of reading every directory: below, the walk costs less
 * than the kernel's work for the watches (a tunable for the tests). */
extern size_t pd_scan_watch_min;

/* A watch for the directories of the writable roots; NULL when inotify is
 * unavailable (the post-run search then reads every directory). */
struct pd_watch *pd_watch_open(void);
/* Watch the n directories at paths (no link followed), before the run.
 * A failure makes the watch unusable; w NULL: nothing. */
void pd_watch_add_all(struct pd_watch *w, const char *const *paths, size_t n);
/* A directory of the writable roots that could not be watched: the
 * events will not be complete. */
void pd_watch_miss(struct pd_watch *w);
/* Is every change of the run in the events (no overflow, every watch)? */
bool pd_watch_usable(const struct pd_watch *w);
/* After the run: fn once per entry an event names - the watched directory,
 * the entry's name, whether it is a directory (created or moved in) - in
 * the order of the directories. false, and no call, when the events are
 * incomplete: then read every directory. */
typedef void (*pd_watch_fn)(const char *dir, const char *name, bool is_dir, void *user);
bool pd_watch_changes(struct pd_watch *w, pd_watch_fn fn, void *user);
/* Is the directory at path watched? */
bool pd_watch_has(const struct pd_watch *w, const char *path);
/* After the run: a child that holds w's watches for pd_watch_keep_sec
 * seconds, so that the next run of the workspace adds its own cheaply
 * (scan_watch_keep.c). Its pid, or -1 (nothing watched, or no child). */
extern unsigned pd_watch_keep_sec; /* 15; a tunable for the tests */
pid_t pd_watch_hand_over(struct pd_watch *w);
void pd_watch_free(struct pd_watch *w);

/* ---- the watches kept between runs (scan_watch_keep.c) ---------------------- */

/* Hand w's watches to a keeper and write who it is to <dir basefd>/name
 * (the snapshot's listings' folder, out of every run's reach). */
void pd_watch_keep(struct pd_watch *w, int basefd, const char *name);
/* End the keeper that file names, if it is that process still; the file
 * goes. Called once this run's watches are in place. */
void pd_watch_end_kept(int basefd, const char *name);

/* How the last pd_scan_each_changed_file found the files (tests, bench):
 * by the watch's events, and how many directories it opened. */
struct pd_scan_changed_stats {
    bool watched;
    size_t dirs;
};
extern struct pd_scan_changed_stats pd_scan_changed_last;

/* ---- directories the scan must read (scan_access.c) --------------------- */

/* A directory the scan opened by giving its owner read and search rights
 * for the time of the scan: fd (O_PATH) and the mode to put back. */
struct dir_grant {
    int fd; /* -1: nothing was changed */
    mode_t mode;
};

/* openat(dirfd, path, flags) with no link followed on the way or at the end
 * (openat2 RESOLVE_NO_SYMLINKS; without openat2, one component at a time).
 * A descriptor, or -1 with errno. */
int pd_scan_open_nofollow(int dirfd, const char *path, int flags);

/* Open the directory at path for reading without following any link
 * (pd_scan_open_nofollow). may_grant (a directory inside a writable root): when the
 * directory lacks read or search permission for its owner and the launcher's
 * user owns it, add u+rx first and fill *g (pd_scan_ungrant puts the mode
 * back). Else g->fd = -1. Returns the descriptor or -1 with errno. */
int pd_scan_open_dir(const char *path, bool may_grant, struct dir_grant *g);

/* Give the owner u+rx on the directory at path when the user owns it and
 * it lacks them (an ancestor of a directory the compare must open). 0 when
 * g was filled, -1 when nothing changed. */
int pd_scan_grant_dir(const char *path, struct dir_grant *g);

/* Put back the mode changed by pd_scan_open_dir (no-op when none). */
void pd_scan_ungrant(struct dir_grant *g);

/* Open the regular file at path for reading (no link followed); a file the
 * user owns without read permission gets u+r for the time of the read, as
 * above. -1 with errno. */
int pd_scan_open_file(const char *path, struct dir_grant *g);

/* Could the launcher's user (and so the command) enter the directory at
 * path? */
bool pd_scan_searchable(const char *path);

/* ---- entries of one directory (scan_entries.c) ------------------------ */

/* Names of one directory: "<type byte><name>\0" after each other. */
struct pd_entries {
    char *buf;
    size_t len, cap;
};

/* Append one name (nlen bytes) with its type; 0 or -1 (ENOMEM). */
int pd_entries_add(struct pd_entries *e, unsigned char type, const char *name, size_t nlen);
/* Append every entry of fd but "." and ".."; the descriptor stays open.
 * 0, or -1 with errno (what was read before stays in out). */
int pd_read_entries(int fd, struct pd_entries *out);

/* ---- listings kept between runs (scan_reuse.c) ---------------------------- */

/* The entries of the directory open as fd, at path (len bytes), st its
 * fstat: the kept listing when r holds one for this very directory with
 * these times (need_full: only a listing of every entry will do), else
 * read with pd_read_entries and kept for the next run (may_keep: false
 * when the scan changed the directory's mode to read it). A kept listing
 * has only the entries a walk acts on (scan_reuse.c); a walk must ignore
 * the others. r NULL: pd_read_entries. *nents: how many entries the
 * directory has (all of them, kept or not). Returns as pd_read_entries. */
int pd_reuse_entries(struct pd_scan_reuse *r, int fd, const char *path, size_t len,
                     const struct stat *st, bool need_full, bool may_keep, struct pd_entries *out,
                     size_t *nents);
/* After the snapshot, every writable root known: write the file for the
 * next run, or remove it if this run could write it. */
void pd_reuse_finish(struct pd_scan_reuse *r, const struct pd_ctx *ctx);
/* After the run: remove the file again if the run could write it. */
void pd_reuse_after_run(struct pd_scan_reuse *r);
/* The cache base the kept file lives in (-1: none; r may be NULL). */
int pd_scan_reuse_basefd(const struct pd_scan_reuse *r);
/* The name of another file of this workspace beside the listings
 * ("<name>-<id>" + ext) where they are trusted (r active: out of the run's
 * reach); false elsewhere. */
bool pd_scan_reuse_sibling(const struct pd_scan_reuse *r, const char *ext, char *out, size_t len);
/* Write the file name in basefd whole or not at all (a hidden new file
 * renamed over it, 0600, no link followed). */
bool pd_reuse_put_file(int basefd, const char *name, const void *buf, size_t len);

/* ---- fine-grained file times (scan_fine.c) ------------------------------ */

/* Read fd's ctime and change it, three times: true when every change moved
 * it within a fraction of a clock tick; *last is the final ctime. */
bool pd_fine_probe_fd(int fd, struct timespec *last);
/* True when the file system of every tree of s was observed to give each
 * change after a read a later ctime, and each change from now on a ctime
 * not before *since. */
bool pd_fine_times(const struct pd_scan *s, struct timespec *since);

/* ---- names (scan_names.c) ----------------------------------------------- */

int pd_names_init(struct names *nm, const struct pd_ctx *ctx);
/* May a path whose last component is name be denied by a pattern? */
bool pd_names_maybe(const struct names *nm, const char *name, size_t len);
void pd_names_free(struct names *nm);

/* The pattern rules of pd_gate_path (deny_globs, built-in secrets, the
 * policy file, protected paths, in the gate's order), applied to the path
 * itself: for a symbolic link, whose own name the gate cannot judge because
 * it follows the link. On a deny fills msg like the gate ("<subject>
 * (<reason>) [<rule>]") and returns true. */
bool pd_names_judge_link(const struct pd_ctx *ctx, const char *subject, const char *rel,
                         const char *abs, char *msg, size_t msglen);

#endif
