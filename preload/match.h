/* preload/match.h - the fast path of the file gate: an index of the
 * policy's patterns, built once, that proves in a few hundred nanoseconds
 * that pd_gate_path would allow an operation on an already resolved path.
 * It never allows on its own authority what the gate might deny: when it
 * cannot prove "allow", the caller asks pd_gate_path, whose verdict is the
 * decision. (The gate costs an lstat per path component; read opens are
 * the hottest calls a build makes.)
 *
 * Why it is sound: for a pattern to match a path (policy/glob.c), each of
 * its literal leading components must equal the leading components of the
 * path (anchored patterns), or its last component that is not "**" must
 * match some component of the path (all others). The index checks only
 * these necessary conditions, with a first/last character filter in front. */
#ifndef PALDRON_PRELOAD_MATCH_H
#define PALDRON_PRELOAD_MATCH_H

#include <stdbool.h>

#include "policy/policy.h"

struct pd_match;

/* Index c's deny_globs, built-in secrets and protected paths. NULL when out
 * of memory. */
struct pd_match *pd_match_build(const struct pd_ctx *c);

/* Might pd_gate_path(c, op, NULL, abs) deny? abs must be absolute, clean
 * and free of symbolic links. false: it certainly allows. */
bool pd_match_maybe_denied(const struct pd_match *m, const struct pd_ctx *c, enum pd_op op,
                           const char *abs);

#endif
