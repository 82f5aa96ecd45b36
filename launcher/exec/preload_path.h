/* launcher/exec/preload_path.h - finding libpaldron_preload.so, and saying where
 * it was looked for when it is not there. */
#ifndef PALDRON_LAUNCHER_PRELOAD_PATH_H
#define PALDRON_LAUNCHER_PRELOAD_PATH_H

#include <stddef.h>

/* Absolute path of libpaldron_preload.so into out: PALDRON_PRELOAD_LIB when
 * set (it must be absolute and readable; there is no fallback then), else
 * the folder of the paldron binary, else the install tree's library folder
 * relative to it. Returns 0, or -1 when it is not found. */
int pd_preload_path(char *out, size_t len);

/* Why pd_preload_path() failed, as one line without the "paldron: "
 * prefix: the folders searched (normalised) and the variable that
 * overrides them, or what is wrong with PALDRON_PRELOAD_LIB, e.g.
 * "cannot find libpaldron_preload.so (looked in /x/bin, /x/lib/paldron;
 * set PALDRON_PRELOAD_LIB=/abs/path)". */
void pd_preload_missing_msg(char *out, size_t len);

#endif
