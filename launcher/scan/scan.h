/* launcher/scan/scan.h - the post-run scan: what did the command leave in the
 * workspace (and the writable roots outside it) that the policy forbids?
 *
 *   struct pd_scan *s = pd_scan_snapshot(ctx, degraded, &warnings);   before fork
 *   pd_scan_fence(s);                                                 before fork
 *   ... run ...
 *   pd_scan_compare(s, &findings, &warnings);   whatever the command's exit status
 *   pd_scan_free(s);
 *
 * The snapshot records every directory (device, inode, mtime, ctime) and
 * every entry the policy denies for writing (deny_globs, secrets, protected
 * paths, the policy file: path, inode, ctime, size); in degraded mode also
 * every file outside the writable roots. The compare re-reads only the
 * directories whose times or identity changed and re-stats the recorded
 * files, so a file created, modified, renamed or hard-linked into a denied
 * name is found whatever its mtime says: ctime cannot be set back by the
 * command. Nothing is skipped (.git included), no link is followed, each
 * tree is walked by its real path and stays on its file system. What cannot
 * be read before the run is a warning; what the run made unreadable is a
 * finding (fail closed). */
#ifndef PALDRON_LAUNCHER_SCAN_H
#define PALDRON_LAUNCHER_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "launcher/exec/exec_findings.h"
#include "policy/policy.h"

struct pd_scan;

/* Directory listings kept from one run to the next (scan_reuse.c), so that
 * the walks before a run read only the directories that changed:
 *
 *   struct pd_scan_reuse *r = pd_scan_reuse_open(ctx, isolated);  before the git check
 *   g = pd_git_scan_before_reusing(ctx, r);
 *   s = pd_scan_snapshot_reusing(ctx, degraded, r, &warnings);   keeps this run's listings
 *   ... run, pd_scan_compare(s, ...) ...
 *   pd_scan_free(s); pd_scan_reuse_free(r);
 *
 * Never NULL for want of a file: a missing, foreign or damaged one means
 * every directory is read. NULL only when out of memory (then pass NULL:
 * every directory is read). A run that is not isolated neither reads nor
 * keeps listings. */
struct pd_scan_reuse;
struct pd_scan_reuse *pd_scan_reuse_open(const struct pd_ctx *ctx, bool isolated);
/* How many directories were listed from the kept file (tests, benchmarks). */
size_t pd_scan_reuse_hits(const struct pd_scan_reuse *r);
void pd_scan_reuse_free(struct pd_scan_reuse *r);

/* Snapshot ctx->workspace and the policy's writable roots outside it.
 * degraded: also record files outside the writable roots (no kernel layer
 * kept the command out of them). ctx must outlive the scan. Returns NULL
 * with errno (ENOMEM) when the snapshot could not be recorded. */
struct pd_scan *pd_scan_snapshot(const struct pd_ctx *ctx, bool degraded, struct pd_findings *warn);
/* The same, with the listings of r (NULL: none); r must outlive the scan.
 * Writes r's file for the next run (every writable root is known now). */
struct pd_scan *pd_scan_snapshot_reusing(const struct pd_ctx *ctx, bool degraded,
                                         struct pd_scan_reuse *r, struct pd_findings *warn);

/* Wait (briefly, only when something changed in the last clock tick) until
 * any change from now on gets a ctime later than every recorded one. */
void pd_scan_fence(const struct pd_scan *s);

/* The same wait, split: pd_scan_fence_target (before the fork) says until
 * when; pd_fence_wait waits for it - in the child, just before execve, so
 * that the wait overlaps the child's set-up (namespaces, Landlock, seccomp)
 * instead of adding to it. pd_fence_wait takes no lock and allocates
 * nothing (it runs in the child of a vfork). */
struct pd_fence {
    struct timespec after; /* tv_sec 0: no wait */
    bool coarse_fs;        /* whole-second file times seen */
};
void pd_scan_fence_target(const struct pd_scan *s, struct pd_fence *f);
void pd_fence_wait(const struct pd_fence *f);

/* Compare the trees with the snapshot. Every forbidden change becomes a
 * finding "run produced <path> (<reason>) [<rule>]" or "run removed ...",
 * path relative to the workspace (absolute outside it). */
void pd_scan_compare(struct pd_scan *s, struct pd_findings *found, struct pd_findings *warn);

/* After every judge has read them: move each denied file or link the run
 * put in place (new, or replacing the recorded one; not a file of the
 * snapshot renamed or linked there) out of the way, into the workspace's cache
 * folder (quarantine/<time>-<pid>/<path>), so that what the kernel could
 * not stop (a static binary creating .git/commondir or a hook) does not
 * outlive the denial. A move is said in the entry's "run produced" finding
 * of found ("; moved to <path>"), or as a warning; an entry that could not
 * be moved is a warning. A file the run changed in place cannot be put
 * back: its finding stands alone. */
void pd_scan_quarantine(struct pd_scan *s, struct pd_findings *found, struct pd_findings *warn);

/* Counts for benchmarks and tests: directories and files recorded. */
size_t pd_scan_ndirs(const struct pd_scan *s);
size_t pd_scan_nfiles(const struct pd_scan *s);

/* Call fn for every regular file the snapshot recorded as denied (by a
 * deny glob, a secret pattern, a protected path or as the policy file), with
 * its absolute path. The output scan reads secret values from them. Returns
 * how many. */
size_t pd_scan_each_denied_file(const struct pd_scan *s, void (*fn)(const char *path, void *user),
                                void *user);

/* Call fn for every outermost entry the snapshot recorded as denied (a
 * denied directory stands for everything below it), with its absolute path.
 * The namespace floor masks them (the kind of mask is chosen by what the
 * path is when it is mounted). Returns how many. */
size_t pd_scan_each_denied_top(const struct pd_scan *s, void (*fn)(const char *path, void *user),
                               void *user);

/* Called for each regular file the run created or changed (scan_changed.c):
 * path absolute; fd open for reading (no link followed; a file of the user's
 * without read permission is given u+r while fn runs) or -1 with err the
 * errno of the open; st as seen by the walk. */
typedef void (*pd_scan_changed_fn)(const char *path, int fd, int err, const struct stat *st,
                                   void *user);

/* After the run: call fn for every regular file in the writable roots (in
 * degraded mode: in every scanned tree) whose ctime is not before the
 * snapshot began, i.e. that the run created, wrote, truncated, renamed or
 * linked. Returns how many. */
size_t pd_scan_each_changed_file(const struct pd_scan *s, pd_scan_changed_fn fn, void *user);

void pd_scan_free(struct pd_scan *s);

#endif
