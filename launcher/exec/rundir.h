/* launcher/exec/rundir.h - the private run directory of one `paldron exec`:
 * $TMPDIR/paldron-run-XXXXXX (0700) holding the command's temp home
 * <run>/reeve-sandbox-home (its only writable part; the name keeps the
 * original's "reeve-sandbox-" marker). Removed after the run without ever
 * following a link the command may have planted. */
#ifndef PALDRON_LAUNCHER_RUNDIR_H
#define PALDRON_LAUNCHER_RUNDIR_H

#include <stddef.h>

#include "policy/policy.h"

struct pd_rundir {
    char path[PD_PATH_MAX]; /* real path of the run directory, "" when none */
    char home[PD_PATH_MAX]; /* <path>/reeve-sandbox-home */
};

/* Create both directories under tmpdir (NULL, empty or relative: /tmp).
 * Returns 0, or -1 with err filled ("create run directory /tmp/...: ..."). */
int pd_rundir_create(struct pd_rundir *r, const char *tmpdir, char *err, size_t errlen);

/* Remove the run directory and everything in it. Returns 0, or -1 with err
 * naming what could not be removed. Does nothing when r->path is "". */
int pd_rundir_remove(struct pd_rundir *r, char *err, size_t errlen);

/* Remove everything below the directory fd (not the directory itself);
 * fd is consumed. Entries are unlinked through their parent's descriptor,
 * directories opened with O_NOFOLLOW, and unreadable directories the
 * command left behind are made readable first. Returns 0, or -1 with errno
 * of the first failure (the rest is still attempted). */
int pd_remove_below(int fd);

#endif
