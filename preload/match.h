/* preload/match.h - the fast path of the file gate: the index of the
 * policy's patterns that the launcher built into the compiled image
 * (policy/compiled_image.h), read in place, proves in a few hundred
 * nanoseconds that pd_gate_path would allow an operation on an already
 * resolved path. It never allows on its own authority what the gate might
 * deny: when it cannot prove "allow", the caller asks pd_gate_path, whose
 * verdict is the decision. (The gate costs an lstat per path component;
 * read opens are the hottest calls a build makes.)
 *
 * Why it is sound: for a pattern to match a path (policy/glob.c), each of
 * its literal leading components must equal the leading components of the
 * path (anchored patterns), or its last component that is not "**" must
 * match some component of the path (all others). The index checks only
 * these necessary conditions, with a first/last character filter in front.
 * Git's protected config and hooks (policy/gate_git.c) are decided by the
 * gate whenever the path ends in such a tail; the policy file, the
 * writable roots and the built-in writable devices (pd_builtin_writable)
 * are compared as the gate compares them. */
#ifndef PALDRON_PRELOAD_MATCH_H
#define PALDRON_PRELOAD_MATCH_H

#include <stdbool.h>

#include "policy/compiled_image.h"
#include "policy/policy.h"

/* Might pd_gate_path(c, op, NULL, abs) deny, c being the context im holds?
 * abs must be absolute, clean and free of symbolic links. false: it
 * certainly allows. Every op that writes (write, create, delete, ...) is
 * asked the same question: the answer differs only for reads and execs. */
bool pd_match_maybe_denied(const struct pd_image *im, enum pd_op op, const char *abs);

#endif
